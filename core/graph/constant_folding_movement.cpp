// SPDX-License-Identifier: GPL-3.0-or-later
// Folding rules that move values without computing new ones: Gather, Slice, Concat, the Reshape
// family, Transpose, Expand, Tile, ScatterND and Split (see constant_folding_rules.h).
#include "constant_folding_rules.h"

#include <limits>
#include <numeric>

namespace paretune::folding {

namespace {

// Copies a strided box: out[i] = data[start + i*step] per axis.
ConstantTensor sliceBox(const ConstantTensor& data, const Dims& starts, const Dims& steps,
                        const Dims& sizes) {
    ConstantTensor out = makeTensor(data.dtype, sizes);
    const Dims strides = stridesOf(data.dims);
    const std::int64_t count = out.elementCount();
    Dims index(sizes.size(), 0);
    for (std::int64_t o = 0; o < count; ++o) {
        std::int64_t src = 0;
        for (std::size_t ax = 0; ax < sizes.size(); ++ax) {
            src += (starts[ax] + index[ax] * steps[ax]) * strides[ax];
        }
        copyElement(data, src, out, o);
        for (std::size_t ax = sizes.size(); ax-- > 0;) {
            if (++index[ax] < sizes[ax]) {
                break;
            }
            index[ax] = 0;
        }
    }
    return out;
}

} // namespace

ConstantTensor gather(const ConstantTensor& data, const ConstantTensor& indices,
                      std::int64_t axis) {
    axis = normaliseAxis(axis, data.dims.size());
    Dims outDims(data.dims.begin(), data.dims.begin() + axis);
    outDims.insert(outDims.end(), indices.dims.begin(), indices.dims.end());
    outDims.insert(outDims.end(), data.dims.begin() + axis + 1, data.dims.end());
    ConstantTensor out = makeTensor(data.dtype, outDims);
    const std::int64_t outer = std::accumulate(data.dims.begin(), data.dims.begin() + axis,
                                               std::int64_t{1}, std::multiplies<>());
    const std::int64_t inner = std::accumulate(data.dims.begin() + axis + 1, data.dims.end(),
                                               std::int64_t{1}, std::multiplies<>());
    const std::int64_t axisSize = data.dims[static_cast<std::size_t>(axis)];
    const std::int64_t indexCount = indices.elementCount();
    std::int64_t o = 0;
    for (std::int64_t a = 0; a < outer; ++a) {
        for (std::int64_t k = 0; k < indexCount; ++k) {
            std::int64_t idx = indices.integer(k);
            if (idx < 0) {
                idx += axisSize;
            }
            if (idx < 0 || idx >= axisSize) {
                throw Decline{};
            }
            for (std::int64_t b = 0; b < inner; ++b) {
                copyElement(data, (a * axisSize + idx) * inner + b, out, o++);
            }
        }
    }
    return out;
}

ConstantTensor slice(const ConstantTensor& data, const Dims& startsIn, const Dims& endsIn,
                     const Dims& axesIn, const Dims& stepsIn) {
    const std::size_t rank = data.dims.size();
    Dims starts(rank, 0);
    Dims steps(rank, 1);
    Dims sizes = data.dims;
    if (startsIn.size() != endsIn.size()) {
        throw Decline{};
    }
    for (std::size_t k = 0; k < startsIn.size(); ++k) {
        const std::int64_t axis =
            normaliseAxis(axesIn.empty() ? static_cast<std::int64_t>(k) : axesIn[k], rank);
        const std::int64_t step = stepsIn.empty() ? 1 : stepsIn[k];
        const std::int64_t dim = data.dims[static_cast<std::size_t>(axis)];
        if (step == 0 || step == std::numeric_limits<std::int64_t>::min()) {
            throw Decline{};
        }
        auto clampIndex = [&](std::int64_t v, std::int64_t lo, std::int64_t hi) {
            if (v < 0) {
                v = (v < -dim) ? lo : v + dim;
            }
            return std::clamp(v, lo, hi);
        };
        std::int64_t start = 0;
        std::int64_t size = 0;
        if (step > 0) {
            start = clampIndex(startsIn[k], 0, dim);
            const std::int64_t end = clampIndex(endsIn[k], 0, dim);
            size = end > start ? (end - start - 1) / step + 1 : 0;
        } else {
            start = clampIndex(startsIn[k], -1, dim - 1);
            const std::int64_t end = clampIndex(endsIn[k], -1, dim - 1);
            size = start > end ? (start - end - 1) / (-step) + 1 : 0;
        }
        starts[static_cast<std::size_t>(axis)] = start;
        steps[static_cast<std::size_t>(axis)] = step;
        sizes[static_cast<std::size_t>(axis)] = size;
    }
    return sliceBox(data, starts, steps, sizes);
}

ConstantTensor concat(std::span<const FoldInput> inputs, std::int64_t axis) {
    const ConstantTensor& first = need(inputs, 0);
    axis = normaliseAxis(axis, first.dims.size());
    Dims outDims = first.dims;
    outDims[static_cast<std::size_t>(axis)] = 0;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
        const ConstantTensor& t = need(inputs, k);
        bool agree = t.dims.size() == first.dims.size();
        for (std::size_t i = 0; agree && i < t.dims.size(); ++i) {
            agree = static_cast<std::int64_t>(i) == axis || t.dims[i] == first.dims[i];
        }
        if (!agree) {
            // Copying blocks of unequal size would run past the output.
            throw FoldError("Concat input " + std::to_string(k) +
                            " does not match input 0 outside axis " + std::to_string(axis));
        }
        outDims[static_cast<std::size_t>(axis)] += t.dims[static_cast<std::size_t>(axis)];
    }
    ConstantTensor out = makeTensor(first.dtype, outDims);
    const std::int64_t outer = std::accumulate(outDims.begin(), outDims.begin() + axis,
                                               std::int64_t{1}, std::multiplies<>());
    std::int64_t o = 0;
    for (std::int64_t a = 0; a < outer; ++a) {
        for (std::size_t k = 0; k < inputs.size(); ++k) {
            const ConstantTensor& t = *inputs[k].value;
            const std::int64_t block = std::accumulate(t.dims.begin() + axis, t.dims.end(),
                                                       std::int64_t{1}, std::multiplies<>());
            for (std::int64_t b = 0; b < block; ++b) {
                copyElement(t, a * block + b, out, o++);
            }
        }
    }
    return out;
}

