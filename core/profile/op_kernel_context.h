// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to the operator kernels (op_kernels*.cpp, op_inputs.cpp): what a kernel sees of its
// node, the table the dispatcher (op_kernels.cpp) looks kernels up in, the helpers several
// operator families share, and the function of each family that adds its kernels to the table.

#include "op_kernels.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace paretune::detail {

using Tensors = std::vector<at::Tensor>;
using Ints = std::vector<std::int64_t>;

/// What a kernel sees: its node, the graph, and the node's inputs (undefined tensors for omitted
/// optional ones).
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
/// Kernels by ONNX operator type (the default domain).
using KernelTable = std::unordered_map<std::string, Kernel>;

/// The values of a shape-like input (read on the host: the tensor may live on a GPU).
inline Ints toInts(const at::Tensor& t) {
    const at::Tensor c = t.to(at::kCPU).to(at::kLong).contiguous();
    const auto* p = c.data_ptr<std::int64_t>();
    return Ints(p, p + c.numel());
}

inline std::int64_t normAxis(std::int64_t axis, std::int64_t rank) {
    const std::int64_t a = axis < 0 ? axis + rank : axis;
    if (a < 0 || a >= std::max<std::int64_t>(rank, 1)) {
        throw OpFailure("axis " + std::to_string(axis) + " is out of range for rank " +
                        std::to_string(rank));
    }
    return a;
}

/// An int list given as an input (newer opsets) or as an attribute (older ones).
inline std::optional<Ints> intsInputOrAttr(const Context& c, std::size_t inputIndex,
                                           std::string_view attr) {
    if (c.has(inputIndex)) {
        return toInts(c.in[inputIndex]);
    }
    if (c.node.attribute(attr)) {
        return c.node.attrInts(attr);
    }
    return std::nullopt;
}

inline at::Tensor longTensor(const Ints& values) {
    return at::tensor(at::ArrayRef<std::int64_t>(values), at::TensorOptions().dtype(at::kLong));
}

// Each operator family adds its kernels to the table (op_kernels_<family>.cpp).
void addElementwiseKernels(KernelTable& t);
void addMatmulKernels(KernelTable& t);
void addReductionKernels(KernelTable& t);
void addShapeKernels(KernelTable& t);
void addSpatialKernels(KernelTable& t);
void addFusedKernels(KernelTable& t); ///< table keys "ai.paretune::FusedConv", …
void addQuantizedKernels(KernelTable& t);

/// A convolution's strides, padding, dilations and groups from its node's attributes (the
/// kernel's size from the weight's, pads and auto_pad resolved). Asymmetric pads are applied to
/// `input` first, with `padValue`, and the padding returned is then 0. Throws UnsupportedOp for
/// other than 1 to 3 spatial dimensions (op_kernels_spatial.cpp).
struct ConvGeometry {
    Ints strides;
    Ints padding;
    Ints dilations;
    std::int64_t groups = 1;
};
ConvGeometry convGeometry(const Node& node, at::Tensor& input, at::IntArrayRef weightSizes,
                          const at::Scalar& padValue);

/// Whether lowered convolutions leave their outputs channels-last (op_kernels_spatial.cpp): on a
/// CPU computing bfloat16 natively (AVX-512 with AMX or avx512_bf16), where oneDNN's
/// channels-last kernels are its fast ones. The next convolution of a chain then finds its
/// input in that layout already; a node profiled alone gets its input in that layout too
/// (makeInputs), the cost it has inside such a chain.
bool channelsLastChains();
/// Whether a convolution of `input` runs channels-last: bfloat16 4-D where channelsLastChains.
bool runsChannelsLast(const at::Tensor& input);

/// Conv's ONNX semantics on the context's inputs 0 (X), 1 (W) and 2 (B, optional), with the
/// node's Conv attributes (op_kernels_spatial.cpp; FusedConv runs it too).
at::Tensor convolution(const Context& c);
/// ai.paretune::NhwcConv (graph/precision.h): Conv on input 0 in NHWC, its output in NHWC
/// (op_kernels_spatial.cpp).
at::Tensor nhwcConvolution(const Context& c);
/// Gemm's ONNX semantics (op_kernels_matmul.cpp; FusedGemm runs it too).
at::Tensor gemm(const Context& c);

} // namespace paretune::detail
