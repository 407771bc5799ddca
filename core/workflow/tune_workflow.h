// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The tune loop, as `paretune tune` and the workbench's Tune job run it: search, validate plans
// spread along the front and the best baselines on the hardware, turn what was measured inside
// the plans into costs, search again — until prediction and measurement agree (DESIGN.md "The
// plan, second generation").
#include "common/diagnostic.h"
#include "search/pareto_search.h"
#include "workflow/in_context_costs.h"
#include "workflow/search_workflow.h"
#include "workflow/speed_calibration.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace paretune {

struct DeviceCatalog;
struct Graph;
struct Progress;

/// The longest window of timed runs a tune round may ask for (TuneRequest::windowS), seconds.
constexpr double kMaxTuneWindowS = 600.0;

struct TuneRequest {
    std::vector<std::string> deviceIds; ///< catalog ids of real devices of this machine
    SearchOptions options;              ///< of every round's search (the seed among them)
    std::string catalogOrigin;          ///< the catalog's path, for the plans document
    std::string dbPath;                 ///< the sample library (required): samples, rounds
    int rounds = 3;                     ///< at most this many rounds (R >= 1)
    int validate = 3;                   ///< front plans validated per round (K >= 1)
    int repeats = 20;                   ///< timed runs of each plan per round, at least
    /// The round's timed runs last at least this long, seconds: where the plans' simulated
    /// latencies sum to less than windowS / repeats, each runs more often (runsOfRound). 0: exactly
    /// `repeats`, as before the window (and the tune key of then: such tunes resume).
    double windowS = 3.0;
    int warmup = 2;
    double targetError = 0.05; ///< stop once every validated plan is within this
    /// Front plans listed in the plans document (0: all), as `search --max-plans`.
    std::size_t maxPlans = 50;
};

/// Latency of a plan as measured: median and spread over interleaved timed runs.
struct MeasuredLatency {
    double medianUs = 0.0;
    double p10Us = 0.0;
    double p90Us = 0.0;
    int runs = 0;
};

/// A plan validated in a round.
struct TunedPlan {
    std::string label;    ///< "front 2" (index into the round's front) or the baseline's name
    std::string baseline; ///< the baseline's name, empty for a front plan
    std::vector<std::uint8_t> genome;
    Objectives simulated; ///< as the round's search found it, at the latest round's speed
    /// The latency predicted without the plan's own runs: the simulated one at the machine's
    /// speed as calibrated around them (TuneRound::calibration; simulated where none), times
    /// newPlanFactor.
    double predictedUs = 0.0;
    /// A plan over several devices that no earlier round ran: the round's NewPlanBias factor;
    /// otherwise 1.
    double newPlanFactor = 1.0;
    MeasuredLatency measured;
    std::optional<double> measuredEnergyMj;
    /// The largest device's measured peak memory (PlanValidation::peakMemoryMb), MiB.
    std::optional<double> measuredMemoryMb;
    /// The output deviation from fp32 as measured (PlanValidation::accuracy), %; exactly 0 for
    /// a plan that runs every node in fp32 (it runs the model itself).
    std::optional<double> measuredDeviationPct;
    double error = 0.0; ///< (predictedUs − measured) / measured, latency
    /// Validated in an earlier round too: its error is not a test of how the learned costs
    /// carry over to plans not yet run.
    bool seenBefore = false;
};

struct TuneRound {
    int index = 0;
    bool resumed = false; ///< read back from the library, not run now
    std::vector<TunedPlan> plans;
    double maxAbsError = 0.0;    ///< over the validated plans, latency
    double medianAbsError = 0.0; ///< over the validated plans, latency
    /// Over the plans no earlier round validated: how the learned costs predict plans not run
    /// before (absent when every plan was seen before).
    std::optional<double> maxAbsErrorNew;
    /// How much slower this round measured the plans it re-validated than the latest earlier
    /// round that ran them (median ratio; absent when none was re-validated): the machine's own
    /// drift, which no cost model can predict.
    std::optional<double> speedChange;
    /// The largest latency error once the simulated latencies are scaled by speedChange
    /// (measured beside the plans, after the fact).
    std::optional<double> maxAbsErrorAtSpeed;
    /// The baselines timed in rehearsals just before the round's runs and just after, and the speed
    /// the predictions were put at (absent where the round validated no baseline).
    std::optional<SpeedCalibration> calibration;
    /// Learned from the earlier rounds' new plans over several devices, applied to this round's.
    NewPlanBias newPlanBias;
    InContextFit fit; ///< the costs this round's search used (from earlier rounds)
    std::vector<PlanObservation> observations; ///< the round's plans, node by node
    std::int64_t storedRow = 0;
};

/// What a front plan claims over a baseline — better in each objective where its simulated
/// value is lower; dominance when it is no worse in every searched objective — checked against
/// the measurement of the final round.
struct DominanceClaim {
    std::string baseline;
    bool dominates = false;
    /// Per claimed objective (its name): "confirmed" (both measured, the claim holds),
    /// "contradicted" (both measured, it does not) or "unmeasured" (either was not measured in
    /// the final round). Memory is the largest device's measured peak (PlanValidation).
    std::vector<std::pair<std::string, std::string>> objectives;
    /// Objectives where the plan is better by a margin no larger than the final round's median
    /// latency error: not claimed, the predictions cannot tell them apart.
    std::vector<std::string> ties;
    /// "contradicted" when a measured objective contradicts it, "confirmed" when latency or
    /// energy was claimed and every measured one confirms it, "within error" when only ties
    /// remain, else "predicted".
    std::string status;
};

struct TuneRun {
    std::vector<TuneRound> rounds; ///< resumed ones first
    bool converged = false;        ///< the last round's plans are within the target error
    bool cancelled = false;        ///< stopped through Progress during a round (not stored)
    std::string tuneKey;
    /// The last round's search: its front is the result; its plans were validated in that round.
    SearchRun search;
    /// The plans document (as `search --out`, plus per plan "round", "measured" and "claims").
    nlohmann::json document;
    Diagnostics diagnostics;
};

/// Timed runs of each plan in a round whose plans' simulated latencies sum to `cycleUs`: `repeats`,
/// or as many as make the interleaved runs last `windowS` seconds where that is more.
int runsOfRound(const TuneRequest& request, double cycleUs);

/// Whether a plan's measured nodes ran on more than one device.
bool spansDevices(const PlanObservation& plan);

/// The bias of new plans over several devices (NewPlanBias) as `rounds` measured it: of each
/// plan no earlier round had run (not seenBefore) whose nodes ran on several devices, in the
/// rounds after the first (index > 0), its measured median over its prediction without its
/// newPlanFactor.
NewPlanBias learnedNewPlanBias(const std::vector<TuneRound>& rounds);

/// Runs (or resumes) the tune loop. Each round: search with the costs learned so far, calibrate
/// the machine's speed (SpeedCalibration), validate (validatePlans, A/B-interleaved) `validate`
/// plans spread along the front plus the best baseline of each objective, store the round in the
/// library (one row, one transaction), learn (applyInContextCosts over every round's observations).
/// A rerun with the same model, devices, catalog and settings (the key; `rounds` is not part of it)
/// resumes after the last stored round. InputError for K or R < 1, a window outside 0–600 s, a
/// device that is not a real device of this machine (modelled ones are named, with how to tune on
/// measured ones), a catalog that does not mark a device measured, or a library without samples
/// of this model on a device.
TuneRun runTune(const Graph& graph, const DeviceCatalog& catalog, const TuneRequest& request,
                Progress* progress = nullptr);

} // namespace paretune