ConstantTensor reshaped(ConstantTensor t, Dims dims) {
    if (product(dims) != t.elementCount()) {
        throw Decline{};
    }
    t.dims = std::move(dims);
    return t;
}

ConstantTensor reshape(const ConstantTensor& data, const Dims& shape, bool allowZero) {
    Dims dims = shape;
    std::int64_t known = 1;
    int inferred = -1;
    for (std::size_t i = 0; i < dims.size(); ++i) {
        if (dims[i] == 0 && !allowZero) {
            if (i >= data.dims.size()) {
                throw Decline{};
            }
            dims[i] = data.dims[i];
        }
        if (dims[i] == -1) {
            if (inferred >= 0) {
                throw Decline{};
            }
            inferred = static_cast<int>(i);
        } else if (dims[i] < 0 || (dims[i] > 0 && known > ConstantTensor::kMaxElements / dims[i])) {
            throw Decline{};
        } else {
            known *= dims[i];
        }
    }
    if (inferred >= 0) {
        if (known == 0) {
            throw Decline{};
        }
        dims[static_cast<std::size_t>(inferred)] = data.elementCount() / known;
    }
    return reshaped(data, dims);
}

ConstantTensor unsqueeze(const ConstantTensor& data, Dims axes) {
    const std::size_t rank = data.dims.size() + axes.size();
    for (std::int64_t& a : axes) {
        a = normaliseAxis(a, rank);
    }
    std::sort(axes.begin(), axes.end());
    Dims dims;
    std::size_t src = 0;
    for (std::size_t i = 0; i < rank; ++i) {
        if (std::binary_search(axes.begin(), axes.end(), static_cast<std::int64_t>(i))) {
            dims.push_back(1);
        } else {
            if (src >= data.dims.size()) {
                throw Decline{};
            }
            dims.push_back(data.dims[src++]);
        }
    }
    return reshaped(data, dims);
}

