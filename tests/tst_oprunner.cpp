// SPDX-License-Identifier: GPL-3.0-or-later
// The per-operator runner on LibTorch: ONNX semantics checked numerically, every compute node of
// real models executed with the graph's static output shapes, the measurement discipline, the
// whole-model run, RAPL counters and CPU pinning.
#include "common/input_error.h"
#include "common/progress.h"
#include "graph/onnx_importer.h"
#include "onnx_fixture.h"
#include "profile/cpu_affinity.h"
#include "profile/measurement.h"
#include "profile/op_runner.h"
#include "profile/profile_model.h"
#include "profile/rapl_energy.h"
#include "testpaths.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>

using namespace paretune;

namespace {

/// The one compute node of a fixture.
NodeId computeNode(const Graph& g, const std::string& opType) {
    for (NodeId id = 0; id < static_cast<NodeId>(g.nodes.size()); ++id) {
        if (g.nodes[static_cast<std::size_t>(id)].opType == opType) {
            return id;
        }
    }
    return kNone;
}

MeasureOptions quickOptions() {
    MeasureOptions o;
    o.minMeasureMs = 2;
    o.warmupRuns = 1;
    o.measureEnergy = false;
    return o;
}

struct RecordingProgress : Progress {
    std::vector<double> fractions;
    std::vector<std::string> messages;
    int cancelAfter = -1;
    void report(double fraction, const std::string& message) override {
        fractions.push_back(fraction);
        messages.push_back(message);
    }
    bool cancelled() const override {
        return cancelAfter >= 0 && static_cast<int>(fractions.size()) >= cancelAfter;
    }
};

double at2(const HostTensor& t, std::int64_t r, std::int64_t c) {
    return t.values[static_cast<std::size_t>(r * t.dims[1] + c)];
}

} // namespace

class TestOpRunner : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void supportsTheRequiredOps();
    void unsupportedOpIsReportedByName();
    void gemmTransBMatchesHandProduct();
    void softmaxRowsSumToOne();
    void gatherNegativeIndices();
    void sliceWithNegativeAndPositiveSteps();
    void convPadsStridesDilationsGroups();
    void reshapeTargetComesFromTheGraph();
    void everyResnet18ConvHasTheGraphShape();
    void everyComputeNodeHasTheGraphShape_data();
    void everyComputeNodeHasTheGraphShape();
    void robustStatistics();
    void trimmedMeansAddUp();
    void adaptiveRepeats();
    void measureFollowsTheDiscipline();
    void measureSeesConvWorkspace();
    void profileModelReportsPerNodeAndWholeModel();
    void profileModelCancelsBetweenNodes();
    void wholeModelWithUnsupportedOp();
    void raplWrapAround();
    void raplAbsentMeansNoMeter();
    void pinsTheCallingThread();
    void blasThreadsFollowTheScope();
};

void TestOpRunner::supportsTheRequiredOps() {
    for (const char* op : {"Add",
                           "Sub",
                           "Mul",
                           "Div",
                           "Pow",
                           "Sqrt",
                           "Erf",
                           "Tanh",
                           "Sigmoid",
                           "Relu",
                           "Clip",
                           "HardSigmoid",
                           "HardSwish",
                           "Gelu",
                           "Softmax",
                           "ReduceMean",
                           "Conv",
                           "Gemm",
                           "MatMul",
                           "MaxPool",
                           "AveragePool",
                           "GlobalAveragePool",
                           "BatchNormalization",
                           "LayerNormalization",
                           "Flatten",
                           "Reshape",
                           "Transpose",
                           "Concat",
                           "Split",
                           "Slice",
                           "Gather",
                           "Squeeze",
                           "Unsqueeze",
                           "Expand",
                           "Pad",
                           "Resize",
                           "Where",
                           "Equal",
                           "Not",
                           "Cast",
                           "Mod",
                           "Range",
                           "ConstantOfShape",
                           "ScatterND",
                           "Identity",
                           "Dropout",
                           "Shape"}) {
        QVERIFY2(OpRunner::supports(op), op);
    }
    QVERIFY(!OpRunner::supports("NonMaxSuppression"));
}

