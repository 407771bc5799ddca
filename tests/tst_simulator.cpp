// SPDX-License-Identifier: GPL-3.0-or-later
// The plan simulator on hand-built graphs whose makespan, peak memory and energy were computed
// by hand (the derivations are in the comments of each row).
#include "common/input_error.h"
#include "cost/cost_table.h"
#include "cost/device_catalog.h"
#include "graph/onnx_importer.h"
#include "graph/precision.h"
#include "graph_fixture.h"
#include "plan/simulator.h"
#include "search/baselines.h"
#include "search/random.h"
#include "testmodels.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <numeric>
#include <string>

using namespace paretune;
using paretune::test::fixtureGraph;
using paretune::test::FixtureOptions;

namespace {

// cpu (host): 10 W active, 2 W idle; gpu: 100 W / 10 W; npu: 4 W / 1 W.
// cpu<->gpu: 1 GB/s (1000 B/µs) + 10 µs; cpu<->npu: 0.5 GB/s (500 B/µs) + 20 µs;
// gpu<->npu: no link, store-and-forward through the host.
std::string testCatalogText(const std::string& duplex = "full", double npuMemoryMb = 1024) {
    return R"({"schema": "paretune.devices/1", "host": "cpu", "devices": [
      {"id": "cpu", "kind": "cpu", "peak_gflops": 100, "mem_bw_gbs": 10, "launch_us": 0,
       "active_w": 10, "idle_w": 2, "memory_mb": 1024},
      {"id": "gpu", "kind": "gpu", "peak_gflops": 1000, "mem_bw_gbs": 100, "launch_us": 0,
       "active_w": 100, "idle_w": 10, "memory_mb": 1024},
      {"id": "npu", "kind": "npu", "peak_gflops": 4000, "mem_bw_gbs": 60, "launch_us": 20,
       "active_w": 4, "idle_w": 1, "memory_mb": )" +
           std::to_string(npuMemoryMb) + R"(,
       "efficiency": {"default": 0.1, "ops": {"Conv": 1.0}},
       "unsupported_ops": ["Softmax"]}],
     "links": [
      {"a": "cpu", "b": "gpu", "bandwidth_gbs": 1, "latency_us": 10, "duplex": ")" +
           duplex + R"("},
      {"a": "cpu", "b": "npu", "bandwidth_gbs": 0.5, "latency_us": 20, "duplex": ")" +
           duplex + R"("}]})";
}

std::map<std::string, std::int64_t> parseSizes(const QString& text) {
    std::map<std::string, std::int64_t> sizes;
    for (const QString& item : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const QStringList kv = item.split(QLatin1Char('='));
        sizes[kv[0].toStdString()] = kv[1].toLongLong();
    }
    return sizes;
}

/// Cost table with every compute cell 10 µs, overridden by "node@device=µs" items; energy of a
/// cell = latency × active_w.
CostTable manualTable(const Graph& g, const DeviceCatalog& catalog, const QString& overrides) {
    CostTable table = buildCostTable(g, catalog, {"cpu", "gpu", "npu"});
    std::map<std::string, double> latency;
    for (const QString& item : overrides.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const QStringList kv = item.split(QLatin1Char('='));
        latency[kv[0].toStdString()] = kv[1].toDouble();
    }
    for (std::size_t n = 0; n < g.nodes.size(); ++n) {
        if (g.nodes[n].kind != NodeKind::Compute) {
            continue;
        }
        for (std::int32_t d = 0; d < table.deviceCount(); ++d) {
            const auto it = latency.find(g.nodes[n].name + "@" + table.device(d).id);
            CostCell cell;
            cell.latencyUs = it == latency.end() ? 10.0 : it->second;
            cell.energyUj = cell.latencyUs * table.device(d).activeW;
            cell.source = CostSource::Modelled;
            table.setCell(static_cast<NodeId>(n), d, cell);
        }
    }
    return table;
}

/// "cpu gpu npu" → {"cpu", "gpu", "npu"}.
std::vector<std::string> deviceIds(const QString& devices) {
    std::vector<std::string> ids;
    for (const QString& id : devices.split(QLatin1Char(' '))) {
        ids.push_back(id.toStdString());
    }
    return ids;
}

/// Shared resources from "gpu|npu" (exclusive), "npu<gpu=2" (npu slowed by gpu by 2),
/// "npu~5" (npu's turn cost 5 µs) and "npu*2" (npu's receive factor 2) items.
void addSharedResources(CostTable& table, const QString& text) {
    for (const QString& item : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        if (item.contains(QLatin1Char('~'))) {
            const QStringList kv = item.split(QLatin1Char('~'));
            table.setTurnCost(table.findDevice(kv[0].toStdString()), kv[1].toDouble(),
                              CostSource::Measured);
        } else if (item.contains(QLatin1Char('*'))) {
            const QStringList kv = item.split(QLatin1Char('*'));
            table.setReceiveFactor(table.findDevice(kv[0].toStdString()), kv[1].toDouble(),
                                   CostSource::Measured);
        } else if (item.contains(QLatin1Char('|'))) {
            const QStringList pair = item.split(QLatin1Char('|'));
            table.setExclusive(table.findDevice(pair[0].toStdString()),
                               table.findDevice(pair[1].toStdString()));
        } else {
            const QStringList kv = item.split(QLatin1Char('='));
            const QStringList pair = kv[0].split(QLatin1Char('<'));
            table.setContention(table.findDevice(pair[0].toStdString()),
                                table.findDevice(pair[1].toStdString()), kv[1].toDouble(),
                                CostSource::Measured);
        }
    }
}

/// Every figure the same, bit for bit.
bool identical(const Objectives& a, const Objectives& b) {
    return a.latencyUs == b.latencyUs && a.energyMj == b.energyMj &&
           a.averagePowerW == b.averagePowerW && a.peakMemoryBytes == b.peakMemoryBytes &&
           a.violation == b.violation && a.deviationPct == b.deviationPct;
}

Plan placement(const Graph& g, const CostTable& table, const Simulator& sim, const QString& text) {
    std::vector<std::uint8_t> genome(static_cast<std::size_t>(sim.computeCount()), 0);
    for (const QString& item : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const QStringList kv = item.split(QLatin1Char('='));
        const NodeId n = g.findNode(kv[0].toStdString());
        const std::int32_t d = table.findDevice(kv[1].toStdString());
        genome[static_cast<std::size_t>(sim.computeIndex(n))] = static_cast<std::uint8_t>(d);
    }
    return sim.planOf(genome);
}

} // namespace

class TestSimulator : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void handComputed_data();
    void handComputed();
    void sharedResources_data();
    void sharedResources();
    void sharedWeightsCountOncePerDevice_data();
    void sharedWeightsCountOncePerDevice();
    void workspaceCountsDuringItsNode();
    void graphOutputsStayAlive();
    void measuredEnergyIsUsed();
    void timelineThroughHost();
    void unsupportedIsInfeasible();
    void memoryOverCapacityIsInfeasible();
    void passThroughAliasesItsInput();
    void rooflineAndTransferFormulas();
    void evaluateMatchesSimulate();
    void evaluateMatchesSimulateOnRealModels_data();
    void evaluateMatchesSimulateOnRealModels();
    void evaluateBatchMatchesEvaluate_data();
    void evaluateBatchMatchesEvaluate();
    void rejectsBadPlans();
};

