// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace paretune {

/// What an Einsum computes, from its equation and static input shapes.
struct EinsumShape {
    std::vector<std::int64_t> outputDims;
    /// Product of the sizes of every index (and broadcast "..." dimension): the number of
    /// multiply-adds of a contraction done in one pass.
    double indexSpace = 0.0;
};

/// Resolves an ONNX Einsum equation ("bhid,bhjd->bhij", implicit output, "..." broadcasting)
/// against static input shapes. Returns std::nullopt when the equation is malformed or does
/// not fit the shapes (a letter with two different sizes, wrong rank).
std::optional<EinsumShape> analyseEinsum(std::string_view equation,
                                         const std::vector<std::vector<std::int64_t>>& inputs);

} // namespace paretune
