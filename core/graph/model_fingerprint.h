// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graph.h"

#include <string>

namespace paretune {

/// Canonical text of an operator's signature: op type, domain, attributes, and the dtype and
/// shape of every input and output (plus the values of small integer constant inputs such as
/// Reshape targets or Slice bounds, which change what the op does). Names play no part, so the
/// same operator with the same shapes in two models has the same signature.
std::string opSignatureText(const Graph& graph, NodeId node);

/// SHA-256 of opSignatureText, 32 hex digits: the key samples are stored under.
std::string opSignature(const Graph& graph, NodeId node);

/// SHA-256 (64 hex digits) of the graph's structure: opset, graph input and output types, and
/// for each node in topological order its op, attributes, output types and where each input
/// comes from (graph input k, node j output m, or an initializer by dtype and shape). Node and
/// tensor names and floating-point weight values are left out, so renaming or retraining keeps
/// the fingerprint; integer constants (shapes, indices) are structure and are included.
std::string modelFingerprint(const Graph& graph);

} // namespace paretune
