// SPDX-License-Identifier: GPL-3.0-or-later
#include "planschedule.h"

#include "common/input_error.h"
#include "graph/onnx_importer.h"
#include "placementsearch.h"

#include <algorithm>
#include <string>

namespace paretune {

const Solution& frontPlan(const SearchOutcome& outcome, int index) {
    const auto& front = outcome.result.front;
    if (index < 0 || index >= static_cast<int>(front.size())) {
        throw InputError("plan " + std::to_string(index) + " is not on the front (it has " +
                         std::to_string(front.size()) + " plans)");
    }
    return front[static_cast<std::size_t>(index)];
}

PlanSchedule simulateFrontPlan(const SearchOutcome& outcome, int index) {
    const Solution& chosen = frontPlan(outcome, index);
    Simulator simulator(outcome.model->graph, outcome.costs);
    if (!outcome.priority.empty()) {
        simulator.setPriority(outcome.priority);
    }
    PlanSchedule schedule;
    schedule.index = index;
    schedule.plan = simulator.planOf(chosen.genome);
    schedule.simulation = simulator.simulate(schedule.plan, true);
    schedule.memory =
        buildMemoryPlan(outcome.model->graph, outcome.costs, schedule.plan, schedule.simulation);
    return schedule;
}

std::vector<std::int32_t> frontPlanDevices(const SearchOutcome& outcome, int index) {
    const Simulator simulator(outcome.model->graph, outcome.costs);
    return simulator.planOf(frontPlan(outcome, index).genome).device;
}

std::vector<std::int32_t> frontPlanVariants(const SearchOutcome& outcome, int index) {
    const Simulator simulator(outcome.model->graph, outcome.costs);
    Plan plan = simulator.planOf(frontPlan(outcome, index).genome);
    plan.variant.resize(plan.device.size(), 0);
    return plan.variant;
}

std::vector<NodeId> nodesOnDifferentDevices(const SearchOutcome& outcome, int a, int b) {
    const Solution& first = frontPlan(outcome, a);
    const Solution& second = frontPlan(outcome, b);
    const Simulator simulator(outcome.model->graph, outcome.costs);
    std::vector<NodeId> nodes;
    for (std::int32_t ci = 0; ci < simulator.computeCount(); ++ci) {
        const auto i = static_cast<std::size_t>(ci);
        if (first.genome[i] != second.genome[i]) {
            nodes.push_back(simulator.computeNode(ci));
        }
    }
    std::sort(nodes.begin(), nodes.end());
    return nodes;
}

} // namespace paretune
