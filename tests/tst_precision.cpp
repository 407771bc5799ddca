// SPDX-License-Identifier: GPL-3.0-or-later
// Precision variants (issue 17): which nodes can be lowered, the lowered graph and its
// conversions, that it computes what the model computes up to the precision's rounding, the
// output deviation metrics, the variant cells of a cost table and the sensitivity table.
#include "cliprocess.h"
#include "common/cpu_bf16.h"
#include "common/input_error.h"
#include "cost/cost_table.h"
#include "cost/measured_costs.h"
#include "graph/onnx_importer.h"
#include "graph/precision.h"
#include "onnx_fixture.h"
#include "plan/memory_plan.h"
#include "plan/simulator.h"
#include "precision_fixture.h"
#include "profile/output_deviation.h"
#include "profile/plan_validation.h"
#include "store/sample_library.h"
#include "testmodels.h"

#include <QtTest>

#include <onnx/onnx_pb.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <set>

using namespace paretune;
using precision_fixture::fixture;
using precision_fixture::nodeOfType;
using precision_fixture::values;

namespace {

/// A NumPy .npy file of float32 (descr '<f4') or int64 ('<i8') values.
QByteArray npy(const std::vector<std::int64_t>& dims, const std::vector<double>& values,
               const char* descr = "<f4") {
    std::string shape = "(";
    for (const std::int64_t d : dims) {
        shape += std::to_string(d) + ", ";
    }
    shape += ")";
    std::string header =
        "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': " + shape + ", }";
    header.resize(((header.size() + 11 + 63) / 64) * 64 - 11, ' ');
    header += '\n';
    QByteArray bytes("\x93NUMPY\x01\x00", 8);
    bytes.append(static_cast<char>(header.size() & 0xff));
    bytes.append(static_cast<char>(header.size() >> 8));
    bytes.append(header.data(), static_cast<qsizetype>(header.size()));
    for (const double v : values) {
        if (std::string(descr) == "<f4") {
            const auto f = static_cast<float>(v);
            bytes.append(reinterpret_cast<const char*>(&f), 4);
        } else {
            const auto i = static_cast<std::int64_t>(v);
            bytes.append(reinterpret_cast<const char*>(&i), 8);
        }
    }
    return bytes;
}

void writeFile(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(bytes);
}

NamedTensors inputOf(const Graph& g) {
    return randomCalibrationInputs(g, 1, 7).sets.front();
}

} // namespace

