// SPDX-License-Identifier: GPL-3.0-or-later
// The memory plan per device (issue 18): greedy-by-size offsets computed by hand, no two live
// tensors overlapping over many random lifetimes, and the lifetimes of a simulated plan matching
// what the simulator counts.
#include "cost/cost_table.h"
#include "cost/device_catalog.h"
#include "graph_fixture.h"
#include "plan/memory_plan.h"
#include "plan/memory_plan_json.h"
#include "plan/simulator.h"
#include "search/plans_document.h"
#include "search/plans_file.h"

#include <QtTest>

#include <random>
#include <string>
#include <vector>

using namespace paretune;
using paretune::test::fixtureGraph;
using paretune::test::FixtureOptions;

namespace {

// The simulator test's catalog: cpu (host), gpu and npu, cpu<->gpu and cpu<->npu links,
// gpu<->npu through the host.
const char* const kCatalog = R"({"schema": "paretune.devices/1", "host": "cpu", "devices": [
  {"id": "cpu", "kind": "cpu", "peak_gflops": 100, "mem_bw_gbs": 10, "launch_us": 0,
   "active_w": 10, "idle_w": 2, "memory_mb": 1024},
  {"id": "gpu", "kind": "gpu", "peak_gflops": 1000, "mem_bw_gbs": 100, "launch_us": 0,
   "active_w": 100, "idle_w": 10, "memory_mb": 1024},
  {"id": "npu", "kind": "npu", "peak_gflops": 4000, "mem_bw_gbs": 60, "launch_us": 20,
   "active_w": 4, "idle_w": 1, "memory_mb": 1024}],
 "links": [
  {"a": "cpu", "b": "gpu", "bandwidth_gbs": 1, "latency_us": 10, "duplex": "full"},
  {"a": "cpu", "b": "npu", "bandwidth_gbs": 0.5, "latency_us": 20, "duplex": "half"}]})";

/// Every compute cell `latencyUs` (plus node index · 3 µs, so that runs overlap unevenly).
CostTable uniformTable(const Graph& g, const DeviceCatalog& catalog, std::int64_t workspace = 0) {
    CostTable table = buildCostTable(g, catalog, {"cpu", "gpu", "npu"});
    for (std::size_t n = 0; n < g.nodes.size(); ++n) {
        if (g.nodes[n].kind != NodeKind::Compute) {
            continue;
        }
        for (std::int32_t d = 0; d < table.deviceCount(); ++d) {
            CostCell cell;
            cell.latencyUs = 10.0 + 3.0 * static_cast<double>(n % 5) + d;
            cell.energyUj = cell.latencyUs;
            cell.workspaceBytes = n % 3 == 0 ? workspace : 0;
            cell.source = CostSource::Modelled;
            table.setCell(static_cast<NodeId>(n), d, cell);
        }
    }
    return table;
}

std::vector<ArenaBlock> blocksOf(const DeviceMemoryPlan& dev) {
    std::vector<ArenaBlock> blocks;
    for (const PlannedTensor& t : dev.tensors) {
        blocks.push_back({t.bytes, t.first, t.last});
    }
    return blocks;
}

std::vector<std::int64_t> offsetsOf(const DeviceMemoryPlan& dev) {
    std::vector<std::int64_t> offsets;
    for (const PlannedTensor& t : dev.tensors) {
        offsets.push_back(t.offset);
    }
    return offsets;
}

std::vector<std::int32_t> sharingOf(const DeviceMemoryPlan& dev) {
    std::vector<std::int32_t> sharing;
    for (const PlannedTensor& t : dev.tensors) {
        sharing.push_back(t.inPlaceOf);
    }
    return sharing;
}

const PlannedTensor* tensorNamed(const Graph& g, const DeviceMemoryPlan& dev, const char* name) {
    for (const PlannedTensor& t : dev.tensors) {
        if (t.tensor != kNone && g.tensors[static_cast<std::size_t>(t.tensor)].name == name) {
            return &t;
        }
    }
    return nullptr;
}

} // namespace

class TestMemoryPlan : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void handComputedOffsets();
    void randomLifetimesNeverOverlap();
    void conflictIsFound();
    void handComputedGraph();
    void notMaterialisedTakesNoSpace();
    void livePeakIsTheSimulatorsCount_data();
    void livePeakIsTheSimulatorsCount();
    void plansFileKeepsTheMemoryPlan();
    void documentProblemsAreFound();
};