void TestOpRunner::unsupportedOpIsReportedByName() {
    const Graph g = onnxFixture("(float[3,3] x) => (float y) { y = Det(x) }");
    OpRunner runner(g, computeNode(g, "Det"));
    QCOMPARE(runner.status(), ProfileStatus::Unsupported);
    QVERIFY2(runner.message().find("'Det'") != std::string::npos, runner.message().c_str());
    const OpProfile p = runner.measure(quickOptions());
    QCOMPARE(p.status, ProfileStatus::Unsupported);
    QCOMPARE(p.latency.medianUs, 0.0);
    QCOMPARE(p.latency.repeats, 0);
    QVERIFY_EXCEPTION_THROWN(OpRunner(g, 7), InputError);
}

void TestOpRunner::gemmTransBMatchesHandProduct() {
    const Graph g = onnxFixture("(float[2,3] a, float[4,3] b, float[4] c) => (float[2,4] y) "
                                "{ y = Gemm<transB = 1, alpha = 2.0, beta = 0.5>(a, b, c) }");
    OpRunner runner(g, computeNode(g, "Gemm"));
    const OpRunner::Execution e = runner.runOnce();
    QCOMPARE(e.status, ProfileStatus::Ok);
    const HostTensor& a = e.inputs[0];
    const HostTensor& b = e.inputs[1];
    const HostTensor& c = e.inputs[2];
    const HostTensor& y = e.outputs[0];
    QCOMPARE(y.dims, (std::vector<std::int64_t>{2, 4}));
    for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 4; ++j) {
            double dot = 0;
            for (int k = 0; k < 3; ++k) {
                dot += at2(a, i, k) * at2(b, j, k);
            }
            const double expected = 2.0 * dot + 0.5 * c.values[static_cast<std::size_t>(j)];
            QVERIFY2(std::abs(at2(y, i, j) - expected) < 1e-5,
                     qPrintable(QStringLiteral("y[%1,%2] = %3, expected %4")
                                    .arg(i)
                                    .arg(j)
                                    .arg(at2(y, i, j))
                                    .arg(expected)));
        }
    }
}

void TestOpRunner::softmaxRowsSumToOne() {
    const Graph g = onnxFixture("(float[4,7] x) => (float[4,7] y) { y = Softmax<axis = 1>(x) }");
    OpRunner runner(g, computeNode(g, "Softmax"));
    const OpRunner::Execution e = runner.runOnce();
    QCOMPARE(e.status, ProfileStatus::Ok);
    const HostTensor& y = e.outputs[0];
    for (int r = 0; r < 4; ++r) {
        double sum = 0;
        for (int c = 0; c < 7; ++c) {
            QVERIFY(at2(y, r, c) > 0);
            sum += at2(y, r, c);
        }
        QVERIFY(std::abs(sum - 1.0) < 1e-5);
    }
    // The inputs were random, not constant: rows differ.
    QVERIFY(at2(y, 0, 0) != at2(y, 1, 0));
}

void TestOpRunner::gatherNegativeIndices() {
    const Graph g = onnxFixture("(float[5,3] x) => (float[3,3] y) {\n"
                                "  i = Constant<value = int64[3] {-1, 0, -5}>()\n"
                                "  y = Gather<axis = 0>(x, i)\n}");
    OpRunner runner(g, computeNode(g, "Gather"));
    const OpRunner::Execution e = runner.runOnce();
    QCOMPARE(e.status, ProfileStatus::Ok);
    const HostTensor& x = e.inputs[0];
    const HostTensor& y = e.outputs[0];
    QCOMPARE(y.dims, (std::vector<std::int64_t>{3, 3}));
    const int rows[] = {4, 0, 0};
    for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) {
            QCOMPARE(at2(y, r, c), at2(x, rows[r], c));
        }
    }
}

