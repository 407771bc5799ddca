// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Fusion groups (DESIGN.md "The plan, second generation": with whom): chains of operators that
// can run as one, found in a graph, and the graph in which chosen groups are one node each.

#include "graph.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace paretune {

/// The operator domain of fused nodes ("ai.paretune"): FusedConv, FusedMatMul.
inline constexpr std::string_view kFusionDomain = "ai.paretune";

enum class FusionKind : std::uint8_t {
    /// Conv [+ BatchNormalization (folded into the weights)] [+ Add of a residual] [+ Relu or
    /// Clip]: one FusedConv node, the post-operations done in place on the convolution's output.
    Conv,
    /// MatMul + Add of a constant bias along the last axis [+ Relu or the Gelu that exporters
    /// spell Div / Erf / Add / Mul / Mul]: one FusedMatMul node (one GEMM with the bias, the
    /// activation in place).
    MatMul,
    /// ReduceMean / Sub / Pow / ReduceMean / Add / Sqrt / Div / Mul / Add over the last axis:
    /// one LayerNormalization node.
    LayerNorm,
};

std::string_view fusionKindName(FusionKind kind);

/// The ONNX operator a fused node's cost resembles: Conv for FusedConv, MatMul for FusedMatMul,
/// the op type itself otherwise.
std::string_view fusedBaseOp(std::string_view opType);

/// A group of compute nodes that run as one node. Every tensor a member produces is read only
/// by members, except the last member's output (the group's output); the members are in a
/// topological order.
struct FusionGroup {
    FusionKind kind = FusionKind::Conv;
    std::vector<NodeId> members;
    std::string pattern; ///< member op types joined by '+': "Conv+Add+Relu"

    NodeId tail() const { return members.back(); }
};

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

} // namespace paretune