void TestMemoryPlan::handComputedOffsets() {
    // Largest first: 0 (1000 B, steps 0-1) at 0; 2 (1000 B, 2-3) lives apart from 0: at 0 too;
    // 4 (700 B, 3-4) meets 2: above it, at 1000 aligned to 64 = 1024; 1 (500 B, 1-2) meets 0
    // and 2, not 4: at 1024; 3 (100 B, 0-3) meets all four: 0-1000 and 1024-1724 are taken,
    // the 24 B between too small, so 1724 aligned = 1728. Arena: 1728 + 100 = 1828; the most
    // live at one step is 1800 (step 3: 1000 + 100 + 700).
    const std::vector<ArenaBlock> blocks = {
        {1000, 0, 1}, {500, 1, 2}, {1000, 2, 3}, {100, 0, 3}, {700, 3, 4}};
    const ArenaLayout layout = planArena(blocks);
    QCOMPARE(layout.offsets, (std::vector<std::int64_t>{0, 1024, 0, 1728, 1024}));
    QCOMPARE(layout.arenaBytes, std::int64_t{1828});
    QCOMPARE(mostLiveBytes(blocks), std::int64_t{1800});
    QVERIFY(!arenaConflict(blocks, layout.offsets));
    // Without alignment 4 and 1 sit at 1000, and 3 above 4 at 1700.
    const ArenaLayout packed = planArena(blocks, 1);
    QCOMPARE(packed.offsets, (std::vector<std::int64_t>{0, 1000, 0, 1700, 1000}));
    QCOMPARE(packed.arenaBytes, std::int64_t{1800});
}

void TestMemoryPlan::randomLifetimesNeverOverlap() {
    std::mt19937 random(18);
    for (int round = 0; round < 300; ++round) {
        const int count = 1 + static_cast<int>(random() % 120);
        const int steps = 1 + static_cast<int>(random() % 60);
        std::vector<ArenaBlock> blocks;
        std::int64_t alignedSum = 0;
        for (int i = 0; i < count; ++i) {
            const auto first = static_cast<std::int32_t>(random() % steps);
            const auto length = static_cast<std::int32_t>(random() % 12);
            const std::int64_t bytes =
                random() % 10 == 0 ? 0 : 1 + static_cast<std::int64_t>(random() % 100000);
            blocks.push_back({bytes, first, std::min(first + length, steps - 1)});
            alignedSum += (bytes + 63) / 64 * 64;
        }
        const ArenaLayout layout = planArena(blocks);
        QCOMPARE(layout.offsets.size(), blocks.size());
        // Every pair, compared directly (not with arenaConflict's sweep).
        for (std::size_t a = 0; a < blocks.size(); ++a) {
            QCOMPARE(layout.offsets[a] % kArenaAlignment, std::int64_t{0});
            QVERIFY(layout.offsets[a] + blocks[a].bytes <= layout.arenaBytes);
            for (std::size_t b = a + 1; b < blocks.size(); ++b) {
                const bool live = blocks[a].first <= blocks[b].last &&
                                  blocks[b].first <= blocks[a].last && blocks[a].bytes > 0 &&
                                  blocks[b].bytes > 0;
                const bool overlap = layout.offsets[a] < layout.offsets[b] + blocks[b].bytes &&
                                     layout.offsets[b] < layout.offsets[a] + blocks[a].bytes;
                QVERIFY2(
                    !(live && overlap),
                    qPrintable(QStringLiteral("round %1: blocks %2, %3").arg(round).arg(a).arg(b)));
            }
        }
        QVERIFY(!arenaConflict(blocks, layout.offsets));
        QVERIFY(layout.arenaBytes >= mostLiveBytes(blocks));
        QVERIFY(layout.arenaBytes <= alignedSum);
    }
}

void TestMemoryPlan::conflictIsFound() {
    const std::vector<ArenaBlock> blocks = {{100, 0, 2}, {100, 2, 3}, {100, 3, 4}};
    // 1 and 2 live together at step 3 and overlap at 150-200; 0 and 2 never live together.
    const std::vector<std::int64_t> offsets = {0, 150, 100};
    const auto conflict = arenaConflict(blocks, offsets);
    QVERIFY(conflict);
    QCOMPARE(conflict->first, std::size_t{1});
    QCOMPARE(conflict->second, std::size_t{2});
    // An in-place write shares its input's block (same offset and size), and only that one.
    const std::vector<std::int64_t> shared = {0, 0, 200};
    QVERIFY(arenaConflict(blocks, shared));
    QVERIFY(!arenaConflict(blocks, shared, std::vector<std::int32_t>{-1, 0, -1}));
}

