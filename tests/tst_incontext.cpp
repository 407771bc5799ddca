// SPDX-License-Identifier: GPL-3.0-or-later
// What the tune loop learns from plans measured on the hardware (workflow/in_context_costs.h),
// worked by hand: in-plan times, per-device scales, and earlier rounds put at the machine's
// latest measured speed.
#include "common/input_error.h"
#include "common/sha256.h"
#include "cost/cost_table.h"
#include "cost/measured_costs.h"
#include "graph/fusion_group.h"
#include "graph_fixture.h"
#include "in_context_fixture.h"
#include "plan/simulator.h"
#include "store/graph_records.h"
#include "store/records.h"
#include "store/sample_library.h"
#include "workflow/cell_shrinkage.h"
#include "workflow/in_context_costs.h"
#include "workflow/tune_round_record.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace paretune;
using paretune::test::fixtureGraph;
using paretune::test::sequential;
using paretune::test::storedAndReadBack;
using paretune::test::tableOf;

namespace {

/// A CPU device stored in `library` under a made-up fingerprint (the hash of its id).
DeviceRecord storedDevice(SampleLibrary& library, const std::string& id) {
    DeviceRecord device;
    device.fingerprint = Sha256::hex(id);
    device.kind = "cpu";
    device.name = id;
    library.upsertDevice(device);
    return device;
}

} // namespace

class TestInContext : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void nodesTakeTheirInPlanTimes();
    void smallNodesDoNotSetTheScale();
    void fusedGroupsTakeTheirInPlanTimes();
    void cellsOfFewPlansAreDrawnTowardTheirNodeElsewhere();
    void shrinkageNeedsTimesThatTellTheNoise();
    void earlierRoundsAreAtTheLatestSpeed_data();
    void earlierRoundsAreAtTheLatestSpeed();
    void learningFromRoundsAtTheirSpeeds();
    void speedScalesAreStoredWithTheRound();
    void calibratedSpeedWeighsDevicesByBusyTime();
    void badSpeedChangesAreRefused();
    void newPlansTakeTheBiasEarlierRoundsMeasured();
    void wholeModelRunsScaleTheCells();
    void modelRunsRefuseWhatARunCannotMeasure();
    void loweredGraphsTakeTheirModelsScale();
};

void TestInContext::nodesTakeTheirInPlanTimes() {
    const Graph g = fixtureGraph("a->b->c->d");
    CostTable table = tableOf(g);
    // a, b, c ran alone on cpu:0 at 1.5, 2 and 1 times their cells; d never ran there.
    const InContextFit fit =
        applyInContextCosts(table, g, {sequential("cpu:0", {{"a", 150}, {"b", 400}, {"c", 400}})});
    QCOMPARE(table.cell(g.findNode("a"), 0).latencyUs, 150.0);
    QCOMPARE(table.cell(g.findNode("b"), 0).latencyUs, 400.0);
    QCOMPARE(table.cell(g.findNode("c"), 0).latencyUs, 400.0);
    QVERIFY(table.cell(g.findNode("a"), 0).source == CostSource::Measured);
    // d scales by the device's in-plan times over their cells, summed (950 / 700: weighted by
    // time, not the median 1.5 of the ratios 1.5, 2 and 1); energy too.
    QCOMPARE(fit.deviceScale.at("cpu:0"), 950.0 / 700.0);
    QCOMPARE(table.cell(g.findNode("d"), 0).latencyUs, 800.0 * 950.0 / 700.0);
    QCOMPARE(table.cell(g.findNode("d"), 0).energyUj, 800.0 * 950.0 / 700.0);
    QCOMPARE(fit.nodesInContext, 3);
    QCOMPARE(fit.nodesScaled, 1);
    // cpu:1 ran nothing: its cells stay.
    QCOMPARE(table.cell(g.findNode("a"), 1).latencyUs, 100.0);
    QCOMPARE(fit.deviceScale.count("cpu:1"), std::size_t(0));
}

void TestInContext::smallNodesDoNotSetTheScale() {
    const Graph g = fixtureGraph("a->b->c->d");
    CostTable table = tableOf(g);
    CostCell tiny = table.cell(g.findNode("a"), 1);
    tiny.latencyUs = 10.0;
    table.setCell(g.findNode("a"), 1, tiny);
    tiny.latencyUs = 20.0;
    table.setCell(g.findNode("b"), 1, tiny);
    // On cpu:1 two small nodes ran 5× and 4× their cells (a Relu, an Add inside a plan), a large
    // one at 1.1×: the median ratio would be 4; the time-weighted scale is 570 / 430.
    const InContextFit fit =
        applyInContextCosts(table, g, {sequential("cpu:1", {{"a", 50}, {"b", 80}, {"c", 440}})});
    QCOMPARE(fit.deviceScale.at("cpu:1"), 570.0 / 430.0);
    QCOMPARE(table.cell(g.findNode("d"), 1).latencyUs, 800.0 * 570.0 / 430.0);
}

