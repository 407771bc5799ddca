// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/diagnostic.h"
#include "graph.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace paretune {

struct ImportOptions {
    /// Fixed shapes for graph inputs, by input name; they replace what the file declares.
    std::map<std::string, std::vector<std::int64_t>> inputShapes;
    /// Value given to a symbolic or missing input dimension (batch size, sequence length)
    /// that inputShapes does not fix; each substitution is reported as a diagnostic.
    std::int64_t defaultDynamicDim = 1;
};

struct ImportResult {
    Graph graph;
    Diagnostics diagnostics;
};

/// Imports an ONNX model file: parses it, loads external data (only from regular files inside
/// the model's folder), validates the structure (every input defined, single producer per tensor,
/// no cycle), runs the ONNX checker and shape inference, and folds shape-computing subgraphs so
/// that a model with fixed input shapes gets a static shape on every tensor.
///
/// Throws InputError for a model that cannot be used (message names the file and the problem).
/// Unknown operators are not fatal: the node is imported, flagged and reported.
ImportResult importOnnxFile(const std::string& path, const ImportOptions& options = {});

/// Same as importOnnxFile for a serialized model held in memory. `displayName` stands for the
/// file in messages. A model with external data cannot be imported this way.
ImportResult importOnnxBytes(std::string_view bytes, const ImportOptions& options = {},
                             const std::string& displayName = "<memory>");

/// Imports a model written in ONNX's textual syntax (onnx/defs/parser.h), e.g.
///   <ir_version: 8, opset_import: ["" : 13]>
///   g (float[1,4] x) => (float[1,4] y) { y = Relu(x) }
/// Used for small graphs in tests and fixtures. Throws InputError on a syntax error.
ImportResult importOnnxText(std::string_view text, const ImportOptions& options = {},
                            const std::string& displayName = "<text>");

/// Parses "1x3x224x224" (or "1,3,224,224") into dimensions; throws InputError on bad text.
std::vector<std::int64_t> parseShapeText(std::string_view text);

} // namespace paretune