void TestSimulator::handComputed_data() {
    QTest::addColumn<QString>("graph");
    QTest::addColumn<QString>("sizes");   // "input=100 a=1000"; default 1000 bytes
    QTest::addColumn<QString>("weights"); // "a=500"
    QTest::addColumn<QString>("latency"); // "b@gpu=5"; default 10 µs
    QTest::addColumn<QString>("plan");    // "a=cpu b=gpu"
    QTest::addColumn<QString>("duplex");
    QTest::addColumn<double>("makespan");
    QTest::addColumn<double>("energyMj");
    QTest::addColumn<QString>("peaks"); // per device, bytes

    // a 0..10, b 10..30, c 30..60 on the cpu. Energy 600 µJ busy, no idle. Memory: 2 live
    // activations of 1000 B at every step + a's 500 B weights.
    QTest::newRow("chain on the host") << "a->b->c"
                                       << ""
                                       << "a=500"
                                       << "a@cpu=10 b@cpu=20 c@cpu=30"
                                       << "a=cpu b=cpu c=cpu"
                                       << "full" << 60.0 << 0.6 << "cpu=2500 gpu=0 npu=0";
    // a cpu 0..10; a's 1000 B to gpu 10..21 (10 + 1); b gpu 21..26; b's 2000 B back 26..38
    // (10 + 2); c cpu 38..48. Energy: cpu 20·10 + 28·2 = 256, gpu 5·100 + 43·10 = 930 µJ.
    // Memory: cpu step a: input 100 + a 1000; step c: b's copy 2000 + c 400 = 2400;
    // gpu step b: a's copy 1000 + b 2000 = 3000.
    QTest::newRow("chain cpu-gpu-cpu, transfers both ways")
        << "a->b->c"
        << "input=100 a=1000 b=2000 c=400"
        << ""
        << "a@cpu=10 b@gpu=5 c@cpu=10"
        << "a=cpu b=gpu c=cpu"
        << "full" << 48.0 << 1.186 << "cpu=2400 gpu=3000 npu=0";
    // a cpu 0..10, b cpu 10..30; a to gpu 10..21, c gpu 21..51; c back 51..62; d cpu 62..67.
    // Energy: cpu 35·10 + 32·2 = 414, gpu 30·100 + 37·10 = 3370 µJ.
    // Memory cpu: step d holds b, c's copy and d = 3000; gpu: a's copy + c = 2000.
    QTest::newRow("diamond") << "a->b; a->c; b,c->d"
                             << ""
                             << ""
                             << "a@cpu=10 b@cpu=20 c@gpu=30 d@cpu=5"
                             << "a=cpu b=cpu c=gpu d=cpu"
                             << "full" << 67.0 << 3.784 << "cpu=3000 gpu=2000 npu=0";
    // Order a, c, b, d. a cpu 0..10; input to gpu 0..11, c gpu 11..21; a to gpu waits for the
    // cpu->gpu queue: 11..22, b gpu 22..32; c to cpu on the other direction 21..32, d cpu
    // 32..42. Energy: cpu 200 + 22·2, gpu 2000 + 22·10 = 2464 µJ.
    QTest::newRow("both directions, full duplex")
        << "a; c; a->b; c->d"
        << ""
        << ""
        << ""
        << "a=cpu c=gpu b=gpu d=cpu"
        << "full" << 42.0 << 2.464 << "cpu=2000 gpu=3000 npu=0";
    // Same on a half-duplex link: c's copy back waits for a's copy (11..22): 22..33, d 33..43.
    QTest::newRow("both directions, half duplex")
        << "a; c; a->b; c->d"
        << ""
        << ""
        << ""
        << "a=cpu c=gpu b=gpu d=cpu"
        << "half" << 43.0 << 2.476 << "cpu=2000 gpu=3000 npu=0";
    // input to gpu 0..11, a gpu 11..21; a via the host: gpu->cpu 21..32, cpu->npu 32..54
    // (20 + 1000/500); b npu 54..64. Energy: cpu idle 64·2 = 128; gpu 1000 + 54·10 = 1540;
    // npu 40 + 54·1 = 94 → 1762 µJ. The host holds the input at time 0 (1000 B), no node
    // runs there; gpu and npu hold 2 × 1000 B.
    QTest::newRow("route through the host")
        << "a->b"
        << ""
        << ""
        << ""
        << "a=gpu b=npu"
        << "full" << 64.0 << 1.762 << "cpu=1000 gpu=2000 npu=2000";
    // As above, and c on the cpu reuses the copy of a left on the host at 32: c 32..42.
    // Energy: cpu 100 + 54·2 = 208, gpu 1540, npu 94 → 1842 µJ. cpu step c: a's staging copy
    // (still being forwarded to the npu until 54) + c = 2000.
    QTest::newRow("staging copy on the host reused")
        << "a->b; a->c"
        << ""
        << ""
        << ""
        << "a=gpu b=npu c=cpu"
        << "full" << 64.0 << 1.842 << "cpu=2000 gpu=2000 npu=2000";
}

void TestSimulator::handComputed() {
    QFETCH(QString, graph);
    QFETCH(QString, sizes);
    QFETCH(QString, weights);
    QFETCH(QString, latency);
    QFETCH(QString, plan);
    QFETCH(QString, duplex);
    QFETCH(double, makespan);
    QFETCH(double, energyMj);
    QFETCH(QString, peaks);

    FixtureOptions options;
    for (const auto& [name, bytes] : parseSizes(sizes)) {
        if (name == "input") {
            options.inputBytes = bytes;
        } else {
            options.outputBytes[name] = bytes;
        }
    }
    options.weightBytes = parseSizes(weights);
    const Graph g = fixtureGraph(graph.toStdString(), options);
    const DeviceCatalog catalog =
        parseDeviceCatalogText(testCatalogText(duplex.toStdString()), "test");
    const CostTable table = manualTable(g, catalog, latency);
    Simulator sim(g, table);
    const SimulationResult r = sim.simulate(placement(g, table, sim, plan));

    QCOMPARE(r.objectives.latencyUs, makespan);
    QVERIFY2(std::abs(r.objectives.energyMj - energyMj) < 1e-9,
             qPrintable(QString::number(r.objectives.energyMj, 'g', 12)));
    QVERIFY(r.objectives.feasible());
    double peakAll = 0;
    for (const auto& [device, bytes] : parseSizes(peaks)) {
        const std::int32_t d = table.findDevice(device);
        QVERIFY(d >= 0);
        QCOMPARE(r.peakBytes[static_cast<std::size_t>(d)], static_cast<double>(bytes));
        peakAll = std::max(peakAll, static_cast<double>(bytes));
    }
    QCOMPARE(r.objectives.peakMemoryBytes, peakAll);
    QVERIFY(std::abs(r.objectives.averagePowerW - energyMj / makespan * 1e3) < 1e-9);
}

