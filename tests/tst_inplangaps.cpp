// SPDX-License-Identifier: GPL-3.0-or-later
// The time between nodes inside plans, the turns of devices sharing cores and the receives of
// those that do not, as the tune loop learns them from measured plans (workflow/in_plan_gaps.h,
// turn_costs.h), worked by hand.
#include "cost/cost_table.h"
#include "graph_fixture.h"
#include "in_context_fixture.h"
#include "plan/simulator.h"
#include "workflow/cell_shrinkage.h"
#include "workflow/in_context_costs.h"
#include "workflow/turn_costs.h"

#include <QtTest>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

using namespace paretune;
using paretune::test::fixtureGraph;
using paretune::test::storedAndReadBack;
using paretune::test::tableOf;

class TestInPlanGaps : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void gapsBetweenNodesAreLearned();
    void aNodeThatWaitedForItsDeviceGivesNoGap();
    void turnsOnSharedCoresAreLearned();
    void gapsBeforeTurnsAreLearned();
    void copiesAtTurnsTakeTheirMeasuredShare();
    void receivesAreLearned();
};

void TestInPlanGaps::gapsBetweenNodesAreLearned() {
    const Graph g = fixtureGraph("a->b->c->d"); // every tensor 1000 bytes
    CostTable table = tableOf(g);
    // The catalog's copy from cpu:0 to cpu:1: 2 µs and 100 bytes/µs (10 µs for a tensor).
    const std::int32_t queue = table.addQueue("cpu:0->cpu:1");
    table.setPath(0, 1, {TransferHop{queue, 0, 1, 2.0, 100.0, CostSource::Modelled}});
    // Three runs of a, b on cpu:0 and c, d on cpu:1, each node at its cell's time: b and d
    // start 10 µs after their producer on their own device, c 50 µs after b on the other.
    PlanObservation plan;
    plan.nodes = {{"a", "cpu:0", 100, 0, 100},
                  {"b", "cpu:0", 200, 110, 310},
                  {"c", "cpu:1", 400, 360, 760},
                  {"d", "cpu:1", 800, 770, 1570}};
    const InContextFit fit = applyInContextCosts(table, g, {plan, plan, plan});
    QCOMPARE(fit.gaps.dispatchUs.at("cpu:0"), 10.0);
    QCOMPARE(fit.gaps.dispatchUs.at("cpu:1"), 10.0);
    QCOMPARE(fit.gaps.dispatchObservations.at("cpu:0"), 3);
    // The handoff: 50 µs less cpu:1's dispatch (10) and the copy's bandwidth time (10).
    QCOMPARE(fit.gaps.handoffs.size(), std::size_t(1));
    const FittedHandoff& h = fit.gaps.handoffs[0];
    QCOMPARE(h.from, std::string("cpu:0"));
    QCOMPARE(h.to, std::string("cpu:1"));
    QCOMPARE(h.latencyUs, 30.0);
    QCOMPARE(h.modelledLatencyUs, 2.0);
    QCOMPARE(h.observations, 3);
    QCOMPARE(table.path(0, 1)[0].latencyUs, 30.0);
    QCOMPARE(table.path(0, 1)[0].bytesPerUs, 100.0);
    QVERIFY(table.path(0, 1)[0].source == CostSource::Measured);
    QCOMPARE(table.transferUs(0, 1, 1000.0), 40.0);
    // Every cell of a device with a time gains its dispatch, energy unchanged: b's in-plan 200
    // becomes 210, c on cpu:0 (never run there, no scale: two nodes) 400 + 10.
    QCOMPARE(table.cell(g.findNode("b"), 0).latencyUs, 210.0);
    QCOMPARE(table.cell(g.findNode("b"), 0).energyUj, 200.0);
    QCOMPARE(table.cell(g.findNode("c"), 0).latencyUs, 410.0);
    QCOMPARE(table.cell(g.findNode("d"), 1).latencyUs, 810.0);
    // The plan simulated on these costs: a 0–110, b 110–320, the copy 40 µs, c 360–770,
    // d 770–1580: the measured run (1570 µs) and a's own dispatch.
    Simulator sim(g, table);
    std::vector<std::uint8_t> genome(static_cast<std::size_t>(sim.computeCount()), 0);
    genome[static_cast<std::size_t>(sim.computeIndex(g.findNode("c")))] = 1;
    genome[static_cast<std::size_t>(sim.computeIndex(g.findNode("d")))] = 1;
    QCOMPARE(sim.simulate(sim.planOf(genome)).objectives.latencyUs, 1580.0);
    // Stored with the round and read back.
    const TuneRound back = storedAndReadBack(fit);
    QCOMPARE(back.fit.gaps.dispatchUs, fit.gaps.dispatchUs);
    QCOMPARE(back.fit.gaps.handoffs.size(), std::size_t(1));
    QCOMPARE(back.fit.gaps.handoffs[0].latencyUs, 30.0);
    QCOMPARE(back.fit.gaps.handoffs[0].observations, 3);
    // Two runs are not enough: nothing is learned.
    CostTable few = tableOf(g);
    few.setPath(0, 1, {TransferHop{few.addQueue("q"), 0, 1, 2.0, 100.0, CostSource::Modelled}});
    const InContextFit none = applyInContextCosts(few, g, {plan, plan});
    QVERIFY(none.gaps.dispatchUs.empty());
    QVERIFY(none.gaps.handoffs.empty());
    QCOMPARE(none.gaps.dispatchObservations.at("cpu:0"), 2);
    QCOMPARE(few.path(0, 1)[0].latencyUs, 2.0);
    QCOMPARE(few.cell(g.findNode("b"), 0).latencyUs, 200.0);
}