void TestInContext::fusedGroupsTakeTheirInPlanTimes() {
    const Graph g = fixtureGraph("a->b->c->d");
    CostTable table = tableOf(g);
    FusionOption bc;
    bc.group.kind = FusionKind::Conv;
    bc.group.members = {g.findNode("b"), g.findNode("c")};
    bc.group.pattern = "Op+Op";
    for (int d = 0; d < 2; ++d) {
        CostCell cell;
        cell.latencyUs = 300.0;
        cell.energyUj = 300.0;
        cell.source = CostSource::Modelled;
        bc.cells.push_back(cell);
    }
    table.setFusionOptions({bc});
    // On cpu:0: a at 1.5× its cell, the group b+c (observed under its first member's name) at
    // 2× its option's cell, d at 1×: the device's scale is 1550 / 1200.
    const InContextFit fit = applyInContextCosts(
        table, g, {sequential("cpu:0", {{"a", 150}, {"b+fused", 600}, {"d", 800}})});
    QCOMPARE(fit.deviceScale.at("cpu:0"), 1550.0 / 1200.0);
    QCOMPARE(fit.deviceObservations.at("cpu:0"), 3);
    const CostCell& fused = table.fusionOptions()[0].cells[0];
    QCOMPARE(fused.latencyUs, 600.0);
    QCOMPARE(fused.energyUj, 600.0);
    QVERIFY(fused.source == CostSource::Measured);
    QCOMPARE(fit.fusedInContext, 1);
    QCOMPARE(fit.fusedScaled, 0);
    // Its members, not run on their own there, scale by the group's ratio (600 / 300), not by
    // the device's (1550 / 1200): b and c unfused stay 2× the group's 600, as profiled.
    QCOMPARE(table.cell(g.findNode("b"), 0).latencyUs, 200.0 * 2.0);
    QCOMPARE(table.cell(g.findNode("c"), 0).latencyUs, 400.0 * 2.0);
    QCOMPARE(table.cell(g.findNode("c"), 0).energyUj, 400.0 * 2.0);
    QCOMPARE(fit.nodesInContext, 2);
    QCOMPARE(fit.membersScaledByGroup, 2);
    QCOMPARE(fit.nodesScaled, 0);
    // cpu:1 ran nothing: the members' cells there stay.
    QCOMPARE(table.cell(g.findNode("b"), 1).latencyUs, 200.0);
    // cpu:1 ran nothing: the option's cell there stays.
    QCOMPARE(table.fusionOptions()[0].cells[1].latencyUs, 300.0);
    QVERIFY(table.fusionOptions()[0].cells[1].source == CostSource::Modelled);

    // On cpu:1 its members ran unfused (b 400, c 800 over cells of 200 and 400) beside a (350
    // over 100): the option's cell there scales by its members' ratio, 1200 / 600, not by the
    // device's 1550 / 700.
    CostTable both = tableOf(g);
    both.setFusionOptions({bc});
    const InContextFit scaled =
        applyInContextCosts(both, g,
                            {sequential("cpu:0", {{"a", 150}, {"b+fused", 600}, {"d", 800}}),
                             sequential("cpu:1", {{"a", 350}, {"b", 400}, {"c", 800}}, 5000.0)});
    QCOMPARE(scaled.deviceScale.at("cpu:1"), 1550.0 / 700.0);
    QCOMPARE(both.fusionOptions()[0].cells[1].latencyUs, 600.0);
    QCOMPARE(scaled.fusedScaledByMembers, 1);
    QCOMPARE(scaled.fusedScaled, 0);
    // d never ran on cpu:1 and belongs to no group: the device's ratio.
    QCOMPARE(both.cell(g.findNode("d"), 1).latencyUs, 800.0 * 1550.0 / 700.0);
    // Stored with the round and read back; older rounds have neither count.
    const TuneRound back = storedAndReadBack(scaled);
    QCOMPARE(back.fit.fusedScaledByMembers, 1);
    QCOMPARE(back.fit.membersScaledByGroup, 2);
    nlohmann::json older = detail::roundJson(back);
    older["fit"].erase("members_scaled_by_group");
    older["fit"].erase("fused_scaled_by_members");
    TuneRoundRecord record;
    record.recordJson = older.dump();
    QCOMPARE(detail::roundFrom(record).fit.membersScaledByGroup, 0);
}