void TestMemoryPlan::handComputedGraph() {
    // All on the host, steps a b c d e. Lifetimes: input 0-0, a 0-3 (b at 1, d at 3), b 1-2,
    // c 2-4 (a Relu, written into b's block: b's last use is c), d 3-4, e 4-4 (graph output).
    // Blocks: a 4096 [0,3]; b+c 2048 [1,4]; d 1024 [3,4]; input 1000 [0,0]; e 512 [4,4].
    // Greedy by size: a at 0; b+c meets a: 4096; d meets both: 6144; input meets a only: 4096;
    // e meets b+c and d, not a: 0. Arena 6144 + 1024 = 7168. As the simulator counts (b and c
    // both at step 2): a + b + c = 8192; naive: 1000 + 4096 + 2048 + 2048 + 1024 + 512 = 10728.
    FixtureOptions options;
    options.outputBytes = {{"a", 4096}, {"b", 2048}, {"c", 2048}, {"d", 1024}, {"e", 512}};
    options.opTypes = {{"c", "Relu"}};
    options.weightBytes = {{"a", 300}, {"d", 200}};
    const Graph g = fixtureGraph("a->b->c; a->d; c,d->e", options);
    const DeviceCatalog catalog = parseDeviceCatalogText(kCatalog, "test");
    const CostTable table = uniformTable(g, catalog);
    Simulator sim(g, table);
    const Plan plan =
        sim.planOf(std::vector<std::uint8_t>(static_cast<std::size_t>(sim.computeCount()), 0));
    const SimulationResult r = sim.simulate(plan, true);
    const MemoryPlan mp = buildMemoryPlan(g, table, plan, r);
    const DeviceMemoryPlan& cpu = mp.devices[static_cast<std::size_t>(table.findDevice("cpu"))];
    QCOMPARE(cpu.steps.size(), std::size_t{5});
    struct Expected {
        const char* name;
        std::int64_t offset;
        std::int32_t first, last;
    };
    for (const Expected& e :
         {Expected{"input", 4096, 0, 0}, Expected{"a", 0, 0, 3}, Expected{"b", 4096, 1, 2},
          Expected{"c", 4096, 2, 4}, Expected{"d", 6144, 3, 4}, Expected{"e", 0, 4, 4}}) {
        const PlannedTensor* t = tensorNamed(g, cpu, e.name);
        QVERIFY2(t, e.name);
        QCOMPARE(t->offset, e.offset);
        QCOMPARE(t->first, e.first);
        QCOMPARE(t->last, e.last);
    }
    QCOMPARE(tensorNamed(g, cpu, "c")->inPlaceOf,
             static_cast<std::int32_t>(tensorNamed(g, cpu, "b") - cpu.tensors.data()));
    QCOMPARE(cpu.inPlaceCount, 1);
    QCOMPARE(cpu.arenaBytes, std::int64_t{7168});
    QCOMPARE(cpu.livePeakBytes, std::int64_t{8192});
    QCOMPARE(cpu.naiveBytes, std::int64_t{10728});
    QCOMPARE(cpu.weightsBytes, std::int64_t{500});
    QCOMPARE(cpu.plannedBytes(), std::int64_t{7668});
    QCOMPARE(mp.plannedPeakBytes(), std::int64_t{7668});
    QCOMPARE(static_cast<double>(cpu.livePeakBytes + cpu.weightsBytes),
             r.peakBytes[static_cast<std::size_t>(table.findDevice("cpu"))]);
    QVERIFY(!arenaConflict(blocksOf(cpu), offsetsOf(cpu), sharingOf(cpu)));
    // Without the in-place write b and c would overlap at step 2.
    QVERIFY(arenaConflict(blocksOf(cpu), offsetsOf(cpu)));
}

