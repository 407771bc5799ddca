// SPDX-License-Identifier: GPL-3.0-or-later
// ONNX element-wise operators and activations on ATen.
#include "op_kernel_context.h"

#include <cmath>
#include <limits>

namespace paretune::detail {
namespace {

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

} // namespace

void addElementwiseKernels(KernelTable& t) {
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
    unary("Round", at::round); // halves to even, as ONNX
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
    binary("GreaterOrEqual", [](const at::Tensor& a, const at::Tensor& b) { return at::ge(a, b); });
    binary("LessOrEqual", [](const at::Tensor& a, const at::Tensor& b) { return at::le(a, b); });
    binary("And", [](const at::Tensor& a, const at::Tensor& b) { return at::logical_and(a, b); });
    binary("Or", [](const at::Tensor& a, const at::Tensor& b) { return at::logical_or(a, b); });
    binary("Xor", [](const at::Tensor& a, const at::Tensor& b) { return at::logical_xor(a, b); });
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
        return Tensors{
            variadic(c, [](const at::Tensor& a, const at::Tensor& b) { return at::add(a, b); })};
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
}

} // namespace paretune::detail
