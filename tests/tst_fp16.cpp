// SPDX-License-Identifier: GPL-3.0-or-later
// The fp16 variant (issue 17, item 1: "fp16 where a device supports it"): its name, its
// lowering (Casts to float16 around Conv / MatMul / Gemm, the weights converted once) by hand
// and through the ONNX checker, what nodePrecision reads, the weights' size, which devices run
// it (CUDA devices; a CPU only with AVX512-FP16 and LibTorch CPU kernels in float16; catalog
// devices that list a peak), the refusal of `profile --variants fp16` and of `validate` on a CPU
// that cannot, and searches that pick fp16 on a modelled device or leave its cells unsupported.
// GPU execution is in tst_cuda. Nothing here asserts a timing.
#include "cliprocess.h"
#include "onnx_fixture.h"
#include "precision_fixture.h"
#include "testmodels.h"

#include "bundle/model_partitioner.h"
#include "common/input_error.h"
#include "cost/cost_table.h"
#include "cost/device_catalog.h"
#include "device/device.h"
#include "graph/precision.h"
#include "graph/precision_bytes.h"
#include "plan/simulator.h"
#include "profile/graph_executor.h"
#include "profile/output_deviation.h"
#include "profile/precision_support.h"
#include "search/baselines.h"
#include "search/pareto_search.h"
#include "store/sample_library.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <onnx/defs/parser.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <limits>

using namespace paretune;
using precision_fixture::nodeOfType;
using precision_fixture::values;

namespace {

/// The fixture of the precision tests with a Gemm after the MatMul: all but the Reshape can run
/// in fp16.
const std::string kModel = "(float[1,3,6,6] x) => (float[1,4] y) <float[4,3,3,3] w = {" +
                           values(108, 0.8) + "}, float[4] b = {" + values(4) +
                           "}, float[144,8] m = {" + values(1152, 0.2) + "}, float[8] c = {" +
                           values(8) + "}, float[8,4] g = {" + values(32, 0.5) +
                           "}, float[4] h = {" + values(4) +
                           "}, int64[2] shape = {1, 144}> {\n"
                           "  v = Conv <pads = [1, 1, 1, 1]> (x, w, b)\n"
                           "  r = Relu (v)\n"
                           "  f = Reshape (r, shape)\n"
                           "  p = MatMul (f, m)\n"
                           "  q = Add (p, c)\n"
                           "  y = Gemm (q, g, h)\n"
                           "}";

Graph model() {
    return onnxFixture(kModel);
}

/// The same model as a serialized ModelProto.
std::string modelBytes() {
    onnx::ModelProto proto;
    const auto status = onnx::OnnxParser::Parse(
        proto, ("<ir_version: 8, opset_import: [\"\" : 13]>\ng " + kModel).c_str());
    if (!status.IsOK()) {
        qFatal("%s", status.ErrorMessage().c_str());
    }
    std::string bytes;
    proto.SerializeToString(&bytes);
    return bytes;
}

std::int64_t castTarget(const Node& n) {
    for (const Attribute& a : n.attributes) {
        if (a.name == "to") {
            return a.i;
        }
    }
    return -1;
}

Device fakeCpu(bool avx512fp16) {
    Device d;
    d.id = "cpu:0";
    d.kind = "cpu";
    d.name = "Test CPU";
    d.cpus = {0};
    d.cores = 1;
    d.avx512f = true;
    d.avx512fp16 = avx512fp16;
    return d;
}

const Device& realCpu0() {
    static const DeviceInventory inventory = discoverDevices();
    const Device* d = inventory.find("cpu:0");
    if (d == nullptr) {
        qFatal("no cpu:0 on this machine");
    }
    return *d;
}

/// A slow cpu host that runs bf16 only, and an npu whose fp16 peak is five times its bf16 one.
const char* kFp16Catalog = R"({"schema": "paretune.devices/1", "host": "cpu", "devices": [
  {"id": "cpu", "kind": "cpu", "peak_gflops": 20, "mem_bw_gbs": 40, "launch_us": 2,
   "active_w": 65, "idle_w": 8, "memory_mb": 16384,
   "precisions": {"bf16": {"peak_gflops": 40}}},
  {"id": "npu", "kind": "npu", "peak_gflops": 100, "mem_bw_gbs": 1000, "launch_us": 1,
   "active_w": 5, "idle_w": 0.5, "memory_mb": 1024,
   "efficiency": {"default": 0.1, "ops": {"Conv": 1.0, "MatMul": 1.0, "Gemm": 1.0}},
   "precisions": {"bf16": {"peak_gflops": 200}, "fp16": {"peak_gflops": 1000}}}],
 "links": [{"a": "cpu", "b": "npu", "bandwidth_gbs": 4, "latency_us": 30, "duplex": "full"}]})";

} // namespace

