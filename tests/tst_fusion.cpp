// SPDX-License-Identifier: GPL-3.0-or-later
// Fusion groups: what findFusionGroups finds, what is refused, that a fused graph computes what
// the model computes (folded batch normalisation included), and how the simulator runs a group.
#include "common/input_error.h"
#include "cost/cost_table.h"
#include "cost/device_catalog.h"
#include "device/device.h"
#include "graph/fusion.h"
#include "onnx_fixture.h"
#include "plan/simulator.h"
#include "profile/graph_executor.h"
#include "profile/plan_prediction.h"
#include "profile/plan_validation.h"
#include "store/sample_library.h"

#include <QtTest>

#include <cmath>
#include <filesystem>
#include <map>

using namespace paretune;

namespace {

/// n values spread over [-0.5, 0.5): "v0, v1, …" (deterministic, not all alike).
std::string values(int n, double scale = 1.0, double offset = 0.0) {
    std::string text;
    for (int i = 0; i < n; ++i) {
        const double v = offset + scale * (static_cast<double>((i * 37) % 101) / 101.0 - 0.5);
        text += (i ? ", " : "") + std::to_string(v);
    }
    return text;
}

/// Three convolutions over one input: Conv + BatchNormalization + Add (residual) + Relu, Conv +
/// Clip, and a Conv read by two nodes (no group).
Graph convFixture() {
    return onnxFixture(
        "(float[1,3,8,8] x, float[1,8,8,8] r) => (float[1,8,8,8] y, float[1,8,8,8] z, "
        "float[1,8,8,8] p, float[1,8,8,8] q) <float[8,3,3,3] w1 = {" +
        values(216, 0.6) + "}, float[8] b1 = {" + values(8) + "}, float[8] s = {" +
        values(8, 0.5, 1.0) + "}, float[8] bb = {" + values(8) + "}, float[8] m = {" +
        values(8, 0.2) + "}, float[8] v = {" + values(8, 0.5, 1.0) + "}, float[8,3,3,3] w2 = {" +
        values(216, 0.5) + "}, float[8,3,3,3] w3 = {" + values(216, 0.4) +
        "}, float lo = {0.0}, float hi = {0.5}> {\n"
        "  c1 = Conv <pads = [1, 1, 1, 1]> (x, w1, b1)\n"
        "  n1 = BatchNormalization <epsilon = 0.001> (c1, s, bb, m, v)\n"
        "  a1 = Add (n1, r)\n"
        "  y = Relu (a1)\n"
        "  c2 = Conv <pads = [1, 1, 1, 1]> (x, w2)\n"
        "  z = Clip (c2, lo, hi)\n"
        "  c3 = Conv <pads = [1, 1, 1, 1]> (x, w3)\n"
        "  p = Relu (c3)\n"
        "  q = Sigmoid (c3)\n"
        "}");
}

/// MatMul + bias + the Gelu exporters spell out, then a layer normalisation spelled out (with
/// the Cast to float before the square that some exporters write when `cast`).
Graph matmulFixture(bool cast = false) {
    return onnxFixture("(float[1,4,8] x) => (float[1,4,16] out) <float[8,16] w = {" +
                       values(128, 0.8) + "}, float[16] bias = {" + values(16) +
                       "}, float root2 = {1.4142135}, float one = {1.0}, float half = {0.5}, "
                       "float two = {2.0}, float eps = {0.00001}, float[16] gamma = {" +
                       values(16, 0.5, 1.0) + "}, float[16] beta = {" + values(16) +
                       "}> {\n"
                       "  mm = MatMul (x, w)\n"
                       "  ab = Add (mm, bias)\n"
                       "  d = Div (ab, root2)\n"
                       "  e = Erf (d)\n"
                       "  p1 = Add (e, one)\n"
                       "  m1 = Mul (ab, p1)\n"
                       "  h = Mul (m1, half)\n"
                       "  mean = ReduceMean <axes = [-1]> (h)\n"
                       "  sub = Sub (h, mean)\n" +
                       std::string(cast ? "  sc = Cast <to = 1> (sub)\n  pw = Pow (sc, two)\n"
                                        : "  pw = Pow (sub, two)\n") +
                       "  var = ReduceMean <axes = [-1]> (pw)\n"
                       "  ae = Add (var, eps)\n"
                       "  sq = Sqrt (ae)\n"
                       "  dv = Div (sub, sq)\n"
                       "  ml = Mul (dv, gamma)\n"
                       "  out = Add (ml, beta)\n"
                       "}");
}

std::vector<std::string> memberNames(const Graph& g, const FusionGroup& group) {
    std::vector<std::string> names;
    for (const NodeId m : group.members) {
        names.push_back(g.nodes[static_cast<std::size_t>(m)].name);
    }
    return names;
}

/// Largest |a − b| over every output, and the largest |a|.
std::pair<double, double> largestDifference(const NamedTensors& a, const NamedTensors& b) {
    double difference = 0.0;
    double magnitude = 0.0;
    for (const auto& [name, tensor] : a) {
        const HostTensor& other = b.at(name);
        if (other.values.size() != tensor.values.size()) {
            return {INFINITY, 0.0};
        }
        for (std::size_t i = 0; i < tensor.values.size(); ++i) {
            difference = std::max(difference, std::abs(tensor.values[i] - other.values[i]));
            magnitude = std::max(magnitude, std::abs(tensor.values[i]));
        }
    }
    return {difference, magnitude};
}

const char* kTwoDevices = R"({"schema": "paretune.devices/1", "host": "cpu",
  "devices": [
   {"id": "cpu", "kind": "cpu", "peak_gflops": 100, "mem_bw_gbs": 20, "launch_us": 1,
    "active_w": 10, "idle_w": 0, "memory_mb": 1024},
   {"id": "gpu", "kind": "gpu", "peak_gflops": 1000, "mem_bw_gbs": 200, "launch_us": 5,
    "active_w": 100, "idle_w": 0, "memory_mb": 1024}],
  "links": [{"a": "cpu", "b": "gpu", "bandwidth_gbs": 1, "latency_us": 3, "duplex": "full"}]})";

} // namespace

