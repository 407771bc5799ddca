// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plan/plan.h"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace paretune {

/// What the search minimises. Values are read from Objectives in display units: latency µs,
/// energy per inference mJ, average power W (energy / latency), peak memory MiB, accuracy loss
/// % (Objectives::deviationPct: the estimated output deviation from the fp32 model, estimated
/// from the per-node sensitivity table; 0 for a plan all in fp32).
enum class Objective { Latency, Energy, AveragePower, PeakMemory, Accuracy };

/// Everything the code says about one objective, in one place (indexed by the enum).
struct ObjectiveDescriptor {
    Objective objective;
    std::string_view name;                     ///< as in --objectives and the plans document
    std::string_view displayUnit;              ///< the unit tables and plots show it in
    double (*value)(const Objectives&);        ///< in the units above (latency µs)
    double (*displayValue)(const Objectives&); ///< in displayUnit (latency ms)
};

/// The five objectives, in the enum's order.
std::span<const ObjectiveDescriptor> objectiveDescriptors();
const ObjectiveDescriptor& describe(Objective objective);

std::string_view objectiveName(Objective objective);
/// Parses "latency,energy,memory" (names: latency, energy, power, memory, accuracy): two or three
/// distinct objectives. Throws InputError naming the bad item.
std::vector<Objective> parseObjectives(std::string_view text);
double objectiveValue(const Objectives& o, Objective objective);

/// Constrained domination (Deb): a feasible plan beats an infeasible one, of two infeasible
/// plans the smaller violation wins, of two feasible ones Pareto dominance decides.
bool constrainedDominates(const Objectives& a, const Objectives& b,
                          std::span<const Objective> objectives);
/// a is no worse than b in every objective (both taken as feasible).
bool weaklyDominates(const Objectives& a, const Objectives& b,
                     std::span<const Objective> objectives);

} // namespace paretune
