// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graph.h"

namespace paretune {

/// Completes a graph whose nodes, tensors (with their producers), nodeInputs, nodeOutputs,
/// capturedInputs, inputs, outputs and topologicalOrder are set: fills tensorConsumers,
/// predecessors, successors (captured inputs count as inputs), the metrics and signatures of
/// every node and the fingerprint. The importer ends with it; so does a fused graph
/// (fuseGroups). Any previous adjacency is replaced.
void linkGraph(Graph& g);

/// A graph to rebuild `graph`'s nodes into (appendNode): its name, source, producer, opset,
/// IR version, tensors (without producers), inputs and outputs; no nodes.
Graph emptyCopyOf(const Graph& graph);

/// Appends a node to a graph being built in topological order (before linkGraph): its
/// attributes sorted by name, its rows of inputs, outputs and captured inputs, its outputs'
/// producer. Returns its id.
NodeId appendNode(Graph& g, Node node, std::span<const TensorId> ins,
                  std::span<const TensorId> outs, std::span<const TensorId> captured);

/// An Int attribute ("name=V"), and an Ints one ("name=[a,b]"), canonical as the importer
/// writes them.
Attribute intAttribute(std::string name, std::int64_t value);
Attribute intsAttribute(std::string name, std::vector<std::int64_t> values);

} // namespace paretune