ConstantTensor squeeze(const ConstantTensor& data, Dims axes) {
    for (std::int64_t& a : axes) {
        a = normaliseAxis(a, data.dims.size());
    }
    Dims dims;
    for (std::size_t i = 0; i < data.dims.size(); ++i) {
        const bool listed =
            std::find(axes.begin(), axes.end(), static_cast<std::int64_t>(i)) != axes.end();
        if (axes.empty() ? data.dims[i] == 1 : listed) {
            if (data.dims[i] != 1) {
                throw Decline{};
            }
            continue;
        }
        dims.push_back(data.dims[i]);
    }
    return reshaped(data, dims);
}

ConstantTensor transpose(const ConstantTensor& data, Dims perm) {
    const std::size_t rank = data.dims.size();
    if (perm.empty()) {
        for (std::size_t i = 0; i < rank; ++i) {
            perm.push_back(static_cast<std::int64_t>(rank - 1 - i));
        }
    }
    if (perm.size() != rank) {
        throw Decline{};
    }
    std::vector<bool> used(rank, false);
    for (std::int64_t& p : perm) {
        p = normaliseAxis(p, rank);
        if (used[static_cast<std::size_t>(p)]) {
            std::string text;
            for (const std::int64_t q : perm) {
                text += (text.empty() ? "" : ",") + std::to_string(q);
            }
            throw FoldError("attribute 'perm' [" + text +
                            "] names an axis twice; it must be a "
                            "permutation of the " +
                            std::to_string(rank) + " axes");
        }
        used[static_cast<std::size_t>(p)] = true;
    }
    Dims outDims(rank);
    for (std::size_t i = 0; i < rank; ++i) {
        outDims[i] = data.dims[static_cast<std::size_t>(normaliseAxis(perm[i], rank))];
    }
    ConstantTensor out = makeTensor(data.dtype, outDims);
    const Dims inStrides = stridesOf(data.dims);
    Dims index(rank, 0);
    const std::int64_t count = out.elementCount();
    for (std::int64_t o = 0; o < count; ++o) {
        std::int64_t src = 0;
        for (std::size_t ax = 0; ax < rank; ++ax) {
            src += index[ax] * inStrides[static_cast<std::size_t>(perm[ax])];
        }
        copyElement(data, src, out, o);
        for (std::size_t ax = rank; ax-- > 0;) {
            if (++index[ax] < outDims[ax]) {
                break;
            }
            index[ax] = 0;
        }
    }
    return out;
}

ConstantTensor expand(const ConstantTensor& data, const Dims& shape) {
    const Dims outDims = broadcastDims({&data.dims, &shape});
    ConstantTensor out = makeTensor(data.dtype, outDims);
    forEachBroadcast(outDims, {&data.dims},
                     [&](std::int64_t o, const Dims& in) { copyElement(data, in[0], out, o); });
    return out;
}