void TestOpRunner::sliceWithNegativeAndPositiveSteps() {
    // Rows 8, 5, 2 (step -3 from 8 down to, not including, 1); columns 0, 2, 4.
    const Graph g = onnxFixture("(float[10,6] x) => (float[3,3] y) {\n"
                                "  s = Constant<value = int64[2] {8, 0}>()\n"
                                "  e = Constant<value = int64[2] {1, 6}>()\n"
                                "  a = Constant<value = int64[2] {0, 1}>()\n"
                                "  p = Constant<value = int64[2] {-3, 2}>()\n"
                                "  y = Slice(x, s, e, a, p)\n}");
    OpRunner runner(g, computeNode(g, "Slice"));
    const OpRunner::Execution e = runner.runOnce();
    QCOMPARE(e.status, ProfileStatus::Ok);
    const HostTensor& x = e.inputs[0];
    const HostTensor& y = e.outputs[0];
    QCOMPARE(y.dims, (std::vector<std::int64_t>{3, 3}));
    const int rows[] = {8, 5, 2};
    const int cols[] = {0, 2, 4};
    for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) {
            QCOMPARE(at2(y, r, c), at2(x, rows[r], cols[c]));
        }
    }
}

void TestOpRunner::convPadsStridesDilationsGroups() {
    // Asymmetric pads (top 1, right 1), stride 2, dilation 2 (effective kernel 5), 2 groups:
    // H = (9 + 1 - 5) / 2 + 1 = 3, W = (11 + 1 - 5) / 2 + 1 = 4.
    const Graph g = onnxFixture(
        "(float[1,4,9,11] x, float[4,2,3,3] w, float[4] b) => (float[1,4,3,4] y) "
        "{ y = Conv<pads = [1,0,0,1], strides = [2,2], dilations = [2,2], group = 2>(x, w, b) }");
    QCOMPARE(g.unknownShapeCount(), 0);
    OpRunner runner(g, computeNode(g, "Conv"));
    const OpRunner::Execution e = runner.runOnce();
    QCOMPARE(e.status, ProfileStatus::Ok);
    QCOMPARE(e.outputs[0].dims, (std::vector<std::int64_t>{1, 4, 3, 4}));
    QCOMPARE(e.outputs[0].dims, g.tensors[static_cast<std::size_t>(g.outputs[0])].dims);
    // Hand check of one output element: y[0,0,1,1] reads input channels 0,1 (group 0) at rows
    // 2*1-1+2*kh, columns 2*1+2*kw.
    const HostTensor& x = e.inputs[0];
    const HostTensor& w = e.inputs[1];
    double expected = e.inputs[2].values[0];
    for (int ci = 0; ci < 2; ++ci) {
        for (int kh = 0; kh < 3; ++kh) {
            for (int kw = 0; kw < 3; ++kw) {
                const int row = 2 * 1 - 1 + 2 * kh;
                const int col = 2 * 1 + 2 * kw;
                expected += x.values[static_cast<std::size_t>((ci * 9 + row) * 11 + col)] *
                            w.values[static_cast<std::size_t>((ci * 3 + kh) * 3 + kw)];
            }
        }
    }
    QVERIFY(std::abs(e.outputs[0].values[static_cast<std::size_t>(1 * 4 + 1)] - expected) < 1e-4);
}

void TestOpRunner::reshapeTargetComesFromTheGraph() {
    const Graph g = onnxFixture("(float[2,3,4] x) => (float[4,6] y) {\n"
                                "  s = Constant<value = int64[2] {-1, 6}>()\n"
                                "  y = Reshape(x, s)\n}");
    OpRunner runner(g, computeNode(g, "Reshape"));
    const OpRunner::Execution e = runner.runOnce();
    QCOMPARE(e.status, ProfileStatus::Ok);
    QCOMPARE(e.inputs[1].values, (std::vector<double>{-1, 6}));
    QCOMPARE(e.outputs[0].dims, (std::vector<std::int64_t>{4, 6}));
    QCOMPARE(e.outputs[0].values, e.inputs[0].values);
}