void TestInPlanGaps::aNodeThatWaitedForItsDeviceGivesNoGap() {
    const Graph g = fixtureGraph("a->b; a->c; b,c->d");
    CostTable table = tableOf(g);
    // All on cpu:0: b 5 µs after a; c ready when a ended (100) but run after b, so its 300 µs
    // wait was for the device; d 8 µs after c, the last of its producers.
    PlanObservation plan;
    plan.nodes = {{"a", "cpu:0", 100, 0, 100},
                  {"b", "cpu:0", 200, 105, 305},
                  {"c", "cpu:0", 400, 400, 800},
                  {"d", "cpu:0", 800, 808, 1608}};
    const InContextFit fit = applyInContextCosts(table, g, {plan, plan});
    QCOMPARE(fit.gaps.dispatchObservations.at("cpu:0"), 4);
    QCOMPARE(fit.gaps.dispatchUs.at("cpu:0"), 6.5); // the median of 5, 8, 5, 8
}

void TestInPlanGaps::turnsOnSharedCoresAreLearned() {
    const Graph g = fixtureGraph("a->b->c->d");
    CostTable table = tableOf(g);
    table.setExclusive(0, 1); // cpu:0 and cpu:1 share a core here
    const auto chain = [](const std::vector<std::pair<std::string, double>>& steps) {
        PlanObservation plan; // back to back: "device:µs" per node a, b, c, d
        const char* names[] = {"a", "b", "c", "d"};
        double t = 0.0;
        for (std::size_t i = 0; i < steps.size(); ++i) {
            plan.nodes.push_back(
                {names[i], steps[i].first, steps[i].second, t, t + steps[i].second});
            t += steps[i].second;
        }
        return plan;
    };
    // All on one core at the cells' times; then two plans that switch: in `switching`, b takes
    // the cores over from cpu:0 (+50 µs on its 200 on cpu:1) and c back (+30 on its 400);
    // in `back`, b takes them over on cpu:0 (+40) and c on cpu:1 (+60).
    const PlanObservation onCpu0 =
        chain({{"cpu:0", 100}, {"cpu:0", 200}, {"cpu:0", 400}, {"cpu:0", 800}});
    const PlanObservation onCpu1 =
        chain({{"cpu:1", 100}, {"cpu:1", 200}, {"cpu:1", 400}, {"cpu:1", 800}});
    const PlanObservation switching =
        chain({{"cpu:0", 100}, {"cpu:1", 250}, {"cpu:0", 430}, {"cpu:0", 800}});
    const PlanObservation back =
        chain({{"cpu:1", 100}, {"cpu:0", 240}, {"cpu:1", 460}, {"cpu:1", 800}});
    QCOMPARE(turnStarts(switching, table), (std::vector<bool>{false, true, true, false}));
    QCOMPARE(turnStarts(back, table), (std::vector<bool>{false, true, true, false}));

    const InContextFit fit =
        applyInContextCosts(table, g, {onCpu0, onCpu1, switching, back, switching});
    // cpu:0's turns: c 30, b 40, c 30 over their times without a turn: median 30; cpu:1's: b 50,
    // c 60, b 50: 50.
    QCOMPARE(fit.turns.size(), std::size_t(2));
    QCOMPARE(fit.turns[0].device, std::string("cpu:0"));
    QCOMPARE(fit.turns[0].us, 30.0);
    QCOMPARE(fit.turns[0].observations, 3);
    QCOMPARE(fit.turns[1].device, std::string("cpu:1"));
    QCOMPARE(fit.turns[1].us, 50.0);
    QCOMPARE(table.turnCost(0), 30.0);
    QCOMPARE(table.turnCost(1), 50.0);
    QVERIFY(table.turnCostSource(1) == CostSource::Measured);
    // The nodes' in-plan times without their turns: c on cpu:0 400 (430 − 30, twice), not 430;
    // b on cpu:0 200 and 240 − 30. Each cell's median is then drawn toward its node's on the
    // other core (shrinkInPlanTimes, tst_incontext): b on cpu:0 from 205 to 203.8.
    // The cells' times as applyInContextCosts gathers them (a, b, c, d on cpu:0, then cpu:1, in
    // node order), drawn: b's and c's as given, a's and d's those of the plans above.
    const auto drawnWith = [](std::vector<double> b0, std::vector<double> b1,
                              std::vector<double> c0, std::vector<double> c1) {
        std::vector<double> drawn;
        shrinkInPlanTimes({{"a", 0, 100, {100, 100, 100}},
                           {"a", 1, 100, {100, 100}},
                           {"b", 0, 200, std::move(b0)},
                           {"b", 1, 200, std::move(b1)},
                           {"c", 0, 400, std::move(c0)},
                           {"c", 1, 400, std::move(c1)},
                           {"d", 0, 800, {800, 800, 800}},
                           {"d", 1, 800, {800, 800}}},
                          drawn);
        return drawn;
    };
    std::vector<double> drawn = drawnWith({200, 210}, {200, 200, 200}, {400, 400, 400}, {400, 410});
    QVERIFY(drawn[2] < 205.0); // b on cpu:0, drawn toward b on cpu:1's 200
    QCOMPARE(table.cell(g.findNode("b"), 0).latencyUs, drawn[2]);
    QCOMPARE(table.cell(g.findNode("b"), 1).latencyUs, drawn[3]);
    QCOMPARE(table.cell(g.findNode("c"), 0).latencyUs, drawn[4]);
    QCOMPARE(table.cell(g.findNode("c"), 1).latencyUs, drawn[5]);
    const std::vector<double> medians = {100, 100, 205, 200, 400, 405, 800, 800};
    for (std::size_t k = 0; k < medians.size(); ++k) { // between its median and the other's
        const double other = medians[k ^ 1];
        QVERIFY(drawn[k] >= std::min(medians[k], other) - 1e-9);
        QVERIFY(drawn[k] <= std::max(medians[k], other) + 1e-9);
    }
    // Stored with the round and read back.
    const TuneRound stored = storedAndReadBack(fit);
    QCOMPARE(stored.fit.turns.size(), std::size_t(2));
    QCOMPARE(stored.fit.turns[1].us, 50.0);
    QCOMPARE(stored.fit.turns[1].observations, 3);

    // Devices that share no core take no turns: the same times are the nodes' own.
    CostTable apart = tableOf(g);
    QCOMPARE(turnStarts(switching, apart), (std::vector<bool>(4, false)));
    const InContextFit none =
        applyInContextCosts(apart, g, {onCpu0, onCpu1, switching, back, switching});
    QVERIFY(none.turns.empty());
    QCOMPARE(apart.turnCost(0), 0.0);
    // b and c switched cores, now receives: two cells a device, too few for a factor.
    QCOMPARE(receiveStarts(switching, apart, g), (std::vector<bool>{false, true, true, false}));
    QVERIFY(none.receives.empty());
    QCOMPARE(apart.receiveFactor(0), 1.0);
    drawn = drawnWith({200, 240}, {200, 250, 250}, {400, 430, 430}, {400, 460});
    QCOMPARE(apart.cell(g.findNode("c"), 0).latencyUs, drawn[4]); // its median 430, drawn
}

