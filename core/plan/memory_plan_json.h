// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The memory plan as JSON: the per-device figures a plans file records, the full plan a bundle
// carries (memory_plan.json), and the check `bundle verify` makes of it.
#include "plan/memory_plan.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace paretune {

class CostTable;

constexpr const char* kMemoryPlanSchema = "paretune.memory_plan/1";

/// Per device that holds anything (by cost-table device id): {"arena_bytes", "naive_bytes",
/// "live_peak_bytes", "weights_bytes", "workspace_bytes", "planned_bytes", "in_place"}.
nlohmann::ordered_json memoryFiguresJson(const MemoryPlan& plan, const CostTable& costs);

/// memory_plan.json: {"schema", "planner", "alignment", "devices": [{"device", the figures,
/// "steps": [node names], "tensors": [{"name", "kind", "node", "offset", "bytes", "first_step",
/// "last_step", "in_place_of"}]}]}. Steps index "steps"; a tensor occupies [offset, offset +
/// bytes) of its device's arena from first_step to last_step inclusive.
nlohmann::ordered_json memoryPlanJson(const MemoryPlan& plan, const Graph& graph,
                                      const CostTable& costs);

/// What is wrong with a memory_plan.json document (empty: nothing): the schema, sizes that do
/// not add up (a tensor beyond its arena, a step beyond the device's steps, a misaligned
/// offset, an in-place write of another size) and two tensors live at the same step whose bytes
/// overlap (other than an in-place write and its input). Each message names the device and the
/// tensors. Never throws.
std::vector<std::string> memoryPlanProblems(const nlohmann::ordered_json& document);

} // namespace paretune
