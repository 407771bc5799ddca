// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to plan validation (plan_validation.cpp): a plan with nodes in lower precisions runs
// its lowered graph; its report names the model's nodes again, and its outputs are compared with
// the fp32 model's.
#include "graph/precision.h"
#include "plan_validation.h"

#include <memory>

namespace paretune {
struct DeviceInventory;
}

namespace paretune::detail {

/// Refuses a plan with a node in a precision its device does not run (a plans file edited by
/// hand, or searched on another machine) before anything runs. Devices not here are
/// preparePlan's to refuse.
void refuseUnrunnableVariants(const Graph& g, const PlanToValidate& plan,
                              const DeviceInventory& inventory);

/// The graph a plan with variants runs and the plan over it: each of its nodes on its model
/// node's device, the weight conversions without one (they are computed once), the fusion
/// groups over the same (fp32) nodes. Int8 nodes take their activation scales from the ranges
/// the library measured most recently for the model. InputError for a precision list of the
/// wrong size, a node that cannot be lowered, a fusion group with a lowered member, or int8
/// nodes whose ranges the library does not have.
struct LoweredPlan {
    std::unique_ptr<LoweredGraph> lowered;
    std::unique_ptr<PlanToValidate> plan;
};
LoweredPlan lowerPlan(const Graph& graph, const PlanToValidate& plan, const SampleLibrary& library);

/// Folds a report over the lowered graph back onto the model's nodes: a lowered node's row
/// takes its conversions' times (measured and predicted added, its span from the first begin
/// to the last end), fused members and node ids become the model's.
void reportAsModelNodes(PlanValidation& report, const LoweredGraph& lowered);

/// Runs the model and the lowered graph on the calibration sets of `options` and compares their
/// outputs; the estimate is the plan's plannedDeviationPct.
ValidatedAccuracy measureAccuracy(const Graph& graph, const LoweredGraph& lowered,
                                  const PlanToValidate& plan, const ValidationOptions& options);

} // namespace paretune::detail