void TestSimulator::sharedResources_data() {
    QTest::addColumn<QString>("graph");
    QTest::addColumn<QString>("latency"); // default 10 µs
    QTest::addColumn<QString>("plan");
    QTest::addColumn<QString>("shared"); // "gpu|npu": exclusive; "npu<gpu=2": npu slowed by gpu
    QTest::addColumn<QString>("times");  // "a=11..41": start and finish, µs
    QTest::addColumn<double>("makespan");
    QTest::addColumn<double>("energyMj");

    // The input (1000 B) reaches the gpu at 11 (10 + 1) and the npu at 22 (20 + 2), on two
    // queues. Energy: the cells (a on the gpu 100 W, b on the npu 4 W, on the cpu 10 W) plus
    // idle time × idle W (cpu 2, gpu 10, npu 1).
    // a gpu 11..41, b npu 22..32. 3000 + 40 + 41·2 + 11·10 + 31·1 = 3263 µJ.
    QTest::newRow("nothing shared: the branches overlap") << "a; b"
                                                          << "a@gpu=30"
                                                          << "a=gpu b=npu"
                                                          << ""
                                                          << "a=11..41 b=22..32" << 41.0 << 3.263;
    // b waits for the gpu to be free: 41..51. 3000 + 40 + 51·2 + 21·10 + 41·1 = 3393 µJ.
    QTest::newRow("exclusive devices take turns") << "a; b"
                                                  << "a@gpu=30"
                                                  << "a=gpu b=npu"
                                                  << "gpu|npu"
                                                  << "a=11..41 b=41..51" << 51.0 << 3.393;
    // b starts at 22, the gpu has work up to 51: w = 29, L·f = 20 <= w, so b runs 22..42, all
    // at half speed. 4000 + 40 + 51·2 + 11·10 + (51 − 20)·1 = 4283 µJ (b's cell energy).
    QTest::newRow("contention, the node within the overlap")
        << "a; b"
        << "a@gpu=40"
        << "a=gpu b=npu"
        << "npu<gpu=2"
        << "a=11..51 b=22..42" << 51.0 << 4.283;
    // w = 41 − 22 = 19 < L·f = 20: 19 µs at half speed (9.5 µs of work), then 0.5 µs at full
    // speed: 19.5, b 22..41.5. 3000 + 40 + 41.5·2 + 11.5·10 + 22·1 = 3260 µJ.
    QTest::newRow("contention, partial overlap") << "a; b"
                                                 << "a@gpu=30"
                                                 << "a=gpu b=npu"
                                                 << "npu<gpu=2"
                                                 << "a=11..41 b=22..41.5" << 41.5 << 3.26;
    // a is placed first, when the npu has nothing scheduled: only b, which starts second while
    // a runs, is slowed (a is not changed afterwards). As "within the overlap".
    QTest::newRow("contention both ways: the later node bears it")
        << "a; b"
        << "a@gpu=40"
        << "a=gpu b=npu"
        << "npu<gpu=2 gpu<npu=2"
        << "a=11..51 b=22..42" << 51.0 << 4.283;
    // c starts at 22 beside a (gpu up to 41: w = 19, f = 2 → 19 + 10 − 9.5 = 19.5) and b (cpu up
    // to 40: w = 18, f = 3 → L·f = 30 > 18: 18 + 10 − 6 = 22): the longer, c 22..44.
    // 3000 + 400 + 40 + 4·2 + 14·10 + 22·1 = 3610 µJ.
    QTest::newRow("contention with two devices: the longer stretch")
        << "a; b; c"
        << "a@gpu=30 b@cpu=40"
        << "a=gpu b=cpu c=npu"
        << "npu<gpu=2 npu<cpu=3"
        << "a=11..41 b=0..40 c=22..44" << 44.0 << 3.61;
    // Taking turns leaves no overlap to slow b down: as "exclusive devices take turns".
    QTest::newRow("exclusive devices do not contend") << "a; b"
                                                      << "a@gpu=30"
                                                      << "a=gpu b=npu"
                                                      << "gpu|npu npu<gpu=2"
                                                      << "a=11..41 b=41..51" << 51.0 << 3.393;
    // As "exclusive devices take turns", b now taking the cores over from the gpu: 10 + 5 µs,
    // 41..56. 3000 + 40 + 56·2 + 26·10 + 41·1 = 3453 µJ (cells' energy; the turn is busy time).
    QTest::newRow("taking shared cores over costs a turn") << "a; b"
                                                           << "a@gpu=30"
                                                           << "a=gpu b=npu"
                                                           << "gpu|npu npu~5"
                                                           << "a=11..41 b=41..56" << 56.0 << 3.453;
    // a starts a turn on idle cores (nothing ran before): 11..41. b takes over (+5): 41..56. c
    // follows b on the npu, whose cores it still has: 56..66, no turn. Cells 3000 + 40 + 40;
    // idle cpu 66·2, gpu 36·10, npu 41·1: 3613 µJ.
    QTest::newRow("a device keeping its cores takes no turn")
        << "a; b; c"
        << "a@gpu=30"
        << "a=gpu b=npu c=npu"
        << "gpu|npu npu~5 gpu~3"
        << "a=11..41 b=41..56 c=56..66" << 66.0 << 3.613;
    // c on the gpu takes the cores back from the npu (+3): 56..69. Cells 3000 + 40 + 1000; idle
    // cpu 69·2, gpu (69 − 43)·10, npu (69 − 15)·1: 4492 µJ.
    QTest::newRow("turns both ways") << "a; b; c"
                                     << "a@gpu=30"
                                     << "a=gpu b=npu c=gpu"
                                     << "gpu|npu npu~5 gpu~3"
                                     << "a=11..41 b=41..56 c=56..69" << 69.0 << 4.492;
    // b on the npu waits for a on the gpu (exclusive); c on the cpu, not exclusive with either,
    // runs beside them: a 11..31, b 31..41, c 0..20. 2000 + 40 + 200 + 21·10 + 31·1 + 21·2.
    QTest::newRow("exclusive pair beside a free device")
        << "a; b; c"
        << "a@gpu=20 c@cpu=20"
        << "a=gpu b=npu c=cpu"
        << "gpu|npu"
        << "a=11..31 b=31..41 c=0..20" << 41.0 << 2.523;
    // b's input reaches the npu at 22 (copied for it): b lasts 10 · 2, 22..42. a on the gpu also
    // had its input copied, at the gpu's factor 1. 3000 + 40 + 42·2 + 12·10 + 22·1 = 3266 µJ
    // (the cells' energy; the stretch is busy time).
    QTest::newRow("an input copied in stretches its reader")
        << "a; b"
        << "a@gpu=30"
        << "a=gpu b=npu"
        << "npu*2"
        << "a=11..41 b=22..42" << 42.0 << 3.266;
    // a cpu 0..10, its output on the gpu at 21 (10 + 1); b, the first reader there, 21..36
    // (10 · 1.5); c reads b on the gpu: 36..46. 100 + 1000 + 1000 + 36·2 + 21·10 = 2382 µJ.
    QTest::newRow("a node on its producer's device is not stretched")
        << "a->b->c"
        << ""
        << "a=cpu b=gpu c=gpu"
        << "gpu*1.5"
        << "a=0..10 b=21..36 c=36..46" << 46.0 << 2.382;
    // c reads a's copy that b's made: no copy for it, 36..46, as above.
    QTest::newRow("a second reader of a copy is not stretched")
        << "a->b; a->c"
        << ""
        << "a=cpu b=gpu c=gpu"
        << "gpu*1.5"
        << "a=0..10 b=21..36 c=36..46" << 46.0 << 2.382;
    // b takes the cores over: its turn cost, not its receive factor (a turn's cost holds it),
    // as "taking shared cores over costs a turn".
    QTest::newRow("a turn is not also a receive") << "a; b"
                                                  << "a@gpu=30"
                                                  << "a=gpu b=npu"
                                                  << "gpu|npu npu~5 npu*2"
                                                  << "a=11..41 b=41..56" << 56.0 << 3.453;
}

