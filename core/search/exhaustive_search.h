// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plan/simulator.h"
#include "search/objective.h"
#include "search/solution.h"

#include <vector>

namespace paretune {

/// The exact Pareto front by enumerating every support-feasible placement (a test oracle).
/// Uses the simulator's current priority. Feasible, non-dominated, sorted by the first
/// objective, one solution per distinct objective vector.
/// Throws InputError when the graph has more than `maxComputeNodes` compute nodes (at most 12:
/// 3^12 = 531,441 plans) .
std::vector<Solution> exhaustiveFront(Simulator& sim, std::span<const Objective> objectives,
                                      std::int32_t maxComputeNodes = 12);

} // namespace paretune
