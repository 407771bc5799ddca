// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plan/plan.h"
#include "search/objective.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace paretune {

/// One evaluated placement: the genome is a column (device, and variant where the cost table
/// has variants: Simulator::columnCount) per compute node, in the Simulator's compact order
/// (Simulator::planOf turns it into a Plan).
struct Solution {
    std::vector<std::uint8_t> genome;
    Objectives objectives;
    /// Empty for a searched plan; "heft", "greedy", "all:<device id>" or
    /// "all:<device id>:<precision>".
    std::string baseline;
};

/// The feasible solutions no other feasible one dominates, sorted by the first objective; of
/// solutions with equal objective values the first one in `solutions` is kept (so baselines
/// listed first keep their label).
std::vector<Solution> nonDominated(std::span<const Solution> solutions,
                                   std::span<const Objective> objectives);

/// At most `maxCount` solutions of a front, spread along it: the best plan for each objective
/// and the labelled baselines first, then repeatedly the plan farthest (in objectives
/// normalised to the front's range) from those already chosen. Keeps the input order.
std::vector<Solution> spreadSubset(std::span<const Solution> front,
                                   std::span<const Objective> objectives, std::size_t maxCount);

/// Hypervolume of the feasible solutions with every objective divided by `reference` (given in
/// objective units), so the reference point is (1, …, 1) and the result lies in [0, 1].
double normalisedHypervolume(std::span<const Solution> solutions,
                             std::span<const Objective> objectives,
                             std::span<const double> reference);

} // namespace paretune
