// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a cell's in-plan times are worth when it ran in few plans (the tune loop, beside
// in_context_costs.h). One in-plan time of a node is noisy: in one bench run's six tunes on this
// 2-core VM, a cell's times from plan to plan spread by 6.5 % (time-weighted), and the medians of
// one node on `cpu:0` and on `cpu:1` differed by 7.0 %, 6.1 % of it that noise. The search picks,
// for each node, the cell that measured lowest — between two near-equal cores, the one whose few
// times happened to be low — and predicts new plans short: cells that had measured lower than
// the same node on the sibling core, seen in one or two plans, ran a median 4.9–5.1 % slower in
// the next round's new plans than their earlier median; cells with no sibling measured, 0.5–3.2 %
// (the winner's curse). An empirical-Bayes estimate does not reward that luck: a node runs inside
// plans at much the same ratio to its profiled cell on every device, so each cell's ratio is
// drawn toward the node's ratio on its other devices, the more the fewer its times and the
// noisier the plans.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace paretune {

/// One cell's in-plan times (a node's or a fusion option's, on one device, in one variant).
struct InPlanCell {
    std::string node; ///< what it runs: cells of one node on other devices inform it
    std::int32_t device = 0;
    double cellUs = 0.0;         ///< the cell as the library gives it (> 0)
    std::vector<double> timesUs; ///< inside plans, each > 0; at least one
};

/// How the cells were drawn toward their nodes' ratios on other devices.
struct CellShrinkage {
    /// Relative spread of one cell's times from plan to plan (time-weighted, pooled over the
    /// cells with two times or more).
    double noiseSd = 0.0;
    /// Spread of a cell's ratio around what its node's other devices give it (time-weighted,
    /// the noise taken out; at least 1 %).
    double spreadSd = 0.0;
    int cells = 0; ///< cells drawn toward their nodes' other devices
};

/// Each cell's in-plan time (`estimatesUs`, one per cell in order): the median of its times;
/// where the times tell their noise (3 cells or more with two times or more) and its node ran on
/// other devices of at least 3 cells each, drawn toward them. With x = ln(median / cell) and
/// b the log of a device's Σ medians / Σ cells, a cell's prior is b of its device plus the mean
/// of (x − b) over its node's cells elsewhere; its estimate cell · exp(prior + w · (x − prior)),
/// w = (spread² + v) / (spread² + v + noise² / n): n its times, v the noise of that mean.
std::optional<CellShrinkage> shrinkInPlanTimes(const std::vector<InPlanCell>& cells,
                                               std::vector<double>& estimatesUs);

} // namespace paretune