class TestFusion : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void findsConvolutionGroups();
    void findsMatMulGeluAndLayerNorm();
    void findsGroupsInTestModels_data();
    void findsGroupsInTestModels();
    void refusesGroupsTheGraphDoesNotAllow();
    void fusedGraphComputesTheModel_data();
    void fusedGraphComputesTheModel();
    void simulatorRunsTakenGroupAsOneNode();
    void validationRefusesGroupOverTwoDevices();
    void fusedNodeIsPredictedAsItsMembersWhereTheSimulationRanThemApart();
};

void TestFusion::findsConvolutionGroups() {
    const Graph g = convFixture();
    const std::vector<FusionGroup> groups = findFusionGroups(g);
    QCOMPARE(groups.size(), std::size_t{2});
    QCOMPARE(groups[0].pattern, std::string("Conv+BatchNormalization+Add+Relu"));
    QCOMPARE(groups[0].kind, FusionKind::Conv);
    QCOMPARE(memberNames(g, groups[0]).size(), std::size_t{4});
    QCOMPARE(groups[1].pattern, std::string("Conv+Clip"));
    // The third Conv's output is read twice: it starts no group.
    for (const FusionGroup& group : groups) {
        for (const NodeId m : group.members) {
            QVERIFY(g.nodes[static_cast<std::size_t>(m)].opType != "Sigmoid");
        }
    }
}

void TestFusion::findsMatMulGeluAndLayerNorm() {
    const Graph g = matmulFixture();
    const std::vector<FusionGroup> groups = findFusionGroups(g);
    QCOMPARE(groups.size(), std::size_t{2});
    QCOMPARE(groups[0].pattern, std::string("MatMul+Add+Div+Erf+Add+Mul+Mul"));
    QCOMPARE(groups[0].kind, FusionKind::MatMul);
    QCOMPARE(groups[1].kind, FusionKind::LayerNorm);
    QCOMPARE(groups[1].members.size(), std::size_t{9});
    const FusedGraph fused = fuseGroups(g, groups);
    QCOMPARE(fused.graph.computeNodeCount(), 2);
    const Node& ln = fused.graph.nodes[static_cast<std::size_t>(fused.groupNode[1])];
    QCOMPARE(ln.opType, std::string("LayerNormalization"));
    QVERIFY(std::abs(ln.attrFloat("epsilon", 0.0) - 1e-5) < 1e-9);
    const Node& mm = fused.graph.nodes[static_cast<std::size_t>(fused.groupNode[0])];
    QCOMPARE(mm.opType, std::string("FusedMatMul"));
    QCOMPARE(mm.attrString("activation", ""), std::string("Gelu"));
    // Beside the model's nodes (profiling measures a group with its members): the same fused
    // nodes, under the same signatures.
    const FusedGraph paired = appendFusedNodes(g, groups);
    QCOMPARE(paired.graph.computeNodeCount(), g.computeNodeCount() + 2);
    for (std::size_t k = 0; k < groups.size(); ++k) {
        QCOMPARE(paired.graph.signatures[static_cast<std::size_t>(paired.groupNode[k])],
                 fused.graph.signatures[static_cast<std::size_t>(fused.groupNode[k])]);
    }
    QCOMPARE(executeGraph(paired.graph).size(), executeGraph(g).size());
    // The fused nodes' signatures are their own: a sample of theirs is not a member's.
    for (const NodeId m : groups[0].members) {
        QVERIFY(fused.graph.signatures[static_cast<std::size_t>(fused.groupNode[0])] !=
                g.signatures[static_cast<std::size_t>(m)]);
    }
}