void TestInContext::cellsOfFewPlansAreDrawnTowardTheirNodeElsewhere() {
    // On cpu:0 and on cpu:1, a, b and c ran in three plans each, e^-0.1, 1 and e^0.1 times their
    // medians (100, 200, 400 µs, cells as large): one time's noise is 0.01 in log² (Σ 1400 · 0.02
    // over Σ 1400 · 2 degrees of freedom). d ran once on each: 150 µs on cpu:0, 100 on cpu:1,
    // over cells of 100.
    const auto spread = [](double median) {
        return std::vector<double>{median * std::exp(-0.1), median, median * std::exp(0.1)};
    };
    std::vector<InPlanCell> cells;
    for (std::int32_t d = 0; d < 2; ++d) {
        cells.push_back({"a", d, 100.0, spread(100.0)});
        cells.push_back({"b", d, 200.0, spread(200.0)});
        cells.push_back({"c", d, 400.0, spread(400.0)});
        cells.push_back({"d", d, 100.0, {d == 0 ? 150.0 : 100.0}});
    }
    std::vector<double> estimates;
    const std::optional<CellShrinkage> fit = shrinkInPlanTimes(cells, estimates);
    QVERIFY(fit);
    QCOMPARE(fit->noiseSd, 0.1);
    QCOMPARE(fit->cells, 8);
    // The devices' log-ratios: ln(850 / 800) on cpu:0, 0 on cpu:1. A cell's prior is its
    // device's plus its node's ratio elsewhere less that device's: d on cpu:0 gets b0 + 0, d on
    // cpu:1 gets ln 1.5 − b0; a, b and c are b0 off theirs either way.
    const double b0 = std::log(850.0 / 800.0);
    const double lucky = std::log(1.5) - b0;
    // The spread: time-weighted, less the noise of the cell's median and of its prior's.
    const double between = (1400.0 * (b0 * b0 - 0.01 * (1.0 / 3 + 1.0 / 3)) +
                            (150.0 + 100.0) * (lucky * lucky - 0.01 * 2)) /
                           1650.0;
    QCOMPARE(fit->spreadSd, std::sqrt(between));
    // d keeps w of its own log-ratio off the prior, w = (spread² + noise of the prior) / (that
    // + its own noise): the 150 on cpu:0 comes down, the 100 on cpu:1 goes up.
    const double w = (between + 0.01) / (between + 0.01 + 0.01);
    QCOMPARE(estimates[3], 100.0 * std::exp(b0 + w * lucky));
    QCOMPARE(estimates[7], 100.0 * std::exp(lucky - w * lucky));
    QVERIFY(estimates[3] > 130.0 && estimates[3] < 140.0);
    QVERIFY(estimates[7] > 105.0 && estimates[7] < 115.0);
    // a on cpu:0, from three times: drawn by b0 less.
    const double w3 = (between + 0.01 / 3) / (between + 0.01 / 3 + 0.01 / 3);
    QCOMPARE(estimates[0], 100.0 * std::exp(b0 - w3 * b0));

    // Through applyInContextCosts, the same on the fixture's cells (d's is 800 µs): d's cells
    // are the drawn figures, stored with the round; the devices' scales stay the medians'.
    const Graph g = fixtureGraph("a->b->c->d");
    CostTable table = tableOf(g);
    std::vector<PlanObservation> plans;
    for (const char* device : {"cpu:0", "cpu:1"}) {
        for (const double f : {std::exp(-0.1), 1.0, std::exp(0.1)}) {
            plans.push_back(sequential(device, {{"a", 100 * f}, {"b", 200 * f}, {"c", 400 * f}}));
        }
    }
    plans.push_back(sequential("cpu:0", {{"d", 1200}}, 5000.0));
    plans.push_back(sequential("cpu:1", {{"d", 800}}, 5000.0));
    const InContextFit learned = applyInContextCosts(table, g, plans);
    QVERIFY(learned.shrinkage);
    QCOMPARE(learned.shrinkage->noiseSd, 0.1);
    QVERIFY(table.cell(g.findNode("d"), 0).latencyUs < 1200.0);
    QVERIFY(table.cell(g.findNode("d"), 1).latencyUs > 800.0);
    QCOMPARE(learned.deviceScale.at("cpu:0"), 1900.0 / 1500.0);
    QCOMPARE(learned.deviceScale.at("cpu:1"), 1.0);
    const TuneRound back = storedAndReadBack(learned);
    QVERIFY(back.fit.shrinkage);
    QCOMPARE(back.fit.shrinkage->spreadSd, learned.shrinkage->spreadSd);
    QCOMPARE(back.fit.shrinkage->cells, 8);
}

void TestInContext::shrinkageNeedsTimesThatTellTheNoise() {
    // Two cells of two times or more cannot tell the noise: every cell keeps its median.
    const std::vector<InPlanCell> cells = {{"a", 0, 100.0, {90.0, 110.0}},
                                           {"b", 0, 200.0, {190.0, 210.0, 260.0}},
                                           {"a", 1, 100.0, {150.0}},
                                           {"b", 1, 200.0, {300.0}}};
    std::vector<double> estimates;
    QVERIFY(!shrinkInPlanTimes(cells, estimates));
    QCOMPARE(estimates, (std::vector<double>{100.0, 210.0, 150.0, 300.0}));
    // A node that ran on no other device, or only on a device of fewer than three cells, has
    // nothing to draw toward: it keeps its median.
    const std::vector<InPlanCell> alone = {{"a", 0, 100.0, {90.0, 110.0}},
                                           {"b", 0, 100.0, {95.0, 105.0}},
                                           {"c", 0, 100.0, {80.0, 120.0}},
                                           {"d", 0, 100.0, {150.0}},
                                           {"d", 1, 100.0, {120.0}}};
    QVERIFY(!shrinkInPlanTimes(alone, estimates));
    QCOMPARE(estimates, (std::vector<double>{100.0, 100.0, 100.0, 150.0, 120.0}));
    // Stored rounds from before the shrinkage read back without one.
    nlohmann::json older = detail::roundJson(storedAndReadBack(InContextFit{}));
    older["fit"].erase("shrinkage");
    TuneRoundRecord record;
    record.recordJson = older.dump();
    QVERIFY(!detail::roundFrom(record).fit.shrinkage);
}

void TestInContext::earlierRoundsAreAtTheLatestSpeed_data() {
    QTest::addColumn<QList<double>>("changes"); // per round; 0: none measured
    QTest::addColumn<QList<double>>("scales");
    QTest::newRow("one round") << QList<double>{0} << QList<double>{1};
    QTest::newRow("slower now") << QList<double>{0, 1.2} << QList<double>{1.2, 1};
    QTest::newRow("three rounds") << QList<double>{0, 1.2, 0.5} << QList<double>{0.6, 0.5, 1};
    QTest::newRow("a round without re-validated plans")
        << QList<double>{0, 0, 2.0} << QList<double>{2, 2, 1};
}

