// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "constant_tensor.h"
#include "graph.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace paretune {

/// What the importer knows about one input of a node when it checks the node.
struct NodeInputFacts {
    std::string name;     ///< empty for an omitted optional input
    bool present = false; ///< false for an omitted optional input
    bool rankKnown = false;
    std::vector<std::int64_t> dims;        ///< -1 for an unknown dimension
    const ConstantTensor* value = nullptr; ///< the value when it is a known constant
};

/// The outcome of checking a node before a shape rule runs on it.
struct NodeCheck {
    /// Empty when the node is fine; otherwise what is wrong, in the ONNX checker's style
    /// ("attribute 'strides' is [0,0]: every stride must be at least 1"). The caller adds the
    /// file and the node.
    std::string problem;
    /// True when the node is valid but ONNX's own shape rule for it must not run with what is
    /// known (it would read a type that is missing); its outputs then keep the file's shapes.
    bool skipOnnxInference = false;
};

/// Checks every attribute, rank and dimension that the shape rules (ONNX's, e.g.
/// convPoolShapeInference, and the importer's folding) rely on for this node, before they run:
/// strides, kernels and dilations of at least 1, pads of at least 0, attribute lengths that match
/// the input's spatial rank, input and weight ranks that fit the operator, Concat inputs that
/// agree outside the axis, Split sizes that are non-negative and add up. Never throws.
NodeCheck checkNodeInputs(const Node& node, std::span<const NodeInputFacts> inputs,
                          int outputCount);

} // namespace paretune