// Exclusive devices and contention on hand-computed schedules: start and finish times, makespan
// and energy, the same from simulate(), evaluate() and evaluateBatch().
void TestSimulator::sharedResources() {
    QFETCH(QString, graph);
    QFETCH(QString, latency);
    QFETCH(QString, plan);
    QFETCH(QString, shared);
    QFETCH(QString, times);
    QFETCH(double, makespan);
    QFETCH(double, energyMj);

    const Graph g = fixtureGraph(graph.toStdString());
    const DeviceCatalog catalog = parseDeviceCatalogText(testCatalogText(), "test");
    CostTable table = manualTable(g, catalog, latency);
    addSharedResources(table, shared);
    QCOMPARE(table.hasSharedResources(),
             shared.contains(QLatin1Char('|')) || shared.contains(QLatin1Char('<')));
    Simulator sim(g, table);
    const Plan p = placement(g, table, sim, plan);
    const SimulationResult r = sim.simulate(p, true);
    QCOMPARE(r.objectives.latencyUs, makespan);
    QVERIFY2(std::abs(r.objectives.energyMj - energyMj) < 1e-9,
             qPrintable(QString::number(r.objectives.energyMj, 'g', 12)));
    for (const QString& item : times.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const QStringList kv = item.split(QLatin1Char('='));
        const QStringList range = kv[1].split(QStringLiteral(".."));
        const auto n = static_cast<std::size_t>(g.findNode(kv[0].toStdString()));
        QCOMPARE(r.startUs[n], range[0].toDouble());
        QCOMPARE(r.finishUs[n], range[1].toDouble());
    }
    double busy = 0.0; // stretched time is busy time
    for (const TimelineSegment& s : r.timeline) {
        if (s.lane == TimelineSegment::Lane::Device) {
            QCOMPARE(s.beginUs, r.startUs[static_cast<std::size_t>(s.node)]);
            QCOMPARE(s.endUs, r.finishUs[static_cast<std::size_t>(s.node)]);
            busy += s.endUs - s.beginUs;
        }
    }
    QCOMPARE(std::accumulate(r.busyUs.begin(), r.busyUs.end(), 0.0), busy);
    const std::vector<std::uint8_t> genome = sim.genomeOf(p);
    QVERIFY(identical(sim.evaluate(genome), r.objectives));
    const std::uint8_t* const one[] = {genome.data()};
    Objectives batch;
    sim.evaluateBatch(one, {&batch, 1});
    QVERIFY(identical(batch, r.objectives));
}

void TestSimulator::sharedWeightsCountOncePerDevice_data() {
    QTest::addColumn<QString>("plan");
    QTest::addColumn<QString>("peaks");
    // a and b share one 500 B initializer, c has 300 B of its own; activations 1000 B each.
    // All on the cpu: 500 + 300 of weights + two live activations at every step.
    QTest::newRow("one device") << "a=cpu b=cpu c=cpu"
                                << "cpu=2800 gpu=0 npu=0";
    // b's output to the gpu 20..31; the cpu holds the shared weight, the gpu c's weight.
    QTest::newRow("sharers together") << "a=cpu b=cpu c=gpu"
                                      << "cpu=2500 gpu=2300 npu=0";
    // The sharers on two devices: the weight is resident on both.
    QTest::newRow("sharers apart") << "a=cpu b=gpu c=gpu"
                                   << "cpu=2500 gpu=2800 npu=0";
}

void TestSimulator::sharedWeightsCountOncePerDevice() {
    QFETCH(QString, plan);
    QFETCH(QString, peaks);
    FixtureOptions options;
    options.weightBytes = {{"a", 500}, {"b", 500}, {"c", 300}};
    options.weightNames = {{"a", "shared.w"}, {"b", "shared.w"}};
    const Graph g = fixtureGraph("a->b->c", options);
    QCOMPARE(g.findTensor("shared.w") >= 0, true);
    const DeviceCatalog catalog = parseDeviceCatalogText(testCatalogText(), "test");
    const CostTable table = manualTable(g, catalog, QString());
    Simulator sim(g, table);
    const SimulationResult r = sim.simulate(placement(g, table, sim, plan));
    for (const auto& [device, bytes] : parseSizes(peaks)) {
        QCOMPARE(r.peakBytes[static_cast<std::size_t>(table.findDevice(device))],
                 static_cast<double>(bytes));
    }
}

void TestSimulator::workspaceCountsDuringItsNode() {
    const Graph g = fixtureGraph("a->b");
    const DeviceCatalog catalog = parseDeviceCatalogText(testCatalogText(), "test");
    CostTable table = manualTable(g, catalog, QString());
    const std::int32_t cpu = table.findDevice("cpu");
    CostCell cell = table.cell(g.findNode("b"), cpu);
    cell.workspaceBytes = 5000;
    table.setCell(g.findNode("b"), cpu, cell);
    Simulator sim(g, table);
    // Step a: input + a = 2000; step b: a + b + 5000 of workspace.
    const SimulationResult r =
        sim.simulate(placement(g, table, sim, QStringLiteral("a=cpu b=cpu")));
    QCOMPARE(r.peakBytes[static_cast<std::size_t>(cpu)], 7000.0);
}

void TestSimulator::graphOutputsStayAlive() {
    // Steps a, b, c on the cpu; b's output is a graph output, so it is still held while c runs:
    // a + b + c = 3000 (2000 if b's output were freed after its last consumer).
    const Graph g = fixtureGraph("a->b; a->c");
    const DeviceCatalog catalog = parseDeviceCatalogText(testCatalogText(), "test");
    const CostTable table = manualTable(g, catalog, QString());
    Simulator sim(g, table);
    const SimulationResult r =
        sim.simulate(placement(g, table, sim, QStringLiteral("a=cpu b=cpu c=cpu")));
    QCOMPARE(r.peakBytes[static_cast<std::size_t>(table.findDevice("cpu"))], 3000.0);
}

