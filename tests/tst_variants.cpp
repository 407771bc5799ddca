// SPDX-License-Identifier: GPL-3.0-or-later
// The variant layer of a plan (issue 17): columns of devices and precisions in the simulator
// (figures computed by hand in the comments), modelled variant cells from a catalog's
// "precisions", and the search over columns with accuracy as an objective or a constraint.
#include "common/input_error.h"
#include "cost/cost_table.h"
#include "cost/device_catalog.h"
#include "graph/onnx_importer.h"
#include "graph/precision.h"
#include "graph_fixture.h"
#include "plan/memory_plan.h"
#include "plan/simulator.h"
#include "search/baselines.h"
#include "search/exhaustive_search.h"
#include "search/pareto_search.h"
#include "search/plans_document.h"
#include "search/random.h"
#include "testpaths.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <string>

using namespace paretune;
using paretune::test::fixtureGraph;
using paretune::test::FixtureOptions;

namespace {

// cpu (host): 10 W active, 2 W idle; gpu: 100 W / 10 W; cpu<->gpu 1 GB/s (1000 B/µs) + 10 µs.
const char* kTwoDevices = R"({"schema": "paretune.devices/1", "host": "cpu", "devices": [
  {"id": "cpu", "kind": "cpu", "peak_gflops": 100, "mem_bw_gbs": 10, "launch_us": 0,
   "active_w": 10, "idle_w": 2, "memory_mb": 1024},
  {"id": "gpu", "kind": "gpu", "peak_gflops": 1000, "mem_bw_gbs": 100, "launch_us": 0,
   "active_w": 100, "idle_w": 10, "memory_mb": 1024}],
 "links": [{"a": "cpu", "b": "gpu", "bandwidth_gbs": 1, "latency_us": 10, "duplex": "full"}]})";

CostCell cellOf(double latencyUs, double activeW, double deviationPct = 0.0) {
    CostCell cell;
    cell.latencyUs = latencyUs;
    cell.energyUj = latencyUs * activeW;
    cell.source = CostSource::Modelled;
    cell.deviationPct = deviationPct;
    return cell;
}

/// a->b->c on cpu and gpu, fp32 cells a 10, b 20 (gpu 5), c 30 µs (gpu 10); bf16 cells for b
/// (cpu 4 µs, gpu 2 µs, deviation 0.25 %) and c (cpu 15 µs, deviation 0.5 %; none on the gpu).
struct Chain {
    Graph graph;
    CostTable table;
    Chain() {
        FixtureOptions options;
        options.inputBytes = 100;
        options.outputBytes = {{"a", 1000}, {"b", 2000}, {"c", 400}};
        graph = fixtureGraph("a->b->c", options);
        table = buildCostTable(graph, parseDeviceCatalogText(kTwoDevices, "two"), {"cpu", "gpu"});
        table.setVariants({Precision::Fp32, Precision::Bf16});
        const NodeId a = graph.findNode("a");
        const NodeId b = graph.findNode("b");
        const NodeId c = graph.findNode("c");
        table.setCell(a, 0, cellOf(10, 10));
        table.setCell(a, 1, cellOf(10, 100));
        table.setCell(b, 0, cellOf(20, 10));
        table.setCell(b, 1, cellOf(5, 100));
        table.setCell(c, 0, cellOf(30, 10));
        table.setCell(c, 1, cellOf(10, 100));
        table.setCell(b, 0, 1, cellOf(4, 10, 0.25));
        table.setCell(b, 1, 1, cellOf(2, 100, 0.25));
        table.setCell(c, 0, 1, cellOf(15, 10, 0.5));
    }
    std::vector<std::uint8_t> genome(const Simulator& sim, const char* text) const {
        return genome(sim, QString::fromUtf8(text));
    }
    /// "a=cpu b=gpu:bf16" → a genome of columns.
    std::vector<std::uint8_t> genome(const Simulator& sim, const QString& text) const {
        std::vector<std::uint8_t> g(static_cast<std::size_t>(sim.computeCount()), 0);
        for (const QString& item : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
            const QStringList kv = item.split(QLatin1Char('='));
            const QStringList dv = kv[1].split(QLatin1Char(':'));
            const std::int32_t d = table.findDevice(dv[0].toStdString());
            const std::int32_t v =
                dv.size() > 1 ? table.findVariant(parsePrecision(dv[1].toStdString())) : 0;
            g[static_cast<std::size_t>(sim.computeIndex(graph.findNode(kv[0].toStdString())))] =
                static_cast<std::uint8_t>(sim.column(d, v));
        }
        return g;
    }
};

