// SPDX-License-Identifier: GPL-3.0-or-later
#include "workflow/turn_costs.h"

#include "profile/measurement.h"
#include "workflow/in_context_costs.h"

#include <algorithm>
#include <optional>

namespace paretune {

namespace {

constexpr int kMinObservations = 3;

} // namespace

std::vector<bool> turnStarts(const PlanObservation& plan, const CostTable& table) {
    const auto from = coresTakenFrom(plan, table);
    std::vector<bool> turns(from.size());
    for (std::size_t i = 0; i < from.size(); ++i) {
        turns[i] = from[i].has_value();
    }
    return turns;
}

std::vector<std::optional<std::size_t>> coresTakenFrom(const PlanObservation& plan,
                                                       const CostTable& table) {
    std::vector<std::int32_t> device(plan.nodes.size());
    for (std::size_t i = 0; i < plan.nodes.size(); ++i) {
        device[i] = table.findDevice(plan.nodes[i].device);
    }
    std::vector<std::optional<std::size_t>> turns(plan.nodes.size());
    for (std::size_t i = 0; i < plan.nodes.size(); ++i) {
        const std::int32_t d = device[i];
        if (d < 0) {
            continue;
        }
        std::optional<std::size_t> previous;
        for (std::size_t j = 0; j < plan.nodes.size(); ++j) {
            const std::int32_t e = device[j];
            if (j == i || e < 0 || (e != d && !table.exclusive(e, d)) ||
                plan.nodes[j].endUs > plan.nodes[i].beginUs) {
                continue;
            }
            if (!previous || plan.nodes[j].endUs > plan.nodes[*previous].endUs) {
                previous = j;
            }
        }
        if (previous && device[*previous] != d) {
            turns[i] = previous;
        }
    }
    return turns;
}

std::vector<FittedTurn> fitTurnCosts(const CostTable& table,
                                     const std::vector<TurnSplitTimes>& cells) {
    std::map<std::int32_t, std::vector<double>> excess;
    for (const TurnSplitTimes& cell : cells) {
        if (cell.keeping.empty() || cell.taking.empty()) {
            continue;
        }
        const double keeping = medianOf(cell.keeping);
        for (const double us : cell.taking) {
            excess[cell.device].push_back(us - keeping);
        }
    }
    std::vector<FittedTurn> turns;
    for (const auto& [d, values] : excess) {
        if (static_cast<int>(values.size()) >= kMinObservations) {
            turns.push_back({table.device(d).id, std::max(0.0, medianOf(values)),
                             static_cast<int>(values.size())});
        }
    }
    return turns;
}

std::vector<double> timesWithoutTurns(const TurnSplitTimes& cell,
                                      const std::map<std::int32_t, double>& turnUs) {
    std::vector<double> times = cell.keeping;
    const auto it = turnUs.find(cell.device);
    const double turn = it == turnUs.end() ? 0.0 : it->second;
    for (const double us : cell.taking) {
        times.push_back(std::max(0.0, us - turn));
    }
    return times;
}

} // namespace paretune