void TestSimulator::measuredEnergyIsUsed() {
    const Graph g = fixtureGraph("a->b");
    const DeviceCatalog catalog = parseDeviceCatalogText(testCatalogText(), "test");
    CostTable table = manualTable(g, catalog, QString());
    const std::int32_t cpu = table.findDevice("cpu");
    table.setCell(g.findNode("a"), cpu, {10.0, 1234.0, 0, CostSource::Measured});
    Simulator sim(g, table);
    // a: a measured 1234 µJ; b: modelled 10 µs × 10 W; the cpu is never idle.
    const SimulationResult r =
        sim.simulate(placement(g, table, sim, QStringLiteral("a=cpu b=cpu")));
    QVERIFY(std::abs(r.objectives.energyMj - 1.334) < 1e-12);
}

void TestSimulator::timelineThroughHost() {
    const Graph g = fixtureGraph("a->b");
    const DeviceCatalog catalog = parseDeviceCatalogText(testCatalogText(), "test");
    const CostTable table = manualTable(g, catalog, QString());
    Simulator sim(g, table);
    const SimulationResult r =
        sim.simulate(placement(g, table, sim, QStringLiteral("a=gpu b=npu")), true);
    QCOMPARE(r.timeline.size(), std::size_t(5));
    struct Expected {
        TimelineSegment::Lane lane;
        std::string where;
        double begin;
        double end;
        std::string what;
    };
    const Expected expected[] = {
        {TimelineSegment::Lane::Link, "cpu->gpu", 0, 11, "input"},
        {TimelineSegment::Lane::Device, "gpu", 11, 21, "a"},
        {TimelineSegment::Lane::Link, "gpu->cpu", 21, 32, "a"},
        {TimelineSegment::Lane::Link, "cpu->npu", 32, 54, "a"},
        {TimelineSegment::Lane::Device, "npu", 54, 64, "b"},
    };
    for (std::size_t i = 0; i < r.timeline.size(); ++i) {
        const TimelineSegment& s = r.timeline[i];
        const Expected& e = expected[i];
        QCOMPARE(s.lane, e.lane);
        if (s.lane == TimelineSegment::Lane::Link) {
            QCOMPARE(table.queueLabel(s.index), e.where);
            QCOMPARE(g.tensors[static_cast<std::size_t>(s.tensor)].name, e.what);
        } else {
            QCOMPARE(table.device(s.index).id, e.where);
            QCOMPARE(g.nodes[static_cast<std::size_t>(s.node)].name, e.what);
        }
        QCOMPARE(s.beginUs, e.begin);
        QCOMPARE(s.endUs, e.end);
    }
}

void TestSimulator::unsupportedIsInfeasible() {
    FixtureOptions options;
    options.opTypes["s"] = "Softmax";
    const Graph g = fixtureGraph("a->s", options);
    const DeviceCatalog catalog = parseDeviceCatalogText(testCatalogText(), "test");
    const CostTable table = buildCostTable(g, catalog, {"cpu", "gpu", "npu"});
    const NodeId s = g.findNode("s");
    QCOMPARE(table.cell(s, table.findDevice("npu")).source, CostSource::Unsupported);
    QCOMPARE(table.cell(s, table.findDevice("gpu")).source, CostSource::Modelled);
    Simulator sim(g, table);
    QVERIFY(!sim.supported(sim.computeIndex(s), table.findDevice("npu")));
    const SimulationResult bad =
        sim.simulate(placement(g, table, sim, QStringLiteral("a=npu s=npu")));
    QVERIFY(!bad.objectives.feasible());
    QCOMPARE(bad.unsupportedCount, 1);
    QCOMPARE(bad.objectives.violation, 1.0);
    const SimulationResult good =
        sim.simulate(placement(g, table, sim, QStringLiteral("a=npu s=cpu")));
    QVERIFY(good.objectives.feasible());
}

void TestSimulator::memoryOverCapacityIsInfeasible() {
    const Graph g = fixtureGraph("a->b");
    // npu memory 0.001 MiB = 1048.576 B; the npu holds a's copy and b's output, 2000 B.
    const DeviceCatalog catalog = parseDeviceCatalogText(testCatalogText("full", 0.001), "test");
    const CostTable table = manualTable(g, catalog, QString());
    Simulator sim(g, table);
    const SimulationResult r =
        sim.simulate(placement(g, table, sim, QStringLiteral("a=gpu b=npu")));
    QVERIFY(!r.objectives.feasible());
    QVERIFY(std::abs(r.objectives.violation - (2000.0 / 1048.576 - 1.0)) < 1e-12);
    QVERIFY(sim.simulate(placement(g, table, sim, QStringLiteral("a=gpu b=gpu")))
                .objectives.feasible());
}

void TestSimulator::passThroughAliasesItsInput() {
    FixtureOptions options;
    options.kinds["r"] = NodeKind::PassThrough;
    options.opTypes["r"] = "Reshape";
    const Graph g = fixtureGraph("a->r->b", options);
    const DeviceCatalog catalog = parseDeviceCatalogText(testCatalogText(), "test");
    const CostTable table = manualTable(g, catalog, QString());
    Simulator sim(g, table);
    QCOMPARE(sim.computeCount(), 2);
    const Plan plan = placement(g, table, sim, QStringLiteral("a=gpu b=cpu"));
    QCOMPARE(plan.device[static_cast<std::size_t>(g.findNode("r"))], table.findDevice("gpu"));
    // input to gpu 0..11, a 11..21, a (through r) back 21..32, b 32..42.
    const SimulationResult r = sim.simulate(plan);
    QCOMPARE(r.objectives.latencyUs, 42.0);
    QCOMPARE(sim.computeSuccessors(sim.computeIndex(g.findNode("a"))).size(), std::size_t(1));
}

void TestSimulator::rooflineAndTransferFormulas() {
    FixtureOptions options;
    options.inputBytes = 500000;
    options.defaultBytes = 500000;
    options.opTypes = {{"conv", "Conv"}, {"relu", "Relu"}};
    options.flops = {{"conv", 2e9}, {"relu", 1e6}};
    const Graph g = fixtureGraph("conv->relu", options);
    const DeviceCatalog catalog = parseDeviceCatalogText(testCatalogText(), "test");
    const CostTable table = buildCostTable(g, catalog, {"npu", "gpu"});
    QCOMPARE(table.deviceCount(), 3); // the host is added
    QCOMPARE(table.device(table.host()).id, std::string("cpu"));
    const std::int32_t npu = table.findDevice("npu");
    // 20 + max(2e9 / (4000 · 1.0 · 1e3), 1e6 / (60 · 1e3)) = 520 µs; energy 520 · 4 W.
    const CostCell& conv = table.cell(g.findNode("conv"), npu);
    QCOMPARE(conv.latencyUs, 520.0);
    QCOMPARE(conv.energyUj, 520.0 * 4);
    QCOMPARE(conv.source, CostSource::Modelled);
    // Relu at the default efficiency 0.1: max(2.5, 16.667) + 20.
    QVERIFY(std::abs(table.cell(g.findNode("relu"), npu).latencyUs - (20 + 1e6 / 60e3)) < 1e-9);
    // 1e6 B cpu->npu: 20 + 1e6 / 500 = 2020 µs; gpu->npu via cpu: (10 + 1000) + 2020.
    const std::int32_t cpu = table.findDevice("cpu");
    const std::int32_t gpu = table.findDevice("gpu");
    QCOMPARE(table.transferUs(cpu, npu, 1e6), 2020.0);
    QCOMPARE(table.transferUs(gpu, npu, 1e6), 3030.0);
    QCOMPARE(table.path(gpu, npu).size(), std::size_t(2));
    QCOMPARE(table.queueCount(), 4);
}