/// The chain with the Casts its bf16 cells include: b's in (a's output) 1 µs on the cpu, 0.5 on
/// the gpu, and out 2 / 1 µs; c's in 3 µs and out 1 µs (cpu only, where c has bf16). The cpu
/// draws 10 W, the gpu 100 W.
struct ChainWithCasts : Chain {
    ChainWithCasts() {
        const auto out = [&](const char* node) {
            return graph.nodeOutputs.row(graph.findNode(node))[0];
        };
        const NodeId b = graph.findNode("b");
        const NodeId c = graph.findNode("c");
        table.setConversions({{b, 1, out("a"), false, {cellOf(1, 10), cellOf(0.5, 100)}},
                              {b, 1, out("b"), true, {cellOf(2, 10), cellOf(1, 100)}},
                              {c, 1, out("b"), false, {cellOf(3, 10), CostCell{}}},
                              {c, 1, out("c"), true, {cellOf(1, 10), CostCell{}}}});
    }
};

/// Every plan of the chain (three nodes, four columns each) and what evaluateBatch gives them.
std::pair<std::vector<std::vector<std::uint8_t>>, std::vector<Objectives>>
everyPlanInOneBatch(Simulator& sim) {
    std::vector<std::vector<std::uint8_t>> genomes;
    for (std::uint8_t c0 = 0; c0 < 4; ++c0) {
        for (std::uint8_t c1 = 0; c1 < 4; ++c1) {
            for (std::uint8_t c2 = 0; c2 < 4; ++c2) {
                genomes.push_back({c0, c1, c2});
            }
        }
    }
    std::vector<const std::uint8_t*> pointers;
    for (const auto& g : genomes) {
        pointers.push_back(g.data());
    }
    std::vector<Objectives> out(genomes.size());
    sim.evaluateBatch(pointers, out);
    return {std::move(genomes), std::move(out)};
}

bool identical(const Objectives& a, const Objectives& b) {
    return a.latencyUs == b.latencyUs && a.energyMj == b.energyMj &&
           a.averagePowerW == b.averagePowerW && a.peakMemoryBytes == b.peakMemoryBytes &&
           a.violation == b.violation && a.deviationPct == b.deviationPct;
}

/// A slow cpu host and a compute-bound npu whose bf16 peak is ten times its fp32 one.
const char* kBf16Catalog = R"({"schema": "paretune.devices/1", "host": "cpu", "devices": [
  {"id": "cpu", "kind": "cpu", "peak_gflops": 20, "mem_bw_gbs": 40, "launch_us": 2,
   "active_w": 65, "idle_w": 8, "memory_mb": 16384},
  {"id": "npu", "kind": "npu", "peak_gflops": 100, "mem_bw_gbs": 1000, "launch_us": 1,
   "active_w": 5, "idle_w": 0.5, "memory_mb": 1024,
   "efficiency": {"default": 0.1, "ops": {"Conv": 1.0, "MatMul": 1.0, "Gemm": 1.0}},
   "precisions": {"bf16": {"peak_gflops": 1000}}}],
 "links": [{"a": "cpu", "b": "npu", "bandwidth_gbs": 4, "latency_us": 30, "duplex": "full"}]})";

/// The sample model's table on cpu and npu with bf16 offered; each bf16 cell a deviation of
/// 0.1 % (as the sensitivity table would give it).
CostTable sampleTable(const Graph& g) {
    CostTableOptions options;
    options.variants = {Precision::Bf16};
    CostTable table = buildCostTable(g, parseDeviceCatalogText(kBf16Catalog, "bf16 catalog"),
                                     {"cpu", "npu"}, options);
    for (NodeId n = 0; n < table.nodeCount(); ++n) {
        for (std::int32_t d = 0; d < table.deviceCount(); ++d) {
            CostCell cell = table.cell(n, d, 1);
            if (cell.supported()) {
                cell.deviationPct = 0.1;
                table.setCell(n, d, 1, cell);
            }
        }
    }
    return table;
}

} // namespace

class TestVariants : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void variantChangesMakespanAndDeviation_data();
    void variantChangesMakespanAndDeviation();
    void deviationLimitMakesPlansInfeasible();
    void fusionOnlyInFp32();
    void genomeAndPlanRoundTrip();
    void batchMatchesScalar();
    void chainsSaveTheirConversions();
    void modelledVariantCells();
    void catalogPrecisions();
    void baselinesInEachVariant();
    void searchTradesAccuracyOpenly();
    void searchRespectsMaxDeviation();
    void searchRefusesUnseenAccuracy();
    void plansDocumentListsVariants();
};