void TestFusion::findsGroupsInTestModels_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("patterns"); // pattern=count, space separated
    QTest::newRow("resnet50") << "resnet50"
                              << "Conv+Relu=33 Conv+Add+Relu=16";
    QTest::newRow("mobilenet_v2") << "mobilenet_v2"
                                  << "Conv+Clip=35 Conv+Add=10";
    QTest::newRow("tiny_cnn") << "tiny_cnn"
                              << "Conv+Relu=3 Conv+Add=1";
    QTest::newRow("tiny_mlp") << "tiny_mlp"
                              << "Gemm+Relu=1";
    // The exporter writes a Cast (float to float) before each layer normalisation's square.
    QTest::newRow("bert_base") << "bert_base"
                               << "MatMul+Add=60 MatMul+Add+Div+Erf+Add+Mul+Mul=12 "
                                  "ReduceMean+Sub+Cast+Pow+ReduceMean+Add+Sqrt+Div+Mul+Add=25";
}

void TestFusion::findsGroupsInTestModels() {
    QFETCH(QString, model);
    QFETCH(QString, patterns);
    const QString path = testModelsDir() + QLatin1Char('/') + model + QStringLiteral(".onnx");
    if (!std::filesystem::exists(path.toStdString())) {
        QSKIP(qPrintable(QStringLiteral("model not exported: ") + path));
    }
    const Graph g = importOnnxFile(path.toStdString()).graph;
    std::map<std::string, int> counts;
    for (const FusionGroup& group : findFusionGroups(g)) {
        ++counts[group.pattern];
    }
    std::map<std::string, int> expected;
    for (const QString& item : patterns.split(QLatin1Char(' '))) {
        const QStringList kv = item.split(QLatin1Char('='));
        expected[kv[0].toStdString()] = kv[1].toInt();
    }
    QString found;
    for (const auto& [pattern, count] : counts) {
        found += QString::fromStdString(pattern) + QLatin1Char('=') + QString::number(count) +
                 QLatin1Char(' ');
    }
    QVERIFY2(counts == expected, qPrintable(found));
}

void TestFusion::refusesGroupsTheGraphDoesNotAllow() {
    const Graph g = convFixture();
    const std::vector<FusionGroup> groups = findFusionGroups(g);
    // A group cut short, one with a member too many, an unknown node, a non-group.
    std::vector<std::string> cut = memberNames(g, groups[0]);
    cut.pop_back();
    QVERIFY_THROWS_EXCEPTION(InputError, fusionGroupsByName(g, {cut}, "plans.json"));
    std::vector<std::string> more = memberNames(g, groups[1]);
    more.push_back(g.nodes[static_cast<std::size_t>(groups[0].tail())].name);
    QVERIFY_THROWS_EXCEPTION(InputError, fusionGroupsByName(g, {more}, "plans.json"));
    QVERIFY_THROWS_EXCEPTION(InputError,
                             fusionGroupsByName(g, {{"no such node", "c2"}}, "plans.json"));
    try {
        fusionGroupsByName(g, {{memberNames(g, groups[0])[1], memberNames(g, groups[0])[2]}},
                           "plans.json");
        QFAIL("a group starting inside another was accepted");
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("plans.json") != std::string::npos, e.what());
    }
    // Two groups sharing a member cannot be fused together.
    FusionGroup overlapping = groups[0];
    QVERIFY_THROWS_EXCEPTION(InputError, fuseGroups(g, std::vector{groups[0], overlapping}));
    // The names as a plans file writes them come back as the same groups.
    const std::vector<FusionGroup> named =
        fusionGroupsByName(g, {memberNames(g, groups[0]), memberNames(g, groups[1])}, "plans.json");
    QCOMPARE(named.size(), std::size_t{2});
    QCOMPARE(named[1].members, groups[1].members);
}