void TestSimulator::evaluateMatchesSimulate() {
    const Graph g = fixtureGraph("a->b; a->c; b,c->d; d->e; c->e");
    const DeviceCatalog catalog = parseDeviceCatalogText(testCatalogText(), "test");
    const CostTable table = manualTable(g, catalog, QStringLiteral("b@gpu=3 c@npu=4"));
    Simulator sim(g, table);
    std::vector<std::uint8_t> genome(static_cast<std::size_t>(sim.computeCount()));
    for (int code = 0; code < 243; ++code) {
        int x = code;
        for (auto& gene : genome) {
            gene = static_cast<std::uint8_t>(x % 3);
            x /= 3;
        }
        const Objectives fast = sim.evaluate(genome);
        const SimulationResult full = sim.simulate(sim.planOf(genome), true);
        QCOMPARE(fast.latencyUs, full.objectives.latencyUs);
        QCOMPARE(fast.energyMj, full.objectives.energyMj);
        QCOMPARE(fast.peakMemoryBytes, full.objectives.peakMemoryBytes);
        QCOMPARE(sim.genomeOf(sim.planOf(genome)), genome);
    }
}

void TestSimulator::evaluateMatchesSimulateOnRealModels_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("devices");
    QTest::addColumn<QString>("catalog"); // "example" or "shared" (tests/data shared_cores.json)
    QTest::newRow("resnet50, cpu gpu npu") << "resnet50"
                                           << "cpu gpu npu"
                                           << "example";
    QTest::newRow("resnet50, cpu npu") << "resnet50"
                                       << "cpu npu"
                                       << "example";
    QTest::newRow("bert_base, cpu gpu npu") << "bert_base"
                                            << "cpu gpu npu"
                                            << "example";
    QTest::newRow("resnet50, shared cores") << "resnet50"
                                            << "cpu cpu:0 cpu:1"
                                            << "shared";
    QTest::newRow("bert_base, shared cores") << "bert_base"
                                             << "cpu cpu:0 cpu:1"
                                             << "shared";
}

namespace {

/// The example catalog, or the one whose cpu, cpu:0 and cpu:1 share cores and memory bandwidth.
DeviceCatalog catalogNamed(const QString& name) {
    return loadDeviceCatalog(name == QLatin1String("shared")
                                 ? PARETUNE_SOURCE_DIR "/tests/data/catalogs/shared_cores.json"
                                 : PARETUNE_SOURCE_DIR "/resources/catalogs/example.json");
}

} // namespace

// The fast evaluation (specialised for the device count, records nothing) and the full
// simulation (generic, records the timeline) share one scheduling core: on random plans of real
// models, under two priority orders, one simulator reused across all of them, they must agree
// exactly, and the full result must agree with itself.
void TestSimulator::evaluateMatchesSimulateOnRealModels() {
    QFETCH(QString, model);
    QFETCH(QString, devices);
    QFETCH(QString, catalog);
    const QString path = testModelPath(model);
    if (!std::filesystem::exists(path.toStdString())) {
        QSKIP(qPrintable(QStringLiteral("model not exported: ") + path));
    }
    const ImportResult imported = importOnnxFile(path.toStdString());
    const Graph& g = imported.graph;
    const CostTable table = buildCostTable(g, catalogNamed(catalog), deviceIds(devices));
    QCOMPARE(table.hasSharedResources(), catalog == QLatin1String("shared"));
    Simulator sim(g, table);
    const auto C = static_cast<std::size_t>(sim.computeCount());
    Random random(11);
    std::vector<std::vector<std::uint8_t>> genomes;
    for (int r = 0; r < 24; ++r) {
        std::vector<std::uint8_t> genome(C);
        for (std::size_t ci = 0; ci < C; ++ci) {
            // Mostly supported devices (some plans all feasible), now and then any device.
            std::uint8_t d = 0;
            do {
                d = static_cast<std::uint8_t>(
                    random.below(static_cast<std::uint32_t>(sim.deviceCount())));
            } while (r % 3 != 0 && !sim.supported(static_cast<std::int32_t>(ci), d));
            genome[ci] = d;
        }
        genomes.push_back(std::move(genome));
    }
    for (std::int32_t d = 0; d < sim.deviceCount(); ++d) {
        genomes.push_back(allOnDevice(sim, d));
    }
    genomes.push_back(heftPlacement(sim));
    int transfers = 0;
    int stretched = 0; // runs slowed by contention
    for (int order = 0; order < 2; ++order) {
        if (order == 1) {
            sim.setPriority(upwardRankOrder(sim));
        }
        for (std::size_t i = 0; i < genomes.size(); ++i) {
            const Objectives fast = sim.evaluate(genomes[i]);
            const SimulationResult full = sim.simulate(sim.planOf(genomes[i]), i % 2 == 0);
            const Objectives again = sim.evaluate(genomes[i]);
            const Objectives& o = full.objectives;
            for (const Objectives* f : {&fast, &again}) {
                QVERIFY2(identical(*f, o), qPrintable(QString::number(i)));
            }
            QCOMPARE(o.peakMemoryBytes,
                     *std::max_element(full.peakBytes.begin(), full.peakBytes.end()));
            QCOMPARE(o.latencyUs, *std::max_element(full.finishUs.begin(), full.finishUs.end()));
            QVERIFY(o.violation >= full.unsupportedCount);
            if (i % 2 == 0) {
                // A fusion group the plan takes is one run: its last member's, the group's cell.
                std::map<NodeId, double> groupUs;
                std::size_t hidden = 0;
                for (const std::int32_t k : full.fusedGroups) {
                    const FusionOption& option = table.fusionOptions()[static_cast<std::size_t>(k)];
                    const NodeId tail = option.group.tail();
                    groupUs[tail] =
                        option
                            .cells[static_cast<std::size_t>(
                                sim.planOf(genomes[i]).device[static_cast<std::size_t>(tail)])]
                            .latencyUs;
                    hidden += option.group.members.size() - 1;
                }
                std::vector<const TimelineSegment*> runs;
                for (const TimelineSegment& s : full.timeline) {
                    if (s.lane == TimelineSegment::Lane::Device) {
                        runs.push_back(&s);
                        QCOMPARE(s.beginUs, full.startUs[static_cast<std::size_t>(s.node)]);
                        QCOMPARE(s.endUs, full.finishUs[static_cast<std::size_t>(s.node)]);
                        // Never shorter than its cell (up to the rounding of begin + L).
                        const double slack = 1e-12 * s.endUs;
                        const double cell = groupUs.count(s.node) != 0
                                                ? groupUs.at(s.node)
                                                : sim.latencyUs(sim.computeIndex(s.node), s.index);
                        QVERIFY(s.endUs - s.beginUs >= cell - slack);
                        stretched += s.endUs - s.beginUs > cell + slack ? 1 : 0;
                    } else {
                        ++transfers;
                        QVERIFY(s.endUs > s.beginUs);
                    }
                }
                QCOMPARE(runs.size() + hidden, C);
                // Devices that share an exclusive resource never run at the same time.
                for (const TimelineSegment* a : runs) {
                    for (const TimelineSegment* b : runs) {
                        if (table.exclusive(a->index, b->index)) {
                            QVERIFY(a->endUs <= b->beginUs || b->endUs <= a->beginUs);
                        }
                    }
                }
            }
        }
    }
    QVERIFY(transfers > 0); // the random plans move data between devices
    QCOMPARE(stretched > 0, table.hasSharedResources());
}