void TestVariants::variantChangesMakespanAndDeviation_data() {
    QTest::addColumn<QString>("plan");
    QTest::addColumn<double>("makespan");
    QTest::addColumn<double>("energyUj");
    QTest::addColumn<double>("deviation");
    // All cpu fp32: 10 + 20 + 30 = 60 µs, 600 µJ.
    QTest::newRow("fp32") << "a=cpu b=cpu c=cpu" << 60.0 << 600.0 << 0.0;
    // b in bf16 on the cpu: 10 + 4 + 30 = 44 µs, 440 µJ, 0.25 %.
    QTest::newRow("b bf16") << "a=cpu b=cpu:bf16 c=cpu" << 44.0 << 440.0 << 0.25;
    // b and c in bf16: 10 + 4 + 15 = 29 µs, 290 µJ, √(0.25² + 0.5²) %.
    QTest::newRow("b c bf16") << "a=cpu b=cpu:bf16 c=cpu:bf16" << 29.0 << 290.0
                              << std::sqrt(0.25 * 0.25 + 0.5 * 0.5);
    // b in bf16 on the gpu (column 3): a cpu 0..10; a's 1000 B to the gpu 10..21; b 21..23;
    // b's 2000 B back 23..35; c cpu 35..65. Energy: cpu 400 busy + 25 · 2 idle = 450, gpu
    // 2 · 100 + 63 · 10 = 830 → 1280 µJ.
    QTest::newRow("b bf16 on the gpu") << "a=cpu b=gpu:bf16 c=cpu" << 65.0 << 1280.0 << 0.25;
}

void TestVariants::variantChangesMakespanAndDeviation() {
    QFETCH(QString, plan);
    QFETCH(double, makespan);
    QFETCH(double, energyUj);
    QFETCH(double, deviation);
    const Chain chain;
    Simulator sim(chain.graph, chain.table);
    QCOMPARE(sim.columnCount(), 4);
    const std::vector<std::uint8_t> genome = chain.genome(sim, plan);
    const SimulationResult r = sim.simulate(sim.planOf(genome));
    QCOMPARE(r.objectives.latencyUs, makespan);
    QVERIFY2(std::abs(r.objectives.energyMj * 1e3 - energyUj) < 1e-9,
             qPrintable(QString::number(r.objectives.energyMj, 'g', 12)));
    QCOMPARE(r.objectives.deviationPct, deviation);
    QVERIFY(r.objectives.feasible());
    QVERIFY(identical(sim.evaluate(genome), r.objectives));
    for (const QString& item : plan.split(QLatin1Char(' '))) {
        const QStringList kv = item.split(QLatin1Char('='));
        const NodeId n = chain.graph.findNode(kv[0].toStdString());
        QCOMPARE(r.variant[static_cast<std::size_t>(n)],
                 kv[1].endsWith(QLatin1String("bf16")) ? 1 : 0);
    }
}

void TestVariants::deviationLimitMakesPlansInfeasible() {
    const Chain chain;
    Simulator sim(chain.graph, chain.table);
    sim.setDeviationLimit(0.5);
    // √(0.25² + 0.5²) = 0.559 % against 0.5 %: violation (0.559 - 0.5) / 0.5.
    const Objectives over = sim.evaluate(chain.genome(sim, "a=cpu b=cpu:bf16 c=cpu:bf16"));
    QCOMPARE(over.violation, (std::sqrt(0.25 * 0.25 + 0.5 * 0.5) - 0.5) / 0.5);
    QVERIFY(!over.feasible());
    QVERIFY(sim.evaluate(chain.genome(sim, "a=cpu b=cpu:bf16 c=cpu")).feasible());
    sim.setDeviationLimit(0.0); // nothing lowered allowed: the violation is the deviation
    QCOMPARE(sim.evaluate(chain.genome(sim, "a=cpu b=cpu:bf16 c=cpu")).violation, 0.25);
    QVERIFY(sim.evaluate(chain.genome(sim, "a=cpu b=cpu c=cpu")).feasible());
    QVERIFY_THROWS_EXCEPTION(InputError, sim.setDeviationLimit(-1.0));
    QVERIFY_THROWS_EXCEPTION(InputError, sim.setDeviationLimit(std::nan("")));
}