void TestOpRunner::everyResnet18ConvHasTheGraphShape() {
    const QString path = testModelsDir() + QStringLiteral("/resnet18.onnx");
    if (!QFile::exists(path)) {
        QSKIP("resnet18.onnx is not in the test models folder");
    }
    const Graph g = importOnnxFile(path.toStdString()).graph;
    int convs = 0;
    for (NodeId id = 0; id < static_cast<NodeId>(g.nodes.size()); ++id) {
        if (g.nodes[static_cast<std::size_t>(id)].opType != "Conv") {
            continue;
        }
        ++convs;
        OpRunner runner(g, id);
        const OpRunner::Execution e = runner.runOnce();
        QVERIFY2(e.status == ProfileStatus::Ok, e.message.c_str());
        const Tensor& out = g.tensors[static_cast<std::size_t>(g.nodeOutputs.row(id)[0])];
        QVERIFY(out.shapeKnown());
        QCOMPARE(e.outputs[0].dims, out.dims);
    }
    QCOMPARE(convs, 20);
}

void TestOpRunner::everyComputeNodeHasTheGraphShape_data() {
    QTest::addColumn<QString>("path");
    QTest::newRow("sample") << QStringLiteral(PARETUNE_SAMPLE_MODEL);
    for (const char* name : {"tiny_mlp", "tiny_cnn", "resnet18", "bert_base"}) {
        QTest::newRow(name) << testModelsDir() + QLatin1Char('/') + QLatin1String(name) +
                                   QStringLiteral(".onnx");
    }
}

void TestOpRunner::everyComputeNodeHasTheGraphShape() {
    QFETCH(QString, path);
    if (!QFile::exists(path)) {
        QSKIP("model not in the test models folder");
    }
    const Graph g = importOnnxFile(path.toStdString()).graph;
    int checked = 0;
    for (NodeId id = 0; id < static_cast<NodeId>(g.nodes.size()); ++id) {
        const Node& n = g.nodes[static_cast<std::size_t>(id)];
        if (n.kind != NodeKind::Compute) {
            continue;
        }
        OpRunner runner(g, id);
        const OpRunner::Execution e = runner.runOnce();
        QVERIFY2(e.status == ProfileStatus::Ok, e.message.c_str());
        const auto outs = g.nodeOutputs.row(id);
        QCOMPARE(e.outputs.size(), outs.size());
        for (std::size_t i = 0; i < outs.size(); ++i) {
            if (outs[i] == kNone) {
                continue;
            }
            const Tensor& t = g.tensors[static_cast<std::size_t>(outs[i])];
            QVERIFY2(t.shapeKnown(), (n.name + ": " + t.typeString()).c_str());
            QVERIFY2(e.outputs[i].dims == t.dims, (n.name + " (" + n.opType + ")").c_str());
            QCOMPARE(e.outputs[i].dtype, t.dtype);
        }
        ++checked;
    }
    QCOMPARE(checked, g.computeNodeCount());
    QVERIFY(checked > 0);
}

// A plan's run is the sum of its nodes: their means add up to its mean, their medians do not
// when their times skew slow; the trim keeps a stall in one run of twenty out.
void TestOpRunner::trimmedMeansAddUp() {
    QCOMPARE(trimmedMeanOf({}, 0.05), 0.0);
    QCOMPARE(trimmedMeanOf({4.0}, 0.05), 4.0);
    // 20 runs: 1 dropped at each end, the mean of the other 18.
    std::vector<double> a(20, 100.0);
    a[0] = 90.0;    // dropped
    a[1] = 118.0;   // kept: the slow side counts
    a[2] = 118.0;   // kept
    a[19] = 5000.0; // a stall: dropped
    QCOMPARE(trimmedMeanOf(a, 0.05), (15 * 100.0 + 2 * 118.0 + 100.0) / 18.0);
    QCOMPARE(medianOf(a), 100.0);
    // Two nodes, each slow in a few runs: the sum of means is the mean of their sums (no run is
    // trimmed), the sum of medians falls short of it.
    std::vector<double> b(20, 50.0);
    b[5] = 80.0;
    b[6] = 80.0;
    std::vector<double> total(20);
    for (std::size_t i = 0; i < 20; ++i) {
        total[i] = a[i] + b[i];
    }
    QCOMPARE(trimmedMeanOf(a, 0.0) + trimmedMeanOf(b, 0.0), trimmedMeanOf(total, 0.0));
    QVERIFY(medianOf(a) + medianOf(b) < trimmedMeanOf(total, 0.0));
    // Unsorted input, a share of 0.25: 2 of 8 dropped at each end.
    QCOMPARE(trimmedMeanOf({8, 1, 7, 2, 6, 3, 5, 4}, 0.25), 4.5);
}