void TestSimulator::evaluateBatchMatchesEvaluate_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("devices");
    QTest::addColumn<QString>("catalog");     // "example" or "four": cpu, gpu, npu and a dsp
    QTest::addColumn<bool>("workspace");      // give every third cell a workspace
    QTest::addColumn<bool>("someInfeasible"); // unsupported cells or a device over its memory
    // Shared resources added to the table: its last two devices exclusive, and device d slowed
    // by device d + 1 (mod D) by 1.1 + 0.2 · d.
    QTest::addColumn<bool>("moreShared");
    // Variants (0: none; 2: fp32 and bf16; 3: and int8): bf16 and int8 cells (faster, with a
    // deviation) for the lowerable nodes wherever their fp32 cell is supported; plans take random
    // columns (device and precision), some of them unsupported (a lower-precision column of a
    // node that cannot be lowered). Three variants on three devices are 9 columns, on four 12:
    // the batch path's two-register tables.
    QTest::addColumn<int>("variants");
    QTest::newRow("resnet50, cpu gpu npu") << "resnet50"
                                           << "cpu gpu npu"
                                           << "example" << false << false << false << 0;
    QTest::newRow("resnet50, cpu gpu npu, bf16") << "resnet50"
                                                 << "cpu gpu npu"
                                                 << "example" << true << true << false << 2;
    QTest::newRow("bert_base, four devices, bf16, shared") << "bert_base"
                                                           << "cpu gpu npu dsp"
                                                           << "four" << false << true << true << 2;
    QTest::newRow("resnet50, cpu gpu npu, bf16 int8") << "resnet50"
                                                      << "cpu gpu npu"
                                                      << "example" << true << true << false << 3;
    QTest::newRow("bert_base, four devices, bf16 int8, shared")
        << "bert_base"
        << "cpu gpu npu dsp"
        << "four" << true << true << true << 3;
    QTest::newRow("resnet50, shared cores, bf16") << "resnet50"
                                                  << "cpu cpu:0 cpu:1"
                                                  << "shared" << false << true << false << 2;
    QTest::newRow("resnet50, cpu npu, workspace") << "resnet50"
                                                  << "cpu npu"
                                                  << "example" << true << false << false << 0;
    QTest::newRow("resnet50, four devices") << "resnet50"
                                            << "cpu gpu npu dsp"
                                            << "four" << false << true << false << 0;
    QTest::newRow("bert_base, cpu gpu npu") << "bert_base"
                                            << "cpu gpu npu"
                                            << "example" << false << true << false << 0;
    QTest::newRow("bert_base, four devices, workspace") << "bert_base"
                                                        << "cpu gpu npu dsp"
                                                        << "four" << true << true << false << 0;
    // cpu exclusive with cpu:0 and cpu:1, which slow each other by 1.3.
    QTest::newRow("resnet50, shared cores") << "resnet50"
                                            << "cpu cpu:0 cpu:1"
                                            << "shared" << false << false << false << 0;
    QTest::newRow("resnet50, cpu cpu:0 (one core shared)")
        << "resnet50"
        << "cpu cpu:0"
        << "shared" << false << false << false << 0;
    QTest::newRow("bert_base, shared cores, workspace") << "bert_base"
                                                        << "cpu cpu:0 cpu:1"
                                                        << "shared" << true << false << false << 0;
    QTest::newRow("resnet50, four devices, shared") << "resnet50"
                                                    << "cpu gpu npu dsp"
                                                    << "four" << false << true << true << 0;
    QTest::newRow("bert_base, cpu gpu npu, shared") << "bert_base"
                                                    << "cpu gpu npu"
                                                    << "example" << false << true << true << 0;
}