void TestVariants::fusionOnlyInFp32() {
    Chain chain;
    // b+c fused: 12 µs on the cpu (less than 20 + 30).
    FusionOption option;
    option.group.members = {chain.graph.findNode("b"), chain.graph.findNode("c")};
    option.group.pattern = "Op+Op";
    option.cells = {cellOf(12, 10), CostCell{}};
    chain.table.setFusionOptions({option});
    Simulator sim(chain.graph, chain.table);
    // fp32 on the cpu: taken, 10 + 12 = 22 µs.
    const auto fp32 = chain.genome(sim, "a=cpu b=cpu c=cpu");
    QCOMPARE(sim.takenGroups(fp32), std::vector<std::int32_t>{0});
    QCOMPARE(sim.evaluate(fp32).latencyUs, 22.0);
    // A member in bf16: not taken; b 4 µs + c 30 µs run on their own.
    const auto mixed = chain.genome(sim, "a=cpu b=cpu:bf16 c=cpu");
    QVERIFY(sim.takenGroups(mixed).empty());
    QCOMPARE(sim.evaluate(mixed).latencyUs, 44.0);
    // Both in bf16 (the same column): not taken either, 10 + 4 + 15.
    const auto lowered = chain.genome(sim, "a=cpu b=cpu:bf16 c=cpu:bf16");
    QVERIFY(sim.takenGroups(lowered).empty());
    QCOMPARE(sim.evaluate(lowered).latencyUs, 29.0);
    std::vector<const std::uint8_t*> batch{fp32.data(), mixed.data(), lowered.data()};
    std::vector<Objectives> out(batch.size());
    sim.evaluateBatch(batch, out);
    QCOMPARE(out[0].latencyUs, 22.0);
    QCOMPARE(out[2].latencyUs, 29.0);
    // b's output, between the members of a group not taken, is narrowed and reported so.
    ChainWithCasts casts;
    casts.table.setFusionOptions({option});
    Simulator withCasts(casts.graph, casts.table);
    const SimulationResult r = withCasts.simulate(
        withCasts.planOf(casts.genome(withCasts, "a=cpu b=cpu:bf16 c=cpu:bf16")));
    QVERIFY(r.fusedGroups.empty());
    QCOMPARE(r.narrowed.size(), std::size_t{1});
    QCOMPARE(r.narrowed[0].second, std::int64_t{1000});
    QVERIFY(withCasts.simulate(withCasts.planOf(casts.genome(withCasts, "a=cpu b=cpu c=cpu")))
                .narrowed.empty());
}

void TestVariants::genomeAndPlanRoundTrip() {
    const Chain chain;
    Simulator sim(chain.graph, chain.table);
    for (std::uint8_t c0 = 0; c0 < 4; ++c0) {
        for (std::uint8_t c1 = 0; c1 < 4; ++c1) {
            const std::vector<std::uint8_t> genome{c0, c1, static_cast<std::uint8_t>(3 - c1)};
            const Plan plan = sim.planOf(genome);
            QCOMPARE(plan.variant.size(), chain.graph.nodes.size());
            QCOMPARE(plan.device[static_cast<std::size_t>(sim.computeNode(0))], c0 % 2);
            QCOMPARE(plan.variant[static_cast<std::size_t>(sim.computeNode(0))], c0 / 2);
            QCOMPARE(sim.genomeOf(plan), genome);
        }
    }
    Plan plan = sim.planOf(std::vector<std::uint8_t>{0, 2, 0});
    Plan fp32 = plan;
    fp32.variant.clear(); // empty: every node in fp32
    QCOMPARE(sim.genomeOf(fp32), (std::vector<std::uint8_t>{0, 0, 0}));
    Plan badVariant = plan;
    badVariant.variant[static_cast<std::size_t>(sim.computeNode(1))] = 2;
    QVERIFY_THROWS_EXCEPTION(InputError, sim.simulate(badVariant));
    Plan badSize = plan;
    badSize.variant.pop_back();
    QVERIFY_THROWS_EXCEPTION(InputError, sim.genomeOf(badSize));
    // A table without variants leaves Plan::variant empty.
    const Graph g = fixtureGraph("a->b");
    const CostTable plain =
        buildCostTable(g, parseDeviceCatalogText(kTwoDevices, "two"), {"cpu", "gpu"});
    Simulator fp32Only(g, plain);
    QCOMPARE(fp32Only.columnCount(), 2);
    QVERIFY(fp32Only.planOf(std::vector<std::uint8_t>{1, 0}).variant.empty());
}

