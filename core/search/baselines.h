// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plan/simulator.h"
#include "search/solution.h"

#include <cstdint>
#include <vector>

namespace paretune {

/// Every compute node on device d; nodes d does not support fall back to the host (or, when the
/// host does not support them either, to their fastest supporting device).
std::vector<std::uint8_t> allOnDevice(const Simulator& sim, std::int32_t d);

/// allOnDevice(d) with every node that has a supported cell in variant v on d in that variant
/// (the others in fp32 as allOnDevice places them). Empty when no node has one.
std::vector<std::uint8_t> allOnDeviceIn(const Simulator& sim, std::int32_t d, std::int32_t v);

/// Each node on the device where it runs fastest in fp32, ignoring transfers.
std::vector<std::uint8_t> greedyFastest(const Simulator& sim);

/// HEFT's priority: compute nodes by decreasing upward rank (mean cost over supporting devices
/// plus the longest mean-cost path to an exit, transfers at their mean uncontended time), ties
/// in topological order. Always a topological order.
std::vector<std::int32_t> upwardRankOrder(const Simulator& sim);

/// HEFT (Topcuoglu et al. 2002, without insertion): in upward-rank order, each node goes to the
/// supporting device that finishes it earliest, given device availability and uncontended
/// transfers from its predecessors.
std::vector<std::uint8_t> heftPlacement(const Simulator& sim);

/// The baselines, evaluated with the simulator's current priority: "all:<id>" for each
/// device that runs at least one operator, then "heft" and "greedy" (all in fp32), then
/// "all:<id>:<precision>" for each variant of the table and device where some node has a
/// supported cell in it (allOnDeviceIn).
std::vector<Solution> evaluateBaselines(Simulator& sim);

} // namespace paretune
