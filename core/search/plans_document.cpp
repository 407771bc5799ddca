// SPDX-License-Identifier: GPL-3.0-or-later
#include "search/plans_document.h"

#include "cost/cost_table.h"
#include "graph/graph.h"
#include "paretune/config.h"
#include "plan/memory_plan.h"
#include "plan/memory_plan_json.h"
#include "plan/simulator.h"

#include <cmath>
#include <string>

namespace paretune {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

} // namespace

std::vector<ListedPlan> listPlans(const SearchResult& result,
                                  const std::vector<Objective>& objectives, std::size_t maxPlans) {
    const std::vector<Solution> shown =
        maxPlans > 0 ? spreadSubset(result.front, objectives, maxPlans) : result.front;
    std::vector<ListedPlan> plans;
    for (const Solution& s : shown) {
        plans.push_back({s, true, -1});
    }
    for (const Solution& b : result.baselines) {
        bool listed = false;
        for (const Solution& s : shown) {
            listed = listed || s.baseline == b.baseline;
        }
        if (listed) {
            continue;
        }
        bool onFront = false; // on the front but left out of the subset
        for (const Solution& s : result.front) {
            onFront = onFront || s.baseline == b.baseline;
        }
        ListedPlan plan{b, onFront, -1};
        for (std::size_t i = 0; i < shown.size() && plan.dominatedBy < 0 && !onFront; ++i) {
            if (weaklyDominates(shown[i].objectives, b.objectives, objectives)) {
                plan.dominatedBy = static_cast<std::int32_t>(i);
            }
        }
        plans.push_back(std::move(plan));
    }
    return plans;
}

namespace {

/// Where a plan's deviation_pct comes from: fp32 is the reference (0 by definition); a lowered
/// node's figure is the sensitivity table's (measured, CostCell::deviationPct > 0) or missing
/// (0: nothing measured, a modelled cell says nothing about accuracy).
std::string deviationSource(std::int32_t lowered, std::int32_t withFigure) {
    if (lowered == 0) {
        return "none: every node in fp32, the reference";
    }
    if (withFigure == lowered) {
        return "estimated from the sensitivity table";
    }
    if (withFigure == 0) {
        return "none: no measured sensitivity for the lowered nodes (counted as 0)";
    }
    return "estimated from the sensitivity table for " + std::to_string(withFigure) + " of " +
           std::to_string(lowered) +
           " lowered nodes; the others have no measured sensitivity "
           "(counted as 0)";
}

} // namespace

