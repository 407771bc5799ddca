// SPDX-License-Identifier: GPL-3.0-or-later
// ONNX operators over the spatial dimensions of N,C,... tensors and their padding on ATen:
// convolution, pooling, Pad, Resize.
#include "op_kernel_context.h"

#include "common/cpu_bf16.h"
#include "graph/precision.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace paretune::detail {
namespace {

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

} // namespace

// Channels-last (NHWC in memory): a 2-D convolution in bfloat16 on a CPU that computes bfloat16
// natively (common/cpu_bf16.h). oneDNN's kernels for it (AMX, avx512_bf16)
// read and write NHWC; given NCHW they reorder around every call, and 1x1 and depthwise
// convolutions then run no faster than in fp32 (LibTorch 1.13, one core of an AMX Xeon:
// MobileNet-V2 in bf16 21.7 ms NCHW, 10.8 ms channels-last, 21.4 ms in fp32). The output stays
// channels-last: the Cast back to fp32, elementwise nodes and the next convolution keep it, so
// a chain of lowered convolutions reorders its activations once (a reshape copies where it
// must); fp32 convolutions reading it run channels-last too (faster on such a CPU: MobileNet-V2
// in fp32 19.0 ms against 21.4). Emulated bfloat16 (AVX2) keeps NCHW.
bool channelsLastChains() {
    return cpuComputesBf16Natively();
}

bool runsChannelsLast(const at::Tensor& input) {
    return input.dim() == 4 && input.scalar_type() == at::kBFloat16 && input.device().is_cpu() &&
           channelsLastChains();
}

ConvGeometry convGeometry(const Node& node, at::Tensor& input, at::IntArrayRef weightSizes,
                          const at::Scalar& padValue) {
    const std::size_t k = static_cast<std::size_t>(input.dim() - 2);
    if (input.dim() < 3 || k > 3 || weightSizes.size() != k + 2) {
        throw UnsupportedOp(node.opType + " with " + std::to_string(input.dim() - 2) +
                            " spatial dimensions");
    }
    const Ints kernel(weightSizes.begin() + 2, weightSizes.end());
    ConvGeometry g;
    g.strides = attrIntsOr(node, "strides", k, 1);
    g.dilations = attrIntsOr(node, "dilations", k, 1);
    g.groups = node.attrInt("group", 1);
    const Pads pads = resolvePads(node, input.sizes().slice(2), kernel, g.strides, g.dilations);
    g.padding = pads.begin;
    if (!pads.symmetric()) {
        input = at::constant_pad_nd(input, torchPadList(pads.begin, pads.end), padValue);
        g.padding.assign(k, 0);
    }
    return g;
}

namespace {

/// Conv on `input` (NCHW logically) in the memory format given: channels-last where the input
/// runs so (runsChannelsLast) or `channelsLast` asks for it.
at::Tensor convolve(const Context& c, at::Tensor input, bool channelsLast) {
    const at::Tensor& w = c.input(1);
    const ConvGeometry g = convGeometry(c.node, input, w.sizes(), 0);
    if (channelsLast || runsChannelsLast(input)) {
        input = input.contiguous(at::MemoryFormat::ChannelsLast);
    }
    const c10::optional<at::Tensor> bias =
        c.has(2) ? c10::optional<at::Tensor>(c.in[2]) : c10::nullopt;
    return at::convolution(input, w, bias, g.strides, g.padding, g.dilations, false,
                           Ints(g.strides.size(), 0), g.groups);
}

} // namespace

at::Tensor convolution(const Context& c) {
    return convolve(c, c.input(0), false);
}

at::Tensor nhwcConvolution(const Context& c) {
    const at::Tensor& x = c.input(0);
    if (x.dim() != 4) {
        throw OpFailure("NhwcConv reads a 4-D NHWC input, not " + std::to_string(x.dim()) + "-D");
    }
    // An NHWC tensor is an NCHW one in channels-last memory: a view, no copy.
    const at::Tensor y = convolve(c, x.permute({0, 3, 1, 2}), true);
    return y.contiguous(at::MemoryFormat::ChannelsLast).permute({0, 2, 3, 1});
}

namespace {

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
        const at::Tensor given = c.in[scalesIndex].to(at::kCPU).to(at::kDouble).contiguous();
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
                    src = outSize == 1
                              ? 0.0
                              : r * static_cast<double>(in - 1) / static_cast<double>(outSize - 1);
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

} // namespace

void addSpatialKernels(KernelTable& t) {
    t["Conv"] = [](const Context& c) { return Tensors{convolution(c)}; };
    t[std::string(kNhwcConvDomain) + "::" + std::string(kNhwcConvOp)] = [](const Context& c) {
        return Tensors{nhwcConvolution(c)};
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
    t["Pad"] = [](const Context& c) { return Tensors{pad(c)}; };
    t["Resize"] = [](const Context& c) { return Tensors{resize(c)}; };
}

} // namespace paretune::detail
