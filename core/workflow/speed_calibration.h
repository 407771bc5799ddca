// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The machine's speed just before a tune round's timed runs (the tune loop, tune_workflow.h):
// the round's baselines in a short rehearsal of its runs, against the latest round's timed runs
// of the same plans.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace paretune {

struct PlanToValidate;

/// A baseline timed in the rehearsals just before and after a round's timed runs
/// (SpeedCalibration).
struct SpeedProbe {
    std::string label;
    std::vector<std::uint8_t> genome;
    std::string device; ///< the one device it runs on; empty for a plan over several
    double us = 0.0;    ///< median of its runs in the rehearsal before
    /// Median of its runs in the rehearsal after (absent in older rounds).
    std::optional<double> afterUs;
    /// Its median in the round's timed runs, between the rehearsals (absent in older rounds).
    std::optional<double> runsUs;
};

/// The machine's speed around a round's timed runs. The round's plans (without variants) run in
/// a rehearsal just before the runs and again just after, fewer runs, interleaved as in the
/// round's runs, and each baseline (SpeedProbe) is compared with its median in the latest
/// round's timed runs: the search's costs are at that round's speed (observationsAtLatestSpeed),
/// and on a shared VM the speed moved by up to ±17 % between rounds a minute apart, and not alike
/// on every device (`cpu`, whose two threads wait for each other, more than one core), so the
/// speed of the seconds around the runs is the better guess of what they measure.
/// Against the latest round's runs, not its probes: a probe disturbed for its few seconds (all on
/// `cpu` of ResNet-50 probed at 32.1 ms, then 27.4 ms in the runs) misled the next round by its
/// whole error. In a rehearsal, not alone: `cpu` timed alone ran 9–19 % faster than interleaved
/// in some tunes, and not in others. As a guess of a plan's runs now over its runs in the latest
/// round, over 88 baselines of 36 tunes, the rehearsal before over the latest runs was off by
/// 2.9 % on average (median 1.6 %), no calibration by 4.9 % (median 2.6 %); with the baselines
/// timed alone (77 baselines of 36 other tunes), 3.0 % against 2.7 %.
/// Before and after, not before only: the runs lie between the rehearsals, and their geometric
/// mean brackets a drift the one before misses: as a guess of a baseline's median in the runs
/// (238 probes of 30 tunes), off by 2.2 % on average (median 1.8 %) against 2.5 % (2.1 %) for
/// the rehearsal before alone. The runs themselves never enter a speed: a probe is the
/// baseline's rehearsals, not its runs.
struct SpeedCalibration {
    std::vector<SpeedProbe> probes; ///< this round's
    int runs = 0;                   ///< timed runs of each plan in a rehearsal, interleaved
    /// Median over the probes the latest round timed too of (probe / its median there); absent
    /// in the first round, or when the latest round timed none of them.
    std::optional<double> speed;
    /// Per device id, from the probe that runs on it only: that probe's ratio.
    std::map<std::string, double> deviceSpeed;
    int compared = 0; ///< probes with a ratio
    /// Timings of the round (rehearsal, runs, rehearsal) taken; more than one when the machine's
    /// speed moved during one by over kSteadyTolerance (speedMoved).
    int attempts = 1;

    /// How far the machine's speed moved during the round: the largest |afterUs / us − 1| and
    /// |runsUs / us − 1| over the probes (the same plan timed seconds apart, so the machine's
    /// doing, not the model's); 0 without probes timed after or in the runs.
    double speedMoved() const;

    /// A plan's speed: its devices' speeds (`speed` for a device without one) weighted by the
    /// plan's simulated busy time on each (`busyUs`, per device id); 1 without a speed.
    double speedOf(const std::map<std::string, double>& busyUs) const;
};

/// The most the machine's speed may move during a round's timing (SpeedCalibration::
/// speedMoved) for its figures to stand: the bound the predictions are held to. Beyond it the
/// round is timed again. A round whose baselines moved by more had a plan off by over 10 % in
/// 14 of 17 cases, the others in 35 of 147; a 5 % bound retook most rounds without holding on
/// a noisy hour (README, where it explains `speed_moved`).
constexpr double kSteadyTolerance = 0.10;

/// How much longer than predicted the plans over several devices that no earlier round ran
/// measured, in the rounds after the first: a search picks the plans its costs favour, their
/// errors among them, so a plan it finds anew is predicted short (the optimiser's curse: a
/// median of −4.1 % over 243 such front plans of the bench's later rounds, −3.9 % over 147 heft
/// and greedy plans, the plans seen before within 1.4 %).
/// Such a plan's prediction is multiplied by `factor`.
struct NewPlanBias {
    double factor = 1.0; ///< 1 without earlier plans to learn it from
    int plans = 0;       ///< the earlier new plans it was learned from
};

/// Earlier new plans worth as much as the prior of no bias (newPlanBiasOf). Replayed over the
/// bench's stored rounds, a prior of 1, 3, 6 or 10 plans held alike (README).
constexpr double kNewPlanPrior = 3.0;

/// The bias learned from `ratios`, each an earlier new plan's measured median over its
/// prediction without the factor (one that is not a positive number is left out):
/// exp(median of the logs · n / (n + kNewPlanPrior)), drawn toward 1 while there are few, then
/// clamped to [0.9, 1.2] against a round gone wrong. The callers take rounds after the first
/// only: the first predicts from the library's isolated samples, before anything was learned
/// inside plans, and its errors (a median 11.5 % on plans over several devices) say nothing of
/// how the learned costs carry over.
NewPlanBias newPlanBiasOf(const std::vector<double>& ratios);

/// The device every node of a plan runs on, or empty for a plan over several.
std::string onlyDeviceOf(const PlanToValidate& plan);

/// Sets `now`'s speeds (speed, deviceSpeed, compared) from its probes that the latest round timed
/// (`latestUs`: its measured medians by genome): each ratio probe / median, the probe's time the
/// geometric mean of its rehearsals before and after the runs (before alone where it has no
/// after), a probe on one device giving that device's speed, their median the speed of the
/// others.
void compareProbes(SpeedCalibration& now,
                   const std::map<std::vector<std::uint8_t>, double>& latestUs);

} // namespace paretune