// evaluateBatch gives what evaluate() gives, bit for bit, with columns of two variants (the
// vector core maps columns to devices per lane where it applies; tst_simulator checks the same
// on real models).
void TestVariants::batchMatchesScalar() {
    const Chain chain;
    Simulator sim(chain.graph, chain.table);
    qInfo("batch path: %s", sim.batchPath());
    const auto [genomes, out] = everyPlanInOneBatch(sim);
    int infeasible = 0;
    for (std::size_t i = 0; i < genomes.size(); ++i) {
        const Objectives one = sim.evaluate(genomes[i]);
        QVERIFY2(identical(out[i], one), QByteArray::number(static_cast<qulonglong>(i)));
        infeasible += one.feasible() ? 0 : 1; // a in bf16, c in bf16 on the gpu: unsupported
    }
    QVERIFY(infeasible > 0);
}

// A chain of bf16 nodes does not run the Casts between them (graph/precision.h, LoweredChains):
// the simulator takes them off the cells, figures by hand.
void TestVariants::chainsSaveTheirConversions() {
    const ChainWithCasts chain;
    Simulator sim(chain.graph, chain.table);
    // b and c in bf16 on the cpu: b's Cast out (c its only reader, in bf16) and c's Cast in (b
    // in bf16) are not run; b's Cast in (a in fp32) and c's out (a graph output) are.
    // 10 + (4 − 2) + (15 − 3) = 24 µs; energy 100 + 20 + 120 = 240 µJ, the cpu never idle.
    const auto both = chain.genome(sim, "a=cpu b=cpu:bf16 c=cpu:bf16");
    const SimulationResult r = sim.simulate(sim.planOf(both));
    QCOMPARE(r.objectives.latencyUs, 24.0);
    QVERIFY(std::abs(r.objectives.energyMj * 1e3 - 240.0) < 1e-9);
    QVERIFY(identical(sim.evaluate(both), r.objectives));
    QCOMPARE(sim.savedConversionUs(both, sim.computeIndex(chain.graph.findNode("b"))), 2.0);
    QCOMPARE(sim.savedConversionUs(both, sim.computeIndex(chain.graph.findNode("c"))), 3.0);
    QCOMPARE(sim.savedConversionUs(both, sim.computeIndex(chain.graph.findNode("a"))), 0.0);
    // b alone in bf16: c reads b's output in fp32, nothing is saved: 10 + 4 + 30.
    const auto alone = chain.genome(sim, "a=cpu b=cpu:bf16 c=cpu");
    QCOMPARE(sim.evaluate(alone).latencyUs, 44.0);
    QCOMPARE(sim.savedConversionUs(alone, sim.computeIndex(chain.graph.findNode("b"))), 0.0);
    // b in bf16 on the gpu, c in bf16 on the cpu: each saves on its own device, and b's output
    // moves in bf16. a 0..10; a's 1000 B to the gpu 10..21; b 21..22 (2 − 1); b's 2000 B in
    // bf16, 1000 B, back 22..33; c 33..45 (15 − 3).
    const auto split = chain.genome(sim, "a=cpu b=gpu:bf16 c=cpu:bf16");
    QCOMPARE(sim.evaluate(split).latencyUs, 45.0);
    QCOMPARE(sim.simulate(sim.planOf(split)).objectives.latencyUs, 45.0);
    // c in fp32 reads b's output in fp32: b 21..23 (nothing saved), its 2000 B back 23..35,
    // c 35..65.
    QCOMPARE(sim.evaluate(chain.genome(sim, "a=cpu b=gpu:bf16 c=cpu")).latencyUs, 65.0);
    QCOMPARE(sim.savedConversionUs(split, sim.computeIndex(chain.graph.findNode("b"))), 1.0);
    // The batch path gives the same, bit for bit, on every plan of the chain.
    const auto [genomes, out] = everyPlanInOneBatch(sim);
    for (std::size_t i = 0; i < genomes.size(); ++i) {
        QVERIFY2(identical(out[i], sim.evaluate(genomes[i])),
                 QByteArray::number(static_cast<qulonglong>(i)));
    }
    // Memory: b's 2000-byte output stays bf16 in the chain, 1000 bytes. Without variants of a's
    // and c's buffers' sizes, the cpu holds a's 1000 and b's 2000 at b's start, b's and c's 400
    // at c's: peak 3000 in fp32; with b's output narrow, 1000 + 1000 = 2000.
    const Chain plain;
    Simulator fp32Sizes(plain.graph, plain.table);
    const std::int32_t cpu = chain.table.findDevice("cpu");
    QCOMPARE(fp32Sizes.simulate(fp32Sizes.planOf(both)).peakBytes[static_cast<std::size_t>(cpu)],
             3000.0);
    QCOMPARE(r.peakBytes[static_cast<std::size_t>(cpu)], 2000.0);
    QCOMPARE(r.narrowed.size(), std::size_t{1});
    QCOMPARE(r.narrowed[0].second, std::int64_t{1000});
    QCOMPARE(r.objectives.peakMemoryBytes, 2000.0);
    // The memory plan counts it so too; a plan that casts b's output back does not.
    QCOMPARE(memoryPlanOf(sim, both).devices[static_cast<std::size_t>(cpu)].livePeakBytes,
             std::int64_t{2000});
    QVERIFY(sim.simulate(sim.planOf(alone)).narrowed.empty());
    QCOMPARE(sim.evaluate(alone).peakMemoryBytes, 3000.0);
    // A conversion that does not fit the table is refused.
    CostTable table = chain.table;
    QVERIFY_THROWS_EXCEPTION(InputError, table.setConversions({{0, 2, 0, false, {{}, {}}}}));
    QVERIFY_THROWS_EXCEPTION(InputError, table.setConversions({{0, 1, 0, false, {{}}}}));
}