nlohmann::json plansDocument(const Simulator& sim, const SearchOptions& options,
                             const SearchResult& result, const std::vector<ListedPlan>& plans,
                             const PlansDocumentSource& source) {
    const Graph& g = sim.graph();
    const CostTable& table = sim.costs();
    nlohmann::json entries = nlohmann::json::array();
    // The memory plans: each listed plan simulated once more, with its transfers, on a simulator
    // of its own (`sim` is const and keeps its state).
    Simulator again(g, table);
    again.setPriority(sim.priority());
    for (std::size_t id = 0; id < plans.size(); ++id) {
        const Solution& s = plans[id].solution;
        const Plan plan = sim.planOf(s.genome);
        // The arena of each device, planned once per listed plan (not during the search).
        const MemoryPlan memory = buildMemoryPlan(g, table, plan, again.simulate(plan, true));
        nlohmann::json assignment = nlohmann::json::object();
        nlohmann::json variants = nlohmann::json::object();
        int sources[4] = {0, 0, 0, 0};
        std::int32_t lowered = 0;
        std::int32_t withFigure = 0;
        for (std::size_t n = 0; n < g.nodes.size(); ++n) {
            if (g.nodes[n].kind == NodeKind::Constant || plan.device[n] < 0) {
                continue;
            }
            assignment[g.nodes[n].name] = table.device(plan.device[n]).id;
            if (g.nodes[n].kind == NodeKind::Compute) {
                const std::int32_t v = plan.variant.empty() ? 0 : plan.variant[n];
                const CostCell& cell = table.cell(static_cast<NodeId>(n), plan.device[n], v);
                ++sources[static_cast<int>(cell.source)];
                if (v != 0) {
                    variants[g.nodes[n].name] = std::string(variantName(table.variant(v)));
                    ++lowered;
                    withFigure += cell.deviationPct > 0.0 ? 1 : 0;
                }
            }
        }
        nlohmann::json groups = nlohmann::json::array();
        for (const std::int32_t k : sim.takenGroups(s.genome)) {
            const FusionOption& option = table.fusionOptions()[static_cast<std::size_t>(k)];
            nlohmann::json nodes = nlohmann::json::array();
            for (const NodeId m : option.group.members) {
                nodes.push_back(g.nodes[static_cast<std::size_t>(m)].name);
            }
            const std::int32_t d = plan.device[static_cast<std::size_t>(option.group.tail())];
            const CostCell& cell = option.cells[static_cast<std::size_t>(d)];
            groups.push_back({{"pattern", option.group.pattern},
                              {"nodes", nodes},
                              {"device", table.device(d).id},
                              {"latency_us", cell.latencyUs},
                              {"source", std::string(costSourceName(cell.source))}});
        }
        entries.push_back(
            {{"id", id},
             {"assignment", assignment},
             {"fusion_groups", groups},
             {"variants", variants},
             {"deviation_pct", s.objectives.deviationPct},
             {"deviation_source", deviationSource(lowered, withFigure)},
             {"latency_us", s.objectives.latencyUs},
             {"energy_mj", s.objectives.energyMj},
             {"average_power_w", s.objectives.averagePowerW},
             {"peak_memory_mb", static_cast<double>(memory.plannedPeakBytes()) / kMiB},
             {"simulated_peak_memory_mb", s.objectives.peakMemoryBytes / kMiB},
             {"memory", nlohmann::json(memoryFiguresJson(memory, table))},
             {"feasible", s.objectives.feasible()},
             {"baseline",
              s.baseline.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.baseline)},
             {"on_front", plans[id].onFront},
             {"sources",
              {{"measured", sources[static_cast<int>(CostSource::Measured)]},
               {"predicted", sources[static_cast<int>(CostSource::Predicted)]},
               {"modelled", sources[static_cast<int>(CostSource::Modelled)]}}}});
    }
    nlohmann::json devices = nlohmann::json::array();
    for (const CostDevice& d : table.devices()) {
        devices.push_back(d.id);
    }
    nlohmann::json objectives = nlohmann::json::array();
    for (const Objective o : options.objectives) {
        objectives.push_back(std::string(objectiveName(o)));
    }
    nlohmann::json offered = nlohmann::json::array();
    for (std::int32_t v = 1; v < table.variantCount(); ++v) {
        offered.push_back(std::string(variantName(table.variant(v))));
    }
    return {{"tool", "paretune"},
            {"tool_version", PARETUNE_VERSION},
            {"model", g.sourcePath},
            {"model_fingerprint", g.fingerprint},
            {"catalog", source.catalog},
            {"devices", devices},
            {"host", source.host},
            {"objectives", objectives},
            {"memory_objective",
             "peak_memory_mb is the planned memory: the largest device's arena (greedy by size, "
             "planned once per listed plan after the search) plus its weights; the search ranked "
             "plans by simulated_peak_memory_mb, the live-sum figure of the simulator, and "
             "on_front and dominated_by come from it"},
            {"population", options.population},
            {"generations", result.generationsRun},
            {"seed", options.seed},
            {"coarse_to_fine", options.coarseToFine},
            {"evaluations", result.evaluations},
            {"front_size", result.front.size()},
            {"hypervolume_reference", result.reference},
            {"fusion", options.fusion},
            {"fusion_groups_offered", table.fusionOptions().size()},
            {"variants", offered},
            {"max_accuracy_loss_pct", std::isfinite(options.maxDeviationPct)
                                          ? nlohmann::json(options.maxDeviationPct)
                                          : nlohmann::json(nullptr)},
            {"accuracy_objective",
             "deviation_pct (objective \"accuracy\") is the estimated relative L2 deviation of "
             "the outputs from the fp32 model, %: over the plan's lowered nodes, each one's "
             "measured deviation when run alone in its precision (the sensitivity table), added "
             "as variances (the root of the sum of squares); validation measures the real one"},
            {"plans", entries},
            {"library", source.library},
            {"hypervolume_by_generation", result.hypervolumeByGeneration}};
}

PlansFile frontPlansFile(const Simulator& sim, const SearchOptions& options,
                         const SearchResult& result, const PlansDocumentSource& source,
                         const std::string& origin) {
    return parsePlansFile(
        plansDocument(sim, options, result, listPlans(result, options.objectives, 0), source),
        origin);
}

} // namespace paretune
