// SPDX-License-Identifier: GPL-3.0-or-later
// Kernels of the fused nodes (graph/fusion.h): FusedConv, FusedMatMul and FusedGemm of the
// ai.paretune domain, and the batch normalisation folded into a FusedConv's weights once, before
// its runs.
#include "graph/fusion.h"
#include "op_kernel_context.h"

#include <limits>

namespace paretune::detail {

namespace {

constexpr std::size_t kResidual = 3;
constexpr std::size_t kNormFirst = 4; // scale, bias, mean, variance

/// The activation of a fused node, in place on `y`.
void activateInPlace(const Context& c, at::Tensor& y) {
    const std::string activation = c.node.attrString("activation", "");
    if (activation.empty()) {
        return;
    }
    if (activation == "Relu") {
        y.relu_();
    } else if (activation == "Clip") {
        const std::vector<double> bounds = c.node.attribute("activation_params") != nullptr
                                               ? c.node.attribute("activation_params")->floats
                                               : std::vector<double>{};
        const double lo = bounds.size() == 2 ? bounds[0] : -std::numeric_limits<double>::infinity();
        const double hi = bounds.size() == 2 ? bounds[1] : std::numeric_limits<double>::infinity();
        y.clamp_(lo, hi);
    } else if (activation == "Gelu") {
        at::gelu_(y);
    } else {
        throw UnsupportedOp("fused activation '" + activation + "'");
    }
}

/// Weight and bias of a convolution followed by an inference-mode batch normalisation, as one
/// convolution: w · s / √(v + ε) per output channel, (b − m) · s / √(v + ε) + β.
std::pair<at::Tensor, at::Tensor> foldNorm(const Context& c) {
    const at::Tensor& w = c.input(1);
    const at::Tensor& scale = c.input(kNormFirst);
    const at::Tensor& shift = c.input(kNormFirst + 1);
    const at::Tensor& mean = c.input(kNormFirst + 2);
    const at::Tensor& variance = c.input(kNormFirst + 3);
    const double epsilon = c.node.attrFloat("epsilon", 1e-5);
    const at::Tensor factor = scale / at::sqrt(variance + epsilon);
    std::vector<std::int64_t> perChannel(static_cast<std::size_t>(w.dim()), 1);
    perChannel[0] = -1;
    at::Tensor folded = (w * factor.reshape(perChannel)).contiguous();
    const at::Tensor bias = c.has(2) ? c.in[2] : at::zeros_like(mean);
    return {folded, (bias - mean) * factor + shift};
}

Tensors fusedConv(const Context& c) {
    Tensors in = c.in;
    in.resize(std::max<std::size_t>(in.size(), kNormFirst));
    if (c.has(kNormFirst)) { // not folded before the run: fold now
        auto [w, b] = foldNorm(c);
        in[1] = w;
        in[2] = b;
    }
    const Context conv{c.graph, c.id, c.node, in};
    at::Tensor y = convolution(conv);
    if (c.has(kResidual)) {
        y.add_(c.in[kResidual]);
    }
    activateInPlace(c, y);
    return {y};
}

Tensors fusedMatMul(const Context& c) {
    const at::Tensor& a = c.input(0);
    const at::Tensor& w = c.input(1);
    const at::Tensor& bias = c.input(2);
    at::Tensor y;
    if (a.dim() >= 2 && w.dim() == 2 && a.scalar_type() == w.scalar_type() &&
        bias.scalar_type() == a.scalar_type() && a.is_floating_point()) {
        // One GEMM with the bias as its accumulator (beta = 1).
        std::vector<std::int64_t> shape(a.sizes().begin(), a.sizes().end());
        shape.back() = w.size(1);
        y = at::addmm(bias.reshape({-1}), a.reshape({-1, a.size(-1)}), w).view(shape);
    } else {
        y = at::matmul(a, w);
        y.add_(bias);
    }
    activateInPlace(c, y);
    return {y};
}

Tensors fusedGemm(const Context& c) {
    at::Tensor y = gemm(c);
    activateInPlace(c, y);
    return {y};
}

} // namespace

std::vector<std::pair<int, at::Tensor>> foldedInputs(const Graph& graph, NodeId node,
                                                     const std::vector<at::Tensor>& inputs) {
    const Node& n = graph.nodes[static_cast<std::size_t>(node)];
    if (n.domain != kFusionDomain || n.opType != "FusedConv" || inputs.size() <= kNormFirst + 3 ||
        !inputs[kNormFirst].defined()) {
        return {};
    }
    const Context c{graph, node, n, inputs};
    auto [w, b] = foldNorm(c);
    std::vector<std::pair<int, at::Tensor>> replaced{{1, w}, {2, b}};
    for (std::size_t k = kNormFirst; k < kNormFirst + 4; ++k) {
        replaced.emplace_back(static_cast<int>(k), at::Tensor());
    }
    return replaced;
}

void addFusedKernels(KernelTable& t) {
    const std::string domain(kFusionDomain);
    t[domain + "::FusedConv"] = fusedConv;
    t[domain + "::FusedMatMul"] = fusedMatMul;
    t[domain + "::FusedGemm"] = fusedGemm;
}

} // namespace paretune::detail
