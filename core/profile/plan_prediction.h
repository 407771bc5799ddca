// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to plan validation (plan_validation.cpp): a plan simulated again over the costs its
// search used, to compare the hardware with.
#include "cost/cost_table.h"
#include "graph/graph.h"
#include "plan/plan.h"
#include "plan_validation.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace paretune {

struct DeviceCatalog;
struct DeviceInventory;
class SampleLibrary;

namespace detail {

/// What the plan says for one node when a cost table could be rebuilt.
struct NodePrediction {
    std::optional<double> latencyUs;
    std::string source = "none";
    std::optional<double> startUs;
    std::optional<double> finishUs;
};

struct Prediction {
    std::vector<NodePrediction> nodes;            ///< a taken fusion group's under its last member
    std::vector<std::vector<NodeId>> fusedGroups; ///< the groups the simulation took
    std::vector<NodeId> order;
    Objectives objectives;
    std::map<std::string, double> devicePeakBytes; ///< by device id: the simulator's
    /// By device id: the memory plan's arena + weights (buildMemoryPlan), and its arena alone.
    std::map<std::string, double> devicePlannedBytes;
    std::map<std::string, double> deviceArenaBytes;
    double plannedPeakBytes = 0.0; ///< the largest device's planned figure
};

/// The plan simulated again over the cost table the search used, with the search's priority.
/// `model`: the model `g` was lowered from (a plan with variants), whose whole-model runs scale
/// the costs as the search's did (applyModelRunScales); null when `g` is the model.
Prediction simulateAgain(const Graph& g, const PlanToValidate& plan,
                         const std::vector<std::string>& planDevices, const DeviceCatalog& catalog,
                         const DeviceInventory& inventory, SampleLibrary& library,
                         const ValidationOptions& options, const Graph* model = nullptr);

/// The prediction for a fused node of the plan (group `members`, in graph order): the group's
/// own where the simulation took it (under its last member); else the simulation ran the members
/// on their own, and their sum is its figure (from the first's start to the last's finish, the
/// least certain of their sources), not the last member's alone.
NodePrediction fusedNodePrediction(const Prediction& prediction,
                                   const std::vector<NodeId>& members);

} // namespace detail
} // namespace paretune
