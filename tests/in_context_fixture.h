// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Cost tables and plan observations for the tests of what the tune loop learns from plans
// measured on the hardware (workflow/in_context_costs.h, in_plan_gaps.h, turn_costs.h).

#include "cost/cost_table.h"
#include "graph/graph.h"
#include "store/records.h"
#include "workflow/in_context_costs.h"
#include "workflow/tune_round_record.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace paretune::test {

/// Cells a 100, b 200, c 400, d 800 µs (energy 1 µJ per µs) on cpu:0 and cpu:1, measured.
inline CostTable tableOf(const Graph& g) {
    CostTable table(
        static_cast<std::int32_t>(g.nodes.size()),
        {CostDevice{"cpu:0", "cpu", 10.0, 1.0, 1e9}, CostDevice{"cpu:1", "cpu", 10.0, 1.0, 1e9}},
        0);
    const std::map<std::string, double> us = {{"a", 100}, {"b", 200}, {"c", 400}, {"d", 800}};
    for (const auto& [name, latency] : us) {
        for (std::int32_t d = 0; d < 2; ++d) {
            CostCell cell;
            cell.latencyUs = latency;
            cell.energyUj = latency;
            cell.source = CostSource::Measured;
            table.setCell(g.findNode(name), d, cell);
        }
    }
    return table;
}

/// One plan run node after node on one device: each node's time, back to back from `start`.
inline PlanObservation sequential(const std::string& device,
                                  const std::vector<std::pair<std::string, double>>& times,
                                  double start = 0.0) {
    PlanObservation plan;
    double t = start;
    for (const auto& [node, us] : times) {
        plan.nodes.push_back({node, device, us, t, t + us});
        t += us;
    }
    return plan;
}

/// A round that learned `fit`, as the library stores it and reads it back.
inline TuneRound storedAndReadBack(const InContextFit& fit) {
    TuneRound round;
    round.fit = fit;
    TuneRoundRecord record;
    record.recordJson = detail::roundJson(round).dump();
    return detail::roundFrom(record);
}

} // namespace paretune::test
