// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graph/graph.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace paretune {

/// Which nodes of a graph the graph view draws, and which of them it folds into groups.
struct OutlineOptions {
    /// Graphs with at most this many drawn nodes are laid out fully, without groups.
    std::int32_t fullLimit = 2000;
    /// Above fullLimit, name scopes ("/encoder/layer.3/attn") are folded into groups, expanding
    /// whole levels of scopes (all stages, then all blocks, ...) while the number of drawn items
    /// stays within this budget; when the scopes alone do not get there, chains of three or
    /// more single-input single-output items are folded as well.
    std::int32_t budget = 600;
    /// Constant nodes produce values known in advance; they are drawn only on request.
    bool showConstants = false;
    /// Group keys whose automatic state (expanded or folded) the user flipped.
    std::set<std::string> toggled;
};

/// One producer -> consumer use of a tensor.
struct TensorLink {
    NodeId producer = kNone;
    NodeId consumer = kNone;
    TensorId tensor = kNone;
};

struct OutlineItem {
    enum class Kind { Node, ScopeGroup, ChainGroup };
    Kind kind = Kind::Node;
    std::string key;   ///< groups: "scope:/a/b" or "chain:<first node's name>"
    std::string title; ///< node: op type; scope group: its last component; chain: its op types
    std::vector<NodeId> members; ///< the nodes it stands for, in topological order

    bool isGroup() const { return kind != Kind::Node; }
};

/// An edge between two drawn items, carrying one or more tensors.
struct OutlineEdge {
    std::int32_t from = 0;
    std::int32_t to = 0;
    std::vector<TensorLink> links;
};

/// The drawn items of a graph and the edges between them, as a value. Items come in the
/// topological order of their first member; edges inside an item are not listed.
struct GraphOutline {
    std::vector<OutlineItem> items;
    std::vector<OutlineEdge> edges;
    std::vector<std::int32_t> itemOfNode; ///< per graph node, the item drawing it; -1 if hidden
    std::int32_t drawnNodeCount = 0;      ///< nodes drawn, inside groups or on their own
    bool grouped = false;                 ///< whether any group was folded
};

/// Builds the outline of `graph`. Pure and cheap (linear apart from sorting): it may run on any
/// thread.
GraphOutline buildOutline(const Graph& graph, const OutlineOptions& options);

/// The scope a node's name puts it in: "/encoder/layer.0/attn/MatMul" -> "/encoder/layer.0/attn";
/// empty for names without a leading '/'.
std::string nodeScope(std::string_view nodeName);

} // namespace paretune
