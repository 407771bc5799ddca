// SPDX-License-Identifier: GPL-3.0-or-later
#include "precision_bytes.h"

namespace paretune {

double loweredWeightBytes(const Graph& graph, NodeId node, std::size_t input, Precision precision,
                          double bytes) {
    const auto inputs = graph.nodeInputs.row(node);
    if (precision == Precision::Fp32 || input >= inputs.size() || inputs[input] == kNone) {
        return bytes;
    }
    const Tensor& t = graph.tensors[static_cast<std::size_t>(inputs[input])];
    const bool weight =
        t.role == TensorRole::Initializer || (t.value && t.role != TensorRole::GraphInput);
    if (!weight || t.dtype != DType::Float32 || !t.shapeKnown()) {
        return bytes;
    }
    const auto elements = static_cast<double>(t.elementCount());
    if (precision == Precision::Bf16 || precision == Precision::Fp16) {
        return elements * 2.0;
    }
    // int8: the weight quantized with a scale (float32) and a zero point (int8) per channel.
    if (input != 1) {
        return bytes; // a bias becomes int32: 4 bytes an element, as in float32
    }
    // Channels: a Conv's output channels (W's first dimension); a MatMul's or Gemm's columns of
    // B (its last dimension, or its first under Gemm's transB).
    const Node& n = graph.nodes[static_cast<std::size_t>(node)];
    const bool first = n.opType == "Conv" || (n.opType == "Gemm" && n.attrInt("transB", 0) != 0);
    double channels = 1.0;
    if (!t.dims.empty()) {
        channels = static_cast<double>(first ? t.dims.front() : t.dims.back());
    }
    return elements + channels * 5.0;
}

} // namespace paretune
