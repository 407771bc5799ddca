// SPDX-License-Identifier: GPL-3.0-or-later
// A plan simulated again over the costs its search used (plan_prediction.h).
#include "plan_prediction.h"

#include "common/input_error.h"
#include "cost/device_catalog.h"
#include "cost/measured_costs.h"
#include "device/device.h"
#include "plan/memory_plan.h"
#include "plan/simulator.h"
#include "predict/device_resources.h"
#include "search/baselines.h"
#include "search/pareto_search.h"
#include "store/sample_library.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace paretune::detail {

/// The plan simulated again over the cost table the search used, with the search's priority.
Prediction simulateAgain(const Graph& g, const PlanToValidate& plan,
                         const std::vector<std::string>& planDevices, const DeviceCatalog& catalog,
                         const DeviceInventory& inventory, SampleLibrary& library,
                         const ValidationOptions& options, const Graph* model) {
    const std::vector<std::string>& tableIds =
        plan.costDevices.empty() ? planDevices : plan.costDevices;
    CostTableOptions tableOptions;
    tableOptions.fusion = plan.fusion;
    CostTable table = buildCostTable(g, catalog, tableIds, tableOptions);
    if (options.fillCosts) {
        options.fillCosts(table, g, catalog, model);
    } else {
        const auto fingerprints = realDeviceFingerprints(table, inventory);
        applyMeasuredSamples(table, g, library, fingerprints);
        fillFusionCells(table, g, [&](CostTable& fusedTable, const Graph& fusedGraph) {
            applyMeasuredSamples(fusedTable, fusedGraph, library, fingerprints);
        });
        // As costsFromLibrary: the model's run against the model's own cells, whichever graph
        // the plan runs.
        if (model == nullptr) {
            applyModelRunScales(table, g, library, fingerprints);
        } else {
            scaleByModelRuns(table, g, modelRunScalesOf(*model, table, library, fingerprints));
        }
    }
    if (!options.fillCosts) {
        // As the search did (runSearch; it reported what it applied). A fillCosts does it all.
        applyDeviceResources(table, inventory.devices, &library);
        applyMeasuredLinks(table, inventory.devices, &library);
    }
    Simulator sim(g, table);
    if (SearchOptions{}.upwardRankPriority) {
        sim.setPriority(upwardRankOrder(sim));
    }
    Plan p;
    p.device.assign(g.nodes.size(), -1);
    for (std::size_t n = 0; n < g.nodes.size(); ++n) {
        if (!plan.assignment[n].empty()) {
            p.device[n] = table.findDevice(plan.assignment[n]);
            if (p.device[n] < 0) {
                throw InputError(plan.label + ": device " + plan.assignment[n] +
                                 " is not among the plans' devices");
            }
        }
    }
    const Plan full = sim.planOf(sim.genomeOf(p));
    const SimulationResult result = sim.simulate(full, true);
    const MemoryPlan memory = buildMemoryPlan(g, table, full, result);
    Prediction prediction;
    prediction.plannedPeakBytes = static_cast<double>(memory.plannedPeakBytes());
    prediction.nodes.resize(g.nodes.size());
    prediction.order = full.order;
    prediction.objectives = result.objectives;
    for (const std::string& id : planDevices) {
        const std::int32_t d = table.findDevice(id);
        if (d >= 0 && static_cast<std::size_t>(d) < result.peakBytes.size()) {
            prediction.devicePeakBytes[id] = result.peakBytes[static_cast<std::size_t>(d)];
            const DeviceMemoryPlan& m = memory.devices[static_cast<std::size_t>(d)];
            prediction.devicePlannedBytes[id] = static_cast<double>(m.plannedBytes());
            prediction.deviceArenaBytes[id] = static_cast<double>(m.arenaBytes);
        }
    }
    std::vector<const CostCell*> groupCell(g.nodes.size(), nullptr);
    for (const std::int32_t k : result.fusedGroups) {
        const FusionOption& option = table.fusionOptions()[static_cast<std::size_t>(k)];
        prediction.fusedGroups.push_back(option.group.members);
        groupCell[static_cast<std::size_t>(option.group.tail())] =
            &option.cells[static_cast<std::size_t>(
                full.device[static_cast<std::size_t>(option.group.tail())])];
    }
    for (std::size_t n = 0; n < g.nodes.size(); ++n) {
        if (g.nodes[n].kind != NodeKind::Compute || full.device[n] < 0) {
            continue;
        }
        const CostCell& cell = groupCell[n] != nullptr
                                   ? *groupCell[n]
                                   : table.cell(static_cast<NodeId>(n), full.device[n]);
        NodePrediction& np = prediction.nodes[n];
        np.source = std::string(costSourceName(cell.source));
        if (cell.supported()) {
            np.latencyUs = cell.latencyUs;
        }
        np.startUs = result.startUs[n];
        np.finishUs = result.finishUs[n];
    }
    return prediction;
}

NodePrediction fusedNodePrediction(const Prediction& prediction,
                                   const std::vector<NodeId>& members) {
    if (std::find(prediction.fusedGroups.begin(), prediction.fusedGroups.end(), members) !=
        prediction.fusedGroups.end()) {
        return prediction.nodes[static_cast<std::size_t>(members.back())];
    }
    constexpr std::array<std::string_view, 4> kLeastCertainFirst = {"none", "modelled", "predicted",
                                                                    "measured"};
    const auto rank = [&](const std::string& source) {
        return std::find(kLeastCertainFirst.begin(), kLeastCertainFirst.end(), source) -
               kLeastCertainFirst.begin();
    };
    NodePrediction sum = prediction.nodes[static_cast<std::size_t>(members.front())];
    for (std::size_t k = 1; k < members.size(); ++k) {
        const NodePrediction& m = prediction.nodes[static_cast<std::size_t>(members[k])];
        sum.latencyUs = sum.latencyUs && m.latencyUs
                            ? std::optional<double>(*sum.latencyUs + *m.latencyUs)
                            : std::nullopt;
        sum.finishUs = m.finishUs;
        if (rank(m.source) < rank(sum.source)) {
            sum.source = m.source;
        }
    }
    return sum;
}

} // namespace paretune::detail
