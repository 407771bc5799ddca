// SPDX-License-Identifier: GPL-3.0-or-later
#include "workflow/turn_costs.h"

#include "profile/measurement.h"
#include "workflow/in_context_costs.h"

#include <algorithm>
#include <optional>

namespace paretune {

namespace {

constexpr int kMinObservations = 3;
constexpr int kMinReceiveCells = 5;
constexpr double kMaxReceiveFactor = 2.0;

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

std::vector<FittedReceive> fitReceiveFactors(const CostTable& table,
                                             const std::vector<TurnSplitTimes>& cells) {
    struct Sums {
        double receiving = 0.0;
        double keeping = 0.0;
        int cells = 0;
    };
    std::map<std::int32_t, Sums> sums;
    for (const TurnSplitTimes& cell : cells) {
        if (cell.keeping.empty() || cell.receiving.empty()) {
            continue;
        }
        Sums& s = sums[cell.device];
        s.receiving += medianOf(cell.receiving);
        s.keeping += medianOf(cell.keeping);
        ++s.cells;
    }
    std::vector<FittedReceive> factors;
    for (const auto& [d, s] : sums) {
        if (s.cells >= kMinReceiveCells && s.keeping > 0.0) {
            factors.push_back({table.device(d).id,
                               std::clamp(s.receiving / s.keeping, 1.0, kMaxReceiveFactor),
                               s.cells});
        }
    }
    return factors;
}

std::vector<double> plainTimes(const TurnSplitTimes& cell, const SplitCosts& costs) {
    std::vector<double> times = cell.keeping;
    const auto turn = costs.turnUs.find(cell.device);
    const double turnUs = turn == costs.turnUs.end() ? 0.0 : turn->second;
    for (const double us : cell.taking) {
        times.push_back(std::max(0.0, us - turnUs));
    }
    const auto receive = costs.receiveFactor.find(cell.device);
    const double factor = receive == costs.receiveFactor.end() ? 1.0 : receive->second;
    for (const double us : cell.receiving) {
        times.push_back(us / factor);
    }
    return times;
}

} // namespace paretune
