// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "dtype.h"

#include <cstdint>
#include <vector>

namespace paretune {

/// The value of a small tensor known at import time: an initializer, a Constant node's value or
/// the result of folding a shape computation. Integer and bool tensors keep exact int64 values
/// (Slice ends are often INT64_MAX), floating-point tensors keep doubles.
struct ConstantTensor {
    DType dtype = DType::Undefined;
    std::vector<std::int64_t> dims;
    std::vector<std::int64_t> ints; ///< filled when dtype is an integer or bool type
    std::vector<double> reals;      ///< filled when dtype is a floating-point type

    /// Largest tensor whose value the importer keeps and folds (elements).
    static constexpr std::int64_t kMaxElements = 1 << 20;

    std::int64_t elementCount() const;
    bool holdsIntegers() const { return !isFloatingPoint(dtype); }
    double real(std::int64_t index) const;
    std::int64_t integer(std::int64_t index) const;
};

/// x converted to int64, saturating at the type's limits (NaN gives 0); the conversion itself
/// is undefined outside them.
std::int64_t saturatingInt64(double x);

} // namespace paretune