void TestOpRunner::robustStatistics() {
    std::vector<double> samples(20, 10.0);
    for (int i = 0; i < 20; ++i) {
        samples[static_cast<std::size_t>(i)] += 0.1 * (i % 5);
    }
    samples.push_back(1000.0); // a preempted run
    const std::vector<double> kept = rejectOutliersMad(samples);
    QCOMPARE(kept.size(), std::size_t(20));
    const LatencyStats s = summariseRound(samples);
    QCOMPARE(s.rejected, 1);
    QCOMPARE(s.repeats, 20);
    QCOMPARE(s.medianUs, 10.2);
    QVERIFY(s.p10Us <= s.medianUs && s.medianUs <= s.p90Us);
    QCOMPARE(percentileOf({1, 2, 3, 4, 5}, 0.1), 1.4);
    // Tied timings (common for tiny ops timed in whole nanoseconds): every percentile between
    // them is exactly their value, never an ulp below, so p10 ≤ median ≤ p90 always holds.
    for (int i = 1; i < 5000; ++i) {
        const double t = i / 1000.0;
        const std::vector<double> tied = {t / 2, t, t, t, t, t, t};
        for (double q : {0.1, 0.3, 0.5, 0.7, 0.9}) {
            QVERIFY2(percentileOf(tied, q) <= percentileOf(tied, 0.9) &&
                         (q < 0.3 || percentileOf(tied, q) == t),
                     qPrintable(QString::number(t, 'g', 17)));
        }
        const LatencyStats round = summariseRound(tied);
        QVERIFY(round.p10Us <= round.medianUs && round.medianUs <= round.p90Us);
    }
    // Identical timings: nothing is rejected.
    QCOMPARE(rejectOutliersMad(std::vector<double>(7, 3.0)).size(), std::size_t(7));
    // Median of rounds, not the mean.
    LatencyStats a;
    a.medianUs = 10;
    a.rounds = 1;
    LatencyStats b = a;
    b.medianUs = 11;
    LatencyStats c = a;
    c.medianUs = 50;
    const LatencyStats combined = combineRounds({a, b, c});
    QCOMPARE(combined.medianUs, 11.0);
    QCOMPARE(combined.rounds, 3);
}

void TestOpRunner::adaptiveRepeats() {
    MeasureOptions o;                    // 50 ms per round, at least 5 repeats
    QCOMPARE(repeatsFor(10.0, o), 5000); // 10 µs op: 50 ms worth
    QCOMPARE(repeatsFor(20000.0, o), 5); // 20 ms op: the minimum count
    QCOMPARE(repeatsFor(2e6, o), 3);     // 2 s op: capped, never below 3
    QCOMPARE(repeatsFor(0.001, o), o.maxRepeats);
}

void TestOpRunner::measureFollowsTheDiscipline() {
    const Graph g = onnxFixture(
        "(float[64,256] a, float[256,128] b) => (float[64,128] y) { y = MatMul(a, b) }");
    OpRunner runner(g, computeNode(g, "MatMul"));
    MeasureOptions o = quickOptions();
    o.threads = 2;
    const OpProfile p = runner.measure(o);
    QVERIFY2(p.status == ProfileStatus::Ok, p.message.c_str());
    QCOMPARE(p.threads, 2);
    QCOMPARE(p.latency.rounds, 3);
    QVERIFY(p.latency.repeats >= 3 * 3);
    QVERIFY(p.latency.medianUs > 0);
    QVERIFY(p.latency.p10Us <= p.latency.medianUs && p.latency.medianUs <= p.latency.p90Us);
    QCOMPARE(p.memory.inputBytes, qint64(4 * (64 * 256 + 256 * 128)));
    QCOMPARE(p.memory.outputBytes, qint64(4 * 64 * 128));
    QVERIFY(p.memory.workspaceBytes >= 0);
    QVERIFY(p.memory.peakBytes >= p.memory.inputBytes + p.memory.outputBytes);
    QCOMPARE(p.energySource, std::string("none"));
    QVERIFY(!p.energyUj);

    // A view costs no output memory.
    const Graph v = onnxFixture("(float[2,3,4] x) => (float[24] y) {\n"
                                "  s = Constant<value = int64[1] {24}>()\n  y = Reshape(x, s)\n}");
    OpRunner viewRunner(v, computeNode(v, "Reshape"));
    const OpProfile vp = viewRunner.measure(quickOptions());
    QCOMPARE(vp.status, ProfileStatus::Ok);
    QCOMPARE(vp.memory.outputBytes, qint64(0));
}

