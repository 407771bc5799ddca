// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "op_profile.h"

#include <functional>
#include <map>

namespace paretune {

struct Progress;

struct ProfileOptions {
    MeasureOptions measure;
    /// Nodes to profile; empty: every Compute node of the graph.
    std::vector<NodeId> nodes;
    /// Also run the whole graph end to end and compare with the sum of per-op medians.
    bool wholeModel = true;
    /// Called on the profiling thread as soon as a node's final result is known (after its
    /// last round, or when profiling stops early), before the whole-model run: lets the caller
    /// store results in batches while the profile runs.
    std::function<void(NodeId, const OpProfile&)> nodeFinished;
};

/// The graph executed in topological order on one device: real intermediate tensors, pass-
/// through nodes (Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout) as views, Constant
/// and folded shape nodes as the graph's constants, graph inputs and large weights random.
struct WholeModelResult {
    ProfileStatus status = ProfileStatus::Failed;
    std::string message;
    LatencyStats endToEnd; ///< one full run, same discipline as the operators
    double sumOfOpsUs = 0; ///< sum of the per-op medians of the nodes profiled ok
    double ratio = 0;      ///< sumOfOpsUs / endToEnd.medianUs (0 when not run)
    int nodesExecuted = 0; ///< compute and pass-through nodes in one run
};

struct ProfileResult {
    std::map<NodeId, OpProfile> nodes; ///< one entry per profiled node (including unsupported)
    WholeModelResult wholeModel;
    bool cancelled = false; ///< stopped between nodes; `nodes` holds what was measured
    int threads = 0;
    std::vector<int> cpuSet;           ///< what the thread was pinned to; empty: not pinned
    std::string energySource = "none"; ///< "rapl" when RAPL counters were readable
    double idlePowerW = 0;             ///< RAPL idle baseline subtracted from op energies
    double wallSeconds = 0;

    int count(ProfileStatus status) const;
};

/// Profiles the graph's compute nodes one by one, then (optionally) the whole graph.
/// The `measure.rounds` rounds run over the whole model (round 1 of every node, then round 2,
/// …) so that a burst of outside load spoils one round of an op rather than all of them; each
/// node keeps the median of its rounds. Shapes, memory and energy come from round 1; a node
/// that is unsupported or fails there is not measured again.
/// Progress: one report per node (fraction of nodes done, "node 'name' (Op)"); cancel is
/// polled between nodes and before the whole-model run. Throws InputError for invalid options
/// (threads < 1, a bad CPU set, a node id outside the graph); every operator problem is a
/// per-node status, never an exception.
ProfileResult profileModel(const Graph& graph, const ProfileOptions& options,
                           Progress* progress = nullptr);

} // namespace paretune