void TestInContext::earlierRoundsAreAtTheLatestSpeed() {
    QFETCH(QList<double>, changes);
    QFETCH(QList<double>, scales);
    std::vector<std::vector<PlanObservation>> rounds;
    std::vector<std::optional<double>> speedChanges;
    for (const double change : changes) {
        rounds.push_back({sequential("cpu:0", {{"a", 100}, {"b", 300}}, 10.0)});
        speedChanges.push_back(change > 0 ? std::optional<double>(change) : std::nullopt);
    }
    std::vector<double> got;
    const std::vector<PlanObservation> all = observationsAtLatestSpeed(rounds, speedChanges, &got);
    QCOMPARE(got.size(), std::size_t(scales.size()));
    QCOMPARE(all.size(), rounds.size());
    for (qsizetype j = 0; j < scales.size(); ++j) {
        const double f = scales[j];
        QCOMPARE(got[static_cast<std::size_t>(j)], f);
        const PlanObservation& plan = all[static_cast<std::size_t>(j)];
        QCOMPARE(plan.nodes[0].us, 100 * f);
        QCOMPARE(plan.nodes[1].us, 300 * f);
        QCOMPARE(plan.nodes[1].beginUs, 110 * f);
        QCOMPARE(plan.nodes[1].endUs, 410 * f);
        QCOMPARE(plan.nodes[1].node, std::string("b"));
    }
}

void TestInContext::learningFromRoundsAtTheirSpeeds() {
    const Graph g = fixtureGraph("a->b->c->d");
    // Round 1 measured a, b, c at 1.5× their cells; round 2, with the machine 1.2× slower (its
    // re-validated plans said so), at 1.8×. At the latest speed, round 1's times are 1.8× too:
    // every in-plan time is 1.8× its cell, and d, never run, scales by 1.8.
    const std::vector<std::vector<PlanObservation>> rounds = {
        {sequential("cpu:0", {{"a", 150}, {"b", 300}, {"c", 600}})},
        {sequential("cpu:0", {{"a", 180}, {"b", 360}, {"c", 720}})}};
    CostTable table = tableOf(g);
    const InContextFit fit =
        applyInContextCosts(table, g, observationsAtLatestSpeed(rounds, {std::nullopt, 1.2}));
    QCOMPARE(table.cell(g.findNode("a"), 0).latencyUs, 180.0);
    QCOMPARE(table.cell(g.findNode("c"), 0).latencyUs, 720.0);
    QCOMPARE(fit.deviceScale.at("cpu:0"), 1.8);
    QCOMPARE(table.cell(g.findNode("d"), 0).latencyUs, 1440.0);
    // Taken as they were measured, the two speeds mix: a 165 µs (the median of 150 and 180).
    CostTable mixed = tableOf(g);
    applyInContextCosts(mixed, g, observationsAtLatestSpeed(rounds, {std::nullopt, std::nullopt}));
    QCOMPARE(mixed.cell(g.findNode("a"), 0).latencyUs, 165.0);
}

void TestInContext::speedScalesAreStoredWithTheRound() {
    TuneRound round;
    round.index = 2;
    round.maxAbsError = 0.1;
    round.medianAbsError = 0.05;
    round.fit.roundSpeedScales = {0.6, 0.5, 1.0};
    TuneRoundRecord record;
    record.round = 2;
    record.recordJson = detail::roundJson(round).dump();
    const TuneRound back = detail::roundFrom(record);
    QCOMPARE(back.fit.roundSpeedScales, round.fit.roundSpeedScales);
    // A round stored before the scales were: none.
    nlohmann::json older = detail::roundJson(round);
    older["fit"].erase("round_speed_scales");
    record.recordJson = older.dump();
    QVERIFY(detail::roundFrom(record).fit.roundSpeedScales.empty());
}

