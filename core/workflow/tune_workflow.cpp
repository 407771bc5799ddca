// SPDX-License-Identifier: GPL-3.0-or-later
#include "workflow/tune_workflow.h"

#include "workflow/tune_claims.h"
#include "workflow/tune_request.h"
#include "workflow/tune_round_record.h"

#include "common/input_error.h"
#include "common/progress.h"
#include "cost/device_catalog.h"
#include "device/device.h"
#include "graph/graph.h"
#include "plan/memory_plan.h"
#include "plan/simulator.h"
#include "profile/measurement.h"
#include "profile/plan_validation.h"
#include "search/plans_document.h"
#include "store/sample_library.h"

#include <algorithm>
#include <cmath>
#include <new>

namespace paretune {

using detail::calibrationJson;
using detail::checkRequest;
using detail::claimsJson;
using detail::claimsOf;
using detail::genomeText;
using detail::measuredJson;
using detail::newPlanBiasJson;
using detail::optionalNumber;
using detail::roundFrom;
using detail::roundJson;
using detail::tuneKeyOf;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;
/// Timed runs of each plan in the rehearsals of a round's runs, at least (half the round's own
/// runs where that is more). A choice between time and steadiness, not a measured optimum: with
/// 5, a MobileNet-V2 baseline timed alone (9 ms a run) could sit 4–6 % from the round's runs.
constexpr int kCalibrationRuns = 10;
/// Retakes of a round's timing at most when the machine's speed moved during it (beyond
/// kSteadyTolerance); the steadiest timing is kept.
constexpr int kMaxRetakes = 2;

/// The plans a round validates: `count` spread along the front, then the best baseline of each
/// objective, and in the first round (`everyDevice`) every device's all-on-one baseline, without
/// repeating a plan. The first round measures each device in its own company so: what the later
/// rounds learn of a device otherwise came only from plans that mix it with others, and plans
/// that put a node of `cpu` between nodes of `cpu:0` ran it 1.5-2x slower than all on `cpu`
/// (MobileNet-V2); scaled by that, all on `cpu` was predicted at 24.7 ms and never validated,
/// while it measured 13.3 ms.
std::vector<TunedPlan> plansToValidate(const SearchResult& result,
                                       const std::vector<Objective>& objectives, std::size_t count,
                                       bool everyDevice) {
    std::vector<TunedPlan> chosen;
    const auto add = [&](const Solution& s, std::string label) {
        for (const TunedPlan& p : chosen) {
            if (p.genome == s.genome) {
                return;
            }
        }
        TunedPlan plan;
        plan.label = std::move(label);
        plan.baseline = s.baseline;
        plan.genome = s.genome;
        plan.simulated = s.objectives;
        chosen.push_back(std::move(plan));
    };
    for (const Solution& s : spreadSubset(result.front, objectives, count)) {
        const auto at = std::find_if(result.front.begin(), result.front.end(),
                                     [&](const Solution& f) { return f.genome == s.genome; });
        add(s,
            s.baseline.empty() ? "front " + std::to_string(at - result.front.begin()) : s.baseline);
    }
    for (const Objective o : objectives) {
        const Solution* best = nullptr;
        for (const Solution& b : result.baselines) {
            if (b.objectives.feasible() &&
                (!best || objectiveValue(b.objectives, o) < objectiveValue(best->objectives, o))) {
                best = &b;
            }
        }
        if (best) {
            add(*best, best->baseline);
        }
    }
    if (everyDevice) {
        for (const Solution& b : result.baselines) {
            if (b.objectives.feasible() && b.baseline.rfind("all:", 0) == 0) {
                add(b, b.baseline);
            }
        }
    }
    return chosen;
}

/// A plan's simulated busy time per device id.
std::map<std::string, double> busyOf(Simulator& sim, const TunedPlan& plan) {
    const SimulationResult result = sim.simulate(sim.planOf(plan.genome));
    std::map<std::string, double> busy;
    for (std::size_t d = 0; d < result.busyUs.size(); ++d) {
        busy[sim.costs().device(static_cast<std::int32_t>(d)).id] += result.busyUs[d];
    }
    return busy;
}

PlanToValidate validationOf(const Simulator& sim, const TunedPlan& plan) {
    const Graph& g = sim.graph();
    const CostTable& table = sim.costs();
    const Plan p = sim.planOf(plan.genome);
    PlanToValidate v;
    v.label = plan.label;
    v.assignment.resize(g.nodes.size());
    for (std::size_t n = 0; n < g.nodes.size(); ++n) {
        if (g.nodes[n].kind != NodeKind::Constant && p.device[n] >= 0) {
            v.assignment[n] = table.device(p.device[n]).id;
        }
    }
    for (const CostDevice& d : table.devices()) {
        v.costDevices.push_back(d.id);
    }
    // It runs as it was searched: each fusion group it takes as one fused node (without them
    // the plan ran unfused while its prediction was fused, and no group's in-plan time was
    // ever observed to learn from).
    for (const std::int32_t k : sim.takenGroups(plan.genome)) {
        v.fusionGroups.push_back(table.fusionOptions()[static_cast<std::size_t>(k)].group);
    }
    v.fusion = !table.fusionOptions().empty();
    // Its nodes in other precisions run lowered; the estimate of their deviation is checked.
    if (std::any_of(p.variant.begin(), p.variant.end(), [](std::int32_t x) { return x > 0; })) {
        v.variants.assign(g.nodes.size(), Precision::Fp32);
        for (std::size_t n = 0; n < g.nodes.size() && n < p.variant.size(); ++n) {
            if (p.variant[n] > 0) {
                v.variants[n] = table.variant(p.variant[n]);
            }
        }
        v.plannedDeviationPct = plan.simulated.deviationPct;
    }
    v.plannedLatencyUs = plan.simulated.latencyUs;
    v.plannedEnergyMj = plan.simulated.energyMj;
    // The memory plan's figure (arena + weights), as the plans file gives it.
    v.plannedMemoryMb =
        static_cast<double>(memoryPlanOf(sim, plan.genome).plannedPeakBytes()) / kMiB;
    return v;
}

/// Every round's observations at the latest round's measured speed (observationsAtLatestSpeed);
/// `scales` receives each round's factor.
std::vector<PlanObservation> observationsOf(const std::vector<TuneRound>& rounds,
                                            std::vector<double>* scales = nullptr) {
    std::vector<std::vector<PlanObservation>> observed;
    std::vector<std::optional<double>> speedChanges;
    for (const TuneRound& r : rounds) {
        observed.push_back(r.observations);
        speedChanges.push_back(r.speedChange);
    }
    return observationsAtLatestSpeed(observed, speedChanges, scales);
}

/// A library without samples of the model on a device cannot be tuned there.
void requireSamples(const SearchRun& search, const std::string& dbPath) {
    if (!search.library) {
        return;
    }
    std::string missing;
    for (const MeasuredDevice& m : search.library->devices) {
        if (m.measured == 0) {
            missing += (missing.empty() ? "" : ", ") + m.id;
        }
    }
    if (!missing.empty()) {
        throw InputError::forSetting("db", dbPath + " holds no samples of this model on " +
                                               missing + ": profile the model there first");
    }
}

/// The plans document of the last round's search, each plan with its round, measurement and
/// claims.
nlohmann::json tuneDocument(const TuneRun& run, const TuneRequest& request) {
    const SearchRun& search = run.search;
    const SearchResult& result = search.result;
    const std::vector<Objective>& objectives = request.options.objectives;
    const std::vector<ListedPlan> rows = listPlans(result, objectives, request.maxPlans);
    nlohmann::json doc =
        plansDocument(*search.simulator, request.options, result, rows, search.source);
    const TuneRound& last = run.rounds.back();
    for (std::size_t id = 0; id < rows.size(); ++id) {
        nlohmann::json& entry = doc["plans"][id];
        const Solution& s = rows[id].solution;
        entry["round"] = last.index;
        entry["measured"] = nullptr;
        for (auto r = run.rounds.rbegin(); r != run.rounds.rend(); ++r) {
            const auto m = std::find_if(r->plans.begin(), r->plans.end(),
                                        [&](const TunedPlan& p) { return p.genome == s.genome; });
            if (m != r->plans.end()) {
                entry["measured"] = measuredJson(*m);
                entry["measured"]["round"] = r->index;
                entry["measured"]["predicted_us"] = m->predictedUs;
                entry["measured"]["simulated_us"] = m->simulated.latencyUs;
                entry["measured"]["error"] = m->error;
                break;
            }
        }
        entry["claims"] = rows[id].onFront && s.baseline.empty()
                              ? claimsJson(claimsOf(*search.simulator, s, result, objectives, last))
                              : nlohmann::json::array();
    }
    nlohmann::json rounds = nlohmann::json::array();
    for (const TuneRound& r : run.rounds) {
        nlohmann::json plans = nlohmann::json::array();
        for (const TunedPlan& p : r.plans) {
            plans.push_back(
                {{"label", p.label},
                 {"genome", genomeText(p.genome)},
                 {"predicted_us", p.predictedUs},
                 {"simulated_us", p.simulated.latencyUs},
                 {"new_plan_factor", p.newPlanFactor},
                 {"measured", measuredJson(p)},
                 {"error", p.error},
                 {"deviation_pct",
                  {{"predicted", p.simulated.deviationPct},
                   {"measured", p.measuredDeviationPct ? nlohmann::json(*p.measuredDeviationPct)
                                                       : nlohmann::json(nullptr)}}},
                 {"seen_before", p.seenBefore}});
        }
        rounds.push_back({{"round", r.index},
                          {"resumed", r.resumed},
                          {"max_abs_error", r.maxAbsError},
                          {"speed_change", optionalNumber(r.speedChange)},
                          {"max_abs_error_at_speed", optionalNumber(r.maxAbsErrorAtSpeed)},
                          {"calibration", calibrationJson(r.calibration)},
                          {"max_abs_error_new", r.maxAbsErrorNew ? nlohmann::json(*r.maxAbsErrorNew)
                                                                 : nlohmann::json(nullptr)},
                          {"median_abs_error", r.medianAbsError},
                          {"new_plan_bias", newPlanBiasJson(r.newPlanBias)},
                          {"costs", r.fit.toJson()},
                          {"validated", plans}});
    }
    doc["tune"] = {{"key", run.tuneKey},
                   {"rounds", rounds},
                   {"converged", run.converged},
                   {"target_error", request.targetError},
                   {"repeats", request.repeats}};
    doc["tune"]["window_s"] = request.windowS;
    return doc;
}

} // namespace

