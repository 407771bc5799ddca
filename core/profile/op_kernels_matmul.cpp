// SPDX-License-Identifier: GPL-3.0-or-later
// ONNX matrix products on ATen: MatMul, Gemm, Einsum.
#include "op_kernel_context.h"

namespace paretune::detail {

at::Tensor gemm(const Context& c) {
    const at::Tensor a = c.node.attrInt("transA", 0) ? c.input(0).t() : c.input(0);
    const at::Tensor b = c.node.attrInt("transB", 0) ? c.input(1).t() : c.input(1);
    const double alpha = c.node.attrFloat("alpha", 1.0);
    const double beta = c.node.attrFloat("beta", 1.0);
    if (c.has(2)) {
        return at::addmm(c.in[2], a, b, beta, alpha);
    }
    at::Tensor y = at::mm(a, b);
    return alpha == 1.0 ? y : y * alpha;
}

void addMatmulKernels(KernelTable& t) {
    t["MatMul"] = [](const Context& c) { return Tensors{at::matmul(c.input(0), c.input(1))}; };
    t["Gemm"] = [](const Context& c) { return Tensors{gemm(c)}; };
    t["Einsum"] = [](const Context& c) {
        std::vector<at::Tensor> operands;
        for (const at::Tensor& x : c.in) {
            operands.push_back(x);
        }
        return Tensors{at::einsum(c.node.attrString("equation", ""), operands)};
    };
}

} // namespace paretune::detail
