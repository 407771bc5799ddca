#pragma once

#include "constant_tensor.h"
#include "graph.h"

#include <optional>
#include <span>
#include <vector>

namespace paretune {

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
/// not foldable here, an input is missing, or a result would exceed ConstantTensor::kMaxElements;
/// never throws on bad data (it declines instead, leaving the node to run normally).
std::optional<std::vector<ConstantTensor>> foldConstantNode(const Node& node, std::int64_t opset,
                                                            std::span<const FoldInput> inputs,
                                                            int outputCount);

} // namespace paretune
