// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to the ONNX importer's files: it includes ONNX's protobuf classes. The structure of an
// ONNX graph, apart from what its nodes compute: the values a node's subgraphs read from the
// scopes around them, the order in which the nodes can run (every input defined, one producer
// per value, no cycle) and a unique name for every node.

#include "onnx_import_diagnostics.h"

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

namespace paretune::onnx_import {

/// Every value a subgraph (and its nested subgraphs) produces, appended to `names`.
void collectProducedNames(const onnx::GraphProto& graph, std::vector<std::string>& names);

/// Inputs of a node beyond its explicit ones: the outer-scope values its subgraphs read, sorted.
std::vector<std::string> implicitInputs(const onnx::NodeProto& node);

/// Puts the nodes of `graph` in topological order and returns a unique, non-empty name for each
/// node in that order (the file keeps its own names). The order is stable: among nodes that are
/// ready, the one first in the file goes first, so a sorted file keeps its order. Fails through
/// `report` for a value produced twice, an input nothing produces or a cycle (named node by
/// node); warns when the nodes were reordered or a name was used more than once.
std::vector<std::string> orderNodes(onnx::GraphProto& graph, const ImportDiagnostics& report);

} // namespace paretune::onnx_import