void TestFusion::fusedGraphComputesTheModel_data() {
    QTest::addColumn<QString>("fixture");
    QTest::newRow("conv, folded batch norm, residual, clip") << "conv";
    QTest::newRow("matmul with gelu, layer norm") << "matmul";
    QTest::newRow("layer norm with a cast") << "cast";
    QTest::newRow("tiny_cnn") << "tiny_cnn";
    QTest::newRow("tiny_mlp") << "tiny_mlp";
}

// The fused graph (every group one node: batch normalisation folded into the weights, post-ops
// in place) gives the model's outputs, up to float rounding.
void TestFusion::fusedGraphComputesTheModel() {
    QFETCH(QString, fixture);
    Graph g;
    if (fixture == QLatin1String("conv")) {
        g = convFixture();
    } else if (fixture == QLatin1String("matmul")) {
        g = matmulFixture();
    } else if (fixture == QLatin1String("cast")) {
        g = matmulFixture(true);
    } else {
        const QString path = testModelsDir() + QLatin1Char('/') + fixture + QStringLiteral(".onnx");
        if (!std::filesystem::exists(path.toStdString())) {
            QSKIP(qPrintable(QStringLiteral("model not exported: ") + path));
        }
        g = importOnnxFile(path.toStdString()).graph;
    }
    const std::vector<FusionGroup> groups = findFusionGroups(g);
    QVERIFY(!groups.empty());
    const FusedGraph fused = fuseGroups(g, groups);
    QVERIFY(fused.graph.computeNodeCount() < g.computeNodeCount());
    const NamedTensors original = executeGraph(g);
    const NamedTensors folded = executeGraph(fused.graph);
    QCOMPARE(folded.size(), original.size());
    const auto [difference, magnitude] = largestDifference(original, folded);
    QVERIFY2(magnitude > 0.0, "the outputs are all zero");
    QVERIFY2(difference <= 1e-4 * std::max(1.0, magnitude),
             qPrintable(QStringLiteral("largest difference %1 (outputs up to %2)")
                            .arg(difference)
                            .arg(magnitude)));
}

// Conv (10 µs) then Relu (5 µs) on one device, the group 12 µs there: taken, one node of 12 µs,
// the Conv's output never in memory. Split over two devices, or dearer than its members: not.
void TestFusion::simulatorRunsTakenGroupAsOneNode() {
    const Graph g =
        onnxFixture("(float[1,3,8,8] x) => (float[1,8,8,8] y) <float[8,3,3,3] w = {" + values(216) +
                    "}> {\n  c = Conv <pads = [1, 1, 1, 1]> (x, w)\n"
                    "  y = Relu (c)\n}");
    const DeviceCatalog catalog = parseDeviceCatalogText(kTwoDevices, "two devices");
    const auto simulate = [&](double groupUs, std::int32_t reluDevice, SimulationResult& r) {
        CostTable table = buildCostTable(g, catalog, {"cpu", "gpu"});
        QCOMPARE(table.fusionOptions().size(), std::size_t{1});
        const NodeId conv = g.findNode(
            g.nodes[static_cast<std::size_t>(table.fusionOptions()[0].group.members[0])].name);
        const NodeId relu = table.fusionOptions()[0].group.tail();
        for (std::int32_t d = 0; d < 2; ++d) {
            table.setCell(conv, d, {10.0, 100.0, 0, CostSource::Measured, 0.0});
            table.setCell(relu, d, {5.0, 50.0, 0, CostSource::Measured, 0.0});
        }
        std::vector<FusionOption> options = table.fusionOptions();
        for (CostCell& cell : options[0].cells) {
            cell = {groupUs, 10.0 * groupUs, 0, CostSource::Measured, 0.0};
        }
        table.setFusionOptions(options);
        Simulator sim(g, table);
        Plan plan;
        plan.device.assign(g.nodes.size(), 0);
        plan.device[static_cast<std::size_t>(relu)] = reluDevice;
        plan.order = {conv, relu};
        r = sim.simulate(plan, true);
        // evaluate() and the batch path agree with simulate().
        const std::vector<std::uint8_t> genome = sim.genomeOf(plan);
        const Objectives fast = sim.evaluate(genome);
        QCOMPARE(fast.latencyUs, r.objectives.latencyUs);
        QCOMPARE(fast.peakMemoryBytes, r.objectives.peakMemoryBytes);
        Objectives batch;
        const std::uint8_t* one = genome.data();
        sim.evaluateBatch({&one, 1}, {&batch, 1});
        QCOMPARE(batch.latencyUs, r.objectives.latencyUs);
        QCOMPARE(batch.energyMj, r.objectives.energyMj);
        QCOMPARE(batch.peakMemoryBytes, r.objectives.peakMemoryBytes);
    };
    SimulationResult fused;
    SimulationResult dearer;
    SimulationResult split;
    simulate(12.0, 0, fused);
    simulate(16.0, 0, dearer);
    simulate(12.0, 1, split);
    if (QTest::currentTestFailed()) {
        return;
    }
    QCOMPARE(fused.objectives.latencyUs, 12.0);
    QCOMPARE(fused.fusedGroups, std::vector<std::int32_t>{0});
    QCOMPARE(fused.timeline.size(), std::size_t{1}); // the group is one segment
    QCOMPARE(fused.objectives.energyMj, 12.0 * 10.0 * 1e-3);
    QCOMPARE(dearer.objectives.latencyUs, 15.0);
    QVERIFY(dearer.fusedGroups.empty());
    QCOMPARE(dearer.timeline.size(), std::size_t{2});
    // The Conv's output (8·8·8 floats) is live at the Relu when unfused, never when fused.
    QCOMPARE(dearer.peakBytes[0] - fused.peakBytes[0], 2048.0);
    // Split: the Relu on the gpu after the copy: 10 + (3 + 2048 B / 1 GB/s) + 5.
    QVERIFY(split.fusedGroups.empty());
    QCOMPARE(split.objectives.latencyUs, 10.0 + 3.0 + 2048.0 / 1e3 + 5.0);
}

