// SPDX-License-Identifier: GPL-3.0-or-later
// The predictor's torch-free parts: features of known nodes (their precision among them), splits
// that never leak a held-out pair (nor its lowered and fused graphs) into training, accuracy
// metrics and the roofline baseline.
#include "graph/onnx_importer.h"
#include "graph/precision.h"
#include "precision_fixture.h"
#include "predict/accuracy_metrics.h"
#include "predict/op_features.h"
#include "predict/predictor_dataset.h"
#include "store/graph_records.h"
#include "store/records.h"
#include "store/sample_library.h"
#include "testpaths.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <set>

using namespace paretune;

namespace {

const std::string kModel = R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[1,8,16,16] x, float[16,8,3,3] w, float[8,1,3,3] dw, float[2,32,64] a, float[64,128] b)
    => (float[1,16,8,8] c, float[1,8,16,16] d, float[2,32,128] m) {
  c = Conv<strides = [2,2], pads = [1,1,1,1]>(x, w)
  d = Conv<group = 8, pads = [1,1,1,1]>(x, dw)
  m = MatMul(a, b)
}
)";

/// Convolutions on either side of LibTorch's oneDNN / native (slow_conv2d) rules.
const std::string kConvPaths = R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[1,256,56,56] x, float[64,256,1,1] w1, float[64,256,3,3] w3, float[16,8,8,8] z,
   float[8,8,1,1] wz)
    => (float[1,64,56,56] p, float[1,64,28,28] s, float[1,64,56,56] k, float[16,8,8,8] b) {
  p = Conv(x, w1)
  s = Conv<strides = [2,2]>(x, w1)
  k = Conv<pads = [1,1,1,1]>(x, w3)
  b = Conv(z, wz)
}
)";

NodeId nodeProducing(const Graph& graph, const std::string& tensor) {
    return graph.tensors[static_cast<std::size_t>(graph.findTensor(tensor))].producer;
}

float log1pf(double v) {
    return static_cast<float>(std::log1p(v));
}

/// Three models on two devices; "shared" ops appear in models A and B with the same signature.
PredictorDataset fixtureDataset() {
    PredictorDataset d;
    for (const char* device : {"d1", "d2"}) {
        for (const char* model : {"mA", "mB", "mC"}) {
            for (const char* sig : {"shared", "own0", "own1"}) {
                PredictorRow row;
                row.modelFingerprint = model;
                row.deviceFingerprint = device;
                row.signature = std::string(sig) == "shared" && std::string(model) != "mC"
                                    ? "shared"
                                    : std::string(model) + sig;
                row.nodeName = std::string(model) + "/" + sig;
                row.opType = "Conv";
                row.latencyUs = 10.0;
                d.rows.push_back(row);
            }
        }
        d.devices[device].fingerprint = device;
    }
    d.modelNames = {{"mA", "model_a"}, {"mB", "model_b"}, {"mC", "model_c"}};
    return d;
}

} // namespace

