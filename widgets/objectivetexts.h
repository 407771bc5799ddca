// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "search/objective.h"

#include <QString>

namespace paretune {

/// The objectives the views offer (axes, tooltips, comparisons), in their order.
inline constexpr Objective kShownObjectives[] = {Objective::Latency, Objective::Energy,
                                                 Objective::AveragePower, Objective::PeakMemory,
                                                 Objective::Accuracy};

/// Value of an objective in the unit the views show (latency ms, energy mJ, power W,
/// memory MiB: the unit core's describe(objective) converts to), and that unit's texts.
double displayValue(const Objectives& objectives, Objective objective);
/// "Latency (ms)", "Peak memory (MiB)", …
QString objectiveAxisLabel(Objective objective);
/// "ms", "MiB", …
QString objectiveUnit(Objective objective);
/// In a tooltip line: "latency", "peak memory", …
QString objectiveTitle(Objective objective);

} // namespace paretune
