// SPDX-License-Identifier: GPL-3.0-or-later
// ONNX operators that change shape or layout, index, or make tensors, on ATen.
#include "op_kernel_context.h"

#include <algorithm>
#include <numeric>
#include <optional>

namespace paretune::detail {
namespace {

at::Tensor reshape(const Context& c) {
    const at::Tensor& x = c.input(0);
    Ints shape = toInts(c.input(1));
    const bool allowZero = c.node.attrInt("allowzero", 0) != 0;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] == 0 && !allowZero) {
            if (static_cast<std::int64_t>(i) >= x.dim()) {
                throw OpFailure("Reshape copies dimension " + std::to_string(i) + " of a rank-" +
                                std::to_string(x.dim()) + " input");
            }
            shape[i] = x.size(static_cast<std::int64_t>(i));
        }
    }
    return x.reshape(shape);
}

at::Tensor flatten(const Context& c) {
    const at::Tensor& x = c.input(0);
    const std::int64_t rank = x.dim();
    std::int64_t axis = c.node.attrInt("axis", 1);
    axis = axis < 0 ? axis + rank : axis;
    if (axis < 0 || axis > rank) {
        throw OpFailure("Flatten axis out of range");
    }
    std::int64_t outer = 1;
    for (std::int64_t i = 0; i < axis; ++i) {
        outer *= x.size(i);
    }
    std::int64_t inner = 1;
    for (std::int64_t i = axis; i < rank; ++i) {
        inner *= x.size(i);
    }
    return x.reshape({outer, inner});
}

at::Tensor squeeze(const Context& c) {
    at::Tensor x = c.input(0);
    const auto axes = intsInputOrAttr(c, 1, "axes");
    if (!axes || axes->empty()) {
        Ints shape;
        for (std::int64_t d : x.sizes()) {
            if (d != 1) {
                shape.push_back(d);
            }
        }
        return x.reshape(shape);
    }
    Ints sorted;
    for (std::int64_t a : *axes) {
        sorted.push_back(normAxis(a, x.dim()));
    }
    std::sort(sorted.rbegin(), sorted.rend());
    for (std::int64_t a : sorted) {
        x = x.squeeze(a);
    }
    return x;
}

at::Tensor unsqueeze(const Context& c) {
    at::Tensor x = c.input(0);
    const auto axes = intsInputOrAttr(c, 1, "axes");
    if (!axes) {
        throw OpFailure("Unsqueeze has no axes");
    }
    const std::int64_t outRank = x.dim() + static_cast<std::int64_t>(axes->size());
    Ints sorted;
    for (std::int64_t a : *axes) {
        sorted.push_back(normAxis(a, outRank));
    }
    std::sort(sorted.begin(), sorted.end());
    for (std::int64_t a : sorted) {
        x = x.unsqueeze(a);
    }
    return x;
}

at::Tensor transpose(const Context& c) {
    const at::Tensor& x = c.input(0);
    Ints perm = c.node.attrInts("perm");
    if (perm.empty()) {
        perm.resize(static_cast<std::size_t>(x.dim()));
        std::iota(perm.rbegin(), perm.rend(), 0);
    }
    // ONNX Transpose produces a new buffer; a runtime copies, so do we.
    return x.permute(perm).contiguous();
}

Tensors split(const Context& c) {
    const at::Tensor& x = c.input(0);
    const std::int64_t axis = normAxis(c.node.attrInt("axis", 0), x.dim());
    auto sizes = intsInputOrAttr(c, 1, "split");
    if (!sizes || sizes->empty()) {
        const std::int64_t parts = c.node.attrInt("num_outputs", c.outputCount());
        const std::int64_t d = x.size(axis);
        const std::int64_t chunk = (d + parts - 1) / parts;
        sizes = Ints{};
        for (std::int64_t start = 0; start < d; start += chunk) {
            sizes->push_back(std::min(chunk, d - start));
        }
    }
    Tensors outs;
    for (const at::Tensor& part : at::split_with_sizes(x, *sizes, axis)) {
        outs.push_back(part.contiguous());
    }
    return outs;
}

