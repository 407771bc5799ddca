// ONNX operator semantics on ATen, and inputs that make each operator meaningful.
#include "op_kernels.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <unordered_map>

namespace paretune::detail {
namespace {

using Tensors = std::vector<at::Tensor>;
using Ints = std::vector<std::int64_t>;

struct Context {
    const Graph& graph;
    NodeId id;
    const Node& node;
    const Tensors& in;

    std::int64_t opset() const { return graph.opset; }
    bool has(std::size_t i) const { return i < in.size() && in[i].defined(); }
    const at::Tensor& input(std::size_t i) const {
        if (!has(i)) {
            throw OpFailure("input " + std::to_string(i) + " is missing");
        }
        return in[i];
    }
    int outputCount() const { return static_cast<int>(graph.nodeOutputs.row(id).size()); }
    bool wantsOutput(int i) const {
        const auto outs = graph.nodeOutputs.row(id);
        return i < static_cast<int>(outs.size()) && outs[static_cast<std::size_t>(i)] != kNone;
    }
};

using Kernel = std::function<Tensors(const Context&)>;

at::Tensor longTensor(const Ints& values);

Ints toInts(const at::Tensor& t) {
    const at::Tensor c = t.to(at::kLong).contiguous();
    const auto* p = c.data_ptr<std::int64_t>();
    return Ints(p, p + c.numel());
}

std::int64_t normAxis(std::int64_t axis, std::int64_t rank) {
    const std::int64_t a = axis < 0 ? axis + rank : axis;
    if (a < 0 || a >= std::max<std::int64_t>(rank, 1)) {
        throw OpFailure("axis " + std::to_string(axis) + " is out of range for rank " +
                        std::to_string(rank));
    }
    return a;
}

/// An int list given as an input (newer opsets) or as an attribute (older ones).
std::optional<Ints> intsInputOrAttr(const Context& c, std::size_t inputIndex,
                                    std::string_view attr) {
    if (c.has(inputIndex)) {
        return toInts(c.in[inputIndex]);
    }
    if (c.node.attribute(attr)) {
        return c.node.attrInts(attr);
    }
    return std::nullopt;
}

// ---- pooling and convolution geometry -----------------------------------------------------

struct Pads {
    Ints begin;
    Ints end;
    bool symmetric() const { return begin == end; }
};

Pads resolvePads(const Node& node, at::IntArrayRef spatialIn, const Ints& kernel,
                 const Ints& strides, const Ints& dilations) {
    const std::size_t k = kernel.size();
    Pads p{Ints(k, 0), Ints(k, 0)};
    const std::string autoPad = node.attrString("auto_pad", "NOTSET");
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
        for (std::size_t i = 0; i < k; ++i) {
            const std::int64_t in = spatialIn[i];
            const std::int64_t out = (in + strides[i] - 1) / strides[i];
            const std::int64_t total = std::max<std::int64_t>(
                (out - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - in, 0);
            const std::int64_t small = total / 2;
            p.begin[i] = autoPad == "SAME_UPPER" ? small : total - small;
            p.end[i] = total - p.begin[i];
        }
    } else if (autoPad != "VALID") {
        const Ints pads = node.attrInts("pads");
        if (pads.size() == 2 * k) {
            std::copy(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(k), p.begin.begin());
            std::copy(pads.begin() + static_cast<std::ptrdiff_t>(k), pads.end(), p.end.begin());
        } else if (!pads.empty()) {
            throw OpFailure("pads has " + std::to_string(pads.size()) + " values, expected " +
                            std::to_string(2 * k));
        }
    }
    return p;
}

/// torch's pad list: last dimension first, (begin, end) pairs.
Ints torchPadList(const Ints& begin, const Ints& end) {
    Ints list;
    for (std::size_t i = begin.size(); i-- > 0;) {
        list.push_back(begin[i]);
        list.push_back(end[i]);
    }
    return list;
}

Ints attrIntsOr(const Node& node, std::string_view name, std::size_t k, std::int64_t fallback) {
    Ints v = node.attrInts(name);
    if (v.empty()) {
        v.assign(k, fallback);
    }
    if (v.size() != k) {
        throw OpFailure(std::string(name) + " has " + std::to_string(v.size()) +
                        " values, expected " + std::to_string(k));
    }
    return v;
}

at::Tensor conv(const Context& c) {
    const at::Tensor& x = c.input(0);
    const at::Tensor& w = c.input(1);
    const std::size_t k = static_cast<std::size_t>(x.dim() - 2);
    if (k < 1 || k > 3) {
        throw UnsupportedOp("Conv with " + std::to_string(k) + " spatial dimensions");
    }
    const Ints kernel(w.sizes().begin() + 2, w.sizes().end());
    const Ints strides = attrIntsOr(c.node, "strides", k, 1);
    const Ints dilations = attrIntsOr(c.node, "dilations", k, 1);
    const Pads pads = resolvePads(c.node, x.sizes().slice(2), kernel, strides, dilations);
    at::Tensor input = x;
    Ints padding = pads.begin;
    if (!pads.symmetric()) {
        input = at::constant_pad_nd(x, torchPadList(pads.begin, pads.end), 0);
        padding.assign(k, 0);
    }
    const c10::optional<at::Tensor> bias =
        c.has(2) ? c10::optional<at::Tensor>(c.in[2]) : c10::nullopt;
    return at::convolution(input, w, bias, strides, padding, dilations, false, Ints(k, 0),
                           c.node.attrInt("group", 1));
}

enum class PoolKind { Max, Average };

Tensors pool(const Context& c, PoolKind kind) {
    const at::Tensor& x = c.input(0);
    const std::size_t k = static_cast<std::size_t>(x.dim() - 2);
    if (k < 1 || k > 3) {
        throw UnsupportedOp("pooling with " + std::to_string(k) + " spatial dimensions");
    }
    const Ints kernel = c.node.attrInts("kernel_shape");
    if (kernel.size() != k) {
        throw OpFailure("kernel_shape has " + std::to_string(kernel.size()) + " values, expected " +
                        std::to_string(k));
    }
    const Ints strides = attrIntsOr(c.node, "strides", k, 1);
    const Ints dilations = attrIntsOr(c.node, "dilations", k, 1);
    const bool ceil = c.node.attrInt("ceil_mode", 0) != 0;
    const Pads pads = resolvePads(c.node, x.sizes().slice(2), kernel, strides, dilations);
    bool native = pads.symmetric();
    for (std::size_t i = 0; i < k && native; ++i) {
        native = pads.begin[i] <= kernel[i] / 2;
    }
    if (kind == PoolKind::Max) {
        // LibTorch pools floating point only; 8-bit integers go through float and back (exact).
        const bool integral = at::isIntegralType(x.scalar_type(), true);
        at::Tensor input = integral ? x.to(at::kFloat) : x;
        Ints padding = pads.begin;
        if (!native) {
            input = at::constant_pad_nd(input, torchPadList(pads.begin, pads.end),
                                        -std::numeric_limits<double>::infinity());
            padding.assign(k, 0);
        }
        if (c.wantsOutput(1)) {
            // Indices: ONNX counts over the whole flattened tensor (storage_order 0), LibTorch
            // within each N·C plane.
            if (k != 2 || !native || c.node.attrInt("storage_order", 0) != 0) {
                throw UnsupportedOp("MaxPool indices other than 2-D, row-major, without "
                                    "asymmetric padding");
            }
            auto [y, index] =
                at::max_pool2d_with_indices(input, kernel, strides, padding, dilations, ceil);
            const std::int64_t plane = x.size(2) * x.size(3);
            const at::Tensor offset = at::arange(x.size(0) * x.size(1), index.options())
                                          .reshape({x.size(0), x.size(1), 1, 1}) *
                                      plane;
            return {integral ? y.to(x.scalar_type()) : y, index + offset};
        }
        at::Tensor y;
        switch (k) {
        case 1:
            y = at::max_pool1d(input, kernel, strides, padding, dilations, ceil);
            break;
        case 2:
            y = at::max_pool2d(input, kernel, strides, padding, dilations, ceil);
            break;
        default:
            y = at::max_pool3d(input, kernel, strides, padding, dilations, ceil);
            break;
        }
        return {integral ? y.to(x.scalar_type()) : y};
    }
    if (std::any_of(dilations.begin(), dilations.end(), [](std::int64_t d) { return d != 1; })) {
        throw UnsupportedOp("AveragePool with dilations");
    }
    const bool includePad = c.node.attrInt("count_include_pad", 0) != 0;
    auto avg = [&](const at::Tensor& t, const Ints& padding, bool include) {
        switch (k) {
        case 1:
            return at::avg_pool1d(t, kernel, strides, padding, ceil, include);
        case 2:
            return at::avg_pool2d(t, kernel, strides, padding, ceil, include, c10::nullopt);
        default:
            return at::avg_pool3d(t, kernel, strides, padding, ceil, include, c10::nullopt);
        }
    };
    if (native) {
        return {avg(x, pads.begin, includePad)};
    }
    const Ints padList = torchPadList(pads.begin, pads.end);
    const at::Tensor padded = at::constant_pad_nd(x, padList, 0);
    const at::Tensor sums = avg(padded, Ints(k, 0), true);
    if (includePad) {
        return {sums};
    }
    // Average over the real elements only: divide by the share of each window inside x.
    Ints onesShape(x.dim(), 1);
    std::copy(x.sizes().begin() + 2, x.sizes().end(), onesShape.begin() + 2);
    const at::Tensor share =
        avg(at::constant_pad_nd(at::ones(onesShape, x.options()), padList, 0), Ints(k, 0), true);
    return {sums / share};
}

// ---- shape-changing ops -------------------------------------------------------------------

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

at::Tensor pad(const Context& c) {
    const at::Tensor& x = c.input(0);
    const std::int64_t rank = x.dim();
    const std::string mode = c.node.attrString("mode", "constant");
    Ints pads;
    double value = 0.0;
    if (c.opset() < 11) {
        pads = c.node.attrInts("pads");
        value = c.node.attrFloat("value", 0.0);
    } else {
        pads = toInts(c.input(1));
        if (c.has(2) && c.in[2].numel() > 0) {
            value = c.in[2].to(at::kDouble).reshape({-1})[0].item<double>();
        }
    }
    Ints axes(static_cast<std::size_t>(rank));
    std::iota(axes.begin(), axes.end(), 0);
    if (c.has(3)) {
        axes = toInts(c.in[3]);
    }
    if (pads.size() != 2 * axes.size()) {
        throw OpFailure("pads has " + std::to_string(pads.size()) + " values, expected " +
                        std::to_string(2 * axes.size()));
    }
    Ints begin(static_cast<std::size_t>(rank), 0);
    Ints end(static_cast<std::size_t>(rank), 0);
    for (std::size_t j = 0; j < axes.size(); ++j) {
        const auto a = static_cast<std::size_t>(normAxis(axes[j], rank));
        begin[a] = pads[j];
        end[a] = pads[j + axes.size()];
    }
    if (mode == "constant") {
        return at::constant_pad_nd(x, torchPadList(begin, end), value);
    }
    if (mode != "reflect" && mode != "edge") {
        throw UnsupportedOp("Pad mode '" + mode + "'");
    }
    // reflection/replication kernels pad the last 1-3 dimensions of a [batch, ...] tensor.
    std::int64_t first = rank;
    for (std::int64_t i = 0; i < rank; ++i) {
        if (begin[static_cast<std::size_t>(i)] != 0 || end[static_cast<std::size_t>(i)] != 0) {
            first = i;
            break;
        }
    }
    if (first == rank) {
        return x.clone();
    }
    const std::int64_t padded = rank - first;
    if (padded > 3) {
        throw UnsupportedOp("Pad mode '" + mode + "' over more than 3 dimensions");
    }
    Ints inner(x.sizes().begin() + first, x.sizes().end());
    Ints batched{-1};
    batched.insert(batched.end(), inner.begin(), inner.end());
    // The reflection and replication kernels take floating point only; integers go through
    // double and back (exact up to 2^53).
    const bool integral = at::isIntegralType(x.scalar_type(), true);
    const at::Tensor xb = (integral ? x.to(at::kDouble) : x).reshape(batched);
    const Ints list = torchPadList(Ints(begin.begin() + first, begin.end()),
                                   Ints(end.begin() + first, end.end()));
    at::Tensor yb;
    const bool reflect = mode == "reflect";
    switch (padded) {
    case 1:
        yb = reflect ? at::reflection_pad1d(xb, list) : at::replication_pad1d(xb, list);
        break;
    case 2:
        yb = reflect ? at::reflection_pad2d(xb, list) : at::replication_pad2d(xb, list);
        break;
    default:
        yb = reflect ? at::reflection_pad3d(xb, list) : at::replication_pad3d(xb, list);
        break;
    }
    Ints outShape(x.sizes().begin(), x.sizes().begin() + first);
    outShape.insert(outShape.end(), yb.sizes().begin() + 1, yb.sizes().end());
    return integral ? yb.reshape(outShape).to(x.scalar_type()) : yb.reshape(outShape);
}

at::Tensor resize(const Context& c) {
    const at::Tensor& x = c.input(0);
    const std::int64_t rank = x.dim();
    Ints out;
    std::vector<double> scales; // per dimension, when given instead of sizes
    const std::size_t scalesIndex = c.opset() < 11 ? 1 : 2;
    if (c.opset() >= 11 && c.has(3) && c.in[3].numel() > 0) {
        out = toInts(c.in[3]);
    } else if (c.has(scalesIndex) && c.in[scalesIndex].numel() > 0) {
        const at::Tensor given = c.in[scalesIndex].to(at::kDouble).contiguous();
        scales.assign(given.data_ptr<double>(), given.data_ptr<double>() + given.numel());
        for (std::size_t i = 0; i < scales.size(); ++i) {
            out.push_back(static_cast<std::int64_t>(
                std::floor(static_cast<double>(x.size(static_cast<std::int64_t>(i))) * scales[i])));
        }
    } else {
        throw OpFailure("Resize has neither scales nor sizes");
    }
    if (static_cast<std::int64_t>(out.size()) != rank || rank < 3 || rank > 5 ||
        out[0] != x.size(0) || out[1] != x.size(1)) {
        throw UnsupportedOp("Resize other than of the spatial dimensions of an N,C,... tensor");
    }
    const Ints spatialOut(out.begin() + 2, out.end());
    const at::IntArrayRef size(spatialOut);
    // With scales given, LibTorch maps coordinates with them as ONNX does (not with in/out).
    auto scale = [&](std::size_t spatial) -> c10::optional<double> {
        return scales.empty() ? c10::optional<double>()
                              : c10::optional<double>(scales[spatial + 2]);
    };
    const std::string mode = c.node.attrString("mode", "nearest");
    std::string transform = c.node.attrString("coordinate_transformation_mode",
                                              c.opset() < 11 ? "asymmetric" : "half_pixel");
    if (transform == "pytorch_half_pixel" &&
        std::all_of(spatialOut.begin(), spatialOut.end(), [](std::int64_t d) { return d > 1; })) {
        transform = "half_pixel";
    }
    const std::int64_t k = rank - 2;
    if (mode == "nearest") {
        // Nearest: ONNX's coordinate transform and rounding per output index, then a gather
        // along each spatial dimension (LibTorch's nearest kernels round ties differently).
        const std::string rounding = c.node.attrString("nearest_mode", "round_prefer_floor");
        at::Tensor y = x;
        for (std::int64_t i = 0; i < k; ++i) {
            const std::int64_t in = x.size(i + 2);
            const std::int64_t outSize = spatialOut[static_cast<std::size_t>(i)];
            const double factor = scales.empty() ? static_cast<double>(outSize) / in
                                                 : scales[static_cast<std::size_t>(i) + 2];
            std::vector<std::int64_t> index(static_cast<std::size_t>(outSize));
            for (std::int64_t o = 0; o < outSize; ++o) {
                const double r = static_cast<double>(o);
                double src = 0.0;
                if (transform == "half_pixel") {
                    src = (r + 0.5) / factor - 0.5;
                } else if (transform == "pytorch_half_pixel") {
                    src = outSize > 1 ? (r + 0.5) / factor - 0.5 : 0.0;
                } else if (transform == "align_corners") {
                    src = outSize == 1 ? 0.0
                                       : r * static_cast<double>(in - 1) /
                                             static_cast<double>(outSize - 1);
                } else if (transform == "asymmetric") {
                    src = r / factor;
                } else if (transform == "tf_half_pixel_for_nn") {
                    src = (r + 0.5) / factor;
                } else {
                    throw UnsupportedOp("Resize nearest with " + transform + " coordinates");
                }
                const bool tie = std::abs(src - std::floor(src) - 0.5) < 1e-9;
                double rounded = 0.0;
                if (rounding == "round_prefer_floor") {
                    rounded = tie ? std::floor(src) : std::round(src);
                } else if (rounding == "round_prefer_ceil") {
                    rounded = tie ? std::ceil(src) : std::round(src);
                } else if (rounding == "floor") {
                    rounded = std::floor(src);
                } else if (rounding == "ceil") {
                    rounded = std::ceil(src);
                } else {
                    throw UnsupportedOp("Resize nearest_mode '" + rounding + "'");
                }
                index[static_cast<std::size_t>(o)] =
                    std::clamp<std::int64_t>(static_cast<std::int64_t>(rounded), 0, in - 1);
            }
            y = y.index_select(i + 2, longTensor(index));
        }
        return y;
    }
    if (transform != "half_pixel" && transform != "align_corners") {
        throw UnsupportedOp("Resize " + mode + " with " + transform + " coordinates");
    }
    const bool alignCorners = transform == "align_corners";
    if (mode == "linear") {
        switch (k) {
        case 1:
            return at::upsample_linear1d(x, size, alignCorners, scale(0));
        case 2:
            return at::upsample_bilinear2d(x, size, alignCorners, scale(0), scale(1));
        default:
            return at::upsample_trilinear3d(x, size, alignCorners, scale(0), scale(1), scale(2));
        }
    }
    if (mode == "cubic" && k == 2 && c.node.attrInt("exclude_outside", 0) == 0 &&
        std::abs(c.node.attrFloat("cubic_coeff_a", -0.75) + 0.75) < 1e-9) {
        return at::upsample_bicubic2d(x, size, alignCorners, scale(0), scale(1));
    }
    throw UnsupportedOp("Resize mode '" + mode + "' on " + std::to_string(k) +
                        " spatial dimensions with these attributes");
}

// ---- reductions and normalisations --------------------------------------------------------

at::Tensor reduce(const Context& c, const std::string& op) {
    const at::Tensor& x = c.input(0);
    const bool keep = c.node.attrInt("keepdims", 1) != 0;
    const auto axesGiven = intsInputOrAttr(c, 1, "axes");
    Ints axes;
    if (axesGiven && !axesGiven->empty()) {
        for (std::int64_t a : *axesGiven) {
            axes.push_back(normAxis(a, x.dim()));
        }
    } else {
        if (c.node.attrInt("noop_with_empty_axes", 0) != 0) {
            return x;
        }
        axes.resize(static_cast<std::size_t>(x.dim()));
        std::iota(axes.begin(), axes.end(), 0);
    }
    if (op == "ReduceMean") {
        return at::mean(x, axes, keep);
    }
    if (op == "ReduceSum") {
        return at::sum(x, axes, keep);
    }
    if (op == "ReduceMax") {
        return at::amax(x, axes, keep);
    }
    if (op == "ReduceMin") {
        return at::amin(x, axes, keep);
    }
    if (op == "ReduceSumSquare") {
        return at::sum(x * x, axes, keep);
    }
    return at::norm(x, 2, axes, keep); // ReduceL2
}

at::Tensor softmax(const Context& c, bool logarithm) {
    const at::Tensor& x = c.input(0);
    auto apply = [&](const at::Tensor& t, std::int64_t dim) {
        return logarithm ? at::log_softmax(t, dim) : at::softmax(t, dim);
    };
    if (c.opset() >= 13) {
        return apply(x, normAxis(c.node.attrInt("axis", -1), x.dim()));
    }
    // Before opset 13 the input is coerced to 2-D at `axis` and normalised over the second part.
    const std::int64_t axis = normAxis(c.node.attrInt("axis", 1), x.dim());
    std::int64_t outer = 1;
    for (std::int64_t i = 0; i < axis; ++i) {
        outer *= x.size(i);
    }
    return apply(x.reshape({outer, -1}), 1).reshape(x.sizes());
}

Tensors layerNorm(const Context& c) {
    const at::Tensor& x = c.input(0);
    const std::int64_t axis = normAxis(c.node.attrInt("axis", -1), x.dim());
    const Ints shape(x.sizes().begin() + axis, x.sizes().end());
    const double eps = c.node.attrFloat("epsilon", 1e-5);
    const c10::optional<at::Tensor> weight = c.input(1);
    const c10::optional<at::Tensor> bias =
        c.has(2) ? c10::optional<at::Tensor>(c.in[2]) : c10::nullopt;
    if (!c.wantsOutput(1) && !c.wantsOutput(2)) {
        return {at::layer_norm(x, shape, weight, bias, eps, false)};
    }
    auto [y, mean, rstd] = at::native_layer_norm(x, shape, weight, bias, eps);
    return {y, mean, rstd};
}

// ---- element-wise -------------------------------------------------------------------------

at::Tensor clip(const Context& c) {
    const at::Tensor& x = c.input(0);
    c10::optional<at::Scalar> lo;
    c10::optional<at::Scalar> hi;
    if (c.opset() < 11) {
        lo = c.node.attrFloat("min", -std::numeric_limits<double>::max());
        hi = c.node.attrFloat("max", std::numeric_limits<double>::max());
    } else {
        if (c.has(1)) {
            lo = c.in[1].reshape({-1})[0].item();
        }
        if (c.has(2)) {
            hi = c.in[2].reshape({-1})[0].item();
        }
    }
    if (!lo && !hi) {
        return x.clone();
    }
    return at::clamp(x, lo, hi);
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

at::Tensor divide(const at::Tensor& a, const at::Tensor& b) {
    if (at::isIntegralType(a.scalar_type(), true)) {
        return at::div(a, b, "trunc");
    }
    return at::div(a, b);
}

template <typename F> at::Tensor variadic(const Context& c, F combine) {
    at::Tensor acc = c.input(0);
    for (std::size_t i = 1; i < c.in.size(); ++i) {
        if (c.in[i].defined()) {
            acc = combine(acc, c.in[i]);
        }
    }
    return acc;
}

const std::unordered_map<std::string, Kernel>& kernels() {
    static const std::unordered_map<std::string, Kernel> table = [] {
        std::unordered_map<std::string, Kernel> t;
        auto unary = [&t](const std::string& op, at::Tensor (*f)(const at::Tensor&)) {
            t[op] = [f](const Context& c) { return Tensors{f(c.input(0))}; };
        };
        unary("Sqrt", at::sqrt);
        unary("Erf", at::erf);
        unary("Tanh", at::tanh);
        unary("Sigmoid", at::sigmoid);
        unary("Relu", at::relu);
        unary("Exp", at::exp);
        unary("Log", at::log);
        unary("Neg", at::neg);
        unary("Abs", at::abs);
        unary("Reciprocal", at::reciprocal);
        unary("Floor", at::floor);
        unary("Ceil", at::ceil);
        unary("Sign", at::sign);
        unary("Not", at::logical_not);
        unary("HardSwish", at::hardswish);
        auto binary = [&t](const std::string& op,
                           std::function<at::Tensor(const at::Tensor&, const at::Tensor&)> f) {
            t[op] = [f](const Context& c) { return Tensors{f(c.input(0), c.input(1))}; };
        };
        binary("Add", [](const at::Tensor& a, const at::Tensor& b) { return at::add(a, b); });
        binary("Sub", [](const at::Tensor& a, const at::Tensor& b) { return at::sub(a, b); });
        binary("Mul", [](const at::Tensor& a, const at::Tensor& b) { return at::mul(a, b); });
        binary("Div", divide);
        binary("Pow", [](const at::Tensor& a, const at::Tensor& b) {
            return at::pow(a, b).to(a.scalar_type());
        });
        binary("Equal", [](const at::Tensor& a, const at::Tensor& b) { return at::eq(a, b); });
        binary("Greater", [](const at::Tensor& a, const at::Tensor& b) { return at::gt(a, b); });
        binary("Less", [](const at::Tensor& a, const at::Tensor& b) { return at::lt(a, b); });
        binary("GreaterOrEqual",
               [](const at::Tensor& a, const at::Tensor& b) { return at::ge(a, b); });
        binary("LessOrEqual",
               [](const at::Tensor& a, const at::Tensor& b) { return at::le(a, b); });
        binary("And",
               [](const at::Tensor& a, const at::Tensor& b) { return at::logical_and(a, b); });
        binary("Or", [](const at::Tensor& a, const at::Tensor& b) { return at::logical_or(a, b); });
        binary("Xor",
               [](const at::Tensor& a, const at::Tensor& b) { return at::logical_xor(a, b); });
        binary("MatMul", [](const at::Tensor& a, const at::Tensor& b) { return at::matmul(a, b); });
        t["Mod"] = [](const Context& c) {
            const bool fmod = c.node.attrInt("fmod", 0) != 0;
            return Tensors{fmod ? at::fmod(c.input(0), c.input(1))
                                : at::remainder(c.input(0), c.input(1))};
        };
        t["Max"] = [](const Context& c) {
            return Tensors{variadic(
                c, [](const at::Tensor& a, const at::Tensor& b) { return at::maximum(a, b); })};
        };
        t["Min"] = [](const Context& c) {
            return Tensors{variadic(
                c, [](const at::Tensor& a, const at::Tensor& b) { return at::minimum(a, b); })};
        };
        t["Sum"] = [](const Context& c) {
            return Tensors{variadic(
                c, [](const at::Tensor& a, const at::Tensor& b) { return at::add(a, b); })};
        };
        t["Clip"] = [](const Context& c) { return Tensors{clip(c)}; };
        t["HardSigmoid"] = [](const Context& c) {
            const double alpha = c.node.attrFloat("alpha", 0.2);
            const double beta = c.node.attrFloat("beta", 0.5);
            if (std::abs(alpha - 1.0 / 6.0) < 1e-6 && std::abs(beta - 0.5) < 1e-6) {
                return Tensors{at::hardsigmoid(c.input(0))};
            }
            return Tensors{at::clamp(c.input(0) * alpha + beta, 0.0, 1.0)};
        };
        t["LeakyRelu"] = [](const Context& c) {
            return Tensors{at::leaky_relu(c.input(0), c.node.attrFloat("alpha", 0.01))};
        };
        t["Gelu"] = [](const Context& c) {
            return Tensors{at::gelu(c.input(0), c.node.attrString("approximate", "none"))};
        };
        t["Softmax"] = [](const Context& c) { return Tensors{softmax(c, false)}; };
        t["LogSoftmax"] = [](const Context& c) { return Tensors{softmax(c, true)}; };
        for (const char* op :
             {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceSumSquare", "ReduceL2"}) {
            const std::string name = op;
            t[name] = [name](const Context& c) { return Tensors{reduce(c, name)}; };
        }
        t["Conv"] = [](const Context& c) { return Tensors{conv(c)}; };
        t["Gemm"] = [](const Context& c) {
            const at::Tensor a = c.node.attrInt("transA", 0) ? c.input(0).t() : c.input(0);
            const at::Tensor b = c.node.attrInt("transB", 0) ? c.input(1).t() : c.input(1);
            const double alpha = c.node.attrFloat("alpha", 1.0);
            const double beta = c.node.attrFloat("beta", 1.0);
            if (c.has(2)) {
                return Tensors{at::addmm(c.in[2], a, b, beta, alpha)};
            }
            at::Tensor y = at::mm(a, b);
            return Tensors{alpha == 1.0 ? y : y * alpha};
        };
        t["MaxPool"] = [](const Context& c) { return pool(c, PoolKind::Max); };
        t["AveragePool"] = [](const Context& c) { return pool(c, PoolKind::Average); };
        t["GlobalAveragePool"] = [](const Context& c) {
            const at::Tensor& x = c.input(0);
            Ints dims(static_cast<std::size_t>(std::max<std::int64_t>(x.dim() - 2, 0)));
            std::iota(dims.begin(), dims.end(), 2);
            return Tensors{at::mean(x, dims, true)};
        };
        t["GlobalMaxPool"] = [](const Context& c) {
            const at::Tensor& x = c.input(0);
            Ints dims(static_cast<std::size_t>(std::max<std::int64_t>(x.dim() - 2, 0)));
            std::iota(dims.begin(), dims.end(), 2);
            return Tensors{at::amax(x, dims, true)};
        };
        t["BatchNormalization"] = [](const Context& c) {
            if (c.node.attrInt("training_mode", 0) != 0) {
                throw UnsupportedOp("BatchNormalization in training mode");
            }
            return Tensors{at::batch_norm(c.input(0), c.input(1), c.input(2), c.input(3),
                                          c.input(4), false, 0.0, c.node.attrFloat("epsilon", 1e-5),
                                          false)};
        };
        t["LayerNormalization"] = layerNorm;
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
        t["Pad"] = [](const Context& c) { return Tensors{pad(c)}; };
        t["Resize"] = [](const Context& c) { return Tensors{resize(c)}; };
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
            return Tensors{
                at::scalar_tensor(c.input(0).numel(), at::TensorOptions().dtype(at::kLong))};
        };
        t["Einsum"] = [](const Context& c) {
            std::vector<at::Tensor> operands;
            for (const at::Tensor& x : c.in) {
                operands.push_back(x);
            }
            return Tensors{at::einsum(c.node.attrString("equation", ""), operands)};
        };
        return t;
    }();
    return table;
}

/// Static dims of a tensor; OpFailure when any is unknown.
Ints staticDims(const Graph& g, TensorId id) {
    const Tensor& t = g.tensors[static_cast<std::size_t>(id)];
    if (!t.shapeKnown() || t.sequence) {
        throw OpFailure("tensor '" + t.name + "' has no static shape (" + t.typeString() + ")");
    }
    return t.dims;
}

TensorId inputTensor(const Graph& g, NodeId node, int index) {
    const auto ins = g.nodeInputs.row(node);
    return index < static_cast<int>(ins.size()) ? ins[static_cast<std::size_t>(index)] : kNone;
}

TensorId outputTensor(const Graph& g, NodeId node, int index) {
    const auto outs = g.nodeOutputs.row(node);
    return index < static_cast<int>(outs.size()) ? outs[static_cast<std::size_t>(index)] : kNone;
}

at::Tensor longTensor(const Ints& values) {
    return at::tensor(at::ArrayRef<std::int64_t>(values), at::TensorOptions().dtype(at::kLong));
}

/// Shape-like inputs that are not graph constants, derived from the node's static output shape
/// (which the importer's folding already computed from the real values). Nothing when the
/// input is not shape-like.
std::optional<at::Tensor> derivedShapeInput(const Graph& g, NodeId id, int index) {
    const Node& node = g.nodes[static_cast<std::size_t>(id)];
    const std::string& op = node.opType;
    auto outDims = [&] { return staticDims(g, outputTensor(g, id, 0)); };
    auto inDims = [&] { return staticDims(g, inputTensor(g, id, 0)); };
    if ((op == "Reshape" || op == "Expand") && index == 1) {
        return longTensor(outDims());
    }
    if (op == "ConstantOfShape" && index == 0) {
        return longTensor(outDims());
    }
    if (op == "Resize" && index == 3) {
        return longTensor(outDims());
    }
    if (op == "Tile" && index == 1) {
        const Ints in = inDims();
        const Ints out = outDims();
        Ints repeats;
        for (std::size_t i = 0; i < in.size() && i < out.size(); ++i) {
            repeats.push_back(in[i] ? out[i] / in[i] : 1);
        }
        return longTensor(repeats);
    }
    if (op == "Slice" && index >= 1 && index <= 4) {
        const Ints out = outDims();
        Ints values(out.size(), 0);
        if (index == 2) {
            values = out;
        } else if (index == 3) {
            std::iota(values.begin(), values.end(), 0);
        } else if (index == 4) {
            values.assign(out.size(), 1);
        }
        return longTensor(values);
    }
    if (op == "Range" && index <= 2) {
        const Ints out = outDims();
        const std::int64_t v = index == 0 ? 0 : index == 1 ? (out.empty() ? 0 : out[0]) : 1;
        const Tensor& t = g.tensors[static_cast<std::size_t>(inputTensor(g, id, index))];
        return at::scalar_tensor(v, at::TensorOptions().dtype(scalarTypeOf(t.dtype)));
    }
    if (op == "Pad" && index == 1) {
        const Ints in = inDims();
        const Ints out = outDims();
        Ints pads(2 * in.size(), 0);
        for (std::size_t i = 0; i < in.size(); ++i) {
            pads[in.size() + i] = out[i] - in[i];
        }
        return longTensor(pads);
    }
    if (op == "Split" && index == 1) {
        const std::int64_t axis = node.attrInt("axis", 0);
        Ints sizes;
        for (TensorId o : g.nodeOutputs.row(id)) {
            const Ints d = staticDims(g, o);
            sizes.push_back(d[static_cast<std::size_t>(
                axis < 0 ? axis + static_cast<std::int64_t>(d.size()) : axis)]);
        }
        return longTensor(sizes);
    }
    const bool axesInput =
        ((op == "Squeeze" || op == "Unsqueeze" || op.rfind("Reduce", 0) == 0) && index == 1) ||
        (op == "Pad" && index == 3) || (op == "Resize" && (index == 1 || index == 2)) ||
        (op == "TopK" && index == 1);
    if (axesInput) {
        throw OpFailure("input " + std::to_string(index) + " of " + op +
                        " is not a graph constant and cannot be derived from the output shape");
    }
    return std::nullopt;
}

at::Tensor randomTensor(const Ints& dims, at::ScalarType type, double lo, double hi,
                        at::Generator& gen) {
    const auto options = at::TensorOptions().dtype(type);
    if (type == at::kBool) {
        return at::randint(0, 2, dims, gen, at::TensorOptions().dtype(at::kLong)).to(at::kBool);
    }
    if (at::isIntegralType(type, false)) {
        const auto low = static_cast<std::int64_t>(std::floor(lo));
        const auto high = std::max(static_cast<std::int64_t>(std::ceil(hi)), low + 1);
        return at::randint(low, high, dims, gen, at::TensorOptions().dtype(at::kLong)).to(type);
    }
    at::Tensor t = at::empty(dims, at::TensorOptions().dtype(at::kFloat));
    t.uniform_(lo, hi, gen);
    return t.to(options);
}

} // namespace

HostTensor toHost(const at::Tensor& t) {
    HostTensor h;
    if (!t.defined()) {
        return h;
    }
    h.dtype = dtypeOf(t.scalar_type());
    h.dims.assign(t.sizes().begin(), t.sizes().end());
    const at::Tensor cpu = t.to(at::kCPU);
    const at::Tensor d = cpu.to(at::kDouble).contiguous();
    h.values.assign(d.data_ptr<double>(), d.data_ptr<double>() + d.numel());
    if (at::isIntegralType(t.scalar_type(), true)) {
        const at::Tensor i = cpu.to(at::kLong).contiguous();
        h.ints.assign(i.data_ptr<std::int64_t>(), i.data_ptr<std::int64_t>() + i.numel());
    }
    return h;
}

at::Tensor fromHost(const HostTensor& h) {
    const at::ScalarType type = scalarTypeOf(h.dtype);
    const std::int64_t count = h.elementCount();
    const bool exact = at::isIntegralType(type, true) && !h.ints.empty();
    const auto given = static_cast<std::int64_t>(exact ? h.ints.size() : h.values.size());
    if (given != count) {
        throw OpFailure("a host tensor of shape " + dimsText(h.dims) + " holds " +
                        std::to_string(given) + " values, expected " + std::to_string(count));
    }
    const at::Tensor flat =
        exact ? at::tensor(at::ArrayRef<std::int64_t>(h.ints), at::TensorOptions().dtype(at::kLong))
              : at::tensor(at::ArrayRef<double>(h.values), at::TensorOptions().dtype(at::kDouble));
    return flat.reshape(h.dims).to(type);
}

std::string torchMessage(const c10::Error& e) {
    std::string text = e.what_without_backtrace();
    const auto cut = text.find("\nException raised from");
    return cut == std::string::npos ? text : text.substr(0, cut);
}

std::string dimsText(at::IntArrayRef dims) {
    std::string text = "[";
    for (std::size_t i = 0; i < dims.size(); ++i) {
        text += (i ? "," : "") + std::to_string(dims[i]);
    }
    return text + "]";
}

std::string dimsText(const std::vector<std::int64_t>& dims) {
    return dimsText(at::IntArrayRef(dims));
}

bool isSupportedOp(std::string_view opType) {
    return kernels().count(std::string(opType)) != 0;
}

std::vector<std::string> supportedOpList() {
    std::vector<std::string> ops;
    for (const auto& entry : kernels()) {
        ops.push_back(entry.first);
    }
    std::sort(ops.begin(), ops.end());
    return ops;
}

at::ScalarType scalarTypeOf(DType dtype) {
    switch (dtype) {
    case DType::Float32:
        return at::kFloat;
    case DType::Float64:
        return at::kDouble;
    case DType::Float16:
        return at::kHalf;
    case DType::BFloat16:
        return at::kBFloat16;
    case DType::UInt8:
        return at::kByte;
    case DType::Int8:
        return at::kChar;
    case DType::Int16:
        return at::kShort;
    case DType::Int32:
        return at::kInt;
    case DType::Int64:
        return at::kLong;
    case DType::Bool:
        return at::kBool;
    default:
        break;
    }
    throw UnsupportedOp("element type " + std::string(dtypeName(dtype)));
}

DType dtypeOf(at::ScalarType type) {
    switch (type) {
    case at::kFloat:
        return DType::Float32;
    case at::kDouble:
        return DType::Float64;
    case at::kHalf:
        return DType::Float16;
    case at::kBFloat16:
        return DType::BFloat16;
    case at::kByte:
        return DType::UInt8;
    case at::kChar:
        return DType::Int8;
    case at::kShort:
        return DType::Int16;
    case at::kInt:
        return DType::Int32;
    case at::kLong:
        return DType::Int64;
    case at::kBool:
        return DType::Bool;
    default:
        return DType::Undefined;
    }
}

at::Tensor tensorFromConstant(const ConstantTensor& value) {
    const at::ScalarType type = scalarTypeOf(value.dtype);
    at::Tensor t;
    if (value.holdsIntegers()) {
        t = at::tensor(at::ArrayRef<std::int64_t>(value.ints),
                       at::TensorOptions().dtype(at::kLong));
    } else {
        t = at::tensor(at::ArrayRef<double>(value.reals), at::TensorOptions().dtype(at::kDouble));
    }
    return t.reshape(value.dims).to(type);
}

at::Tensor makeInput(const Graph& graph, NodeId id, int index, at::Generator& generator) {
    const TensorId tid = inputTensor(graph, id, index);
    if (tid == kNone) {
        return {};
    }
    const Tensor& t = graph.tensors[static_cast<std::size_t>(tid)];
    if (t.value) {
        return tensorFromConstant(*t.value);
    }
    if (auto derived = derivedShapeInput(graph, id, index)) {
        return *derived;
    }
    const Ints dims = staticDims(graph, tid);
    const at::ScalarType type = scalarTypeOf(t.dtype);
    const Node& node = graph.nodes[static_cast<std::size_t>(id)];
    const std::string& op = node.opType;
    if ((op == "Gather" || op == "GatherElements") && index == 1) {
        const Ints data = staticDims(graph, inputTensor(graph, id, 0));
        const std::int64_t axis = node.attrInt("axis", 0);
        const std::int64_t d = data[static_cast<std::size_t>(
            axis < 0 ? axis + static_cast<std::int64_t>(data.size()) : axis)];
        return randomTensor(dims, type, 0, static_cast<double>(d), generator);
    }
    if (op == "ScatterND" && index == 1) {
        const Ints data = staticDims(graph, inputTensor(graph, id, 0));
        const std::int64_t k = dims.empty() ? 0 : dims.back();
        std::vector<at::Tensor> components;
        Ints componentDims(dims.begin(), dims.end() - 1);
        componentDims.push_back(1);
        for (std::int64_t j = 0; j < k; ++j) {
            components.push_back(
                randomTensor(componentDims, at::kLong, 0,
                             static_cast<double>(data[static_cast<std::size_t>(j)]), generator));
        }
        return at::cat(components, -1).to(type);
    }
    const bool positive = ((op == "Sqrt" || op == "Log" || op == "Reciprocal") && index == 0) ||
                          (op == "Pow" && index == 0) ||
                          ((op == "Div" || op == "Mod") && index == 1) ||
                          (op == "BatchNormalization" && index == 4);
    if (at::isIntegralType(type, false)) {
        // Non-zero, so that integer divisors are valid.
        return randomTensor(dims, type, 1, 8, generator);
    }
    return positive ? randomTensor(dims, type, 0.5, 1.5, generator)
                    : randomTensor(dims, type, -1.0, 1.0, generator);
}

std::vector<at::Tensor> makeInputs(const Graph& graph, NodeId node, at::Generator& generator) {
    std::vector<at::Tensor> inputs;
    const int count = static_cast<int>(graph.nodeInputs.row(node).size());
    for (int i = 0; i < count; ++i) {
        inputs.push_back(makeInput(graph, node, i, generator));
    }
    return inputs;
}

std::vector<at::Tensor> executeNode(const Graph& graph, NodeId id,
                                    const std::vector<at::Tensor>& inputs) {
    const Node& node = graph.nodes[static_cast<std::size_t>(id)];
    if (!node.domain.empty() && node.domain != "ai.onnx") {
        throw UnsupportedOp("operator '" + node.domain + "::" + node.opType + "'");
    }
    const auto& table = kernels();
    const auto it = table.find(node.opType);
    if (it == table.end()) {
        throw UnsupportedOp("operator '" + node.opType + "'");
    }
    const Context c{graph, id, node, inputs};
    std::vector<at::Tensor> outs = it->second(c);
    const auto count = static_cast<std::size_t>(c.outputCount());
    outs.resize(std::max(count, std::size_t{1}));
    for (std::size_t i = 0; i < count; ++i) {
        if (graph.nodeOutputs.row(id)[i] == kNone) {
            outs[i] = at::Tensor();
        }
    }
    outs.resize(count);
    return outs;
}

} // namespace paretune::detail