// A plan that splits a group's members over two devices cannot run the group as one node.
void TestFusion::validationRefusesGroupOverTwoDevices() {
    const DeviceInventory inventory = discoverDevices();
    if (!inventory.find("cpu:0") || !inventory.find("cpu:1")) {
        QSKIP("this machine has fewer than two CPU cores");
    }
    const Graph g =
        onnxFixture("(float[1,3,8,8] x) => (float[1,8,8,8] y) <float[8,3,3,3] w = {" + values(216) +
                    "}> {\n  c = Conv <pads = [1, 1, 1, 1]> (x, w)\n"
                    "  y = Relu (c)\n}");
    const std::vector<FusionGroup> groups = findFusionGroups(g);
    QCOMPARE(groups.size(), std::size_t{1});
    PlanToValidate plan;
    plan.label = "plan 0";
    plan.assignment.assign(g.nodes.size(), std::string());
    plan.assignment[static_cast<std::size_t>(groups[0].members[0])] = "cpu:0";
    plan.assignment[static_cast<std::size_t>(groups[0].tail())] = "cpu:1";
    plan.fusionGroups = groups;
    QTemporaryDir dir;
    const QString db = dir.path() + QStringLiteral("/s.db");
    SampleLibrary library = SampleLibrary::open(db.toStdString());
    ValidationOptions options;
    options.repeats = 1;
    try {
        validatePlan(g, plan, library, options);
        QFAIL("a group over two devices was run");
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("two devices") != std::string::npos, e.what());
    }
}

// validate's row for a fused node of the plan: where today's costs did not take the group, the
// simulation ran its members on their own, and the row says their sum, not the last member's.
void TestFusion::fusedNodeIsPredictedAsItsMembersWhereTheSimulationRanThemApart() {
    detail::Prediction prediction;
    prediction.nodes.resize(3);
    prediction.nodes[0] = {400.0, "measured", 10.0, 410.0};  // Conv
    prediction.nodes[1] = {30.0, "predicted", 410.0, 440.0}; // Clip
    prediction.nodes[2] = {50.0, "measured", 440.0, 490.0};
    const std::vector<NodeId> group = {0, 1};
    const detail::NodePrediction apart = detail::fusedNodePrediction(prediction, group);
    QCOMPARE(apart.latencyUs.value(), 430.0);
    QCOMPARE(apart.startUs.value(), 10.0);
    QCOMPARE(apart.finishUs.value(), 440.0);
    QCOMPARE(apart.source, std::string("predicted")); // the less certain of the two
    // A member without a figure: none for the group.
    detail::Prediction missing = prediction;
    missing.nodes[1].latencyUs.reset();
    QVERIFY(!detail::fusedNodePrediction(missing, group).latencyUs);
    // Taken by the simulation: the group's own figure, under its last member.
    prediction.fusedGroups = {group};
    prediction.nodes[1] = {380.0, "measured", 10.0, 390.0};
    const detail::NodePrediction taken = detail::fusedNodePrediction(prediction, group);
    QCOMPARE(taken.latencyUs.value(), 380.0);
    QCOMPARE(taken.startUs.value(), 10.0);
    QCOMPARE(taken.source, std::string("measured"));
}

QTEST_GUILESS_MAIN(TestFusion)
#include "tst_fusion.moc"
