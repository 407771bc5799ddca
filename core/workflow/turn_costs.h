// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Turns on shared cores, as measured inside plans (the tune loop, beside in_context_costs.h).
// Devices that share a core take turns (CostTable::setExclusive). Measured on a 2-core machine,
// ResNet-50 with `cpu` beside `cpu:0`: a `cpu` node that took the cores over from `cpu:0` ran
// 15 % over its in-plan time, one that followed another `cpu` node 7 %: the executor's thread
// waking on the cores, the node's data in the other thread's caches. One figure per device
// carries over to plans not yet run, which switch more or less often.
// Receives alike, between devices that share no core: a node that read a tensor just made on
// the other core ran longer than the same node after one of its own device's (this VM's two
// cores, 6 tune runs of ResNet-18/50 and MobileNet-V2 on `cpu:0,cpu:1`: ×1.00–1.14 per device,
// time-weighted; 0–10 µs more on nodes under 100 µs, 50–160 µs on convolutions of 1–5 ms). As a
// factor, not a cost in µs: small nodes barely change.
#include "cost/cost_table.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace paretune {

struct PlanObservation;

/// A device's receive factor fitted from in-plan times.
struct FittedReceive {
    std::string device;
    double factor = 1.0;
    int cells = 0; ///< cells measured both receiving and keeping
};

/// A device's turn cost fitted from in-plan times.
struct FittedTurn {
    std::string device;
    double us = 0.0;
    int observations = 0;
};

/// Per node of the plan (its index): whether it took shared cores over. The node that ended
/// last before it began, among the nodes on its device and on devices sharing a core with it,
/// ran on another device. False for a device that shares no core, or that the table lacks.
std::vector<bool> turnStarts(const PlanObservation& plan, const CostTable& table);
/// Per node of the plan: the node it took shared cores over from (that other device's node
/// that ended last before it on those cores), where turnStarts holds; else none.
std::vector<std::optional<std::size_t>> coresTakenFrom(const PlanObservation& plan,
                                                       const CostTable& table);

/// In-plan times of one cell (a node's, or a fusion option's, on one device), split by whether
/// the node took the cores over, else whether it received an input from another device
/// (receiveStarts, in_plan_gaps.h).
struct TurnSplitTimes {
    std::int32_t device = 0;
    std::vector<double> keeping;   ///< neither: the cores and its inputs were its device's
    std::vector<double> taking;    ///< turn starts
    std::vector<double> receiving; ///< receives that are not turn starts
};

/// What each device's turns and receives cost, as fitted.
struct SplitCosts {
    std::map<std::int32_t, double> turnUs;        ///< fitTurnCosts
    std::map<std::int32_t, double> receiveFactor; ///< fitReceiveFactors
};

/// Each device's turn cost: the median, over the turn starts of cells that were also measured
/// without one, of the time less that cell's median time without (at least 3 such observations;
/// at least 0). Devices in table order.
std::vector<FittedTurn> fitTurnCosts(const CostTable& table,
                                     const std::vector<TurnSplitTimes>& cells);

/// Each device's receive factor: over the cells also measured keeping (at least 5 such cells),
/// Σ median(receiving) / Σ median(keeping), weighted by time as a plan's latency is; clamped to
/// [1, 2]. Devices in table order.
std::vector<FittedReceive> fitReceiveFactors(const CostTable& table,
                                             const std::vector<TurnSplitTimes>& cells);

/// A cell's in-plan times as if it had kept its cores and inputs: its turn starts less their
/// device's turn cost (at least 0), its receives divided by their device's factor, where the
/// device has one.
std::vector<double> plainTimes(const TurnSplitTimes& cell, const SplitCosts& costs);

} // namespace paretune