// A plan's speed: its devices' calibrated speeds weighted by its busy time on each, the median
// for a device no baseline ran alone on; how far the speed moved during the round. Stored with
// the round; older rounds have none, or no checks after the runs.
void TestInContext::calibratedSpeedWeighsDevicesByBusyTime() {
    SpeedCalibration c;
    QCOMPARE(c.speedOf({{"cpu", 300.0}}), 1.0); // no speed (the first round): as simulated
    c.speed = 1.1;
    c.deviceSpeed = {{"cpu", 1.2}, {"cpu:0", 1.0}};
    c.compared = 3;
    c.runs = 10;
    c.attempts = 2;
    c.probes = {{"all:cpu", {0, 0, 0}, "cpu", 7400.0, 7104.0, 7548.0},
                {"heft", {0, 1, 2}, "", 8100.0, std::nullopt, std::nullopt}};
    // (300 · 1.2 + 100 · 1.0 + 100 · 1.1) / 500 = 570 / 500
    QCOMPARE(c.speedOf({{"cpu", 300.0}, {"cpu:0", 100.0}, {"cpu:1", 100.0}}), 1.14);
    QCOMPARE(c.speedOf({{"cpu:0", 250.0}}), 1.0);
    QCOMPARE(c.speedOf({}), 1.1); // nothing busy: the median

    // Probes against the latest round's timed runs of the same plans (medians by genome), each
    // probe the geometric mean of its rehearsals before and after the runs (before alone where
    // it has none after): all:cpu √(7400 · 7104) / 6800, all:cpu:0 √(6400 · 8100) = 7200 over
    // 9000, heft 8100 / 7500; a plan the latest round did not time gives nothing.
    const std::map<std::vector<std::uint8_t>, double> latest = {
        {{0, 1, 2}, 7500.0}, {{0, 0, 0}, 6800.0}, {{1, 1, 1}, 9000.0}};
    SpeedCalibration now;
    now.probes = c.probes;
    now.probes.push_back({"all:cpu:1", {2, 2, 2}, "cpu:1", 9100.0, std::nullopt, std::nullopt});
    now.probes.push_back({"all:cpu:0", {1, 1, 1}, "cpu:0", 6400.0, 8100.0, 8000.0});
    compareProbes(now, latest);
    QCOMPARE(now.compared, 3);
    QCOMPARE(now.deviceSpeed.size(), std::size_t{2});
    QCOMPARE(now.deviceSpeed.at("cpu"), std::sqrt(7400.0 * 7104.0) / 6800.0); // 1.0662
    QCOMPARE(now.deviceSpeed.at("cpu:0"), 0.8);
    QCOMPARE(*now.speed, now.deviceSpeed.at("cpu")); // the median of 0.8, 1.0662 and 1.08
    SpeedCalibration first;                          // nothing timed before: no speed
    first.probes = c.probes;
    compareProbes(first, {});
    QVERIFY(!first.speed);
    QCOMPARE(first.compared, 0);

    // How far the speed moved during the round: all:cpu ran 7400 µs before, 7104 after (−4 %)
    // and 7548 in the runs (+2 %); heft was not timed after or in the runs. Beyond
    // kSteadyTolerance (10 %) the round is timed again.
    QCOMPARE(c.speedMoved(), 296.0 / 7400.0);
    SpeedCalibration moved = c;
    moved.probes[1].afterUs = 8343.0; // +3 %
    moved.probes[1].runsUs = 8991.0;  // +11 % in the runs: the same plan, the machine slower
    QCOMPARE(moved.speedMoved(), 891.0 / 8100.0);
    QVERIFY(moved.speedMoved() > kSteadyTolerance && c.speedMoved() <= kSteadyTolerance);
    QCOMPARE(SpeedCalibration{}.speedMoved(), 0.0);

    TuneRound round;
    round.index = 1;
    round.calibration = c;
    TuneRoundRecord record;
    record.round = 1;
    record.recordJson = detail::roundJson(round).dump();
    const TuneRound back = detail::roundFrom(record);
    QVERIFY(back.calibration);
    QCOMPARE(back.calibration->speed, std::optional<double>(1.1));
    QCOMPARE(back.calibration->deviceSpeed, c.deviceSpeed);
    QCOMPARE(back.calibration->compared, 3);
    QCOMPARE(back.calibration->runs, 10);
    QCOMPARE(back.calibration->probes.size(), std::size_t{2});
    QCOMPARE(back.calibration->probes[1].genome, (std::vector<std::uint8_t>{0, 1, 2}));
    QCOMPARE(back.calibration->probes[0].device, std::string("cpu"));
    QCOMPARE(back.calibration->probes[1].us, 8100.0);
    QCOMPARE(back.calibration->probes[0].afterUs, std::optional<double>(7104.0));
    QCOMPARE(back.calibration->probes[0].runsUs, std::optional<double>(7548.0));
    QVERIFY(!back.calibration->probes[1].afterUs);
    QVERIFY(!back.calibration->probes[1].runsUs);
    QCOMPARE(back.calibration->attempts, 2);
    nlohmann::json beforeChecks = detail::roundJson(round); // stored before the checks
    beforeChecks["calibration"].erase("attempts");
    for (nlohmann::json& p : beforeChecks["calibration"]["probes"]) {
        p.erase("after_us");
        p.erase("runs_us");
    }
    record.recordJson = beforeChecks.dump();
    QCOMPARE(detail::roundFrom(record).calibration->attempts, 1);
    QCOMPARE(detail::roundFrom(record).calibration->speedMoved(), 0.0);
    record.recordJson = detail::roundJson(round).dump();
    nlohmann::json older = detail::roundJson(round);
    older.erase("calibration");
    record.recordJson = older.dump();
    QVERIFY(!detail::roundFrom(record).calibration);
    nlohmann::json bad = detail::roundJson(round);
    bad["calibration"]["devices"]["cpu"] = -1.0;
    record.recordJson = bad.dump();
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, detail::roundFrom(record));
    bad = detail::roundJson(round);
    bad["calibration"]["probes"][0]["after_us"] = 0.0;
    record.recordJson = bad.dump();
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, detail::roundFrom(record));
    bad = detail::roundJson(round);
    bad["calibration"]["probes"][0]["runs_us"] = "fast";
    record.recordJson = bad.dump();
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, detail::roundFrom(record));
    bad = detail::roundJson(round);
    bad["calibration"]["attempts"] = 0;
    record.recordJson = bad.dump();
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, detail::roundFrom(record));
}

