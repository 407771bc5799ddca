// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to constant folding (constant_folding*.cpp). The folding rules, one per operator and
// grouped by family (constant_folding_arithmetic.cpp computes values, constant_folding_movement.cpp
// moves them), and what they share: building result tensors, reading inputs, axes, strides and
// broadcasting. A rule throws Decline when it cannot fold (the node then runs normally) and
// FoldError when no runtime could run the node either; foldConstantNode (constant_folding.cpp)
// picks the rule for a node and catches Decline.

#include "constant_folding.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace paretune::folding {

using Dims = std::vector<std::int64_t>;

// Folding declines (returns nullopt) instead of throwing: any of these conditions means "let the
// node run normally", never "the model is broken".
struct Decline {};

inline std::int64_t product(const Dims& dims) {
    std::int64_t count = 1;
    for (const std::int64_t d : dims) {
        if (d < 0 || (d > 0 && count > ConstantTensor::kMaxElements / d)) {
            throw Decline{};
        }
        count *= d;
    }
    if (count > ConstantTensor::kMaxElements) {
        throw Decline{};
    }
    return count;
}

inline Dims stridesOf(const Dims& dims) {
    Dims strides(dims.size(), 1);
    for (std::size_t i = dims.size(); i-- > 1;) {
        strides[i - 1] = strides[i] * dims[i];
    }
    return strides;
}

inline ConstantTensor makeTensor(DType dtype, Dims dims) {
    ConstantTensor t;
    t.dtype = dtype;
    const std::int64_t count = product(dims);
    t.dims = std::move(dims);
    if (t.holdsIntegers()) {
        t.ints.assign(static_cast<std::size_t>(count), 0);
    } else {
        t.reals.assign(static_cast<std::size_t>(count), 0.0);
    }
    return t;
}

inline ConstantTensor int64Vector(const Dims& values) {
    ConstantTensor t = makeTensor(DType::Int64, {static_cast<std::int64_t>(values.size())});
    t.ints = values;
    return t;
}

// Copies element `from` of `src` into element `to` of `dst` (same dtype family).
inline void copyElement(const ConstantTensor& src, std::int64_t from, ConstantTensor& dst,
                        std::int64_t to) {
    if (dst.holdsIntegers()) {
        dst.ints[static_cast<std::size_t>(to)] = src.integer(from);
    } else {
        dst.reals[static_cast<std::size_t>(to)] = src.real(from);
    }
}

inline std::int64_t normaliseAxis(std::int64_t axis, std::size_t rank) {
    const auto r = static_cast<std::int64_t>(rank);
    if (axis < -r || axis >= r) {
        throw Decline{};
    }
    return axis < 0 ? axis + r : axis;
}

inline const ConstantTensor& need(std::span<const FoldInput> inputs, std::size_t index) {
    if (index >= inputs.size() || !inputs[index].present || !inputs[index].value) {
        throw Decline{};
    }
    return *inputs[index].value;
}

inline const ConstantTensor* optionalInput(std::span<const FoldInput> inputs, std::size_t index) {
    if (index >= inputs.size() || !inputs[index].present) {
        return nullptr;
    }
    if (!inputs[index].value) {
        throw Decline{}; // present but not constant
    }
    return inputs[index].value;
}

inline Dims intsOf(const ConstantTensor& t) {
    Dims values(static_cast<std::size_t>(t.elementCount()));
    for (std::size_t i = 0; i < values.size(); ++i) {
        values[i] = t.integer(static_cast<std::int64_t>(i));
    }
    return values;
}

// Numpy-style multidirectional broadcasting.
inline Dims broadcastDims(const std::vector<const Dims*>& shapes) {
    std::size_t rank = 0;
    for (const Dims* s : shapes) {
        rank = std::max(rank, s->size());
    }
    Dims out(rank, 1);
    for (const Dims* s : shapes) {
        const std::size_t offset = rank - s->size();
        for (std::size_t i = 0; i < s->size(); ++i) {
            const std::int64_t d = (*s)[i];
            std::int64_t& o = out[offset + i];
            if (d == o || d == 1) {
                continue;
            }
            if (o == 1) {
                o = d;
            } else {
                throw Decline{};
            }
        }
    }
    return out;
}

