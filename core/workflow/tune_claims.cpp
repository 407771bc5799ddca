// SPDX-License-Identifier: GPL-3.0-or-later
#include "workflow/tune_claims.h"

#include "plan/memory_plan.h"
#include "plan/simulator.h"
#include "search/pareto_search.h"

#include <optional>
#include <string>

namespace paretune::detail {

namespace {

/// A solution's objectives with its memory as planned (memoryPlanOf: the largest device's arena
/// + weights) instead of the search's live-sum figure.
Objectives withPlannedMemory(const Simulator& sim, const Solution& s) {
    Objectives o = s.objectives;
    o.peakMemoryBytes = static_cast<double>(memoryPlanOf(sim, s.genome).plannedPeakBytes());
    return o;
}

} // namespace

std::vector<DominanceClaim> claimsOf(const Simulator& sim, const Solution& plan,
                                     const SearchResult& result,
                                     const std::vector<Objective>& objectives,
                                     const TuneRound& round) {
    const Objectives planned = withPlannedMemory(sim, plan);
    const auto measuredOf = [&](const std::vector<std::uint8_t>& genome) -> const TunedPlan* {
        for (const TunedPlan& p : round.plans) {
            if (p.genome == genome) {
                return &p;
            }
        }
        return nullptr;
    };
    const auto check = [](const TunedPlan* a, const TunedPlan* b, Objective o) -> std::string {
        if (!a || !b) {
            return "unmeasured";
        }
        std::optional<double> x, y;
        if (o == Objective::PeakMemory) {
            x = a->measuredMemoryMb;
            y = b->measuredMemoryMb;
        } else if (o == Objective::Accuracy) {
            x = a->measuredDeviationPct;
            y = b->measuredDeviationPct;
        } else if (o == Objective::Latency) {
            x = a->measured.medianUs;
            y = b->measured.medianUs;
        } else if (a->measuredEnergyMj && b->measuredEnergyMj) {
            x = *a->measuredEnergyMj;
            y = *b->measuredEnergyMj;
            if (o == Objective::AveragePower) {
                *x /= a->measured.medianUs;
                *y /= b->measured.medianUs;
            }
        }
        if (!x || !y) {
            return "unmeasured";
        }
        return *x < *y ? "confirmed" : "contradicted";
    };
    const TunedPlan* a = measuredOf(plan.genome);
    std::vector<DominanceClaim> claims;
    for (const Solution& b : result.baselines) {
        if (b.genome == plan.genome || !b.objectives.feasible()) {
            continue;
        }
        const TunedPlan* m = measuredOf(b.genome);
        DominanceClaim claim;
        claim.baseline = b.baseline;
        const Objectives baseline = withPlannedMemory(sim, b);
        claim.dominates = weaklyDominates(planned, baseline, objectives);
        bool contradicted = false;
        bool confirmed = false;
        for (const Objective o : objectives) {
            const double mine = objectiveValue(planned, o);
            const double theirs = objectiveValue(baseline, o);
            if (!(mine < theirs)) {
                continue;
            }
            // A margin the predictions cannot resolve (at most the final round's largest latency
            // error) is no claim: the two plans tie as far as anyone can tell beforehand. The
            // largest, not the median: the front's own plans are the ones the predictions flatter
            // most (the search picks what the costs underrate), and one plan's prediction off by
            // the median was enough for a claim the measurement then contradicted.
            if (o != Objective::PeakMemory && o != Objective::Accuracy &&
                (theirs - mine) / theirs <= round.maxAbsError) {
                claim.ties.emplace_back(objectiveName(o));
                continue;
            }
            const std::string status = check(a, m, o);
            contradicted = contradicted || status == "contradicted";
            confirmed = confirmed || status == "confirmed";
            claim.objectives.emplace_back(std::string(objectiveName(o)), status);
        }
        if (claim.objectives.empty() && claim.ties.empty()) {
            continue;
        }
        claim.status = contradicted               ? "contradicted"
                       : confirmed                ? "confirmed"
                       : claim.objectives.empty() ? "within error"
                                                  : "predicted";
        claims.push_back(std::move(claim));
    }
    return claims;
}

nlohmann::json claimsJson(const std::vector<DominanceClaim>& claims) {
    nlohmann::json list = nlohmann::json::array();
    for (const DominanceClaim& c : claims) {
        nlohmann::json objectives = nlohmann::json::object();
        for (const auto& [name, status] : c.objectives) {
            objectives[name] = status;
        }
        list.push_back({{"baseline", c.baseline},
                        {"dominates", c.dominates},
                        {"better", objectives},
                        {"within_error", c.ties},
                        {"status", c.status}});
    }
    return list;
}

} // namespace paretune::detail