void TestOpRunner::measureSeesConvWorkspace() {
    // ResNet-18's first convolution goes through oneDNN, which allocates with raw_allocate():
    // the memory probe must see it without breaking the op.
    const QString path = testModelsDir() + QStringLiteral("/resnet18.onnx");
    if (!QFile::exists(path)) {
        QSKIP("resnet18.onnx is not in the test models folder");
    }
    const Graph g = importOnnxFile(path.toStdString()).graph;
    OpRunner runner(g, computeNode(g, "Conv"));
    MeasureOptions o = quickOptions();
    o.rounds = 1;
    const OpProfile p = runner.measure(o);
    QVERIFY2(p.status == ProfileStatus::Ok, p.message.c_str());
    QCOMPARE(p.memory.inputBytes, qint64(4 * (3 * 224 * 224 + 64 * 3 * 7 * 7 + 64)));
    QCOMPARE(p.memory.outputBytes, qint64(4 * 64 * 112 * 112));
    QVERIFY(p.memory.workspaceBytes >= 0);
    QCOMPARE(p.memory.peakBytes,
             p.memory.inputBytes + p.memory.outputBytes + p.memory.workspaceBytes);
    QVERIFY(p.latency.medianUs > 0);
}

void TestOpRunner::profileModelReportsPerNodeAndWholeModel() {
    const QString path = testModelsDir() + QStringLiteral("/tiny_cnn.onnx");
    if (!QFile::exists(path)) {
        QSKIP("tiny_cnn.onnx is not in the test models folder");
    }
    const Graph g = importOnnxFile(path.toStdString()).graph;
    ProfileOptions options;
    options.measure = quickOptions();
    RecordingProgress progress;
    const ProfileResult r = profileModel(g, options, &progress);
    QVERIFY(!r.cancelled);
    QCOMPARE(static_cast<int>(r.nodes.size()), g.computeNodeCount());
    double sum = 0;
    for (const auto& [id, p] : r.nodes) {
        QVERIFY2(p.status == ProfileStatus::Ok, p.message.c_str());
        QCOMPARE(g.nodes[static_cast<std::size_t>(id)].kind, NodeKind::Compute);
        QVERIFY(p.latency.medianUs > 0);
        sum += p.latency.medianUs;
    }
    QVERIFY2(r.wholeModel.status == ProfileStatus::Ok, r.wholeModel.message.c_str());
    QVERIFY(r.wholeModel.endToEnd.medianUs > 0);
    QCOMPARE(r.wholeModel.sumOfOpsUs, sum);
    QCOMPARE(r.wholeModel.ratio, sum / r.wholeModel.endToEnd.medianUs);
    QVERIFY(r.wholeModel.nodesExecuted >= g.computeNodeCount());
    // One report per node, the whole model, then done; fractions never go back.
    // Three rounds over the whole model.
    QCOMPARE(static_cast<int>(progress.fractions.size()), 3 * g.computeNodeCount() + 2);
    for (const auto& [id, p] : r.nodes) {
        QCOMPARE(p.latency.rounds, 3);
    }
    QVERIFY(std::is_sorted(progress.fractions.begin(), progress.fractions.end()));
    QCOMPARE(progress.fractions.back(), 1.0);
    QVERIFY(progress.messages.front().find("node '") == 0);
}