// Calls visit(outputIndex, inputIndices) over every element of the broadcast result.
inline void forEachBroadcast(const Dims& outDims, const std::vector<const Dims*>& shapes,
                             const std::function<void(std::int64_t, const Dims&)>& visit) {
    const std::size_t rank = outDims.size();
    std::vector<Dims> inStrides;
    for (const Dims* s : shapes) {
        Dims own = stridesOf(*s);
        Dims aligned(rank, 0);
        const std::size_t offset = rank - s->size();
        for (std::size_t i = 0; i < s->size(); ++i) {
            aligned[offset + i] = (*s)[i] == 1 ? 0 : own[i];
        }
        inStrides.push_back(std::move(aligned));
    }
    const std::int64_t count = product(outDims);
    Dims index(rank, 0);
    Dims flat(shapes.size(), 0);
    for (std::int64_t out = 0; out < count; ++out) {
        visit(out, flat);
        for (std::size_t axis = rank; axis-- > 0;) {
            ++index[axis];
            for (std::size_t k = 0; k < flat.size(); ++k) {
                flat[k] += inStrides[k][axis];
            }
            if (index[axis] < outDims[axis]) {
                break;
            }
            for (std::size_t k = 0; k < flat.size(); ++k) {
                flat[k] -= inStrides[k][axis] * index[axis];
            }
            index[axis] = 0;
        }
    }
}

// Rules that compute values (constant_folding_arithmetic.cpp). Integer arithmetic follows the
// element type: unsigned types divide and compare as unsigned, results wrap to the type's width.

ConstantTensor binary(const std::string& op, const Node& node, const ConstantTensor& a,
                      const ConstantTensor& b);
ConstantTensor unary(const std::string& op, const ConstantTensor& a);
ConstantTensor castTo(const ConstantTensor& a, DType to);
ConstantTensor where(const ConstantTensor& cond, const ConstantTensor& x, const ConstantTensor& y);
ConstantTensor range(const ConstantTensor& start, const ConstantTensor& limit,
                     const ConstantTensor& delta);
ConstantTensor reduce(const std::string& op, const ConstantTensor& data, Dims axes, bool keepDims,
                      bool noopWithEmptyAxes);

// Rules that move values without computing new ones (constant_folding_movement.cpp).

ConstantTensor gather(const ConstantTensor& data, const ConstantTensor& indices, std::int64_t axis);
ConstantTensor slice(const ConstantTensor& data, const Dims& startsIn, const Dims& endsIn,
                     const Dims& axesIn, const Dims& stepsIn);
ConstantTensor concat(std::span<const FoldInput> inputs, std::int64_t axis);
/// `t` with new dims that hold as many elements (Flatten, Reshape, Squeeze, Unsqueeze).
ConstantTensor reshaped(ConstantTensor t, Dims dims);
ConstantTensor reshape(const ConstantTensor& data, const Dims& shape, bool allowZero);
ConstantTensor unsqueeze(const ConstantTensor& data, Dims axes);
ConstantTensor squeeze(const ConstantTensor& data, Dims axes);
ConstantTensor transpose(const ConstantTensor& data, Dims perm);
ConstantTensor expand(const ConstantTensor& data, const Dims& shape);
ConstantTensor tile(const ConstantTensor& data, const Dims& repeats);
ConstantTensor scatterNd(const ConstantTensor& data, const ConstantTensor& indices,
                         const ConstantTensor& updates);
std::vector<ConstantTensor> split(const ConstantTensor& data, std::int64_t axis, Dims sizes,
                                  int outputCount);

} // namespace paretune::folding
