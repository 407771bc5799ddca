// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Fusion groups (DESIGN.md "The plan, second generation": with whom): chains of operators that
// can run as one, found in a graph, and the graph in which chosen groups are one node each.

#include "fusion_group.h"
#include "graph.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace paretune {

/// The ONNX operator a fused node's cost resembles: Conv for FusedConv, MatMul for FusedMatMul,
/// Gemm for FusedGemm, the op type itself otherwise.
std::string_view fusedBaseOp(std::string_view opType);

/// The fusion groups of a graph, disjoint, in the topological order of their last members.
/// Pure: depends on the graph's structure, shapes and small constants only.
std::vector<FusionGroup> findFusionGroups(const Graph& graph);

/// The fusion group the graph allows starting at `head` (its first member), if any.
std::optional<FusionGroup> fusionGroupAt(const Graph& graph, NodeId head);

/// The groups named by their members' node names (each list in member order, as a plans file
/// records them). Throws InputError naming `where` and the group for a name the graph lacks or
/// members that are not a group of this graph.
std::vector<FusionGroup> fusionGroupsByName(const Graph& graph,
                                            const std::vector<std::vector<std::string>>& groups,
                                            const std::string& where);

/// Whether `group` is one of the kinds above over `graph`, with the structure they require
/// (throws InputError naming the group and what is wrong: a member that is not a compute node,
/// a tensor read outside the group, members out of order).
void checkFusionGroup(const Graph& graph, const FusionGroup& group);

/// The name a fused graph of `original` is recorded under in a sample library:
/// "NAME (fused FINGERPRINT12)", the model's name and its fingerprint's first 12 digits.
std::string fusedGraphName(const Graph& original);
/// Whether a recorded model name is that of a fused graph of the model with `fingerprint`.
bool isFusedGraphName(std::string_view name, std::string_view fingerprint);

/// A graph in which some groups are one node each.
struct FusedGraph {
    Graph graph;
    std::vector<NodeId> nodeOf;    ///< per original node: its node here (members: the group's)
    std::vector<NodeId> groupNode; ///< per group given: its node here
};

/// The graph with each of `groups` (disjoint, each passing checkFusionGroup) replaced by one
/// node at its last member's place in the order, named after its first member with "+fused"
/// appended. Tensor ids are kept (a group's inner tensors remain, produced by nothing and read
/// by nothing); metrics, signatures and fingerprint are those of the new graph (linkGraph).
FusedGraph fuseGroups(const Graph& graph, std::span<const FusionGroup> groups);

/// The graph with, beside every node it has, each of `groups` as one more node: the fused node
/// reads the group's inputs and writes a tensor of its own (the group's output tensor's name
/// with "+fused" appended, read by nothing). Profiling measures a group and its members in one
/// run from it, round after round, so that the machine's speed is the same for both.
/// `groupNode` gives the fused nodes; `nodeOf` maps each original node to itself.
FusedGraph appendFusedNodes(const Graph& graph, std::span<const FusionGroup> groups);

} // namespace paretune