void TestInPlanGaps::gapsBeforeTurnsAreLearned() {
    const Graph g = fixtureGraph("a->b->c->d"); // every tensor 1000 bytes
    CostTable table = tableOf(g);
    table.setExclusive(0, 1); // cpu:0 and cpu:1 share a core here
    // The catalog's copy from cpu:0 to cpu:1: 2 µs and 100 bytes/µs (10 µs for a tensor).
    table.setPath(0, 1, {TransferHop{table.addQueue("q"), 0, 1, 2.0, 100.0, CostSource::Modelled}});
    // a on cpu:0, then b, c, d on cpu:1, back to back there; b takes the cores over 32 µs after
    // a ended in nine runs and 932 µs after in one.
    std::vector<PlanObservation> plans;
    for (int run = 0; run < 10; ++run) {
        const double begin = 100.0 + (run == 9 ? 932.0 : 32.0);
        PlanObservation plan;
        plan.nodes = {{"a", "cpu:0", 100, 0, 100},
                      {"b", "cpu:1", 200, begin, begin + 200},
                      {"c", "cpu:1", 400, begin + 200, begin + 600},
                      {"d", "cpu:1", 800, begin + 600, begin + 1400}};
        plans.push_back(std::move(plan));
    }
    const InContextFit fit = applyInContextCosts(table, g, plans);
    // Each gap less cpu:1's dispatch (0) and the copy of a's output (12 µs): 20 nine times,
    // 920 once. The mean of the lower 90 %: 20 (the mean of all would be 110).
    QCOMPARE(fit.gaps.turnGapUs.at("cpu:1"), 20.0);
    QCOMPARE(fit.gaps.turnGapObservations.at("cpu:1"), 10);
    QVERIFY(fit.gaps.handoffs.empty()); // a turn's gap is not a handoff's
    QVERIFY(fit.turns.empty());         // b never ran on cpu:1 without a turn
    QCOMPARE(table.turnCost(1), 20.0);
    QVERIFY(table.turnCostSource(1) == CostSource::Measured);
    QCOMPARE(table.turnCost(0), 0.0);
    // The plan simulated: a 0–100, the copy 100–112, b 112–332 (its 200 and the turn's 20),
    // c 332–732, d 732–1532: the nine runs' 1532 µs.
    Simulator sim(g, table);
    std::vector<std::uint8_t> genome(static_cast<std::size_t>(sim.computeCount()), 1);
    genome[static_cast<std::size_t>(sim.computeIndex(g.findNode("a")))] = 0;
    QCOMPARE(sim.simulate(sim.planOf(genome)).objectives.latencyUs, 1532.0);
    // Stored with the round and read back.
    const TuneRound stored = storedAndReadBack(fit);
    QCOMPARE(stored.fit.gaps.turnGapUs, fit.gaps.turnGapUs);
    QCOMPARE(stored.fit.gaps.turnGapObservations, fit.gaps.turnGapObservations);
}