void TestVariants::modelledVariantCells() {
    const QString path = QStringLiteral(PARETUNE_SAMPLE_MODEL);
    const Graph g = importOnnxFile(path.toStdString()).graph;
    const CostTable table = sampleTable(g);
    QCOMPARE(table.variantCount(), 2);
    const std::int32_t cpu = table.findDevice("cpu");
    const std::int32_t npu = table.findDevice("npu");
    int lowered = 0;
    int neighbours = 0;
    for (std::size_t n = 0; n < g.nodes.size(); ++n) {
        const auto node = static_cast<NodeId>(n);
        const CostCell& bf16 = table.cell(node, npu, 1);
        if (g.nodes[n].kind != NodeKind::Compute || !lowerable(g, node, Precision::Bf16)) {
            QVERIFY(!bf16.supported());
            continue;
        }
        ++lowered;
        QCOMPARE(bf16.source, CostSource::Modelled);
        QVERIFY(!table.cell(node, cpu, 1).supported()); // the cpu lists no bf16 peak
        const std::string& op = g.nodes[n].opType;
        if (op != "Conv" && op != "Gemm") {
            ++neighbours; // a Relu or an Add: the roofline at the op's own efficiency
            continue;
        }
        // The roofline at 1000 GFLOP/s with the float traffic halved, plus the conversions:
        // one launch and 4 + 2 bytes per element of each activation input and output.
        const OpMetrics& m = g.metrics[n];
        double conversionBytes = 0.0;
        int conversions = 0;
        for (const auto& row : {g.nodeInputs.row(node), g.nodeOutputs.row(node)}) {
            for (const TensorId t : row) {
                if (t == kNone) {
                    continue;
                }
                const Tensor& tensor = g.tensors[static_cast<std::size_t>(t)];
                if (tensor.role != TensorRole::Initializer && !tensor.value) {
                    conversionBytes += static_cast<double>(tensor.byteSize()) * 1.5;
                    ++conversions;
                }
            }
        }
        const double expected =
            1.0 * (1 + conversions) +
            std::max(m.flops / (1000.0 * 1e3),
                     static_cast<double>(m.bytesRead + m.bytesWritten) * 0.5 / 1000e3) +
            conversionBytes / 1000e3;
        QVERIFY2(std::abs(bf16.latencyUs - expected) < 1e-9 * expected,
                 qPrintable(QString::number(bf16.latencyUs) + QStringLiteral(" vs ") +
                            QString::number(expected)));
        QCOMPARE(bf16.energyUj, bf16.latencyUs * 5.0);
    }
    QCOMPARE(lowered - neighbours, 10); // 9 Conv and 1 Gemm
    QVERIFY(neighbours > 0);
    // Each lowered cell's Casts are conversions a chain may save, modelled alike: one launch
    // and 4 + 2 bytes per element.
    QVERIFY(!table.conversions().empty());
    for (const ConversionCost& c : table.conversions()) {
        const double bytes =
            static_cast<double>(g.tensors[static_cast<std::size_t>(c.tensor)].byteSize()) * 1.5;
        QCOMPARE(c.cells[static_cast<std::size_t>(npu)].latencyUs, 1.0 + bytes / 1000e3);
        QVERIFY(!c.cells[static_cast<std::size_t>(cpu)].supported());
    }
    // Without options.variants nothing is offered.
    QCOMPARE(
        buildCostTable(g, parseDeviceCatalogText(kBf16Catalog, "c"), {"cpu", "npu"}).variantCount(),
        1);
}