// A new plan over several devices is predicted x the bias the earlier rounds' new plans over
// several devices measured (measured / predicted without their factor), the first round left
// out; drawn toward 1 while there are few, clamped to [0.9, 1.2]. Stored with the round and each
// plan; older rounds have none (a factor of 1).
void TestInContext::newPlansTakeTheBiasEarlierRoundsMeasured() {
    QCOMPARE(newPlanBiasOf(std::vector<double>{}).factor, 1.0);
    QCOMPARE(newPlanBiasOf(std::vector<double>{}).plans, 0);
    // Three at +5 %: exp(ln 1.05 · 3 / (3 + 3)) = √1.05.
    const NewPlanBias three = newPlanBiasOf({1.05, 1.02, 1.10});
    QCOMPARE(three.factor, std::exp(std::log(1.05) * 0.5));
    QCOMPARE(three.plans, 3);
    QCOMPARE(newPlanBiasOf({2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0}).factor, 1.2);
    QCOMPARE(newPlanBiasOf({0.5}).factor, 0.9);                  // 0.5^(1/4) = 0.84
    QCOMPARE(newPlanBiasOf({1.05, 0.0, std::nan("")}).plans, 1); // not a ratio: left out

    const auto plan = [](double predictedUs, double measuredUs, bool seenBefore, double factor) {
        TunedPlan p;
        p.predictedUs = predictedUs;
        p.measured.medianUs = measuredUs;
        p.seenBefore = seenBefore;
        p.newPlanFactor = factor;
        return p;
    };
    PlanObservation one, two;
    one.nodes = {{"a", "cpu:0", 1.0, 0.0, 1.0}, {"b", "cpu:0", 1.0, 1.0, 2.0}};
    two.nodes = {{"a", "cpu:0", 1.0, 0.0, 1.0}, {"b", "cpu:1", 1.0, 1.0, 2.0}};
    QVERIFY(spansDevices(two) && !spansDevices(one) && !spansDevices(PlanObservation{}));
    std::vector<TuneRound> rounds(3);
    for (int r = 0; r < 3; ++r) {
        rounds[static_cast<std::size_t>(r)].index = r;
    }
    rounds[0].plans = {plan(1000.0, 2000.0, false, 1.0)}; // the first round: left out
    rounds[0].observations = {two};
    rounds[1].plans = {plan(1000.0, 1100.0, false, 1.0),  // +10 %
                       plan(1000.0, 1500.0, true, 1.0),   // seen before: left out
                       plan(1000.0, 1500.0, false, 1.0)}; // on one device: left out
    rounds[1].observations = {two, two, one};
    rounds[2].plans = {plan(1260.0, 1323.0, false, 1.05)}; // 1200 without its factor: +10.25 %
    rounds[2].observations = {two};
    const NewPlanBias bias = learnedNewPlanBias(rounds);
    QCOMPARE(bias.plans, 2);
    // The median of ln 1.1 and ln 1.1025, · 2 / 5.
    QCOMPARE(bias.factor, std::exp((std::log(1.1) + std::log(1.1025)) / 2.0 * 0.4));

    TuneRound round;
    round.index = 2;
    round.newPlanBias = bias;
    round.plans = {plan(1260.0, 1323.0, false, 1.05)};
    round.observations = {two};
    TuneRoundRecord record;
    record.round = 2;
    record.recordJson = detail::roundJson(round).dump();
    const TuneRound back = detail::roundFrom(record);
    QCOMPARE(back.newPlanBias.factor, bias.factor);
    QCOMPARE(back.newPlanBias.plans, 2);
    QCOMPARE(back.plans[0].newPlanFactor, 1.05);
    nlohmann::json older = detail::roundJson(round); // stored before the bias was learned
    older.erase("new_plan_bias");
    older["plans"][0].erase("new_plan_factor");
    record.recordJson = older.dump();
    QCOMPARE(detail::roundFrom(record).newPlanBias.factor, 1.0);
    QCOMPARE(detail::roundFrom(record).newPlanBias.plans, 0);
    QCOMPARE(detail::roundFrom(record).plans[0].newPlanFactor, 1.0);
    nlohmann::json bad = detail::roundJson(round);
    bad["new_plan_bias"]["factor"] = 0.0;
    record.recordJson = bad.dump();
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, detail::roundFrom(record));
    bad = detail::roundJson(round);
    bad["plans"][0]["new_plan_factor"] = "large";
    record.recordJson = bad.dump();
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, detail::roundFrom(record));
}

void TestInContext::badSpeedChangesAreRefused() {
    const std::vector<std::vector<PlanObservation>> two = {{}, {}};
    QVERIFY_THROWS_EXCEPTION(InputError, observationsAtLatestSpeed(two, {std::nullopt}));
    QVERIFY_THROWS_EXCEPTION(InputError, observationsAtLatestSpeed(two, {std::nullopt, 0.0}));
    QVERIFY_THROWS_EXCEPTION(InputError, observationsAtLatestSpeed(two, {std::nullopt, -1.0}));
}

