// SPDX-License-Identifier: GPL-3.0-or-later
// ONNX reductions and normalisations on ATen: Reduce*, Softmax, LogSoftmax,
// BatchNormalization, LayerNormalization.
#include "op_kernel_context.h"

#include <numeric>

namespace paretune::detail {
namespace {

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

} // namespace

void addReductionKernels(KernelTable& t) {
    t["Softmax"] = [](const Context& c) { return Tensors{softmax(c, false)}; };
    t["LogSoftmax"] = [](const Context& c) { return Tensors{softmax(c, true)}; };
    for (const char* op :
         {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceSumSquare", "ReduceL2"}) {
        const std::string name = op;
        t[name] = [name](const Context& c) { return Tensors{reduce(c, name)}; };
    }
    t["BatchNormalization"] = [](const Context& c) {
        if (c.node.attrInt("training_mode", 0) != 0) {
            throw UnsupportedOp("BatchNormalization in training mode");
        }
        return Tensors{at::batch_norm(c.input(0), c.input(1), c.input(2), c.input(3), c.input(4),
                                      false, 0.0, c.node.attrFloat("epsilon", 1e-5), false)};
    };
    t["LayerNormalization"] = layerNorm;
}

} // namespace paretune::detail