at::Tensor slice(const Context& c) {
    const at::Tensor& x = c.input(0);
    Ints starts;
    Ints ends;
    std::optional<Ints> axes;
    std::optional<Ints> steps;
    if (c.opset() < 10) {
        starts = c.node.attrInts("starts");
        ends = c.node.attrInts("ends");
        if (c.node.attribute("axes")) {
            axes = c.node.attrInts("axes");
        }
    } else {
        starts = toInts(c.input(1));
        ends = toInts(c.input(2));
        if (c.has(3)) {
            axes = toInts(c.in[3]);
        }
        if (c.has(4)) {
            steps = toInts(c.in[4]);
        }
    }
    if (!axes) {
        axes = Ints(starts.size());
        std::iota(axes->begin(), axes->end(), 0);
    }
    if (!steps) {
        steps = Ints(starts.size(), 1);
    }
    if (ends.size() != starts.size() || axes->size() != starts.size() ||
        steps->size() != starts.size()) {
        throw OpFailure("Slice starts, ends, axes and steps differ in length");
    }
    at::Tensor y = x;
    for (std::size_t j = 0; j < starts.size(); ++j) {
        const std::int64_t axis = normAxis((*axes)[j], x.dim());
        const std::int64_t d = x.size(axis);
        const std::int64_t step = (*steps)[j];
        if (step == 0) {
            throw OpFailure("Slice step is 0");
        }
        std::int64_t start = starts[j] < 0 ? starts[j] + d : starts[j];
        std::int64_t end = ends[j] < 0 ? ends[j] + d : ends[j];
        if (step > 0) {
            start = std::clamp<std::int64_t>(start, 0, d);
            end = std::clamp<std::int64_t>(end, 0, d);
            y = y.slice(axis, start, std::max(start, end), step);
        } else {
            start = std::clamp<std::int64_t>(start, 0, d - 1);
            end = std::clamp<std::int64_t>(end, -1, d - 1);
            const std::int64_t count = start > end ? (start - end - 1) / (-step) + 1 : 0;
            const at::Tensor index =
                at::arange(count, at::TensorOptions().dtype(at::kLong)) * step + start;
            y = y.index_select(axis, index);
        }
    }
    return y.contiguous();
}

at::Tensor gather(const Context& c) {
    const at::Tensor& x = c.input(0);
    const std::int64_t axis = normAxis(c.node.attrInt("axis", 0), x.dim());
    at::Tensor index = c.input(1).to(at::kLong);
    index = at::where(index < 0, index + x.size(axis), index);
    Ints shape(x.sizes().begin(), x.sizes().begin() + axis);
    shape.insert(shape.end(), index.sizes().begin(), index.sizes().end());
    shape.insert(shape.end(), x.sizes().begin() + axis + 1, x.sizes().end());
    return x.index_select(axis, index.reshape({-1})).reshape(shape);
}

at::Tensor gatherElements(const Context& c) {
    const at::Tensor& x = c.input(0);
    const std::int64_t axis = normAxis(c.node.attrInt("axis", 0), x.dim());
    at::Tensor index = c.input(1).to(at::kLong);
    index = at::where(index < 0, index + x.size(axis), index);
    return at::gather(x, axis, index);
}

Ints broadcastShape(at::IntArrayRef a, at::IntArrayRef b) {
    const std::size_t rank = std::max(a.size(), b.size());
    Ints out(rank, 1);
    for (std::size_t i = 0; i < rank; ++i) {
        const std::int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
        const std::int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
        if (da != db && da != 1 && db != 1) {
            throw OpFailure("shapes " + dimsText(a) + " and " + dimsText(b) + " do not broadcast");
        }
        out[i] = da == 1 ? db : da;
    }
    return out;
}

at::Tensor expand(const Context& c) {
    const at::Tensor& x = c.input(0);
    const Ints shape = toInts(c.input(1));
    return x.expand(broadcastShape(x.sizes(), shape)).contiguous();
}

at::Tensor constantOfShape(const Context& c) {
    const Ints shape = toInts(c.input(0));
    const Attribute* value = c.node.attribute("value");
    if (value && value->tensor && value->tensor->elementCount() > 0) {
        const at::Tensor v = tensorFromConstant(*value->tensor);
        return at::full(shape, v.reshape({-1})[0].item(),
                        at::TensorOptions().dtype(v.scalar_type()));
    }
    return at::zeros(shape, at::TensorOptions().dtype(at::kFloat));
}