// The model's whole-model run on a device scales its cells there by end to end / summed cells,
// fusion options and variants alike; a device without a run, or with a cell not measured,
// keeps its operators' isolated times and says why.
void TestInContext::wholeModelRunsScaleTheCells() {
    QTemporaryDir dir;
    SampleLibrary library = SampleLibrary::open(dir.filePath(QStringLiteral("s.db")).toStdString());
    ModelRecord model;
    model.fingerprint = Sha256::hex("model");
    model.name = "chain";
    model.nodeCount = 4;
    library.upsertModel(model);
    std::map<std::string, std::string> fingerprints;
    for (const char* id : {"cpu:0", "cpu:1"}) {
        fingerprints[id] = storedDevice(library, id).fingerprint;
    }
    Graph g = fixtureGraph("a->b->c->d");
    g.fingerprint = model.fingerprint;
    CostTable table = tableOf(g); // 100 + 200 + 400 + 800 = 1500 µs on each device
    table.setVariants({Precision::Fp32, Precision::Bf16});
    CostCell bf16 = table.cell(g.findNode("d"), 0);
    bf16.latencyUs = 500.0;
    bf16.energyUj = 500.0;
    table.setCell(g.findNode("d"), 0, 1, bf16);
    FusionOption bc;
    bc.group.kind = FusionKind::Conv;
    bc.group.members = {g.findNode("b"), g.findNode("c")};
    bc.group.pattern = "Op+Op";
    bc.cells.assign(2, table.cell(g.findNode("c"), 0)); // 400 µs on each device
    table.setFusionOptions({bc});

    ModelRunRecord run;
    run.modelFingerprint = model.fingerprint;
    run.deviceFingerprint = fingerprints["cpu:0"];
    run.medianUs = 2250.0;
    run.p10Us = 2100.0;
    run.p90Us = 2400.0;
    run.runs = 20;
    run.sumOfOpsUs = 1480.0; // what the profile summed; the scale compares with the cells
    QVERIFY(library.addModelRun(run) > 0);

    const std::vector<ModelRunScale> scales = applyModelRunScales(table, g, library, fingerprints);
    QCOMPARE(scales.size(), std::size_t{2});
    QCOMPARE(scales[0].id, std::string("cpu:0"));
    QVERIFY(scales[0].applied);
    QCOMPARE(scales[0].endToEndUs, 2250.0);
    QCOMPARE(scales[0].summedCellsUs, 1500.0);
    QCOMPARE(scales[0].scale, 1.5);
    QVERIFY(!scales[0].measuredAt.empty());
    QCOMPARE(table.cell(g.findNode("a"), 0).latencyUs, 150.0);
    QCOMPARE(table.cell(g.findNode("d"), 0).latencyUs, 1200.0);
    QCOMPARE(table.cell(g.findNode("d"), 0).energyUj, 1200.0);
    QVERIFY(table.cell(g.findNode("d"), 0).source == CostSource::Measured);
    QCOMPARE(table.cell(g.findNode("d"), 0, 1).latencyUs, 750.0);
    QCOMPARE(table.fusionOptions()[0].cells[0].latencyUs, 600.0);
    // cpu:1 has no run: its cells stay.
    QVERIFY(!scales[1].applied);
    QVERIFY(!scales[1].why.empty());
    QCOMPARE(table.cell(g.findNode("d"), 1).latencyUs, 800.0);
    QCOMPARE(table.fusionOptions()[0].cells[1].latencyUs, 400.0);

    // A newer run is the one read; with a cell predicted the sum is not the samples': no scale.
    CostTable again = tableOf(g);
    CostCell predicted = again.cell(g.findNode("b"), 0);
    predicted.source = CostSource::Predicted;
    again.setCell(g.findNode("b"), 0, predicted);
    run.medianUs = 3000.0;
    run.p10Us = 2900.0;
    run.p90Us = 3100.0;
    library.addModelRun(run);
    const std::vector<ModelRunScale> partial = applyModelRunScales(again, g, library, fingerprints);
    QVERIFY(!partial[0].applied);
    QCOMPARE(partial[0].endToEndUs, 3000.0);
    QCOMPARE(again.cell(g.findNode("a"), 0).latencyUs, 100.0);
    // A run far from the samples (here 8x) is not taken for the same model and device.
    CostTable far = tableOf(g);
    run.medianUs = 12000.0;
    run.p10Us = 11000.0;
    run.p90Us = 13000.0;
    library.addModelRun(run);
    const std::vector<ModelRunScale> refused = applyModelRunScales(far, g, library, fingerprints);
    QVERIFY(!refused[0].applied);
    QCOMPARE(refused[0].scale, 8.0);
    QCOMPARE(far.cell(g.findNode("a"), 0).latencyUs, 100.0);
}

