// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "constant_tensor.h"
#include "graph.h"

#include <optional>
#include <span>
#include <stdexcept>
#include <vector>

namespace paretune {

/// Thrown by foldConstantNode when the constant inputs make the node itself invalid, so that
/// running it would fail too: an integer division by zero or one that overflows
/// (INT64_MIN / -1), Concat inputs that disagree outside the axis, negative Split sizes, a
/// Transpose perm that is no permutation. The message names the problem; the caller adds the
/// file and the node.
class FoldError : public std::runtime_error {
public:
    explicit FoldError(const std::string& message) : std::runtime_error(message) {}
};

/// What the folder knows about one input of a node: its value when it is a constant, and its
/// static shape (Shape and Size need only that).
struct FoldInput {
    bool present = false; ///< false for an omitted optional input
    const ConstantTensor* value = nullptr;
    DType dtype = DType::Undefined;
    const std::vector<std::int64_t>* staticDims = nullptr; ///< null when the shape is not static
};

/// Evaluates a node whose outputs are fully determined at import time: Shape/Size of a tensor
/// with a static shape, or any supported op over constant inputs (Gather, Slice, Concat,
/// Unsqueeze, Squeeze, Reshape, Cast, arithmetic, comparisons, Where, Range, ConstantOfShape,
/// Expand, Tile, Transpose, reductions, ScatterND, Split …). Returns std::nullopt when the op is
/// not foldable here, an input is missing, or a result would exceed ConstantTensor::kMaxElements
/// (it declines, leaving the node to run normally). Integer arithmetic follows the element type:
/// unsigned types divide and compare as unsigned, results wrap to the type's width. Throws
/// FoldError for inputs no runtime could evaluate either.
std::optional<std::vector<ConstantTensor>> foldConstantNode(const Node& node, std::int64_t opset,
                                                            std::span<const FoldInput> inputs,
                                                            int outputCount);

} // namespace paretune
