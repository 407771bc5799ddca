// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plan/memory_plan.h"
#include "plan/plan.h"
#include "plan/simulator.h"
#include "search/solution.h"

#include <vector>

namespace paretune {

struct SearchOutcome;

/// One plan of a search's front, simulated again in full (per-node start and finish, per-device
/// figures, the timeline) with the priority order the search used, so its objectives are the
/// ones the front shows, and its memory plan per device (buildMemoryPlan of that simulation).
struct PlanSchedule {
    int index = -1; ///< in SearchResult::front
    Plan plan;
    SimulationResult simulation;
    MemoryPlan memory;
};

/// Plan `index` of the search's front; throws InputError when there is no such plan.
const Solution& frontPlan(const SearchOutcome& outcome, int index);

/// Throws InputError when `index` is not a plan of the front.
PlanSchedule simulateFrontPlan(const SearchOutcome& outcome, int index);

/// Device (cost-table index) per graph node of front plan `index` (-1 where none); throws
/// InputError when `index` is not a plan of the front.
std::vector<std::int32_t> frontPlanDevices(const SearchOutcome& outcome, int index);

/// Variant (index into the cost table's variants, 0: fp32) per graph node of front plan
/// `index`; throws InputError when `index` is not a plan of the front.
std::vector<std::int32_t> frontPlanVariants(const SearchOutcome& outcome, int index);

/// Graph nodes placed on different devices by front plans a and b (compute nodes only), in graph
/// order. Throws InputError when an index is not a plan of the front.
std::vector<NodeId> nodesOnDifferentDevices(const SearchOutcome& outcome, int a, int b);

} // namespace paretune