class TestPrecision : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void namesAreParsedAndBadOnesRefused() {
        QCOMPARE(parseVariants("bf16"), std::vector<Variant>{Precision::Bf16});
        QCOMPARE(parsePrecision("fp32"), Precision::Fp32);
        QCOMPARE(parsePrecision("fp16"), Precision::Fp16);
        // Layout and threads, and the names back.
        for (const char* name : {"fp32-nhwc", "fp32-t1", "bf16-t2", "fp32-nhwc-t1", "int8-t16"}) {
            QCOMPARE(variantName(parseVariant(name)), std::string(name));
        }
        QCOMPARE(parseVariant("bf16-t2"), (Variant{Precision::Bf16, Layout::Nchw, 2}));
        QCOMPARE(parseVariant("bf16-t2").onDeviceThreads(), Variant{Precision::Bf16});
        const std::pair<const char*, const char*> bad[] = {
            {"fp64", "unknown variant 'fp64': 'fp64' is not a precision (a variant is "
                     "PRECISION[-nhwc][-tN]: a precision, fp32, bf16, fp16, int8;"},
            {"half", "unknown variant 'half'"},
            {"bf16,bf16", "listed twice"},
            {"fp32-t0", "unknown variant 'fp32-t0': threads must be 1 to 255"},
            {"fp32-t999", "unknown variant 'fp32-t999': threads must be 1 to 255"},
            {"fp32-x", "unknown variant 'fp32-x': '-x' is not -nhwc or -tN"},
            {"fp32-t1-nhwc", "unknown variant 'fp32-t1-nhwc': '-t1-nhwc' is not -nhwc or -tN"},
            {"", "unknown variant ''"}};
        for (const auto& [text, message] : bad) {
            try {
                parseVariants(text);
                QFAIL(text);
            } catch (const InputError& e) {
                QVERIFY2(std::string(e.what()).find(message) != std::string::npos, e.what());
            }
        }
    }

    void floatProductsAndTheirNeighboursAreLowerable() {
        const Graph g = fixture();
        QVERIFY(lowerable(g, nodeOfType(g, "Conv"), Precision::Bf16));
        QVERIFY(lowerable(g, nodeOfType(g, "MatMul"), Precision::Bf16));
        QVERIFY(lowerable(g, nodeOfType(g, "Relu"), Precision::Bf16));
        QVERIFY(lowerable(g, nodeOfType(g, "Add"), Precision::Bf16));
        QVERIFY(!lowerable(g, nodeOfType(g, "Relu"), Precision::Int8)); // products only
        QVERIFY(!lowerable(g, nodeOfType(g, "Reshape"), Precision::Bf16));
        QVERIFY(lowerable(g, nodeOfType(g, "Add"), Precision::Fp32));
        const std::vector<Variant> all = lowerAll(g, Precision::Bf16);
        QCOMPARE(std::count(all.begin(), all.end(), Precision::Bf16), 4);
        std::vector<Variant> wrong(g.nodes.size(), Precision::Fp32);
        wrong[static_cast<std::size_t>(nodeOfType(g, "Reshape"))] = Precision::Bf16;
        QVERIFY_THROWS_EXCEPTION(InputError, lowerGraph(g, wrong));
        QVERIFY_THROWS_EXCEPTION(InputError, lowerGraph(g, std::vector<Variant>(2)));
    }

    void loweredNodesReadAndWriteThroughConversions() {
        const Graph g = fixture();
        std::vector<Variant> precisions(g.nodes.size(), Precision::Fp32);
        precisions[static_cast<std::size_t>(nodeOfType(g, "Conv"))] = Precision::Bf16;
        precisions[static_cast<std::size_t>(nodeOfType(g, "MatMul"))] = Precision::Bf16;
        const LoweredGraph lowered = lowerGraph(g, precisions);
        const Graph& l = lowered.graph;
        const NodeId conv = nodeOfType(g, "Conv");
        const auto& parts = lowered.parts[static_cast<std::size_t>(conv)];
        // The convolution, the Cast of its activation input, the Cast of its output back.
        QCOMPARE(parts.size(), std::size_t{3});
        const Node& lc = l.nodes[static_cast<std::size_t>(parts[0])];
        QCOMPARE(lc.opType, std::string("Conv"));
        QCOMPARE(lc.name, g.nodes[static_cast<std::size_t>(conv)].name);
        for (const TensorId t : l.nodeInputs.row(parts[0])) {
            QCOMPARE(l.tensors[static_cast<std::size_t>(t)].dtype, DType::BFloat16);
        }
        QCOMPARE(l.nodes[static_cast<std::size_t>(parts[1])].opType, std::string("Cast"));
        QCOMPARE(l.nodes[static_cast<std::size_t>(parts[2])].name, lc.name + "/to_fp32_0");
        // The weights are converted once (Constant-kind nodes cost nothing per run).
        int weightCasts = 0;
        for (const Node& n : l.nodes) {
            weightCasts += n.opType == "Cast" && n.kind == NodeKind::Constant ? 1 : 0;
        }
        QCOMPARE(weightCasts, 3); // w, b, m
        // Nodes that stay keep only themselves; the graph's outputs keep their names and type.
        QCOMPARE(lowered.parts[static_cast<std::size_t>(nodeOfType(g, "Relu"))].size(),
                 std::size_t{1});
        QCOMPARE(l.tensors[static_cast<std::size_t>(l.outputs[0])].name, std::string("y"));
        QCOMPARE(l.tensors[static_cast<std::size_t>(l.outputs[0])].dtype, DType::Float32);
        QCOMPARE(lowered.origin.size(), l.nodes.size());
        QVERIFY(l.opset >= 13);
        // Its conversions: the Cast in, then the Cast out.
        const auto& conversions = lowered.conversions[static_cast<std::size_t>(conv)];
        QCOMPARE(conversions.size(), std::size_t{2});
        QCOMPARE(conversions[0].node, parts[1]);
        QCOMPARE(g.tensors[static_cast<std::size_t>(conversions[0].tensor)].name, std::string("x"));
        QVERIFY(!conversions[0].output);
        QCOMPARE(conversions[1].node, parts[2]);
        QCOMPARE(g.tensors[static_cast<std::size_t>(conversions[1].tensor)].name, std::string("v"));
        QVERIFY(conversions[1].output);
    }

    void theLoweredGraphComputesTheModelUpToRounding() {
        const Graph g = fixture();
        const LoweredGraph lowered = lowerGraph(g, lowerAll(g, Precision::Bf16));
        const NamedTensors input = inputOf(g);
        const OutputDeviation d =
            compareOutputs({executeGraph(g, input)}, {executeGraph(lowered.graph, input)});
        // bf16 keeps 8 bits of mantissa: a relative error of about 2^-9 per rounding.
        QVERIFY2(d.relativeL2Pct > 0.0, "bf16 changed nothing");
        QVERIFY2(d.relativeL2Pct < 3.0, std::to_string(d.relativeL2Pct).c_str());
        QVERIFY(d.minCosine > 0.999);
        // The paired graph (what profiling runs) keeps the model's outputs exactly.
        const PairedVariants paired = appendLoweredNodes(g, Precision::Bf16);
        const OutputDeviation same =
            compareOutputs({executeGraph(g, input)}, {executeGraph(paired.paired.graph, input)});
        QCOMPARE(same.relativeL2Pct, 0.0);
        QCOMPARE(paired.paired.parts[static_cast<std::size_t>(nodeOfType(g, "Conv"))].size(),
                 std::size_t{3});
        QCOMPARE(paired.paired.parts[static_cast<std::size_t>(nodeOfType(g, "Relu"))].size(),
                 std::size_t{3});
        // Older libraries' pairs: the products only.
        const PairedVariants older =
            appendLoweredNodes(g, Precision::Bf16, nullptr, int8InputLevels(), true);
        QVERIFY(older.paired.parts[static_cast<std::size_t>(nodeOfType(g, "Relu"))].empty());
        QVERIFY(older.paired.graph.fingerprint != paired.paired.graph.fingerprint);
    }

    void deviationMetricsByHand() {
        const auto set = [](std::vector<double> v) {
            HostTensor t;
            t.dtype = DType::Float32;
            t.dims = {1, static_cast<std::int64_t>(v.size())};
            t.values = std::move(v);
            return NamedTensors{{"y", t}};
        };
        // Set 1: (3, 4) against (3, 4): no deviation. Set 2: (0, 1) against (1, 0.5): the
        // arg-max moves, margin 0.5; ‖(−1, 0.5)‖ / ‖(1, 0.5)‖ = 1; cosine 0.5 / √1.25.
        const OutputDeviation d =
            compareOutputs({set({3, 4}), set({1, 0.5})}, {set({3, 4}), set({0, 1})});
        QCOMPARE(d.sets, 2);
        QVERIFY(std::abs(d.relativeL2Pct - 50.0) < 1e-9);
        QVERIFY(std::abs(d.minCosine - 0.5 / std::sqrt(1.25)) < 1e-12);
        QVERIFY(d.top1Agreement.has_value());
        QCOMPARE(*d.top1Agreement, 0.5);
        QCOMPARE(d.top1Misses, 1);
        QCOMPARE(d.largestMissMargin, 0.5);
        QCOMPARE(d.medianTop1Margin, (1.0 + 0.5) / 2.0); // margins 4 − 3 and 1 − 0.5
        QVERIFY_THROWS_EXCEPTION(InputError, compareOutputs({set({1})}, {}));
        QVERIFY_THROWS_EXCEPTION(InputError, compareOutputs({set({1, 2})}, {set({1})}));
    }

    void variantCellsAddTheirPartsAndTakeTheWeakestSource() {
        const Graph g = fixture();
        CostTable table(static_cast<std::int32_t>(g.nodes.size()), {{"cpu:0", "cpu", 5, 1, 1e9}},
                        0);
        table.setVariants({Precision::Fp32, Precision::Bf16});
        QCOMPARE(table.columnCount(), 2);
        QVERIFY_THROWS_EXCEPTION(InputError, table.setVariants({Precision::Bf16}));
        const NodeId matmul = nodeOfType(g, "MatMul");
        const VariantCellCount count =
            fillVariantCells(table, g, [&](CostTable& t, const Graph& l) {
                for (std::size_t n = 0; n < l.nodes.size(); ++n) {
                    if (l.nodes[n].kind != NodeKind::Compute) {
                        continue;
                    }
                    CostCell cell;
                    cell.latencyUs = l.nodes[n].opType == "Cast" ? 1.0 : 10.0;
                    cell.energyUj = 2.0;
                    cell.workspaceBytes = static_cast<std::int64_t>(n);
                    // The MatMul's output conversion only predicted.
                    const bool predicted =
                        l.nodes[n].name ==
                        g.nodes[static_cast<std::size_t>(matmul)].name + "/to_fp32_0";
                    cell.source = predicted ? CostSource::Predicted : CostSource::Measured;
                    t.setCell(static_cast<NodeId>(n), 0, cell);
                }
            });
        const NodeId conv = nodeOfType(g, "Conv");
        const CostCell& c = table.cell(conv, 0, 1);
        QCOMPARE(c.latencyUs, 12.0); // 10 + a Cast in + a Cast out
        QCOMPARE(c.energyUj, 6.0);
        QCOMPARE(c.source, CostSource::Measured);
        QCOMPARE(table.cell(matmul, 0, 1).source, CostSource::Predicted);
        QCOMPARE(count.measured, 3); // the Conv, the Relu and the Add
        QCOMPARE(count.predicted, 1);
        QVERIFY(!table.cell(nodeOfType(g, "Reshape"), 0, 1).supported());
        // Each node's Casts in and out, what a chain may save: 1 µs and 2 µJ each.
        QCOMPARE(table.conversions().size(), std::size_t{8});
        for (const ConversionCost& conversion : table.conversions()) {
            QCOMPARE(conversion.variant, 1);
            QCOMPARE(conversion.cells.size(), std::size_t{1});
            QCOMPARE(conversion.cells[0].latencyUs, 1.0);
            QCOMPARE(conversion.cells[0].energyUj, 2.0);
        }
        QVERIFY(!table.cell(conv, 0).supported()); // fp32 cells untouched
    }

    void lowerPrecisionsHoldTheirWeightsNarrower() {
        // The fixture's weights: the Conv's w 4·3·3·3 and b 4 floats, the MatMul's m 144·8,
        // the Add's c 8: 432 + 16 + 4608 + 32 = 5088 bytes in fp32.
        const Graph g = fixture();
        CostTable table(static_cast<std::int32_t>(g.nodes.size()), {{"cpu:0", "cpu", 5, 1, 1e9}},
                        0);
        table.setVariants({Precision::Fp32, Precision::Bf16, Precision::Int8});
        const NodeId conv = nodeOfType(g, "Conv");
        const NodeId matmul = nodeOfType(g, "MatMul");
        CostCell cell;
        cell.latencyUs = 1.0;
        cell.source = CostSource::Measured;
        for (std::size_t n = 0; n < g.nodes.size(); ++n) {
            if (g.nodes[n].kind == NodeKind::Compute) {
                table.setCell(static_cast<NodeId>(n), 0, 0, cell);
            }
        }
        table.setCell(conv, 0, 1, cell);
        table.setCell(matmul, 0, 1, cell);
        table.setCell(conv, 0, 2, cell);
        Simulator sim(g, table);
        auto weighed = [&](std::int32_t convVariant, std::int32_t matmulVariant) {
            std::vector<std::uint8_t> genome(static_cast<std::size_t>(sim.computeCount()), 0);
            for (std::int32_t ci = 0; ci < sim.computeCount(); ++ci) {
                const NodeId n = sim.computeNode(ci);
                const std::int32_t v = n == conv ? convVariant : n == matmul ? matmulVariant : 0;
                genome[static_cast<std::size_t>(ci)] = static_cast<std::uint8_t>(sim.column(0, v));
            }
            const Plan plan = sim.planOf(genome);
            const SimulationResult result = sim.simulate(plan, true);
            const MemoryPlan memory = buildMemoryPlan(g, table, plan, result);
            return std::pair{result.objectives.peakMemoryBytes, memory.devices[0].weightsBytes};
        };
        const auto [fp32Peak, fp32Weights] = weighed(0, 0);
        QCOMPARE(fp32Weights, std::int64_t{5088});
        // bf16: the Conv's w and b and the MatMul's m in 2 bytes: 216 + 8 + 2304 + 32.
        const auto [bf16Peak, bf16Weights] = weighed(1, 1);
        QCOMPARE(bf16Weights, std::int64_t{2560});
        QCOMPARE(fp32Peak - bf16Peak, 5088.0 - 2560.0);
        // int8: the Conv's w in 1 byte with a scale and a zero point per channel (108 + 4 · 5),
        // its bias in int32 as in float32: 128 + 16 + 4608 + 32.
        const auto [int8Peak, int8Weights] = weighed(2, 0);
        QCOMPARE(int8Weights, std::int64_t{4784});
        QCOMPARE(fp32Peak - int8Peak, 5088.0 - 4784.0);
    }

    void sensitivitiesComeFromTheLibraryOrTheNodeStaysFp32() {
        const Graph g = fixture();
        QTemporaryDir dir;
        SampleLibrary library =
            SampleLibrary::open(dir.filePath(QStringLiteral("s.db")).toStdString());
        library.upsertGraph(g);
        const NodeId conv = nodeOfType(g, "Conv");
        const NodeId matmul = nodeOfType(g, "MatMul");
        const std::string key = randomInputsKey(1, 4);
        library.addSensitivities(std::vector<SensitivityRecord>{
            {g.fingerprint, g.nodes[static_cast<std::size_t>(conv)].name, "bf16", key, 0.25, {}}});
        // Stored again: replaced, not added.
        library.addSensitivities(std::vector<SensitivityRecord>{
            {g.fingerprint, g.nodes[static_cast<std::size_t>(conv)].name, "bf16", key, 0.5, {}}});
        QCOMPARE(library.sensitivities(g.fingerprint, "bf16", key).size(), std::size_t{1});
        QVERIFY_THROWS_EXCEPTION(InputError,
                                 library.addSensitivities(std::vector<SensitivityRecord>{
                                     {g.fingerprint, "v", "bf16", key, -1.0, {}}}));
        QVERIFY_THROWS_EXCEPTION(InputError,
                                 library.addSensitivities(std::vector<SensitivityRecord>{
                                     {std::string(64, 'a'), "v", "bf16", key, 1.0, {}}}));
        CostTable table(static_cast<std::int32_t>(g.nodes.size()), {{"cpu:0", "cpu", 5, 1, 1e9}},
                        0);
        table.setVariants({Precision::Fp32, Precision::Bf16});
        CostCell cell;
        cell.latencyUs = 1.0;
        cell.source = CostSource::Measured;
        table.setCell(conv, 0, 1, cell);
        table.setCell(matmul, 0, 1, cell);
        QCOMPARE(applySensitivities(table, g, library, key), 1);
        QCOMPARE(table.cell(conv, 0, 1).deviationPct, 0.5);
        QVERIFY(!table.cell(matmul, 0, 1).supported());
    }

    void sensitivityIsMeasuredPerNode() {
        const Graph g = fixture();
        const CalibrationInputs inputs = randomCalibrationInputs(g, 2, 3);
        QCOMPARE(inputs.key, std::string("random:3:2"));
        QVERIFY_THROWS_EXCEPTION(InputError, randomCalibrationInputs(g, 0, 3));
        const std::vector<SensitivityRecord> rows =
            measureSensitivity(g, Precision::Bf16, inputs, ExecutionDevice{});
        QCOMPARE(rows.size(), std::size_t{4});
        for (const SensitivityRecord& r : rows) {
            QCOMPARE(r.precision, std::string("bf16"));
            QCOMPARE(r.inputs, inputs.key);
            QVERIFY2(r.deviationPct > 0.0 && r.deviationPct < 3.0, r.nodeName.c_str());
        }
    }

    // Token ids (an integer input that only indexes a table) are drawn per set over the table's
    // rows; a mask read by arithmetic is left to the executor; the float input keeps the values
    // the same seed gives without ids.
    void randomInputsDrawIndicesOverTheirTable() {
        std::string table;
        for (int i = 0; i < 40; ++i) {
            table += (i == 0 ? "" : ", ") + std::to_string(i);
        }
        const std::string nodes = "{ s = Shape(ids)\n y = Gather(table, ids)\n"
                                  " m = Cast<to = 1>(mask)\n z = Mul(x, m)\n }";
        const Graph g = onnxFixture(
            "(int64[1,6] ids, int64[1,6] mask, float[1,6] x) => (float[1,6,4] y, float[1,6] z) "
            "<float[10,4] table = {" +
            table + "}> " + nodes);
        const Graph floatOnly =
            onnxFixture("(int64[1,6] mask, float[1,6] x) => (float[1,6] z) " +
                        std::string("{ m = Cast<to = 1>(mask)\n z = Mul(x, m)\n }"));
        const CalibrationInputs inputs = randomCalibrationInputs(g, 5, 3);
        QCOMPARE(inputs.key, std::string("random:3:5:indices"));
        QCOMPARE(inputs.sets.size(), std::size_t{5});
        const CalibrationInputs without = randomCalibrationInputs(floatOnly, 5, 3);
        QCOMPARE(without.key, std::string("random:3:5"));
        std::set<std::vector<double>> distinct;
        for (std::size_t k = 0; k < inputs.sets.size(); ++k) {
            const NamedTensors& set = inputs.sets[k];
            QVERIFY(!set.contains("mask"));
            const HostTensor& ids = set.at("ids");
            QCOMPARE(ids.dtype, DType::Int64);
            QCOMPARE(ids.dims, (std::vector<std::int64_t>{1, 6}));
            for (const double v : ids.values) {
                QVERIFY(v >= 0 && v < 10 && v == std::floor(v));
            }
            distinct.insert(ids.values);
            QCOMPARE(set.at("x").values, without.sets[k].at("x").values);
        }
        QVERIFY(distinct.size() > 1);
        // Drawn again from the same seed: the same sets.
        QCOMPARE(randomCalibrationInputs(g, 5, 3).sets.back().at("ids").values,
                 inputs.sets.back().at("ids").values);
        // The model runs on them.
        const std::vector<NamedTensors> outputs = runOnSets(g, inputs, ExecutionDevice{});
        QCOMPARE(outputs.size(), std::size_t{5});
        const HostTensor& y = outputs.front().at("y");
        QCOMPARE(y.values[0], 4 * inputs.sets.front().at("ids").values[0]);
    }

    void aPlanWithVariantsRunsItsLoweredGraphAndMeasuresItsDeviation() {
        const Graph g = fixture();
        QTemporaryDir dir;
        SampleLibrary library =
            SampleLibrary::open(dir.filePath(QStringLiteral("s.db")).toStdString());
        PlanToValidate plan = precision_fixture::planOnCpu0(g, Precision::Bf16);
        plan.plannedDeviationPct = 0.5;
        const ValidationOptions options = precision_fixture::quickValidation();
        const PlanValidation report = validatePlan(g, plan, library, options);
        QVERIFY(report.accuracy.has_value());
        const ValidatedAccuracy& a = *report.accuracy;
        QCOMPARE(a.sets, 3);
        QCOMPARE(a.inputs, std::string("random:2:3"));
        QVERIFY(a.randomInputs);
        QVERIFY2(a.deviationPct > 0.0 && a.deviationPct < 3.0,
                 std::to_string(a.deviationPct).c_str());
        QVERIFY(a.minCosine > 0.999);
        QVERIFY(a.errorPoints.has_value());
        QCOMPARE(*a.errorPoints, 0.5 - a.deviationPct);
        // The report names the model's nodes, each once; the conversions are in their node's row.
        std::vector<NodeId> nodes;
        for (const ValidatedNode& n : report.nodes) {
            nodes.push_back(n.node);
            QVERIFY(n.node >= 0 && static_cast<std::size_t>(n.node) < g.nodes.size());
            QVERIFY(n.measuredUs > 0.0);
        }
        QVERIFY(std::is_sorted(nodes.begin(), nodes.end()));
        QVERIFY(std::adjacent_find(nodes.begin(), nodes.end()) == nodes.end());
        QVERIFY(std::find(nodes.begin(), nodes.end(), nodeOfType(g, "Conv")) != nodes.end());
        QVERIFY(report.objectivesJson()["accuracy"]["note"].get<std::string>().find("random") !=
                std::string::npos);
        // The same placement in fp32: no deviation to measure.
        plan.variants.clear();
        QVERIFY(!validatePlan(g, plan, library, options).accuracy.has_value());
    }

    void calibrationInputsAreReadFromNpyAndPbFiles() {
        const Graph g = fixture();
        QTemporaryDir dir;
        const QString x = dir.path() + QStringLiteral("/x.npy");
        std::vector<double> values(2 * 108);
        for (std::size_t i = 0; i < values.size(); ++i) {
            values[i] = static_cast<double>(i % 7) * 0.25 - 0.5;
        }
        writeFile(x, npy({2, 1, 3, 6, 6}, values));
        const CalibrationInputs two = readCalibrationInputs(g, dir.path().toStdString());
        QCOMPARE(two.sets.size(), std::size_t{2});
        QVERIFY(!two.random);
        QVERIFY(two.key.rfind("files:", 0) == 0);
        QCOMPARE(two.sets[1].at("x").values[0], values[108]);
        QCOMPARE(two.sets[0].at("x").dims, (std::vector<std::int64_t>{1, 3, 6, 6}));
        // One set in the input's own shape, as a TensorProto.
        QFile::remove(x);
        onnx::TensorProto proto;
        proto.set_data_type(onnx::TensorProto::FLOAT);
        for (const std::int64_t d : {1, 3, 6, 6}) {
            proto.add_dims(d);
        }
        for (int i = 0; i < 108; ++i) {
            proto.add_float_data(0.125f * static_cast<float>(i % 5));
        }
        std::string bytes;
        proto.SerializeToString(&bytes);
        writeFile(dir.path() + QStringLiteral("/x.pb"),
                  QByteArray(bytes.data(), static_cast<qsizetype>(bytes.size())));
        const CalibrationInputs one = readCalibrationInputs(g, dir.path().toStdString());
        QCOMPARE(one.sets.size(), std::size_t{1});
        QCOMPARE(one.sets[0].at("x").values[3], 0.375);
        QVERIFY(one.key != two.key);
        QFile::remove(dir.path() + QStringLiteral("/x.pb"));
        // Refusals name the file and the expected type and shape.
        const std::pair<QByteArray, const char*> bad[] = {
            {npy({1, 3, 6, 5}, std::vector<double>(90)), "expected float32[1,3,6,6]"},
            {npy({1, 3, 6, 6}, std::vector<double>(108), "<i8"), "element type int64"},
            {npy({1, 3, 6, 6}, std::vector<double>(10)), "truncated"},
            {QByteArray("not numpy"), "not a NumPy"}};
        for (const auto& [content, message] : bad) {
            writeFile(x, content);
            try {
                readCalibrationInputs(g, dir.path().toStdString());
                QFAIL(message);
            } catch (const InputError& e) {
                QVERIFY2(std::string(e.what()).find(message) != std::string::npos, e.what());
                QVERIFY2(std::string(e.what()).find("x.npy") != std::string::npos, e.what());
            }
        }
        QFile::remove(x);
        try {
            readCalibrationInputs(g, dir.path().toStdString());
            QFAIL("no file was accepted");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("no file for input 'x'") != std::string::npos,
                     e.what());
        }
        QVERIFY_THROWS_EXCEPTION(
            InputError,
            readCalibrationInputs(g, dir.filePath(QStringLiteral("none")).toStdString()));
    }

    void aRealModelInBf16StaysCloseToFp32() {
        const QString path = testModelPath(QStringLiteral("resnet18"));
        if (!QFile::exists(path)) {
            QSKIP("resnet18.onnx not exported (tools/export_models.py)");
        }
        const Graph g = importOnnxFile(path.toStdString()).graph;
        const LoweredGraph lowered = lowerGraph(g, lowerAll(g, Precision::Bf16));
        const CalibrationInputs inputs = randomCalibrationInputs(g, 1, 5);
        const OutputDeviation d =
            compareOutputs(runOnSets(g, inputs, ExecutionDevice{}),
                           runOnSets(lowered.graph, inputs, ExecutionDevice{}));
        qInfo("ResNet-18 all Conv/Gemm in bf16: relative L2 %.3f %%, cosine %.6f", d.relativeL2Pct,
              d.minCosine);
        QVERIFY(d.relativeL2Pct > 0.0);
        QVERIFY2(d.minCosine > 0.99, std::to_string(d.minCosine).c_str());
    }

    // bf16 convolutions run channels-last where the CPU computes bf16 natively (CPUID); the
    // kernel's flags in /proc/cpuinfo say the same.
    void bf16ConvolutionsFollowTheCpu() {
        QFile cpuinfo(QStringLiteral("/proc/cpuinfo"));
        if (!cpuinfo.open(QIODevice::ReadOnly)) {
            QSKIP("/proc/cpuinfo is not readable here");
        }
        QStringList flags;
        for (const QByteArray& line : cpuinfo.readAll().split('\n')) {
            if (line.startsWith("flags")) {
                flags =
                    QString::fromLatin1(line.mid(line.indexOf(':') + 1)).split(QLatin1Char(' '));
                break;
            }
        }
        if (flags.isEmpty()) {
            QSKIP("/proc/cpuinfo lists no x86 flags");
        }
        const bool native = flags.contains(QStringLiteral("avx512f")) &&
                            (flags.contains(QStringLiteral("avx512_bf16")) ||
                             flags.contains(QStringLiteral("amx_bf16")));
        QCOMPARE(cpuComputesBf16Natively(), native);
        QCOMPARE(std::string(loweredConvolutionLayout()),
                 std::string(native ? "channels-last" : "nchw"));
    }

    void profileMeasuresVariantsAndTheSensitivityTable() {
        const QString model = testModelPath(QStringLiteral("tiny_cnn"));
        if (!QFile::exists(model)) {
            QSKIP("tiny_cnn.onnx not exported (tools/export_models.py)");
        }
        QTemporaryDir dir;
        const QString db = dir.path() + QStringLiteral("/s.db");
        const QStringList base = {
            QStringLiteral("profile"), model, QStringLiteral("--device"),  QStringLiteral("cpu:0"),
            QStringLiteral("--db"),    db,    QStringLiteral("--repeats"), QStringLiteral("2")};
        const CliRun run =
            runParetune(base + QStringList{QStringLiteral("--variants"), QStringLiteral("bf16"),
                                           QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const nlohmann::json doc = nlohmann::json::parse(run.out.toStdString());
        QVERIFY(!doc["variants"].empty());
        for (const nlohmann::json& v : doc["variants"]) {
            QCOMPARE(v["precision"].get<std::string>(), std::string("bf16"));
            QVERIFY2(v["status"] == "ok", v.dump().c_str());
            QVERIFY(v["latency_us"].get<double>() > 0.0);
        }
        // Nodes of one signature are measured once (the others reuse it).
        QVERIFY(doc["measured_variants"].get<std::size_t>() >= 1);
        QVERIFY(doc["measured_variants"].get<std::size_t>() <= doc["variants"].size());
        QCOMPARE(doc["sensitivity_measured"].get<std::size_t>(), doc["variants"].size());
        const Graph g = importOnnxFile(model.toStdString()).graph;
        {
            const SampleLibrary library = SampleLibrary::open(db.toStdString());
            QCOMPARE(library.sensitivities(g.fingerprint, "bf16", randomInputsKey(1, 4)).size(),
                     doc["variants"].size());
            // Each lowered node's sample records its precision and the pairing with fp32.
            int lowered = 0;
            for (const Sample& s : library.samples()) {
                const nlohmann::json config = nlohmann::json::parse(s.configJson);
                if (config.contains("variant_pair")) {
                    QCOMPARE(config["precision"].get<std::string>(), std::string("bf16"));
                    ++lowered;
                }
                QCOMPARE(config.value("lowered_convolutions", std::string()),
                         std::string(loweredConvolutionLayout()));
            }
            QVERIFY(lowered >= static_cast<int>(doc["variants"].size()));
        }
        // Again: everything reused, nothing measured twice.
        const CliRun again =
            runParetune(base + QStringList{QStringLiteral("--variants"), QStringLiteral("bf16"),
                                           QStringLiteral("--json")});
        QVERIFY2(again.exitCode == 0, again.err.constData());
        const nlohmann::json second = nlohmann::json::parse(again.out.toStdString());
        QCOMPARE(second["measured_variants"].get<int>(), 0);
        QCOMPARE(second["sensitivity_measured"].get<int>(), 0);
        // Bad names: exit 2, the name in the message.
        for (const char* bad : {"fp8", "bf17"}) { // fp16: tst_fp16, by device
            const CliRun refused =
                runParetune(base + QStringList{QStringLiteral("--variants"), QLatin1String(bad)});
            QCOMPARE(refused.exitCode, 2);
            QVERIFY2(refused.err.contains(bad), refused.err.constData());
        }
        // One thread on a one-CPU device is what it runs already: refused before measuring.
        const CliRun oneThread = runParetune(
            base + QStringList{QStringLiteral("--variants"), QStringLiteral("fp32-t1")});
        QCOMPARE(oneThread.exitCode, 2);
        QVERIFY2(oneThread.err.contains("runs on 1 CPU"), oneThread.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestPrecision)
#include "tst_precision.moc"