void TestOpRunner::profileModelCancelsBetweenNodes() {
    const QString path = testModelsDir() + QStringLiteral("/tiny_cnn.onnx");
    if (!QFile::exists(path)) {
        QSKIP("tiny_cnn.onnx is not in the test models folder");
    }
    const Graph g = importOnnxFile(path.toStdString()).graph;
    ProfileOptions options;
    options.measure = quickOptions();
    RecordingProgress progress;
    progress.cancelAfter = 2;
    const ProfileResult r = profileModel(g, options, &progress);
    QVERIFY(r.cancelled);
    QCOMPARE(r.nodes.size(), std::size_t(2));
    QCOMPARE(r.wholeModel.endToEnd.repeats, 0);
}

void TestOpRunner::wholeModelWithUnsupportedOp() {
    const Graph g =
        onnxFixture("(float[3,3] x) => (float[3,3] y) {\n  d = Det(x)\n  y = Relu(x)\n}");
    ProfileOptions options;
    options.measure = quickOptions();
    const ProfileResult r = profileModel(g, options);
    QCOMPARE(r.count(ProfileStatus::Unsupported), 1);
    QCOMPARE(r.count(ProfileStatus::Ok), 1);
    QCOMPARE(r.wholeModel.status, ProfileStatus::Unsupported);
    QVERIFY2(r.wholeModel.message.find("Det") != std::string::npos, r.wholeModel.message.c_str());
}

void TestOpRunner::raplWrapAround() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string root = dir.path().toStdString();
    auto write = [&](const std::string& domain, const std::string& file, std::uint64_t value) {
        std::filesystem::create_directories(root + "/" + domain);
        std::ofstream(root + "/" + domain + "/" + file) << value << "\n";
    };
    write("intel-rapl:0", "max_energy_range_uj", 262143328850ULL);
    write("intel-rapl:0", "energy_uj", 262143000000ULL);
    write("intel-rapl:0:0", "max_energy_range_uj", 1000); // a sub-domain: not added again
    write("intel-rapl:0:0", "energy_uj", 5);
    write("intel-rapl:1", "max_energy_range_uj", 1000000);
    write("intel-rapl:1", "energy_uj", 100);
    const auto meter = RaplEnergy::open(root);
    QVERIFY(meter);
    QCOMPARE(meter->domains().size(), std::size_t(2));
    const auto before = meter->read();
    QVERIFY(before);
    write("intel-rapl:0", "energy_uj", 1000); // wrapped past max_energy_range_uj
    write("intel-rapl:1", "energy_uj", 600);
    const auto after = meter->read();
    QVERIFY(after);
    QCOMPARE(meter->deltaUj(*before, *after),
             double(262143328850ULL - 262143000000ULL + 1000) + 500.0);
}

void TestOpRunner::raplAbsentMeansNoMeter() {
    QTemporaryDir dir;
    QVERIFY(!RaplEnergy::open(dir.path().toStdString()));
    QVERIFY(!RaplEnergy::open(dir.path().toStdString() + "/missing"));
}

void TestOpRunner::pinsTheCallingThread() {
    const std::vector<int> before = ScopedCpuAffinity::current();
    QVERIFY(!before.empty());
    {
        ScopedCpuAffinity pin({before.front()});
        QCOMPARE(ScopedCpuAffinity::current(), std::vector<int>{before.front()});
    }
    QCOMPARE(ScopedCpuAffinity::current(), before);
    QVERIFY_EXCEPTION_THROWN(ScopedCpuAffinity({-1}), InputError);
}

// OpenBLAS keeps its own thread pool: a one-core device sets it to one thread while it runs.
void TestOpRunner::blasThreadsFollowTheScope() {
    const int before = ScopedBlasThreads::current();
    if (before == 0) {
        QSKIP("the system BLAS is not OpenBLAS");
    }
    {
        ScopedBlasThreads one(1);
        QCOMPARE(ScopedBlasThreads::current(), 1);
        {
            ScopedBlasThreads two(2);
            QCOMPARE(ScopedBlasThreads::current(), 2);
        }
        QCOMPARE(ScopedBlasThreads::current(), 1);
    }
    QCOMPARE(ScopedBlasThreads::current(), before);
}

QTEST_APPLESS_MAIN(TestOpRunner)
#include "tst_oprunner.moc"