void TestVariants::catalogPrecisions() {
    const DeviceCatalog catalog = parseDeviceCatalogText(kBf16Catalog, "bf16 catalog");
    const DeviceSpec& npu = catalog.devices[static_cast<std::size_t>(catalog.findDevice("npu"))];
    QCOMPARE(npu.peakGflopsFor(Precision::Bf16), 1000.0);
    QCOMPARE(npu.peakGflopsFor(Precision::Fp32), 100.0);
    QCOMPARE(catalog.devices[0].peakGflopsFor(Precision::Bf16), 0.0);
    // A measured device's variants are measured: listing a peak there is refused.
    const std::string measured = R"({"schema": "paretune.devices/1", "host": "cpu", "devices": [
      {"id": "cpu", "kind": "cpu", "cost": "measured", "active_w": 10, "idle_w": 1,
       "memory_mb": 100, "precisions": {"bf16": {"peak_gflops": 10}}}]})";
    try {
        parseDeviceCatalogText(measured, "m.json");
        QFAIL("no error");
    } catch (const InputError& e) {
        QVERIFY2(QString::fromStdString(e.what()).startsWith(
                     QStringLiteral("m.json: devices[0].precisions: a measured device")),
                 e.what());
    }
}

void TestVariants::baselinesInEachVariant() {
    const Graph g = importOnnxFile(PARETUNE_SAMPLE_MODEL).graph;
    const CostTable table = sampleTable(g);
    Simulator sim(g, table);
    std::vector<std::string> labels;
    for (const Solution& s : evaluateBaselines(sim)) {
        labels.push_back(s.baseline);
        const bool lowered = std::any_of(s.genome.begin(), s.genome.end(),
                                         [&](std::uint8_t c) { return sim.columnVariant(c) != 0; });
        QCOMPARE(lowered, s.baseline == "all:npu:bf16");
        QCOMPARE(s.objectives.deviationPct > 0.0, lowered);
    }
    // No cpu bf16 baseline: the cpu lists no bf16 peak.
    QCOMPARE(labels,
             (std::vector<std::string>{"all:cpu", "all:npu", "heft", "greedy", "all:npu:bf16"}));
}

void TestVariants::searchTradesAccuracyOpenly() {
    const Graph g = importOnnxFile(PARETUNE_SAMPLE_MODEL).graph;
    const CostTable table = sampleTable(g);
    Simulator sim(g, table);
    SearchOptions options;
    options.objectives = {Objective::Latency, Objective::Accuracy};
    options.variants = {Precision::Bf16};
    options.population = 40;
    options.generations = 40;
    const SearchResult result = searchPareto(sim, options);
    QVERIFY(!result.front.empty());
    double fastestFp32 = std::numeric_limits<double>::infinity();
    double fastestLowered = std::numeric_limits<double>::infinity();
    for (const Solution& s : result.front) {
        const bool lowered = std::any_of(s.genome.begin(), s.genome.end(),
                                         [&](std::uint8_t c) { return sim.columnVariant(c) != 0; });
        QCOMPARE(lowered, s.objectives.deviationPct > 0.0);
        (lowered ? fastestLowered : fastestFp32) =
            std::min(lowered ? fastestLowered : fastestFp32, s.objectives.latencyUs);
    }
    // The all-fp32 end of the front (deviation 0) and faster plans that pay in accuracy.
    QVERIFY(std::isfinite(fastestFp32));
    QVERIFY(std::isfinite(fastestLowered));
    QVERIFY(fastestLowered < fastestFp32);
}

// The limit holds for the flat search and for coarse-to-fine (chains of nodes moved to one
// column first: a chain moved to bf16 keeps its nodes that cannot be lowered in fp32).
void TestVariants::searchRespectsMaxDeviation() {
    const Graph g = importOnnxFile(PARETUNE_SAMPLE_MODEL).graph;
    const CostTable table = sampleTable(g);
    Simulator sim(g, table);
    for (const bool coarseToFine : {false, true}) {
        SearchOptions options;
        options.objectives = {Objective::Latency, Objective::Energy};
        options.variants = {Precision::Bf16};
        options.maxDeviationPct = 0.25; // at most six lowered nodes of 0.1 % each (√6 · 0.1)
        options.population = 40;
        options.generations = 40;
        options.coarseToFine = coarseToFine;
        options.coarseMaxGroupSize = 4;
        const SearchResult result = searchPareto(sim, options);
        QVERIFY(!result.front.empty());
        bool anyLowered = false;
        for (const Solution& s : result.front) {
            QVERIFY2(s.objectives.deviationPct <= 0.25,
                     qPrintable(QString::number(s.objectives.deviationPct)));
            for (std::int32_t ci = 0; ci < sim.computeCount(); ++ci) {
                QVERIFY(sim.columnSupported(ci, s.genome[static_cast<std::size_t>(ci)]));
            }
            anyLowered = anyLowered || s.objectives.deviationPct > 0.0;
        }
        QVERIFY(anyLowered); // the limit still leaves room to lower some nodes
        for (const Solution& b : result.baselines) {
            QCOMPARE(b.objectives.feasible(), b.baseline != "all:npu:bf16"); // 10 nodes: 1 %
        }
    }
}