bool spansDevices(const PlanObservation& plan) {
    return std::any_of(plan.nodes.begin(), plan.nodes.end(), [&plan](const NodeObservation& n) {
        return n.device != plan.nodes.front().device;
    });
}

NewPlanBias learnedNewPlanBias(const std::vector<TuneRound>& rounds) {
    std::vector<double> ratios;
    for (const TuneRound& r : rounds) {
        for (std::size_t i = 0; r.index > 0 && i < r.plans.size(); ++i) {
            const TunedPlan& p = r.plans[i];
            if (!p.seenBefore && spansDevices(r.observations[i])) {
                ratios.push_back(p.measured.medianUs * p.newPlanFactor / p.predictedUs);
            }
        }
    }
    return newPlanBiasOf(ratios);
}

TuneRun runTune(const Graph& graph, const DeviceCatalog& catalog, const TuneRequest& request,
                Progress* progress) {
    const DeviceInventory inventory = discoverDevices(&catalog);
    checkRequest(catalog, request, inventory);
    SampleLibrary library =
        SampleLibrary::open(request.dbPath, SampleLibrary::OpenMode::ExistingOnly);
    TuneRun run;
    run.tuneKey = tuneKeyOf(graph, catalog, request, inventory);
    for (const TuneRoundRecord& record : library.tuneRounds(run.tuneKey)) {
        try {
            run.rounds.push_back(roundFrom(record));
        } catch (const std::bad_alloc&) {
            throw;
        } catch (const std::exception& e) { // nlohmann's, or a value out of range
            // Written by Paretune, but the file is the user's: an edited or damaged row is bad
            // input, named, and left as it is.
            throw InputError(request.dbPath + ": tune round " + std::to_string(record.round) +
                             " (row " + std::to_string(record.id) +
                             ") is not a record this version can read (" + e.what() +
                             "); it was left as it is: tune with another --db, or with other "
                             "settings");
        }
    }
    if (!run.rounds.empty()) {
        run.diagnostics.push_back({Diagnostic::Severity::Info, "resumed",
                                   "resumed after round " +
                                       std::to_string(run.rounds.back().index) +
                                       " stored in the library"});
    }
    run.converged = !run.rounds.empty() && run.rounds.back().maxAbsError <= request.targetError;

    // Round r searches with the costs learned from rounds 0..r-1.
    const auto searchRound = [&](std::size_t learnedRounds, InContextFit* fit, Progress* p) {
        const std::vector<TuneRound> before(
            run.rounds.begin(), run.rounds.begin() + static_cast<std::ptrdiff_t>(learnedRounds));
        std::vector<double> speedScales;
        const std::vector<PlanObservation> observations = observationsOf(before, &speedScales);
        SearchRequest search;
        search.deviceIds = request.deviceIds;
        search.options = request.options;
        search.catalogOrigin = request.catalogOrigin;
        search.dbPath = request.dbPath;
        search.refineCosts = [observations, speedScales, fit](CostTable& table, const Graph& g) {
            InContextFit f = applyInContextCosts(table, g, observations);
            if (fit) {
                f.roundSpeedScales = speedScales;
                *fit = f;
            }
        };
        return paretune::runSearch(graph, catalog, search, p);
    };

    bool searched = false;
    const double share = 1.0 / request.rounds;
    for (int r = static_cast<int>(run.rounds.size()); r < request.rounds && !run.converged; ++r) {
        const double offset = share * r;
        TuneRound round;
        round.index = r;
        StageProgress searchProgress(progress, offset, share * 0.2,
                                     "round " + std::to_string(r + 1) + ": search");
        SearchRun search =
            searchRound(run.rounds.size(), &round.fit, progress ? &searchProgress : nullptr);
        if (search.result.cancelled) {
            run.cancelled = true;
            break;
        }
        requireSamples(search, request.dbPath);
        round.plans = plansToValidate(search.result, request.options.objectives,
                                      static_cast<std::size_t>(request.validate), r == 0);
        std::vector<PlanToValidate> toValidate;
        for (const TunedPlan& p : round.plans) {
            toValidate.push_back(validationOf(*search.simulator, p));
        }
        const std::vector<PlanObservation> learned = observationsOf(run.rounds);
        // A round's runs last at least the window: the VM's speed wanders over seconds, and a
        // median over a short window (MobileNet-V2's five plans 20 times each: 1 s) carries
        // more of it, into the errors measured and into the costs learned for the next round.
        double cycleUs = 0.0;
        for (const TunedPlan& p : round.plans) {
            cycleUs += p.simulated.latencyUs;
        }
        const int runs = runsOfRound(request, cycleUs);
        ValidationOptions options;
        options.repeats = runs;
        options.warmup = request.warmup;
        options.catalog = &catalog;
        options.fillCosts = [&library, &learned](CostTable& table, const Graph& g,
                                                 const DeviceCatalog& c, const Graph* model) {
            searchCostsFromLibrary(table, g, c, library, model);
            applyInContextCosts(table, g, learned);
        };
        // The round's plans without variants timed just before its runs and just after, fewer
        // runs, interleaved as in them: its baselines' times before and after, against the
        // latest round's runs of them, give the speed its predictions are put at; their times in
        // the runs and after, against before, how steady the machine was.
        std::vector<PlanToValidate> rehearsal;
        std::vector<std::size_t> rehearsed; // index into round.plans
        for (std::size_t i = 0; i < round.plans.size(); ++i) {
            if (!toValidate[i].hasVariants()) {
                rehearsal.push_back(toValidate[i]);
                rehearsed.push_back(i);
            }
        }
        // Times `plans` (`repeats` runs each, interleaved) as a stage of the round's progress,
        // stored in the library where `store`; nothing when cancelled.
        const auto timed = [&](const std::vector<PlanToValidate>& plans, int repeats, double from,
                               double width, const std::string& stage,
                               bool store) -> std::optional<std::vector<PlanValidation>> {
            StageProgress stageProgress(progress, offset + share * from, share * width,
                                        "round " + std::to_string(r + 1) + ": " + stage);
            ValidationOptions o = options;
            o.repeats = repeats;
            o.progress = progress ? &stageProgress : nullptr;
            o.store = store;
            std::vector<PlanValidation> measured = validatePlans(graph, plans, library, o);
            if (!measured.empty() && measured.front().cancelled) {
                return std::nullopt;
            }
            return measured;
        };
        const int rehearsalRuns = std::max(kCalibrationRuns, runs / 2);
        std::vector<PlanValidation> reports;
        for (int attempt = 1; attempt <= 1 + kMaxRetakes && !run.cancelled; ++attempt) {
            const std::string retake =
                attempt > 1 ? " (retake " + std::to_string(attempt - 1) + ")" : "";
            std::optional<std::vector<PlanValidation>> before, measured, after;
            if (!rehearsal.empty() && !(before = timed(rehearsal, rehearsalRuns, 0.2, 0.05,
                                                       "rehearsal" + retake, false))) {
                run.cancelled = true;
                break;
            }
            if (!(measured = timed(toValidate, runs, 0.25, 0.7, "validate" + retake, true))) {
                run.cancelled = true;
                break;
            }
            if (rehearsal.empty()) {
                reports = std::move(*measured);
                break;
            }
            if (!(after = timed(rehearsal, rehearsalRuns, 0.95, 0.05, "rehearsal after" + retake,
                                false))) {
                run.cancelled = true;
                break;
            }
            SpeedCalibration calibration;
            calibration.runs = rehearsalRuns;
            for (std::size_t k = 0; k < rehearsal.size(); ++k) {
                const TunedPlan& p = round.plans[rehearsed[k]];
                if (!p.baseline.empty()) {
                    calibration.probes.push_back({p.label, p.genome, onlyDeviceOf(rehearsal[k]),
                                                  *(*before)[k].latencyUs.measured,
                                                  (*after)[k].latencyUs.measured,
                                                  (*measured)[rehearsed[k]].latencyUs.measured});
                }
            }
            // A timing during which the machine's speed moved by more than the predictions are
            // held to is taken again; the steadiest is kept.
            if (reports.empty() || calibration.speedMoved() < round.calibration->speedMoved()) {
                round.calibration = std::move(calibration);
                reports = std::move(*measured);
            }
            round.calibration->attempts = attempt;
            if (round.calibration->speedMoved() <= kSteadyTolerance) {
                break;
            }
        }
        if (run.cancelled) {
            break;
        }
        if (round.calibration && !run.rounds.empty()) { // the first has nothing to compare with
            std::map<std::vector<std::uint8_t>, double> latestUs;
            for (const TunedPlan& p : run.rounds.back().plans) {
                latestUs[p.genome] = p.measured.medianUs;
            }
            compareProbes(*round.calibration, latestUs);
        }
        round.newPlanBias = learnedNewPlanBias(run.rounds);
        std::vector<double> errors;
        for (std::size_t i = 0; i < reports.size(); ++i) {
            const PlanValidation& v = reports[i];
            TunedPlan& plan = round.plans[i];
            plan.measured = {*v.latencyUs.measured, v.latencyP10Us, v.latencyP90Us, v.repeats};
            plan.measuredEnergyMj = v.energyMj.measured;
            plan.measuredMemoryMb = v.peakMemoryMb.measured;
            plan.measuredDeviationPct = v.accuracy ? std::optional<double>(v.accuracy->deviationPct)
                                        : toValidate[i].hasVariants() ? std::nullopt
                                                                      : std::optional<double>(0.0);
            for (const TuneRound& earlier : run.rounds) {
                for (const TunedPlan& e : earlier.plans) {
                    plan.seenBefore = plan.seenBefore || e.genome == plan.genome;
                }
            }
            PlanObservation observation;
            for (const ValidatedNode& n : v.nodes) {
                // A fused group is observed as "FIRST+fused" (its first member's name): its time
                // is its fusion option's cost, not a member's. A node in another precision as
                // "NAME@bf16": its time is that variant's cost.
                const std::size_t named = static_cast<std::size_t>(
                    n.fusedMembers.empty() ? n.node : n.fusedMembers.front());
                const std::string suffix = !n.fusedMembers.empty() ? "+fused"
                                           : n.variant != Precision::Fp32
                                               ? "@" + std::string(variantName(n.variant))
                                               : "";
                // A lowered node's cell includes the conversions its neighbours in its
                // precision spared it: what it would have taken with them.
                const std::int32_t ci = search.simulator->computeIndex(n.node);
                const double spared = n.variant != Precision::Fp32 && ci >= 0
                                          ? search.simulator->savedConversionUs(plan.genome, ci)
                                          : 0.0;
                observation.nodes.push_back({graph.nodes[named].name + suffix,
                                             v.devices[static_cast<std::size_t>(n.device)].id,
                                             n.measuredMeanUs + spared, n.measuredBeginUs,
                                             n.measuredEndUs});
            }
            if (v.accuracy) {
                observation.measuredDeviationPct = v.accuracy->deviationPct;
                observation.estimatedDeviationPct = v.accuracy->estimatedPct;
            }
            plan.predictedUs = plan.simulated.latencyUs;
            if (round.calibration && round.calibration->speed) {
                plan.predictedUs *= round.calibration->speedOf(busyOf(*search.simulator, plan));
            }
            if (!plan.seenBefore && spansDevices(observation)) {
                plan.newPlanFactor = round.newPlanBias.factor;
                plan.predictedUs *= plan.newPlanFactor;
            }
            plan.error = (plan.predictedUs - plan.measured.medianUs) / plan.measured.medianUs;
            errors.push_back(plan.error);
            if (!plan.seenBefore) {
                round.maxAbsErrorNew =
                    std::max(round.maxAbsErrorNew.value_or(0.0), std::abs(plan.error));
            }
            round.observations.push_back(std::move(observation));
        }
        std::vector<double> absolute;
        for (const double e : errors) {
            absolute.push_back(std::abs(e));
        }
        round.maxAbsError = *std::max_element(absolute.begin(), absolute.end());
        round.medianAbsError = medianOf(absolute);
        std::vector<double> ratios; // re-validated plans: now / the latest earlier measurement
        for (const TunedPlan& plan : round.plans) {
            for (auto earlier = run.rounds.rbegin(); earlier != run.rounds.rend(); ++earlier) {
                const auto same =
                    std::find_if(earlier->plans.begin(), earlier->plans.end(),
                                 [&](const TunedPlan& e) { return e.genome == plan.genome; });
                if (same != earlier->plans.end()) {
                    ratios.push_back(plan.measured.medianUs / same->measured.medianUs);
                    break;
                }
            }
        }
        if (!ratios.empty()) {
            round.speedChange = medianOf(ratios);
            round.maxAbsErrorAtSpeed = 0.0;
            for (const TunedPlan& plan : round.plans) {
                const double scaled = plan.simulated.latencyUs * *round.speedChange;
                round.maxAbsErrorAtSpeed =
                    std::max(*round.maxAbsErrorAtSpeed,
                             std::abs((scaled - plan.measured.medianUs) / plan.measured.medianUs));
            }
        }
        TuneRoundRecord record;
        record.tuneKey = run.tuneKey;
        record.round = r;
        record.modelFingerprint = graph.fingerprint;
        record.recordJson = roundJson(round).dump();
        round.storedRow = library.addTuneRound(record);
        run.converged = round.maxAbsError <= request.targetError;
        run.rounds.push_back(std::move(round));
        run.search = std::move(search);
        searched = true;
    }
    if (run.rounds.empty()) {
        return run; // cancelled in the first round: nothing to report
    }
    if (!searched) {
        // The last stored round's search again (deterministic): its front is the result.
        run.search = searchRound(run.rounds.size() - 1, nullptr, nullptr);
    }
    run.document = tuneDocument(run, request);
    return run;
}

} // namespace paretune