void TestInPlanGaps::copiesAtTurnsTakeTheirMeasuredShare() {
    test::FixtureOptions sizes;
    sizes.outputBytes = {{"a", 1000}, {"b", 3000}, {"c", 5000}};
    const Graph g = fixtureGraph("a->b->c->d", sizes);
    CostTable table = tableOf(g);
    table.setExclusive(0, 1); // cpu:0 and cpu:1 share a core here
    // The catalog's copies both ways: 2 µs and 100 bytes/µs (a's output 10 µs, b's 30, c's 50).
    table.setPath(0, 1,
                  {TransferHop{table.addQueue("q01"), 0, 1, 2.0, 100.0, CostSource::Modelled}});
    table.setPath(1, 0,
                  {TransferHop{table.addQueue("q10"), 1, 0, 2.0, 100.0, CostSource::Modelled}});
    // a on cpu:0, b on cpu:1, c on cpu:0, d on cpu:1: each takes the cores over and reads the
    // node it took them from. Into cpu:1 a copy takes half the catalog's bandwidth time: b
    // waits 2 + 40 + 5 = 47 µs, d 2 + 40 + 25 = 67; into cpu:0 c waits 2 + 40 + 30 = 72.
    PlanObservation plan;
    plan.nodes = {{"a", "cpu:0", 100, 0, 100},
                  {"b", "cpu:1", 200, 147, 347},
                  {"c", "cpu:0", 400, 419, 819},
                  {"d", "cpu:1", 800, 886, 1686}};
    const InContextFit fit = applyInContextCosts(table, g, {plan, plan, plan});
    // cpu:1: waits less the latency 45 and 65 against bandwidth times 10 and 50: slope 0.5, and
    // 40 left. cpu:0 copied one size only: its scale stays 1, 72 − 2 − 30 = 40 left.
    QCOMPARE(fit.gaps.turnCopyScale.at("cpu:1"), 0.5);
    QCOMPARE(fit.gaps.turnCopyScale.count("cpu:0"), std::size_t(0));
    QCOMPARE(fit.gaps.turnGapUs.at("cpu:1"), 40.0);
    QCOMPARE(fit.gaps.turnGapUs.at("cpu:0"), 40.0);
    QCOMPARE(table.path(0, 1)[0].bytesPerUs, 200.0);
    QVERIFY(table.path(0, 1)[0].source == CostSource::Measured);
    QCOMPARE(table.path(1, 0)[0].bytesPerUs, 100.0);
    // Simulated as run: a 0–100; a's copy 2 + 5 → b 107–347 (its 200 and the gap's 40); b's
    // copy 2 + 30 → c 379–819; c's copy 2 + 25 → d 846–1686.
    Simulator sim(g, table);
    std::vector<std::uint8_t> genome(static_cast<std::size_t>(sim.computeCount()), 0);
    genome[static_cast<std::size_t>(sim.computeIndex(g.findNode("b")))] = 1;
    genome[static_cast<std::size_t>(sim.computeIndex(g.findNode("d")))] = 1;
    QCOMPARE(sim.simulate(sim.planOf(genome)).objectives.latencyUs, 1686.0);
    // Stored with the round and read back.
    const TuneRound stored = storedAndReadBack(fit);
    QCOMPARE(stored.fit.gaps.turnCopyScale, fit.gaps.turnCopyScale);
}