// evaluateBatch (eight plans per SIMD lane group where the CPU has AVX-512) must give exactly
// what evaluate() gives, plan by plan: random plans (some with unsupported nodes, some over a
// device's memory), single-device plans and HEFT, in batches whose size is not a multiple of
// eight, under two priority orders.
void TestSimulator::evaluateBatchMatchesEvaluate() {
    QFETCH(QString, model);
    QFETCH(QString, devices);
    QFETCH(QString, catalog);
    QFETCH(bool, workspace);
    QFETCH(bool, someInfeasible);
    QFETCH(bool, moreShared);
    QFETCH(int, variants);
    const QString path = testModelPath(model);
    if (!std::filesystem::exists(path.toStdString())) {
        QSKIP(qPrintable(QStringLiteral("model not exported: ") + path));
    }
    const ImportResult imported = importOnnxFile(path.toStdString());
    const Graph& g = imported.graph;
    // Four devices: a small-memory npu (plans over its memory) and a dsp on a half-duplex link
    // to the host and a link to the gpu, reached from the npu through the host.
    const DeviceCatalog devicesCatalog =
        catalog != QLatin1String("four")
            ? catalogNamed(catalog)
            : parseDeviceCatalogText(R"({"schema": "paretune.devices/1", "host": "cpu",
      "devices": [
       {"id": "cpu", "kind": "cpu", "peak_gflops": 600, "mem_bw_gbs": 40, "launch_us": 2,
        "active_w": 65, "idle_w": 8, "memory_mb": 16384},
       {"id": "gpu", "kind": "gpu", "peak_gflops": 20000, "mem_bw_gbs": 450, "launch_us": 8,
        "active_w": 180, "idle_w": 15, "memory_mb": 8192},
       {"id": "npu", "kind": "npu", "peak_gflops": 4000, "mem_bw_gbs": 60, "launch_us": 20,
        "active_w": 5, "idle_w": 0.5, "memory_mb": 24, "unsupported_ops": ["Softmax"]},
       {"id": "dsp", "kind": "dsp", "peak_gflops": 300, "mem_bw_gbs": 20, "launch_us": 5,
        "active_w": 3, "idle_w": 0.2, "memory_mb": 512}],
      "links": [
       {"a": "cpu", "b": "gpu", "bandwidth_gbs": 16, "latency_us": 10, "duplex": "full"},
       {"a": "cpu", "b": "npu", "bandwidth_gbs": 4, "latency_us": 30, "duplex": "full"},
       {"a": "cpu", "b": "dsp", "bandwidth_gbs": 2, "latency_us": 15, "duplex": "half"},
       {"a": "gpu", "b": "dsp", "bandwidth_gbs": 8, "latency_us": 12, "duplex": "full"}],
      "routes": [
       {"src": "gpu", "dst": "npu", "via": ["cpu"]}, {"src": "npu", "dst": "gpu", "via": ["cpu"]},
       {"src": "npu", "dst": "dsp", "via": ["cpu"]}, {"src": "dsp", "dst": "npu", "via": ["cpu"]}]})",
                                     "four devices");
    CostTable table = buildCostTable(g, devicesCatalog, deviceIds(devices));
    if (workspace) {
        for (std::size_t n = 0; n < g.nodes.size(); n += 3) {
            for (std::int32_t d = 0; d < table.deviceCount(); ++d) {
                CostCell cell = table.cell(static_cast<NodeId>(n), d);
                if (cell.supported() && g.nodes[n].kind == NodeKind::Compute) {
                    cell.workspaceBytes = 4096 * static_cast<std::int64_t>(n % 7 + 1);
                    table.setCell(static_cast<NodeId>(n), d, cell);
                }
            }
        }
    }
    if (moreShared) {
        const std::int32_t D = table.deviceCount();
        table.setExclusive(D - 2, D - 1);
        table.setTurnCost(D - 2, 7.25, CostSource::Measured);
        table.setTurnCost(D - 1, 3.5, CostSource::Measured);
        for (std::int32_t d = 0; d < D; ++d) {
            table.setReceiveFactor(d, 1.05 + 0.1 * d, CostSource::Measured);
            table.setContention(d, (d + 1) % D, 1.1 + 0.2 * d, CostSource::Measured);
        }
    }
    if (variants > 0) {
        const std::vector<Variant> offered{Precision::Fp32, Precision::Bf16, Precision::Int8};
        table.setVariants({offered.begin(), offered.begin() + variants});
        for (std::int32_t v = 1; v < variants; ++v) {
            const Precision precision = table.variant(v).precision;
            for (std::size_t n = 0; n < g.nodes.size(); ++n) {
                const auto node = static_cast<NodeId>(n);
                if (g.nodes[n].kind != NodeKind::Compute || !lowerable(g, node, precision)) {
                    continue;
                }
                for (std::int32_t d = 0; d < table.deviceCount(); ++d) {
                    CostCell cell = table.cell(node, d);
                    if (cell.supported()) {
                        cell.latencyUs = cell.latencyUs * (v == 1 ? 0.55 : 0.4) + 1.0;
                        cell.energyUj *= 0.5;
                        cell.deviationPct = 0.01 * v * static_cast<double>(n % 7 + 1);
                        table.setCell(node, d, v, cell);
                    }
                }
            }
        }
    }
    Simulator sim(g, table);
    qInfo("batch path: %s", sim.batchPath());
    // Every row here is one the vector core takes where the CPU has AVX-512 (up to 16 columns).
    __builtin_cpu_init();
    QCOMPARE(QString::fromLatin1(sim.batchPath()),
             QLatin1String(__builtin_cpu_supports("avx512f") ? "avx512x8" : "scalar"));
    const auto C = static_cast<std::size_t>(sim.computeCount());
    const auto columns = static_cast<std::uint32_t>(sim.columnCount());
    Random random(5);
    std::vector<std::vector<std::uint8_t>> genomes;
    for (int r = 0; r < 37; ++r) {
        std::vector<std::uint8_t> genome(C);
        // Random plans, some with blocks of neighbours on one device, some unsupported cells.
        std::uint8_t block = 0;
        for (std::size_t ci = 0; ci < C; ++ci) {
            if (r % 2 == 0 || ci % 9 == 0) {
                block = static_cast<std::uint8_t>(random.below(columns));
            }
            std::uint8_t d = block;
            while (r % 5 != 0 && !sim.columnSupported(static_cast<std::int32_t>(ci), d)) {
                d = static_cast<std::uint8_t>(random.below(columns));
            }
            genome[ci] = d;
        }
        genomes.push_back(std::move(genome));
    }
    for (std::int32_t d = 0; d < sim.deviceCount(); ++d) {
        genomes.push_back(allOnDevice(sim, d));
    }
    genomes.push_back(heftPlacement(sim));
    for (std::int32_t v = 1; v < variants; ++v) {
        for (std::int32_t d = 0; d < sim.deviceCount(); ++d) {
            genomes.push_back(allOnDeviceIn(sim, d, v));
        }
    }
    std::vector<const std::uint8_t*> pointers;
    for (const auto& genome : genomes) {
        pointers.push_back(genome.data());
    }
    // Plans that take fusion groups are among them (the catalogs' groups cost less as one node).
    int fusedPlans = 0;
    for (const auto& genome : genomes) {
        fusedPlans += sim.takenGroups(genome).empty() ? 0 : 1;
    }
    QVERIFY(table.fusionOptions().empty() || fusedPlans > 0);
    int infeasible = 0;
    for (int order = 0; order < 2; ++order) {
        if (order == 1) {
            sim.setPriority(upwardRankOrder(sim));
        }
        for (const std::size_t size : {pointers.size(), std::size_t{8}, std::size_t{3}}) {
            std::vector<Objectives> batch(size);
            sim.evaluateBatch({pointers.data(), size}, batch);
            for (std::size_t i = 0; i < size; ++i) {
                const Objectives one = sim.evaluate(genomes[i]);
                QVERIFY2(identical(batch[i], one),
                         QByteArray::number(static_cast<qulonglong>(i)).constData());
                infeasible += one.feasible() ? 0 : 1;
            }
        }
    }
    QCOMPARE(infeasible > 0, someInfeasible);
}

void TestSimulator::rejectsBadPlans() {
    const Graph g = fixtureGraph("a->b");
    const DeviceCatalog catalog = parseDeviceCatalogText(testCatalogText(), "test");
    const CostTable table = manualTable(g, catalog, QString());
    Simulator sim(g, table);
    Plan plan = sim.planOf(std::vector<std::uint8_t>{0, 0});
    Plan reversed = plan;
    std::swap(reversed.order[0], reversed.order[1]);
    QVERIFY_THROWS_EXCEPTION(InputError, sim.simulate(reversed));
    Plan badDevice = plan;
    badDevice.device[0] = 7;
    QVERIFY_THROWS_EXCEPTION(InputError, sim.simulate(badDevice));
    plan.device.pop_back();
    QVERIFY_THROWS_EXCEPTION(InputError, sim.simulate(plan));
}

QTEST_APPLESS_MAIN(TestSimulator)
#include "tst_simulator.moc"