// A plan's lowered graph (its nodes in lower precisions, with their conversions) has no
// whole-model run of its own: what validates it scales its cells by the model's run over the
// model's own measured cells (modelRunScalesOf), as the search scaled the plan's cells.
void TestInContext::loweredGraphsTakeTheirModelsScale() {
    QTemporaryDir dir;
    SampleLibrary library = SampleLibrary::open(dir.filePath(QStringLiteral("s.db")).toStdString());
    test::FixtureOptions options;
    options.opTypes = {{"a", "A"}, {"b", "B"}, {"c", "C"}, {"d", "D"}};
    Graph model = fixtureGraph("a->b->c->d", options);
    model.fingerprint = Sha256::hex("model");
    for (std::size_t n = 0; n < model.nodes.size(); ++n) { // signatures are 32 hex digits
        model.signatures[n] = Sha256::hex(model.nodes[n].opType).substr(0, 32);
    }
    library.upsertGraph(model);
    const DeviceRecord device = storedDevice(library, "cpu:0");
    const std::map<std::string, std::string> fingerprints = {{"cpu:0", device.fingerprint}};
    std::vector<Sample> samples;
    for (const auto& [name, us] :
         std::map<std::string, double>{{"a", 100.0}, {"b", 200.0}, {"c", 300.0}, {"d", 400.0}}) {
        Sample s = sampleFor(model, model.findNode(name));
        s.deviceFingerprint = device.fingerprint;
        s.configJson = "{}";
        s.latencyUs = us;
        s.repeats = 10;
        samples.push_back(s);
    }
    library.addSamples(samples);
    ModelRunRecord run;
    run.modelFingerprint = model.fingerprint;
    run.deviceFingerprint = device.fingerprint;
    run.medianUs = 2000.0; // twice the summed samples (1000 µs)
    run.p10Us = 1900.0;
    run.p90Us = 2100.0;
    run.runs = 20;
    run.sumOfOpsUs = 1000.0;
    QVERIFY(library.addModelRun(run) > 0);

    // The lowered graph: b with a conversion before it ("b/to_bf16_0" here "x").
    Graph lowered = fixtureGraph("a->x->b->c->d");
    lowered.fingerprint = Sha256::hex("lowered");
    const auto loweredTable = [&] {
        CostTable table = tableOf(lowered); // a 100, b 200, c 400, d 800 µs
        CostCell conversion = table.cell(lowered.findNode("a"), 0);
        conversion.latencyUs = 50.0;
        conversion.energyUj = 50.0;
        table.setCell(lowered.findNode("x"), 0, conversion);
        return table;
    };
    CostTable alone = loweredTable();
    const std::vector<ModelRunScale> none =
        applyModelRunScales(alone, lowered, library, fingerprints);
    QCOMPARE(none.size(), std::size_t{1});
    QVERIFY(!none[0].applied);
    QCOMPARE(alone.cell(lowered.findNode("x"), 0).latencyUs, 50.0);

    CostTable table = loweredTable();
    const std::vector<ModelRunScale> scales = modelRunScalesOf(model, table, library, fingerprints);
    QCOMPARE(scales.size(), std::size_t{1});
    QVERIFY(scales[0].applied);
    QCOMPARE(scales[0].summedCellsUs, 1000.0);
    QCOMPARE(scales[0].endToEndUs, 2000.0);
    QCOMPARE(scales[0].scale, 2.0);
    scaleByModelRuns(table, lowered, scales);
    QCOMPARE(table.cell(lowered.findNode("x"), 0).latencyUs, 100.0);
    QCOMPARE(table.cell(lowered.findNode("d"), 0).latencyUs, 1600.0);
    QCOMPARE(table.cell(lowered.findNode("d"), 0).energyUj, 1600.0);
    QCOMPARE(table.cell(lowered.findNode("d"), 1).latencyUs, 800.0); // cpu:1: no fingerprint
}

// Figures a run cannot have, or a model or device the library lacks, are refused by name and
// store nothing.
void TestInContext::modelRunsRefuseWhatARunCannotMeasure() {
    QTemporaryDir dir;
    SampleLibrary library = SampleLibrary::open(dir.filePath(QStringLiteral("s.db")).toStdString());
    ModelRecord model;
    model.fingerprint = Sha256::hex("model");
    model.name = "m";
    library.upsertModel(model);
    const DeviceRecord device = storedDevice(library, "cpu:0");
    ModelRunRecord good;
    good.modelFingerprint = model.fingerprint;
    good.deviceFingerprint = device.fingerprint;
    good.medianUs = 10.0;
    good.p10Us = 9.0;
    good.p90Us = 11.0;
    good.runs = 5;
    good.sumOfOpsUs = 8.0;
    const auto refused = [&](const ModelRunRecord& bad, const char* named) {
        try {
            library.addModelRun(bad);
        } catch (const InputError& e) {
            return std::string(e.what()).find(named) != std::string::npos;
        }
        return false;
    };
    ModelRunRecord bad = good;
    bad.medianUs = std::nan("");
    QVERIFY(refused(bad, "median"));
    bad = good;
    bad.p10Us = 12.0;
    QVERIFY(refused(bad, "p10"));
    bad = good;
    bad.runs = 0;
    QVERIFY(refused(bad, "runs"));
    bad = good;
    bad.sumOfOpsUs = -1.0;
    QVERIFY(refused(bad, "positive"));
    bad = good;
    bad.modelFingerprint = Sha256::hex("other");
    QVERIFY(refused(bad, "not in the library"));
    bad = good;
    bad.deviceFingerprint = Sha256::hex("cpu:9");
    QVERIFY(refused(bad, "not in the library"));
    QVERIFY(!library.newestModelRun(model.fingerprint, device.fingerprint));
    QVERIFY(library.addModelRun(good) > 0);
    const auto stored = library.newestModelRun(model.fingerprint, device.fingerprint);
    QVERIFY(stored);
    QCOMPARE(stored->medianUs, 10.0);
    QCOMPARE(stored->p10Us, 9.0);
    QCOMPARE(stored->p90Us, 11.0);
    QCOMPARE(stored->runs, 5);
    QCOMPARE(stored->sumOfOpsUs, 8.0);
}

QTEST_GUILESS_MAIN(TestInContext)
#include "tst_incontext.moc"