void TestInPlanGaps::receivesAreLearned() {
    const Graph g = fixtureGraph("a->b->c->d->e->f"); // every tensor 1000 bytes
    const std::vector<std::string> names = {"a", "b", "c", "d", "e", "f"};
    CostTable table(
        static_cast<std::int32_t>(g.nodes.size()),
        {CostDevice{"cpu:0", "cpu", 10.0, 1.0, 1e9}, CostDevice{"cpu:1", "cpu", 10.0, 1.0, 1e9}},
        0);
    for (std::size_t k = 0; k < names.size(); ++k) { // a 100 µs, b 200 … f 600, both cores
        for (std::int32_t d = 0; d < 2; ++d) {
            CostCell cell;
            cell.latencyUs = 100.0 * static_cast<double>(k + 1);
            cell.energyUj = cell.latencyUs;
            cell.source = CostSource::Measured;
            table.setCell(g.findNode(names[k]), d, cell);
        }
    }
    // The catalog's copies both ways: 2 µs and 100 bytes/µs (12 µs for a tensor).
    table.setPath(0, 1,
                  {TransferHop{table.addQueue("q01"), 0, 1, 2.0, 100.0, CostSource::Modelled}});
    table.setPath(1, 0,
                  {TransferHop{table.addQueue("q10"), 1, 0, 2.0, 100.0, CostSource::Modelled}});
    // The chain on one core at the cells' times; then alternating between the cores, each node
    // reading its producer's tensor from the other core 12 µs after it ended (a on cpu:1 the
    // graph's input, from the host, cpu:0), and running 1.2 times its cell on cpu:0, 1.1 times
    // on cpu:1.
    const auto run = [&names](const std::vector<std::int32_t>& cores) {
        PlanObservation plan;
        double t = 0.0;
        for (std::size_t k = 0; k < names.size(); ++k) {
            const bool received = cores[k] != (k > 0 ? cores[k - 1] : 0);
            const double us = 100.0 * static_cast<double>(k + 1) *
                              (!received       ? 1.0
                               : cores[k] == 0 ? 1.2
                                               : 1.1);
            t += received ? 12.0 : 0.0;
            plan.nodes.push_back({names[k], "cpu:" + std::to_string(cores[k]), us, t, t + us});
            t += us;
        }
        return plan;
    };
    const PlanObservation onCpu0 = run({0, 0, 0, 0, 0, 0});
    const PlanObservation onCpu1 = run({1, 1, 1, 1, 1, 1});
    const PlanObservation even = run({0, 1, 0, 1, 0, 1});
    const PlanObservation odd = run({1, 0, 1, 0, 1, 0});
    QCOMPARE(receiveStarts(even, table, g),
             (std::vector<bool>{false, true, true, true, true, true}));
    QCOMPARE(receiveStarts(odd, table, g), std::vector<bool>(6, true));
    QCOMPARE(receiveStarts(onCpu0, table, g), std::vector<bool>(6, false));
    QCOMPARE(receiveStarts(onCpu1, table, g),
             (std::vector<bool>{true, false, false, false, false, false}));
    const InContextFit fit = applyInContextCosts(table, g, {onCpu0, onCpu1, even, odd});
    // cpu:0 received b, d, f (odd) and c, e (even): 240 + 360 + 480 + 600 + 720 over their
    // times kept, 200 + 300 + 400 + 500 + 600: 1.2; cpu:1 alike, 1.1 (a there always read the
    // graph's input from the host: a receive, never kept).
    QCOMPARE(fit.receives.size(), std::size_t(2));
    QCOMPARE(fit.receives[0].device, std::string("cpu:0"));
    QCOMPARE(fit.receives[0].factor, 1.2);
    QCOMPARE(fit.receives[0].cells, 5);
    QCOMPARE(fit.receives[1].device, std::string("cpu:1"));
    QCOMPARE(fit.receives[1].factor, 1.1);
    QCOMPARE(fit.receives[1].cells, 5);
    QCOMPARE(table.receiveFactor(0), 1.2);
    QVERIFY(table.receiveFactorSource(1) == CostSource::Measured);
    QVERIFY(fit.turns.empty()); // the cores are not shared
    // The cells, their receives divided by the factor: as they ran kept (the gaps' dispatch 0).
    for (std::size_t k = 0; k < names.size(); ++k) {
        QCOMPARE(table.cell(g.findNode(names[k]), 0).latencyUs, 100.0 * static_cast<double>(k + 1));
        QCOMPARE(table.cell(g.findNode(names[k]), 1).latencyUs, 100.0 * static_cast<double>(k + 1));
    }
    // `even` simulated: a 0–100; the copy 2 + 10; b 112–332 (200 · 1.1); c 344–704 (300 · 1.2);
    // d 716–1156; e 1168–1768; f 1780–2440: as it ran. All on cpu:0: 2100, no copy.
    Simulator sim(g, table);
    std::vector<std::uint8_t> genome(static_cast<std::size_t>(sim.computeCount()), 0);
    QCOMPARE(sim.simulate(sim.planOf(genome)).objectives.latencyUs, 2100.0);
    for (std::size_t k = 1; k < names.size(); k += 2) {
        genome[static_cast<std::size_t>(sim.computeIndex(g.findNode(names[k])))] = 1;
    }
    QCOMPARE(sim.simulate(sim.planOf(genome)).objectives.latencyUs, 2440.0);
    QCOMPARE(even.nodes.back().endUs, 2440.0);
    // Stored with the round and read back.
    const TuneRound stored = storedAndReadBack(fit);
    QCOMPARE(stored.fit.receives.size(), std::size_t(2));
    QCOMPARE(stored.fit.receives[1].factor, 1.1);
    QCOMPARE(stored.fit.receives[1].cells, 5);
}

QTEST_GUILESS_MAIN(TestInPlanGaps)
#include "tst_inplangaps.moc"