at::Tensor scatterNd(const Context& c) {
    const at::Tensor& data = c.input(0);
    const at::Tensor index = c.input(1).to(at::kLong);
    const at::Tensor& updates = c.input(2);
    const std::int64_t k = index.size(-1);
    if (k > data.dim()) {
        throw OpFailure("ScatterND index depth exceeds the data rank");
    }
    at::Tensor linear = at::zeros(index.sizes().slice(0, static_cast<std::size_t>(index.dim() - 1)),
                                  index.options());
    std::int64_t leading = 1;
    for (std::int64_t j = k; j-- > 0;) {
        at::Tensor component = index.select(-1, j);
        component = at::where(component < 0, component + data.size(j), component);
        linear = linear + component * leading;
        leading *= data.size(j);
    }
    Ints viewShape{leading};
    viewShape.insert(viewShape.end(), data.sizes().begin() + k, data.sizes().end());
    Ints updateShape{-1};
    updateShape.insert(updateShape.end(), data.sizes().begin() + k, data.sizes().end());
    at::Tensor out = data.clone(at::MemoryFormat::Contiguous);
    at::Tensor view = out.view(viewShape);
    const std::string reduction = c.node.attrString("reduction", "none");
    if (reduction == "none") {
        view.index_copy_(0, linear.reshape({-1}), updates.reshape(updateShape));
    } else if (reduction == "add") {
        view.index_add_(0, linear.reshape({-1}), updates.reshape(updateShape));
    } else {
        throw UnsupportedOp("ScatterND reduction '" + reduction + "'");
    }
    return out;
}

} // namespace

void addShapeKernels(KernelTable& t) {
    t["Flatten"] = [](const Context& c) { return Tensors{flatten(c)}; };
    t["Reshape"] = [](const Context& c) { return Tensors{reshape(c)}; };
    t["Transpose"] = [](const Context& c) { return Tensors{transpose(c)}; };
    t["Concat"] = [](const Context& c) {
        std::vector<at::Tensor> parts;
        for (const at::Tensor& x : c.in) {
            if (x.defined()) {
                parts.push_back(x);
            }
        }
        if (parts.empty()) {
            throw OpFailure("Concat has no inputs");
        }
        return Tensors{at::cat(parts, normAxis(c.node.attrInt("axis", 0), parts[0].dim()))};
    };
    t["Split"] = split;
    t["Slice"] = [](const Context& c) { return Tensors{slice(c)}; };
    t["Gather"] = [](const Context& c) { return Tensors{gather(c)}; };
    t["GatherElements"] = [](const Context& c) { return Tensors{gatherElements(c)}; };
    t["Squeeze"] = [](const Context& c) { return Tensors{squeeze(c)}; };
    t["Unsqueeze"] = [](const Context& c) { return Tensors{unsqueeze(c)}; };
    t["Expand"] = [](const Context& c) { return Tensors{expand(c)}; };
    t["Tile"] = [](const Context& c) { return Tensors{c.input(0).repeat(toInts(c.input(1)))}; };
    t["Where"] = [](const Context& c) {
        return Tensors{at::where(c.input(0).to(at::kBool), c.input(1), c.input(2))};
    };
    t["Cast"] = [](const Context& c) {
        const DType to = dtypeFromOnnx(static_cast<std::int32_t>(c.node.attrInt("to", 0)));
        return Tensors{c.input(0).to(scalarTypeOf(to))};
    };
    t["Range"] = [](const Context& c) {
        const at::Tensor& start = c.input(0);
        return Tensors{at::arange(start.item(), c.input(1).item(), c.input(2).item(),
                                  at::TensorOptions().dtype(start.scalar_type()))};
    };
    t["ConstantOfShape"] = [](const Context& c) { return Tensors{constantOfShape(c)}; };
    t["ScatterND"] = [](const Context& c) { return Tensors{scatterNd(c)}; };
    t["Identity"] = [](const Context& c) { return Tensors{c.input(0)}; };
    t["Dropout"] = [](const Context& c) {
        if (c.has(2) && c.in[2].numel() > 0 && c.in[2].to(at::kBool).item<bool>()) {
            throw UnsupportedOp("Dropout in training mode (random)");
        }
        // Inference: the output is the input; the mask, when asked for, keeps everything.
        Tensors outs{c.input(0)};
        if (c.wantsOutput(1)) {
            outs.push_back(at::ones(c.input(0).sizes(), at::TensorOptions().dtype(at::kBool)));
        }
        return outs;
    };
    t["Shape"] = [](const Context& c) {
        const at::Tensor& x = c.input(0);
        const std::int64_t rank = x.dim();
        std::int64_t start = c.node.attrInt("start", 0);
        std::int64_t end = c.node.attrInt("end", rank);
        start = std::clamp<std::int64_t>(start < 0 ? start + rank : start, 0, rank);
        end = std::clamp<std::int64_t>(end < 0 ? end + rank : end, 0, rank);
        const Ints dims(x.sizes().begin() + start, x.sizes().begin() + std::max(start, end));
        return Tensors{
            at::tensor(at::ArrayRef<std::int64_t>(dims), at::TensorOptions().dtype(at::kLong))};
    };
    t["Size"] = [](const Context& c) {
        return Tensors{at::scalar_tensor(c.input(0).numel(), at::TensorOptions().dtype(at::kLong))};
    };
}

} // namespace paretune::detail