void TestMemoryPlan::notMaterialisedTakesNoSpace() {
    FixtureOptions options;
    options.outputBytes = {{"a", 4096}, {"b", 2048}, {"c", 1024}};
    const Graph g = fixtureGraph("a->b->c", options);
    const DeviceCatalog catalog = parseDeviceCatalogText(kCatalog, "test");
    const CostTable table = uniformTable(g, catalog);
    Simulator sim(g, table);
    const Plan plan =
        sim.planOf(std::vector<std::uint8_t>(static_cast<std::size_t>(sim.computeCount()), 0));
    const SimulationResult r = sim.simulate(plan, true);
    std::vector<std::uint8_t> fused(g.tensors.size(), 0);
    fused[static_cast<std::size_t>(g.findTensor("b"))] = 1; // b lives inside a fused a+b+c
    const DeviceMemoryPlan all = buildMemoryPlan(g, table, plan, r).devices[0];
    const DeviceMemoryPlan less = buildMemoryPlan(g, table, plan, r, fused).devices[0];
    QVERIFY(tensorNamed(g, all, "b"));
    QVERIFY(!tensorNamed(g, less, "b"));
    QCOMPARE(all.naiveBytes - less.naiveBytes, std::int64_t{2048});
    // Step 0: input + a = 5096; step 1: a + b = 6144; step 2: b + c. Without b: step 1 is a.
    QCOMPARE(all.livePeakBytes, std::int64_t{6144});
    QCOMPARE(less.livePeakBytes, std::int64_t{5096});
}

void TestMemoryPlan::livePeakIsTheSimulatorsCount_data() {
    QTest::addColumn<QString>("graph");
    QTest::addColumn<std::int64_t>("workspace");
    QTest::newRow("chain") << "a->b->c->d->e" << std::int64_t{0};
    QTest::newRow("diamond") << "a->b; a->c; b,c->d; d->e; a,e->f" << std::int64_t{0};
    QTest::newRow("wide") << "a->b; a->c; a->d; b->e; c->e; d->f; e,f->g; g->h; c,h->i"
                          << std::int64_t{0};
    QTest::newRow("workspace") << "a->b; a->c; b,c->d; d->e" << std::int64_t{3000};
}

void TestMemoryPlan::livePeakIsTheSimulatorsCount() {
    // Random placements over cpu, gpu and npu (copies, relays through the host, transfers
    // out): per device, the live peak plus the weights is the simulator's peak, and the arena
    // holds every tensor without two live ones overlapping.
    QFETCH(QString, graph);
    QFETCH(std::int64_t, workspace);
    FixtureOptions options;
    options.inputBytes = 1500;
    const std::string text = graph.toStdString();
    for (char c = 'a'; c <= 'i'; ++c) {
        const std::string name(1, c);
        options.outputBytes[name] = 500 + 700 * (c - 'a') % 2300;
        options.weightBytes[name] = 100 * (c - 'a' + 1);
        options.opTypes[name] = c % 2 == 0 ? "Relu" : "Conv";
    }
    const Graph g = fixtureGraph(text, options);
    const DeviceCatalog catalog = parseDeviceCatalogText(kCatalog, "test");
    const CostTable table = uniformTable(g, catalog, workspace);
    Simulator sim(g, table);
    std::mt19937 random(7);
    for (int round = 0; round < 200; ++round) {
        std::vector<std::uint8_t> genome(static_cast<std::size_t>(sim.computeCount()));
        for (std::uint8_t& d : genome) {
            d = static_cast<std::uint8_t>(random() % 3);
        }
        const Plan plan = sim.planOf(genome);
        const SimulationResult r = sim.simulate(plan, true);
        const MemoryPlan mp = buildMemoryPlan(g, table, plan, r);
        for (std::size_t d = 0; d < mp.devices.size(); ++d) {
            const DeviceMemoryPlan& dev = mp.devices[d];
            QCOMPARE(static_cast<double>(dev.livePeakBytes + dev.weightsBytes), r.peakBytes[d]);
            QVERIFY(!arenaConflict(blocksOf(dev), offsetsOf(dev), sharingOf(dev)));
            for (const PlannedTensor& t : dev.tensors) {
                QVERIFY(t.offset + t.bytes <= dev.arenaBytes);
                QVERIFY(t.first <= t.last);
            }
        }
    }
}

namespace {

/// The hand-computed graph of handComputedGraph, all on the host.
struct HandGraph {
    Graph g;
    DeviceCatalog catalog;
    CostTable table;
    HandGraph()
        : g(fixtureGraph(
              "a->b->c; a->d; c,d->e",
              [] {
                  FixtureOptions o;
                  o.outputBytes = {{"a", 4096}, {"b", 2048}, {"c", 2048}, {"d", 1024}, {"e", 512}};
                  o.opTypes = {{"c", "Relu"}};
                  o.weightBytes = {{"a", 300}, {"d", 200}};
                  return o;
              }())),
          catalog(parseDeviceCatalogText(kCatalog, "test")), table(uniformTable(g, catalog)) {}
};

} // namespace

