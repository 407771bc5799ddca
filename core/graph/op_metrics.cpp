// SPDX-License-Identifier: GPL-3.0-or-later
#include "op_metrics.h"

#include "einsum.h"
#include "precision.h"

#include <algorithm>
#include <string>
#include <unordered_map>

namespace paretune {

namespace {

// Operations per output element of element-wise and normalisation ops.
const std::unordered_map<std::string, double>& perElementCost() {
    static const std::unordered_map<std::string, double> table = {
        {"Add", 1},
        {"Sub", 1},
        {"Mul", 1},
        {"Div", 1},
        {"Pow", 1},
        {"Mod", 1},
        {"Max", 1},
        {"Min", 1},
        {"Sum", 1},
        {"Mean", 1},
        {"Neg", 1},
        {"Abs", 1},
        {"Relu", 1},
        {"LeakyRelu", 2},
        {"PRelu", 2},
        {"Clip", 1},
        {"Sqrt", 1},
        {"Reciprocal", 1},
        {"Exp", 1},
        {"Log", 1},
        {"Erf", 1},
        {"Tanh", 1},
        {"Sigmoid", 3},
        {"HardSigmoid", 2},
        {"HardSwish", 3},
        {"Gelu", 8},
        {"Elu", 3},
        {"Selu", 3},
        {"Softplus", 2},
        {"Mish", 5},
        {"Floor", 1},
        {"Ceil", 1},
        {"Round", 1},
        {"Sign", 1},
        {"Equal", 1},
        {"Less", 1},
        {"Greater", 1},
        {"LessOrEqual", 1},
        {"GreaterOrEqual", 1},
        {"Not", 1},
        {"And", 1},
        {"Or", 1},
        {"Xor", 1},
        {"Where", 1},
        {"BatchNormalization", 2},
        {"InstanceNormalization", 5},
        {"LayerNormalization", 5},
        {"GroupNormalization", 5},
        {"LpNormalization", 3},
        {"Softmax", 3},
        {"LogSoftmax", 3},
        {"Hardmax", 1},
        {"Celu", 3},
        {"ThresholdedRelu", 1},
    };
    return table;
}

std::int64_t elements(const Graph& g, TensorId t) {
    return t == kNone ? -1 : g.tensors[static_cast<std::size_t>(t)].elementCount();
}

const std::vector<std::int64_t>* dimsOf(const Graph& g, TensorId t) {
    if (t == kNone || !g.tensors[static_cast<std::size_t>(t)].shapeKnown()) {
        return nullptr;
    }
    return &g.tensors[static_cast<std::size_t>(t)].dims;
}

std::int64_t productFrom(const std::vector<std::int64_t>& dims, std::size_t first) {
    std::int64_t p = 1;
    for (std::size_t i = first; i < dims.size(); ++i) {
        p *= dims[i];
    }
    return p;
}

/// Operations per output element that a fused node (fusion.h) does after its convolution or
/// matrix product: the bias of a FusedMatMul, the residual and folded normalisation of a
/// FusedConv (the normalisation is folded into the weights: none), and the activation.
double fusedPostOps(const Graph& g, NodeId id) {
    const Node& node = g.nodes[static_cast<std::size_t>(id)];
    if (node.domain != "ai.paretune") {
        return 0.0;
    }
    const auto ins = g.nodeInputs.row(id);
    double ops = 0.0;
    if (node.opType == "FusedMatMul") {
        ops += 1.0; // the bias
    } else if (node.opType == "FusedConv" && ins.size() > 3 && ins[3] != kNone) {
        ops += 1.0; // the residual
    }
    const std::string activation = node.attrString("activation", "");
    if (!activation.empty()) {
        const auto cost = perElementCost().find(activation);
        ops += cost != perElementCost().end() ? cost->second : 1.0;
    }
    return ops;
}

double flopsOf(const Graph& g, NodeId id) {
    const Node& node = g.nodes[static_cast<std::size_t>(id)];
    const auto ins = g.nodeInputs.row(id);
    const auto outs = g.nodeOutputs.row(id);
    auto input = [&](std::size_t k) { return k < ins.size() ? ins[k] : kNone; };
    const std::int64_t out = outs.empty() ? -1 : elements(g, outs[0]);
    if (out < 0) {
        return 0.0;
    }
    const std::string& op = node.opType;
    if (op == "Conv" || op == "FusedConv" || op == kNhwcConvOp) {
        const auto* w = dimsOf(g, input(1));
        if (!w || w->size() < 2) {
            return 0.0;
        }
        const double macs = static_cast<double>(out) * static_cast<double>(productFrom(*w, 1));
        return 2.0 * macs + (input(2) != kNone ? static_cast<double>(out) : 0.0) +
               fusedPostOps(g, id) * static_cast<double>(out);
    }
    if (op == "QLinearConv") { // the int8 Conv: weight at 3, bias at 8
        const auto* w = dimsOf(g, input(3));
        if (!w || w->size() < 2) {
            return 0.0;
        }
        const double macs = static_cast<double>(out) * static_cast<double>(productFrom(*w, 1));
        return 2.0 * macs + (input(8) != kNone ? static_cast<double>(out) : 0.0);
    }
    if (op == "ConvTranspose") {
        const auto* w = dimsOf(g, input(1));
        const std::int64_t in = elements(g, input(0));
        if (!w || w->size() < 2 || in < 0) {
            return 0.0;
        }
        const double macs = static_cast<double>(in) * static_cast<double>(productFrom(*w, 1));
        return 2.0 * macs + (input(2) != kNone ? static_cast<double>(out) : 0.0);
    }
    if (op == "Gemm" || op == "FusedGemm") {
        const auto* a = dimsOf(g, input(0));
        if (!a || a->size() != 2) {
            return 0.0;
        }
        const std::int64_t k = node.attrInt("transA", 0) ? (*a)[0] : (*a)[1];
        return 2.0 * static_cast<double>(out) * static_cast<double>(k) +
               (input(2) != kNone ? static_cast<double>(out) : 0.0) +
               fusedPostOps(g, id) * static_cast<double>(out);
    }
    if (op == "MatMul" || op == "FusedMatMul" || op == "QLinearMatMul") { // int8: a at 0
        const auto* a = dimsOf(g, input(0));
        if (!a || a->empty()) {
            return 0.0;
        }
        return 2.0 * static_cast<double>(out) * static_cast<double>(a->back()) +
               fusedPostOps(g, id) * static_cast<double>(out);
    }
    if (op == "Einsum") {
        std::vector<std::vector<std::int64_t>> shapes;
        for (const TensorId t : ins) {
            const auto* d = dimsOf(g, t);
            if (!d) {
                return 0.0;
            }
            shapes.push_back(*d);
        }
        const auto shape = analyseEinsum(node.attrString("equation", ""), shapes);
        // A contraction of k operands does k-1 multiplies and one add per index point.
        return shape ? static_cast<double>(std::max<std::size_t>(ins.size(), 2)) * shape->indexSpace
                     : 0.0;
    }
    if (op == "MaxPool" || op == "AveragePool" || op == "LpPool") {
        std::int64_t window = 1;
        for (const std::int64_t k : node.attrInts("kernel_shape")) {
            window *= k;
        }
        return static_cast<double>(out) * static_cast<double>(window);
    }
    if (op == "GlobalAveragePool" || op == "GlobalMaxPool" || op == "GlobalLpPool" ||
        op.rfind("Reduce", 0) == 0) {
        return static_cast<double>(std::max<std::int64_t>(0, elements(g, input(0))));
    }
    if (op == "Resize" || op == "Upsample") {
        const std::string mode = node.attrString("mode", "nearest");
        const double perElement = mode == "linear" ? 4.0 : mode == "cubic" ? 16.0 : 0.0;
        return perElement * static_cast<double>(out);
    }
    const auto cost = perElementCost().find(op);
    if (cost != perElementCost().end()) {
        // Softmax and normalisations do their work over the input, which has the output's size.
        return cost->second * static_cast<double>(out);
    }
    return 0.0; // data movement and unknown operators
}

} // namespace

OpMetrics computeOpMetrics(const Graph& graph, NodeId node) {
    OpMetrics m;
    if (graph.nodes[static_cast<std::size_t>(node)].kind != NodeKind::Compute) {
        return m;
    }
    for (const TensorId t : graph.nodeInputs.row(node)) {
        if (t == kNone) {
            continue;
        }
        const Tensor& tensor = graph.tensors[static_cast<std::size_t>(t)];
        const std::int64_t bytes = std::max<std::int64_t>(0, tensor.byteSize());
        m.bytesRead += bytes;
        if (tensor.role == TensorRole::Initializer) {
            m.paramBytes += bytes;
        }
    }
    for (const TensorId t : graph.nodeOutputs.row(node)) {
        if (t != kNone) {
            m.bytesWritten +=
                std::max<std::int64_t>(0, graph.tensors[static_cast<std::size_t>(t)].byteSize());
        }
    }
    m.flops = flopsOf(graph, node);
    return m;
}

} // namespace paretune