ConstantTensor tile(const ConstantTensor& data, const Dims& repeats) {
    if (repeats.size() != data.dims.size()) {
        throw Decline{};
    }
    Dims outDims = data.dims;
    for (std::size_t i = 0; i < outDims.size(); ++i) {
        if (repeats[i] < 0 ||
            (repeats[i] > 0 && outDims[i] > ConstantTensor::kMaxElements / repeats[i])) {
            throw Decline{};
        }
        outDims[i] *= repeats[i];
    }
    ConstantTensor out = makeTensor(data.dtype, outDims);
    const Dims inStrides = stridesOf(data.dims);
    Dims index(outDims.size(), 0);
    const std::int64_t count = out.elementCount();
    for (std::int64_t o = 0; o < count; ++o) {
        std::int64_t src = 0;
        for (std::size_t ax = 0; ax < outDims.size(); ++ax) {
            src += (index[ax] % data.dims[ax]) * inStrides[ax];
        }
        copyElement(data, src, out, o);
        for (std::size_t ax = outDims.size(); ax-- > 0;) {
            if (++index[ax] < outDims[ax]) {
                break;
            }
            index[ax] = 0;
        }
    }
    return out;
}

ConstantTensor scatterNd(const ConstantTensor& data, const ConstantTensor& indices,
                         const ConstantTensor& updates) {
    ConstantTensor out = data;
    if (indices.dims.empty()) {
        throw Decline{};
    }
    const std::int64_t depth = indices.dims.back();
    if (depth > static_cast<std::int64_t>(data.dims.size())) {
        throw Decline{};
    }
    const Dims strides = stridesOf(data.dims);
    const std::int64_t slice = std::accumulate(data.dims.begin() + depth, data.dims.end(),
                                               std::int64_t{1}, std::multiplies<>());
    const std::int64_t tuples = indices.elementCount() / std::max<std::int64_t>(1, depth);
    if (updates.elementCount() != tuples * slice) {
        throw Decline{};
    }
    for (std::int64_t t = 0; t < tuples; ++t) {
        std::int64_t base = 0;
        for (std::int64_t k = 0; k < depth; ++k) {
            std::int64_t idx = indices.integer(t * depth + k);
            const std::int64_t dim = data.dims[static_cast<std::size_t>(k)];
            if (idx < 0) {
                idx += dim;
            }
            if (idx < 0 || idx >= dim) {
                throw Decline{};
            }
            base += idx * strides[static_cast<std::size_t>(k)];
        }
        for (std::int64_t s = 0; s < slice; ++s) {
            copyElement(updates, t * slice + s, out, base + s);
        }
    }
    return out;
}

std::vector<ConstantTensor> split(const ConstantTensor& data, std::int64_t axis, Dims sizes,
                                  int outputCount) {
    axis = normaliseAxis(axis, data.dims.size());
    const std::int64_t dim = data.dims[static_cast<std::size_t>(axis)];
    if (sizes.empty()) {
        if (outputCount <= 0 || dim % outputCount != 0) {
            throw Decline{};
        }
        sizes.assign(static_cast<std::size_t>(outputCount), dim / outputCount);
    }
    std::int64_t total = 0;
    for (const std::int64_t size : sizes) {
        if (size < 0 || size > dim) {
            throw FoldError("Split size " + std::to_string(size) + " is outside [0, " +
                            std::to_string(dim) + "], the input's extent along axis " +
                            std::to_string(axis));
        }
        total += size;
    }
    if (total != dim || static_cast<int>(sizes.size()) != outputCount) {
        throw FoldError("Split sizes add up to " + std::to_string(total) + " in " +
                        std::to_string(sizes.size()) + " parts, but the input has " +
                        std::to_string(dim) + " along axis " + std::to_string(axis) + " and " +
                        std::to_string(outputCount) + " outputs");
    }
    std::vector<ConstantTensor> outs;
    std::int64_t offset = 0;
    const std::size_t rank = data.dims.size();
    for (const std::int64_t size : sizes) {
        Dims starts(rank, 0);
        Dims steps(rank, 1);
        Dims box = data.dims;
        starts[static_cast<std::size_t>(axis)] = offset;
        box[static_cast<std::size_t>(axis)] = size;
        outs.push_back(sliceBox(data, starts, steps, box));
        offset += size;
    }
    if (offset != dim) {
        throw Decline{};
    }
    return outs;
}

} // namespace paretune::folding