class TestPredict : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void convolutionFeatures() {
        const Graph g = importOnnxText(kModel, {}, "fixture").graph;
        const NodeId c = nodeProducing(g, "c");
        const OpFeatureVector f = opFeatures(g, c);
        const OpMetrics& m = g.metrics[static_cast<std::size_t>(c)];
        QVERIFY(m.flops > 0);
        QCOMPARE(f[0], log1pf(m.flops));
        QCOMPARE(f[1], log1pf(static_cast<double>(m.bytesRead)));
        QCOMPARE(f[2], log1pf(16.0 * 8 * 8 * 4)); // float32 [1,16,8,8] written
        QCOMPARE(f[3], 0.0f);                     // weights are graph inputs here
        QCOMPARE(f[5], log1pf(9.0));              // 3×3 kernel
        QCOMPARE(f[6], log1pf(2.0));              // stride 2
        QCOMPARE(f[7], log1pf(1.0));              // one group
        QCOMPARE(f[8], log1pf(8.0));              // in channels
        QCOMPARE(f[9], log1pf(16.0));             // out channels
        QCOMPARE(f[10], log1pf(64.0));            // 8×8 output
        QCOMPARE(f[12], 4.0f);                    // float32
        QCOMPARE(f[13], 4.0f);                    // rank 4
        QCOMPARE(f[15], 2.0f);                    // inputs
        QCOMPARE(f[16], 0.0f);                    // not depthwise
        QCOMPARE(f[17], log1pf(1.0));             // batch 1
        QCOMPARE(f[18], 1.0f); // 3×3 on 2,048 input elements at batch 1: native slow_conv2d
    }

    void convolutionPathFeature() {
        const Graph g = importOnnxText(kConvPaths, {}, "paths").graph;
        const auto path = [&](const char* tensor) {
            return opFeatures(g, nodeProducing(g, tensor))[18];
        };
        QCOMPARE(opFeatureNames()[18], std::string_view("conv_native_path"));
        QCOMPARE(path("p"), 1.0f); // unstrided 1×1 at batch 1, one thread: native
        QCOMPARE(path("s"), 0.0f); // strided 1×1 on a large input: oneDNN
        QCOMPARE(path("k"), 0.0f); // 3×3 on a large input: oneDNN
        QCOMPARE(path("b"), 0.0f); // batch 16: oneDNN
        const Graph f = importOnnxText(kModel, {}, "fixture").graph;
        QCOMPARE(opFeatures(f, nodeProducing(f, "d"))[18], 0.0f); // grouped: oneDNN
        QCOMPARE(opFeatures(f, nodeProducing(f, "m"))[18], 0.0f); // not a Conv
    }

    void depthwiseAndMatMulFeatures() {
        const Graph g = importOnnxText(kModel, {}, "fixture").graph;
        const OpFeatureVector d = opFeatures(g, nodeProducing(g, "d"));
        QCOMPARE(d[7], log1pf(8.0));
        QCOMPARE(d[16], 1.0f); // group == in channels
        QCOMPARE(d[6], 0.0f);  // no strides attribute
        const OpFeatureVector m = opFeatures(g, nodeProducing(g, "m"));
        QCOMPARE(m[8], log1pf(64.0));  // K
        QCOMPARE(m[9], log1pf(128.0)); // N
        QCOMPARE(m[10], log1pf(32.0)); // M
        QCOMPARE(m[17], log1pf(2.0));  // batch
        QCOMPARE(m[5], 0.0f);          // no kernel
        QCOMPARE(m[0], log1pf(2.0 * 2 * 32 * 64 * 128));
    }

    void precisionFeatures() {
        // The precision is four one-hot features at the end (nodePrecision); a lowered node's
        // other features are its fp32 form's, except what follows from the narrower elements.
        const auto& names = opFeatureNames();
        QCOMPARE(names[kPrecisionFeature], std::string_view("precision_fp32"));
        QCOMPARE(names[kPrecisionFeature + 1], std::string_view("precision_bf16"));
        QCOMPARE(names[kPrecisionFeature + 2], std::string_view("precision_int8"));
        QCOMPARE(names[kPrecisionFeature + 3], std::string_view("precision_fp16"));
        QCOMPARE(kPrecisionFeature + kPrecisionCount, kOpFeatureCount);
        using OneHot = std::array<float, kPrecisionCount>;
        const auto oneHot = [](const OpFeatureVector& f) {
            OneHot h{};
            std::copy_n(f.begin() + kPrecisionFeature, kPrecisionCount, h.begin());
            return h;
        };
        const Graph g = precision_fixture::fixture();
        const NodeId conv = precision_fixture::nodeOfType(g, "Conv");
        const NodeId relu = precision_fixture::nodeOfType(g, "Relu");
        const OpFeatureVector fp32 = opFeatures(g, conv);
        QCOMPARE(oneHot(fp32), (OneHot{1.0f, 0.0f, 0.0f, 0.0f}));
        QCOMPARE(precisionOfFeatures(fp32), Precision::Fp32);
        QCOMPARE(fp32[12], 4.0f); // dtype_bytes
        // The features that depend on the shapes and attributes only.
        const std::size_t shapeFeatures[] = {0, 5, 6, 7, 8, 9, 10, 11, 13, 14, 16, 17};
        const std::pair<Precision, float> cases[] = {
            {Precision::Bf16, 2.0f}, {Precision::Fp16, 2.0f}, {Precision::Int8, 1.0f}};
        for (const auto& [precision, elementBytes] : cases) {
            std::vector<Variant> convOnly(g.nodes.size(), Precision::Fp32);
            convOnly[static_cast<std::size_t>(conv)] = precision;
            const LoweredGraph lowered = lowerGraph(g, convOnly);
            const Graph& lg = lowered.graph;
            const auto& parts = lowered.parts[static_cast<std::size_t>(conv)];
            const OpFeatureVector f = opFeatures(lg, parts.front());
            OneHot expected{};
            expected[static_cast<std::size_t>(precision)] = 1.0f;
            QCOMPARE(oneHot(f), expected);
            QCOMPARE(precisionOfFeatures(f), precision);
            for (const std::size_t k : shapeFeatures) {
                QVERIFY2(f[k] == fp32[k], names[k].data());
            }
            QCOMPARE(f[12], elementBytes);
            QVERIFY(f[1] < fp32[1]); // narrower activations and weights read
            // Its conversions (Casts; QuantizeLinear and DequantizeLinear) count as the
            // precision too: they are part of its cost.
            int compute = 0;
            for (const NodeId part : parts) {
                if (lg.nodes[static_cast<std::size_t>(part)].kind != NodeKind::Compute) {
                    continue;
                }
                ++compute;
                QCOMPARE(nodePrecision(lg, part), precision);
                QCOMPARE(oneHot(opFeatures(lg, part)), expected);
            }
            QVERIFY(compute >= 3); // the node, a conversion in, one out
            // A node left in fp32 keeps its features exactly.
            const NodeId keptRelu = lowered.parts[static_cast<std::size_t>(relu)].front();
            QCOMPARE(opFeatures(lg, keptRelu), opFeatures(g, relu));
            // The dataset's rows carry the precision beside the features.
            for (const PredictorRow& row : nodeRows(lg, "dev")) {
                QCOMPARE(row.precision, precisionOfFeatures(row.features));
            }
        }
        // The bf16 Conv is still a Conv: same inputs, same LibTorch kernel path.
        const LoweredGraph bf16 = lowerGraph(g, lowerAll(g, Precision::Bf16));
        const OpFeatureVector b =
            opFeatures(bf16.graph, bf16.parts[static_cast<std::size_t>(conv)].front());
        QCOMPARE(b[15], fp32[15]);
        QCOMPARE(b[18], fp32[18]);
    }

    void nodeRowsCoverComputeNodes() {
        const Graph g = importOnnxText(kModel, {}, "fixture").graph;
        const std::vector<PredictorRow> rows = nodeRows(g, "dev");
        QCOMPARE(rows.size(), std::size_t{3});
        for (const PredictorRow& r : rows) {
            QCOMPARE(r.deviceFingerprint, std::string("dev"));
            QCOMPARE(r.modelFingerprint, g.fingerprint);
            QVERIFY(!r.signature.empty());
            QVERIFY(r.bytes > 0);
        }
    }

    void opFamilies() {
        QCOMPARE(opFamily("Clip"), std::string_view("elementwise"));
        QCOMPARE(opFamily("Relu"), std::string_view("elementwise"));
        QCOMPARE(opFamily("Conv"), std::string_view("conv"));
        QCOMPARE(opFamily("Gemm"), std::string_view("matmul"));
        QCOMPARE(opFamily("Softmax"), std::string_view("reduce"));
        QCOMPARE(opFamily("NoSuchOp"), std::string_view("other"));
    }

    void deviceFiguresFromStoredSpec() {
        DeviceRecord r;
        r.fingerprint = "f";
        r.kind = "cpu";
        r.name = "Xeon";
        r.specJson = R"({"hardware":{"cores":2,"l1d_bytes":49152,"l2_bytes":4194304,)"
                     R"("l3_bytes":1048576,"avx2":true,"avx512f":false,"fma3":true},)"
                     R"("micro_benchmark":{"gemm_gflops":20.0,"memory_bw_gbs":5.0}})";
        const DeviceFigures d = deviceFiguresOf(r);
        QCOMPARE(d.cores, 2.0);
        QCOMPARE(d.l2Bytes, 4194304.0);
        QVERIFY(d.avx2 && !d.avx512f && d.fma3);
        QVERIFY(d.hasMicroBenchmark());
        const DeviceFeatureVector f = deviceFeatures(d);
        QCOMPARE(f[0], log1pf(2.0));
        QCOMPARE(f[8], log1pf(20.0));
        r.specJson = "{not json";
        QVERIFY_THROWS_EXCEPTION(std::exception, deviceFiguresOf(r));
        r.specJson = R"({"hardware":{"cores":1}})";
        QVERIFY(!deviceFiguresOf(r).hasMicroBenchmark());
    }

    void repeatedMeasurementsCountByTheirMedian() {
        // A signature profiled three times trains on the median of its measurements (not the
        // newest, 40); a stale sample and one measured inside a plan do not count.
        QTemporaryDir dir;
        SampleLibrary library =
            SampleLibrary::open(dir.filePath(QStringLiteral("samples.db")).toStdString());
        const Graph graph = importOnnxFile(PARETUNE_SAMPLE_MODEL).graph;
        library.upsertGraph(graph);
        DeviceRecord device;
        device.fingerprint = std::string(64, 'a');
        device.kind = "cpu";
        device.name = "test cpu";
        device.specJson = R"({"hardware":{"cores":1}})";
        library.upsertDevice(device);
        BenchmarkRecord bench;
        bench.deviceFingerprint = device.fingerprint;
        bench.gemmGflops = 50.0;
        bench.memoryBwGbs = 10.0;
        bench.reference = true;
        library.addBenchmark(bench);

        const std::vector<PredictorRow> rows = nodeRows(graph, device.fingerprint);
        QVERIFY(rows.size() >= 2);
        const auto nodeOf = [&](const PredictorRow& row) {
            for (NodeId n = 0; n < static_cast<NodeId>(graph.nodes.size()); ++n) {
                if (graph.nodes[static_cast<std::size_t>(n)].name == row.nodeName) {
                    return n;
                }
            }
            return NodeId{kNone};
        };
        const auto sample = [&](const PredictorRow& row, double latencyUs,
                                const std::string& config) {
            Sample s = sampleFor(graph, nodeOf(row));
            s.deviceFingerprint = device.fingerprint;
            s.latencyUs = latencyUs;
            s.repeats = 5;
            s.configJson = config;
            return s;
        };
        library.addSamples(std::vector<Sample>{sample(rows[0], 500.0, "{}")});
        library.markDeviceStale(device.fingerprint, "test");
        library.addSamples(
            std::vector<Sample>{sample(rows[0], 10.0, "{}"), sample(rows[0], 20.0, "{}"),
                                sample(rows[0], 1000.0, R"({"context":"plan"})"),
                                sample(rows[0], 40.0, "{}"), sample(rows[1], 7.0, "{}")});

        const PredictorDataset dataset = assembleDataset(library);
        std::map<std::string, double> bySignature;
        for (const PredictorRow& row : dataset.rows) {
            bySignature[row.signature] = row.latencyUs;
        }
        QCOMPARE(bySignature.at(rows[0].signature), 20.0);
        QCOMPARE(bySignature.at(rows[1].signature), 7.0);
    }

    void splitsNeverLeak_data() {
        QTest::addColumn<QStringList>("models");
        QTest::addColumn<QStringList>("devices");
        QTest::addColumn<int>("testRows");
        QTest::newRow("leave one model out")
            << QStringList{QStringLiteral("mA")} << QStringList{} << 6;
        QTest::newRow("leave one device out")
            << QStringList{} << QStringList{QStringLiteral("d2")} << 9;
        QTest::newRow("model and device")
            << QStringList{QStringLiteral("mB")} << QStringList{QStringLiteral("d1")} << 3;
        QTest::newRow("unshared model") << QStringList{QStringLiteral("mC")} << QStringList{} << 6;
    }
    void splitsNeverLeak() {
        QFETCH(QStringList, models);
        QFETCH(QStringList, devices);
        QFETCH(int, testRows);
        const PredictorDataset d = fixtureDataset();
        std::vector<std::string> m, dv;
        for (const QString& s : models) {
            m.push_back(s.toStdString());
        }
        for (const QString& s : devices) {
            dv.push_back(s.toStdString());
        }
        const DatasetSplit split = splitDataset(d, m, dv);
        QCOMPARE(static_cast<int>(split.test.size()), testRows);
        QVERIFY(!split.train.empty());
        QVERIFY(splitLeaks(d, split).empty());
        // Checked here independently of splitLeaks: no held-out pair, no shared measurement.
        std::set<std::pair<std::string, std::string>> tested;
        for (const std::size_t i : split.test) {
            tested.emplace(d.rows[i].signature, d.rows[i].deviceFingerprint);
        }
        for (const std::size_t i : split.train) {
            const PredictorRow& r = d.rows[i];
            QVERIFY(std::find(m.begin(), m.end(), r.modelFingerprint) == m.end());
            QVERIFY(std::find(dv.begin(), dv.end(), r.deviceFingerprint) == dv.end());
            QVERIFY(!tested.contains({r.signature, r.deviceFingerprint}));
        }
        if (models == QStringList{QStringLiteral("mA")}) {
            // model B's copy of the shared op is the same measurement: it must not be trained on
            for (const std::size_t i : split.train) {
                QVERIFY(d.rows[i].signature != "shared");
            }
        }
    }

    void derivedGraphsHeldOutWithTheirModel() {
        // mA's lowered graph (its bf16 nodes) is mA: held out with it, whether or not it is
        // named; mB's stays in training.
        PredictorDataset d = fixtureDataset();
        for (const char* model : {"mA", "mB"}) {
            const std::string derived = std::string(model) + "-bf16";
            d.derivedFrom[derived] = model;
            d.modelNames[derived] = d.modelNames[model] + " (bf16 " + model + ")";
            PredictorRow row;
            row.modelFingerprint = derived;
            row.deviceFingerprint = "d1";
            row.signature = derived + "/conv";
            row.nodeName = "conv@bf16";
            row.opType = "Conv";
            row.precision = Precision::Bf16;
            row.latencyUs = 5.0;
            d.rows.push_back(row);
        }
        const DatasetSplit split = splitDataset(d, {"mA"}, {});
        QCOMPARE(split.heldOutModels, (std::vector<std::string>{"mA", "mA-bf16"}));
        QVERIFY(splitLeaks(d, split).empty());
        const auto modelsOf = [&](const std::vector<std::size_t>& rows) {
            std::set<std::string> models;
            for (const std::size_t i : rows) {
                models.insert(d.rows[i].modelFingerprint);
            }
            return models;
        };
        QCOMPARE(modelsOf(split.test), (std::set<std::string>{"mA", "mA-bf16"}));
        QVERIFY(!modelsOf(split.train).contains("mA-bf16"));
        QVERIFY(modelsOf(split.train).contains("mB-bf16"));
        // Holding out the lowered graph alone holds out only it.
        QCOMPARE(splitDataset(d, {"mB-bf16"}, {}).heldOutModels,
                 (std::vector<std::string>{"mB-bf16"}));
    }

    void leakCheckerFindsLeaks() {
        const PredictorDataset d = fixtureDataset();
        DatasetSplit split = splitDataset(d, {"mA"}, {});
        for (std::size_t i = 0; i < d.rows.size(); ++i) {
            if (d.rows[i].signature == "shared" && d.rows[i].modelFingerprint == "mB") {
                split.train.push_back(i); // the same measurement as a test row
            }
        }
        split.train.push_back(split.test.front()); // a held-out row
        QCOMPARE(splitLeaks(d, split).size(), std::size_t{4});
    }

    void resolvesModelsAndDevices() {
        const PredictorDataset d = fixtureDataset();
        QCOMPARE(resolveModel(d, "model_b"), std::string("mB"));
        QCOMPARE(resolveModel(d, "mC"), std::string("mC"));
        QVERIFY_THROWS_EXCEPTION(std::exception, resolveModel(d, "m")); // ambiguous
        QVERIFY_THROWS_EXCEPTION(std::exception, resolveModel(d, "resnet"));
        QCOMPARE(resolveDevice(d, "d2"), std::string("d2"));
        QVERIFY_THROWS_EXCEPTION(std::exception, resolveDevice(d, "x"));
    }

    void spearman() {
        const std::vector<double> a = {1, 2, 3, 4, 5};
        const std::vector<double> up = {10, 20, 35, 36, 100};
        const std::vector<double> down = {5, 4, 3, 2, 1};
        QCOMPARE(spearmanCorrelation(a, up), 1.0);
        QCOMPARE(spearmanCorrelation(a, down), -1.0);
        const std::vector<double> ties = {1, 1, 2, 2, 3};
        QVERIFY(std::abs(spearmanCorrelation(a, ties) - 0.9486832980505138) < 1e-12);
        const std::vector<double> constant = {7, 7, 7, 7, 7};
        QCOMPARE(spearmanCorrelation(a, constant), 0.0);
    }

    void accuracy() {
        const std::vector<double> predicted = {110, 95, 300, 50};
        const std::vector<double> measured = {100, 100, 200, 100};
        const std::vector<std::string> groups = {"p", "p", "q", "q"};
        const AccuracyMetrics m = accuracyMetrics(predicted, measured, groups);
        QCOMPARE(m.ops, std::size_t{4});
        QVERIFY(std::abs(m.mapePercent - (10 + 5 + 50 + 50) / 4.0) < 1e-9);
        QCOMPARE(m.within10, 0.5);
        QCOMPARE(m.groups, std::size_t{2});
        // p: 205 vs 200 (2.5%), q: 350 vs 300 (16.67%)
        QVERIFY(std::abs(m.endToEndPercent - (2.5 + 50.0 / 3.0) / 2.0) < 1e-9);
        QVERIFY(std::abs(m.endToEndMaxPercent - 50.0 / 3.0) < 1e-9);
    }

    void rooflineBaseline() {
        DeviceFigures d;
        QCOMPARE(rooflineBaselineUs(d, "Conv", 1e9, 1e6), 0.0); // no micro-benchmark
        d.gemmGflops = 100.0;
        d.memoryBwGbs = 10.0;
        // compute bound: 1e9 FLOP / 100 GFLOP/s = 10 ms
        QCOMPARE(rooflineBaselineUs(d, "Conv", 1e9, 1e6), 10000.0);
        // memory bound: 1e8 B / 10 GB/s = 10 ms
        QCOMPARE(rooflineBaselineUs(d, "Add", 1e6, 1e8), 10000.0);
    }
};

QTEST_GUILESS_MAIN(TestPredict)
#include "tst_predict.moc"
