// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to the fusion files (fusion.cpp, fused_graph.cpp): what the patterns and the fused
// graph both read of a graph.
#include "fusion.h"

#include <optional>
#include <string>

namespace paretune::fusion_detail {

const Node& nodeAt(const Graph& g, NodeId id);
const Tensor& tensorAt(const Graph& g, TensorId t);
/// Input k of a node, or kNone.
TensorId input(const Graph& g, NodeId id, std::size_t k);
/// The one output of a node, or kNone when it has another someone reads (or none).
TensorId soleOutput(const Graph& g, NodeId id);
/// The value of a one-element constant tensor.
std::optional<double> scalarValue(const Graph& g, TensorId t);
/// The other input of a two-input node, given one of them (kNone when neither is `one`).
TensorId otherInput(const Graph& g, NodeId id, TensorId one);
/// "fusion group 'conv1' (Conv+Relu)", for messages.
std::string groupLabel(const Graph& g, const FusionGroup& group);

} // namespace paretune::fusion_detail