void TestMemoryPlan::plansFileKeepsTheMemoryPlan() {
    const HandGraph hand;
    Simulator sim(hand.g, hand.table);
    const std::vector<std::uint8_t> genome(static_cast<std::size_t>(sim.computeCount()), 0);
    SearchResult result;
    result.front.push_back({genome, sim.evaluate(genome), {}});
    SearchOptions options;
    const nlohmann::json doc = plansDocument(
        sim, options, result, listPlans(result, options.objectives, 0), PlansDocumentSource{});
    const PlansFile file = parsePlansFile(nlohmann::json::parse(doc.dump()), "plans.json");
    QCOMPARE(file.plans.size(), std::size_t{1});
    const PlansFilePlan& p = file.plans[0];
    QCOMPARE(p.memory.size(), std::size_t{1});
    const PlansFileMemory& m = p.memory[0];
    QCOMPARE(m.device, std::string("cpu"));
    QCOMPARE(m.arenaBytes, std::int64_t{7168});
    QCOMPARE(m.naiveBytes, std::int64_t{10728});
    QCOMPARE(m.livePeakBytes, std::int64_t{8192});
    QCOMPARE(m.weightsBytes, std::int64_t{500});
    QCOMPARE(m.workspaceBytes, std::int64_t{0});
    QCOMPARE(m.inPlace, std::int64_t{1});
    // The objective is the planned figure; the search's is kept beside it.
    QCOMPARE(*p.peakMemoryMb, 7668.0 / (1024.0 * 1024.0));
    QCOMPARE(*p.simulatedPeakMemoryMb, 8692.0 / (1024.0 * 1024.0));
    // An older file (no memory plan, no simulated figure) still reads.
    nlohmann::json old = doc;
    old["plans"][0].erase("memory");
    old["plans"][0].erase("simulated_peak_memory_mb");
    const PlansFile older = parsePlansFile(old, "old.json");
    QVERIFY(older.plans[0].memory.empty());
    QVERIFY(!older.plans[0].simulatedPeakMemoryMb);
    // A negative size is refused, naming the field.
    nlohmann::json bad = doc;
    bad["plans"][0]["memory"]["cpu"]["arena_bytes"] = -1;
    try {
        parsePlansFile(bad, "bad.json");
        QFAIL("a negative arena was accepted");
    } catch (const std::exception& e) {
        QVERIFY2(std::string(e.what()).find("plans[0].memory.cpu.arena_bytes") != std::string::npos,
                 e.what());
    }
}

void TestMemoryPlan::documentProblemsAreFound() {
    const HandGraph hand;
    Simulator sim(hand.g, hand.table);
    const std::vector<std::uint8_t> genome(static_cast<std::size_t>(sim.computeCount()), 0);
    const nlohmann::ordered_json good =
        memoryPlanJson(memoryPlanOf(sim, genome), hand.g, hand.table);
    QVERIFY(memoryPlanProblems(good).empty());
    QCOMPARE(good["devices"][0]["tensors"].size(), std::size_t{6});
    auto problemsAfter = [&](auto change) {
        nlohmann::ordered_json doc = good;
        change(doc["devices"][0]);
        const std::vector<std::string> problems = memoryPlanProblems(doc);
        return problems.empty() ? std::string() : problems.front();
    };
    // d (index 4, 6144-7168, steps 3-4) moved onto a (0-4096, steps 0-3).
    QVERIFY(problemsAfter([](auto& d) { d["tensors"][4]["offset"] = 0; })
                .find("tensors 'a' (bytes 0-4096, steps 0-3) and 'd' (bytes 0-1024, steps 3-4) "
                      "are live at the same step and overlap") != std::string::npos);
    // c no longer in place of b: the two overlap at step 2.
    QVERIFY(problemsAfter([](auto& d) { d["tensors"][3]["in_place_of"] = nullptr; }).find("'b'") !=
            std::string::npos);
    QVERIFY(problemsAfter([](auto& d) { d["arena_bytes"] = 7000; }).find("does not fit") !=
            std::string::npos);
    QVERIFY(problemsAfter([](auto& d) { d["tensors"][4]["offset"] = 6100; }).find("aligned") !=
            std::string::npos);
    QVERIFY(problemsAfter([](auto& d) { d["tensors"][5]["last_step"] = 5; }).find("5 steps") !=
            std::string::npos);
    nlohmann::ordered_json wrong = good;
    wrong["schema"] = "something else";
    QCOMPARE(memoryPlanProblems(wrong).size(), std::size_t{1});
}

QTEST_GUILESS_MAIN(TestMemoryPlan)
#include "tst_memoryplan.moc"