class TestFp16 : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void nameAndType() {
        QCOMPARE(parsePrecision("fp16"), Precision::Fp16);
        QCOMPARE(precisionName(Precision::Fp16), std::string_view("fp16"));
        QCOMPARE(precisionDType(Precision::Fp16), DType::Float16);
        QCOMPARE(parseVariants("bf16,fp16,int8"),
                 (std::vector<Variant>{Precision::Bf16, Precision::Fp16, Precision::Int8}));
    }

    void loweringByHand() {
        const Graph g = model();
        const std::vector<Variant> all = lowerAll(g, Precision::Fp16);
        QCOMPARE(std::count(all.begin(), all.end(), Precision::Fp16), std::ptrdiff_t{5});
        for (const char* op : {"Conv", "MatMul", "Gemm", "Relu", "Add"}) {
            QVERIFY2(lowerable(g, nodeOfType(g, op), Precision::Fp16), op);
        }
        QVERIFY(!lowerable(g, nodeOfType(g, "Reshape"), Precision::Fp16));
        // The products alone in fp16: each converts its own input and output.
        std::vector<Variant> products(g.nodes.size(), Precision::Fp32);
        for (const char* op : {"Conv", "MatMul", "Gemm"}) {
            products[static_cast<std::size_t>(nodeOfType(g, op))] = Precision::Fp16;
        }
        const LoweredGraph lowered = lowerGraph(g, products);
        const Graph& l = lowered.graph;
        QCOMPARE(lowered.variants, products);
        const auto f16 = static_cast<std::int64_t>(DType::Float16);
        const auto f32 = static_cast<std::int64_t>(DType::Float32);
        for (const char* op : {"Conv", "MatMul", "Gemm"}) {
            const NodeId n = nodeOfType(g, op);
            const auto& parts = lowered.parts[static_cast<std::size_t>(n)];
            // The node, the Cast of its activation to float16, the Cast of its output back.
            QCOMPARE(parts.size(), std::size_t{3});
            const Node& node = l.nodes[static_cast<std::size_t>(parts[0])];
            QCOMPARE(node.opType, std::string(op));
            for (const TensorId t : l.nodeInputs.row(parts[0])) {
                QCOMPARE(l.tensors[static_cast<std::size_t>(t)].dtype, DType::Float16);
            }
            const TensorId out = l.nodeOutputs.row(parts[0])[0];
            QCOMPARE(l.tensors[static_cast<std::size_t>(out)].dtype, DType::Float16);
            const Node& in = l.nodes[static_cast<std::size_t>(parts[1])];
            QCOMPARE(in.opType, std::string("Cast"));
            QCOMPARE(in.kind, NodeKind::Compute);
            QCOMPARE(castTarget(in), f16);
            const Node& back = l.nodes[static_cast<std::size_t>(parts[2])];
            QCOMPARE(back.name, node.name + "/to_fp32_0");
            QCOMPARE(castTarget(back), f32);
            for (const NodeId p : parts) {
                QCOMPARE(nodePrecision(l, p), Precision::Fp16);
            }
        }
        // The weights are stored converted: one Constant-kind Cast each (w, b, m, g, h).
        int weightCasts = 0;
        for (std::size_t n = 0; n < l.nodes.size(); ++n) {
            const Node& node = l.nodes[n];
            if (node.opType == "Cast" && node.kind == NodeKind::Constant) {
                ++weightCasts;
                QCOMPARE(castTarget(node), f16);
                const TensorId t = l.nodeOutputs.row(static_cast<NodeId>(n))[0];
                QVERIFY(l.tensors[static_cast<std::size_t>(t)].name.ends_with("@fp16"));
            }
        }
        QCOMPARE(weightCasts, 5);
        // The rest stays fp32, and so do the graph's outputs.
        const NodeId keptRelu = lowered.parts[static_cast<std::size_t>(nodeOfType(g, "Relu"))][0];
        QCOMPARE(nodePrecision(l, keptRelu), Precision::Fp32);
        QCOMPARE(l.tensors[static_cast<std::size_t>(l.outputs[0])].dtype, DType::Float32);
        QCOMPARE(l.tensors[static_cast<std::size_t>(l.outputs[0])].name, std::string("y"));
        // Profiling's paired graph: the lowered copy beside the node, "NAME@fp16".
        const PairedVariants paired = appendLoweredNodes(g, Precision::Fp16);
        const NodeId conv = nodeOfType(g, "Conv");
        const auto& copy = paired.paired.parts[static_cast<std::size_t>(conv)];
        QCOMPARE(paired.paired.graph.nodes[static_cast<std::size_t>(copy.front())].name,
                 g.nodes[static_cast<std::size_t>(conv)].name + "@fp16");
    }

    void nodePrecisionReadsFloat16() {
        // A model exported in half precision computes in fp16, and is not lowered again.
        const Graph half = onnxFixture(
            "(float16[2,3] a, float16[3,2] b) => (float16[2,2] y) { y = MatMul(a, b) }");
        QCOMPARE(nodePrecision(half, 0), Precision::Fp16);
        QVERIFY(!lowerable(half, 0, Precision::Fp16));
        QVERIFY(!lowerable(half, 0, Precision::Bf16));
        const Graph plain =
            onnxFixture("(float[2,3] a, float[3,2] b) => (float[2,2] y) { y = MatMul(a, b) }");
        QCOMPARE(nodePrecision(plain, 0), Precision::Fp32);
    }

    void loweredGraphName() {
        const Graph g = model();
        const std::string name = paretune::loweredGraphName(g, Precision::Fp16);
        QCOMPARE(name, g.name + " (fp16 " + g.fingerprint.substr(0, 12) + ")");
        QVERIFY(isLoweredGraphName(name, g.fingerprint));
        QCOMPARE(loweredGraphVariant(name, g.fingerprint), std::optional(Precision::Fp16));
        QCOMPARE(loweredGraphVariant(paretune::loweredGraphName(g, Precision::Bf16), g.fingerprint),
                 std::optional(Precision::Bf16));
    }

    void loweredModelPassesTheChecker() {
        const std::string bytes = modelBytes();
        const ModelPartitioner partitioner(ModelBytes{bytes, "fp16 fixture"});
        const Graph& g = partitioner.graph();
        const LoweredGraph lowered = lowerGraph(g, lowerAll(g, Precision::Fp16));
        const std::vector<std::string> devices(g.nodes.size(), "cpu:0");
        const std::vector<Partition> parts = partitioner.partitionLowered(lowered, devices);
        QCOMPARE(parts.size(), std::size_t{1});
        const std::string problem = checkOnnxModel(parts[0].model);
        QVERIFY2(problem.empty(), problem.c_str());
        onnx::ModelProto proto;
        QVERIFY(proto.ParseFromString(parts[0].model));
        int toHalf = 0;
        int toFloat = 0;
        for (const onnx::NodeProto& n : proto.graph().node()) {
            for (const onnx::AttributeProto& a : n.attribute()) {
                if (n.op_type() == "Cast" && a.name() == "to") {
                    toHalf += a.i() == onnx::TensorProto::FLOAT16 ? 1 : 0;
                    toFloat += a.i() == onnx::TensorProto::FLOAT ? 1 : 0;
                }
            }
        }
        // Conv → Relu and MatMul → Add → Gemm are chains: x and f in, r and y back out; the
        // six weights converted once.
        QCOMPARE(toHalf, 2 + 6);
        QCOMPARE(toFloat, 2);
    }

    void weightsWeighTwoBytesAnElement() {
        const Graph g = model();
        const NodeId conv = nodeOfType(g, "Conv");
        const NodeId matmul = nodeOfType(g, "MatMul");
        const NodeId gemm = nodeOfType(g, "Gemm");
        QCOMPARE(loweredWeightBytes(g, conv, 1, Precision::Fp16, 432.0), 216.0); // w: 108
        QCOMPARE(loweredWeightBytes(g, conv, 2, Precision::Fp16, 16.0), 8.0);    // b: 4
        QCOMPARE(loweredWeightBytes(g, conv, 0, Precision::Fp16, 432.0), 432.0); // activation
        QCOMPARE(loweredWeightBytes(g, matmul, 1, Precision::Fp16, 4608.0), 2304.0);
        QCOMPARE(loweredWeightBytes(g, gemm, 2, Precision::Fp16, 16.0), 8.0); // h: 4
        QCOMPARE(loweredWeightBytes(g, conv, 1, Precision::Fp32, 432.0), 432.0);
    }

    void whichDevicesRunFp16() {
        // A CPU without float16 arithmetic: refused by name, saying why.
        const std::string lacks = precisionRefusal(fakeCpu(false), Precision::Fp16);
        QVERIFY2(lacks.find("device 'cpu:0' (Test CPU)") != std::string::npos &&
                     lacks.find("AVX512-FP16") != std::string::npos &&
                     lacks.find("lacks") != std::string::npos,
                 lacks.c_str());
        for (const Precision p : {Precision::Fp32, Precision::Bf16, Precision::Int8}) {
            QVERIFY(precisionRefusal(fakeCpu(false), p).empty());
        }
        // CUDA devices run fp16 (and bf16), not int8.
        Device gpu;
        gpu.id = "cuda:0";
        gpu.kind = "gpu";
        gpu.cudaIndex = 0;
        QVERIFY(precisionRefusal(gpu, Precision::Fp16).empty());
        QVERIFY(precisionRefusal(gpu, Precision::Bf16).empty());
        QVERIFY(precisionRefusal(gpu, Precision::Int8).find("CPU devices only") !=
                std::string::npos);
        // A modelled device is its catalog's business.
        Device npu;
        npu.id = "npu";
        npu.kind = "npu";
        npu.tag = DeviceTag::Modelled;
        QVERIFY(precisionRefusal(npu, Precision::Fp16).empty());
    }

    void theKernelProbeAgreesWithExecution() {
        // A CPU with AVX512-FP16 runs fp16 exactly when LibTorch's CPU kernels run the lowered
        // graph: the probe (tiny tensors, once) says what executing the graph finds.
        const Graph g = model();
        const LoweredGraph lowered = lowerGraph(g, lowerAll(g, Precision::Fp16));
        const NamedTensors inputs = randomCalibrationInputs(g, 1, 7).sets.front();
        std::string failure;
        try {
            const NamedTensors out = executeGraph(lowered.graph, inputs);
            const OutputDeviation d = compareOutputs({executeGraph(g, inputs)}, {out});
            QVERIFY2(d.relativeL2Pct < 1.0, std::to_string(d.relativeL2Pct).c_str());
        } catch (const std::exception& e) {
            failure = e.what();
        }
        const std::string probe = torchCpuHalfRefusal();
        QVERIFY2(probe.empty() == failure.empty(), (probe + " / " + failure).c_str());
        const Device& cpu0 = realCpu0();
        const std::string refusal = precisionRefusal(cpu0, Precision::Fp16);
        QCOMPARE(refusal.empty(), cpu0.avx512fp16 && probe.empty());
        if (cpu0.avx512fp16 && !probe.empty()) {
            QVERIFY2(refusal.find("its CPU has AVX512-FP16, but " + probe) != std::string::npos,
                     refusal.c_str());
        }
        qInfo("cpu:0 fp16: %s", refusal.empty() ? "runs" : refusal.c_str());
    }

    void profileRefusesFp16WhereTheCpuCannot() {
        const std::string refusal = precisionRefusal(realCpu0(), Precision::Fp16);
        if (refusal.empty()) {
            QSKIP("this machine's cpu:0 runs fp16");
        }
        const QString path = testModelPath(QStringLiteral("tiny_cnn"));
        if (!QFile::exists(path)) {
            QSKIP("tiny_cnn.onnx not exported (tools/export_models.py)");
        }
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("s.db"));
        for (const char* variants : {"fp16", "bf16,fp16"}) {
            const CliRun run = runParetune(
                {QStringLiteral("profile"), path, QStringLiteral("--device"),
                 QStringLiteral("cpu:0"), QStringLiteral("--db"), db, QStringLiteral("--variants"),
                 QString::fromLatin1(variants), QStringLiteral("--json")});
            QCOMPARE(run.exitCode, 2);
            QVERIFY2(run.err.contains(QByteArray::fromStdString(refusal)), run.err.constData());
            QVERIFY2(run.out.isEmpty(), run.out.constData()); // nothing measured, nothing shown
        }
    }

    void validateRefusesFp16WhereTheCpuCannot() {
        // A plan with fp16 nodes on cpu:0 (a plans file from another machine): refused by node
        // and device before anything runs.
        const std::string refusal = precisionRefusal(realCpu0(), Precision::Fp16);
        if (refusal.empty()) {
            QSKIP("this machine's cpu:0 runs fp16");
        }
        const Graph g = model();
        QTemporaryDir dir;
        SampleLibrary library =
            SampleLibrary::open(dir.filePath(QStringLiteral("s.db")).toStdString());
        const PlanToValidate plan = precision_fixture::planOnCpu0(g, Precision::Fp16);
        try {
            validatePlan(g, plan, library, precision_fixture::quickValidation());
            QFAIL("an fp16 plan on cpu:0 was validated");
        } catch (const InputError& e) {
            const std::string what = e.what();
            QVERIFY2(what.find("plan 0: node '" +
                               g.nodes[static_cast<std::size_t>(nodeOfType(g, "Conv"))].name +
                               "' runs in fp16 on cpu:0: " + refusal) != std::string::npos,
                     e.what());
        }
    }

    void searchPicksFp16OnAModelledDevice() {
        const Graph g = importOnnxFile(PARETUNE_SAMPLE_MODEL).graph;
        CostTableOptions options;
        options.variants = {Precision::Bf16, Precision::Fp16};
        CostTable table = buildCostTable(g, parseDeviceCatalogText(kFp16Catalog, "fp16 catalog"),
                                         {"cpu", "npu"}, options);
        const std::int32_t fp16 = table.findVariant(Precision::Fp16);
        const std::int32_t bf16 = table.findVariant(Precision::Bf16);
        const std::int32_t cpu = table.findDevice("cpu");
        const std::int32_t npu = table.findDevice("npu");
        QVERIFY(fp16 > 0 && bf16 > 0);
        int cells = 0;
        for (NodeId n = 0; n < table.nodeCount(); ++n) {
            const bool compute = g.nodes[static_cast<std::size_t>(n)].kind == NodeKind::Compute;
            const CostCell& half = table.cell(n, npu, fp16);
            QCOMPARE(half.supported(), compute && lowerable(g, n, Precision::Fp16));
            QVERIFY(!compute || !table.cell(n, cpu, fp16).supported()); // the cpu lists none
            if (compute && half.supported()) {
                QCOMPARE(half.source, CostSource::Modelled);
                QVERIFY(half.latencyUs <= table.cell(n, npu, bf16).latencyUs);
                ++cells;
            }
            for (std::int32_t d = 0; d < table.deviceCount(); ++d) {
                for (const std::int32_t v : {bf16, fp16}) {
                    CostCell cell = table.cell(n, d, v);
                    if (cell.supported()) {
                        cell.deviationPct = 0.1; // as a sensitivity table would give it
                        table.setCell(n, d, v, cell);
                    }
                }
            }
        }
        QVERIFY(cells > 0);
        Simulator sim(g, table);
        SearchOptions search;
        search.objectives = {Objective::Latency, Objective::Accuracy};
        search.variants = {Precision::Bf16, Precision::Fp16};
        search.population = 40;
        search.generations = 40;
        const SearchResult result = searchPareto(sim, search);
        QVERIFY(!result.front.empty());
        const Solution* fastest = nullptr;
        for (const Solution& s : result.front) {
            if (fastest == nullptr || s.objectives.latencyUs < fastest->objectives.latencyUs) {
                fastest = &s;
            }
        }
        int inFp16 = 0;
        for (std::int32_t ci = 0; ci < sim.computeCount(); ++ci) {
            inFp16 +=
                sim.columnVariant(fastest->genome[static_cast<std::size_t>(ci)]) == fp16 ? 1 : 0;
        }
        QVERIFY2(inFp16 > 0, "the fastest plan runs no node in fp16");
        std::vector<std::string> labels;
        for (const Solution& b : result.baselines) {
            labels.push_back(b.baseline);
        }
        QVERIFY(std::find(labels.begin(), labels.end(), "all:npu:fp16") != labels.end());
        QVERIFY(std::find(labels.begin(), labels.end(), "all:cpu:fp16") == labels.end());
    }

    void searchWithoutFp16CellsStaysFp32() {
        // The example catalog's cpu lists no fp16 peak: offered fp16, the search runs, says so,
        // and every plan stays in fp32.
        const CliRun run = runParetune(
            {QStringLiteral("search"), QStringLiteral(PARETUNE_SAMPLE_MODEL),
             QStringLiteral("--devices"), QStringLiteral("cpu"), QStringLiteral("--catalog"),
             QStringLiteral(PARETUNE_SOURCE_DIR "/resources/catalogs/example.json"),
             QStringLiteral("--variants"), QStringLiteral("fp16"), QStringLiteral("--objectives"),
             QStringLiteral("latency,accuracy"), QStringLiteral("--population"),
             QStringLiteral("16"), QStringLiteral("--generations"), QStringLiteral("5"),
             QStringLiteral("--json")});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.err.contains("fp16: no node can run in it on these devices"),
                 run.err.constData());
        const QJsonDocument doc = QJsonDocument::fromJson(run.out);
        QCOMPARE(doc[QStringLiteral("variants")].toArray(), QJsonArray({QStringLiteral("fp16")}));
        const QJsonArray plans = doc[QStringLiteral("plans")].toArray();
        QVERIFY(!plans.isEmpty());
        for (const QJsonValue& plan : plans) {
            QVERIFY(plan[QStringLiteral("variants")].toObject().isEmpty());
            QCOMPARE(plan[QStringLiteral("deviation_pct")].toDouble(), 0.0);
        }
    }
};

QTEST_GUILESS_MAIN(TestFp16)
#include "tst_fp16.moc"