void TestVariants::searchRefusesUnseenAccuracy() {
    const Graph g = importOnnxFile(PARETUNE_SAMPLE_MODEL).graph;
    const CostTable table = sampleTable(g);
    Simulator sim(g, table);
    SearchOptions options; // latency, energy, memory: accuracy unseen
    options.variants = {Precision::Bf16};
    options.population = 8;
    options.generations = 1;
    QVERIFY_THROWS_EXCEPTION(InputError, searchPareto(sim, options));
    options.maxDeviationPct = -1.0;
    options.objectives = {Objective::Latency, Objective::Accuracy};
    QVERIFY_THROWS_EXCEPTION(InputError, searchPareto(sim, options));
}

void TestVariants::plansDocumentListsVariants() {
    const Graph g = importOnnxFile(PARETUNE_SAMPLE_MODEL).graph;
    const CostTable table = sampleTable(g);
    Simulator sim(g, table);
    SearchOptions options;
    options.objectives = {Objective::Latency, Objective::Accuracy};
    options.variants = {Precision::Bf16};
    options.population = 16;
    options.generations = 5;
    const SearchResult result = searchPareto(sim, options);
    const std::vector<ListedPlan> plans = listPlans(result, options.objectives, 0);
    const nlohmann::json doc = plansDocument(sim, options, result, plans, {});
    QCOMPARE(doc["variants"], nlohmann::json::array({"bf16"}));
    QVERIFY(doc["accuracy_objective"].is_string());
    const PlansFile file = parsePlansFile(doc, "document");
    QCOMPARE(file.variants, std::vector<Variant>{Precision::Bf16});
    QCOMPARE(file.plans.size(), plans.size());
    bool sawLowered = false;
    for (std::size_t i = 0; i < plans.size(); ++i) {
        const Solution& s = plans[i].solution;
        const PlansFilePlan& p = file.plans[i];
        const auto lowered = static_cast<std::size_t>(
            std::count_if(s.genome.begin(), s.genome.end(),
                          [&](std::uint8_t c) { return sim.columnVariant(c) != 0; }));
        QCOMPARE(p.variants.size(), lowered);
        QVERIFY(p.deviationPct.has_value());
        QCOMPARE(*p.deviationPct, s.objectives.deviationPct);
        for (const auto& [name, precision] : p.variants) {
            QCOMPARE(precision, Precision::Bf16);
            const NodeId n = g.findNode(name);
            QVERIFY(n != kNone);
            QCOMPARE(sim.columnVariant(s.genome[static_cast<std::size_t>(sim.computeIndex(n))]), 1);
        }
        if (lowered > 0) {
            sawLowered = true;
            QCOMPARE(p.deviationSource, std::string("estimated from the sensitivity table"));
        } else {
            QVERIFY(p.deviationSource.starts_with("none"));
        }
    }
    QVERIFY(sawLowered);
    // A plans file without variants (older versions) reads as all fp32.
    nlohmann::json old = doc;
    old.erase("variants");
    for (auto& plan : old["plans"]) {
        plan.erase("variants");
        plan.erase("deviation_pct");
        plan.erase("deviation_source");
    }
    const PlansFile oldFile = parsePlansFile(old, "old");
    QVERIFY(oldFile.variants.empty());
    QVERIFY(oldFile.plans[0].variants.empty());
    QVERIFY(!oldFile.plans[0].deviationPct);
    // A precision the build does not know is refused, naming the field.
    nlohmann::json bad = doc;
    bad["plans"][0]["variants"] = {{"conv1", "int4"}};
    try {
        parsePlansFile(bad, "bad.json");
        QFAIL("no error");
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("plans[0].variants.conv1") != std::string::npos,
                 e.what());
    }
}

QTEST_APPLESS_MAIN(TestVariants)
#include "tst_variants.moc"
