// SPDX-License-Identifier: GPL-3.0-or-later
// Precision variants of compute nodes: names, which nodes can be lowered, and the lowered graph
// with its conversions.
#include "precision.h"

#include "common/input_error.h"
#include "precision_lowering.h"

#include <algorithm>

namespace paretune {

namespace {

constexpr Precision kPrecisions[] = {Precision::Fp32, Precision::Bf16, Precision::Fp16,
                                     Precision::Int8};

std::string knownNames() {
    std::string names;
    for (const Precision p : kPrecisions) {
        names += (names.empty() ? "" : ", ") + std::string(precisionName(p));
    }
    return names;
}

/// A Conv, MatMul or Gemm: the products that dominate a model's time.
bool isProduct(const Node& n) {
    return n.opType == "Conv" || n.opType == "MatMul" || n.opType == "Gemm";
}

} // namespace

std::string_view precisionName(Precision precision) {
    switch (precision) {
    case Precision::Fp32:
        return "fp32";
    case Precision::Bf16:
        return "bf16";
    case Precision::Int8:
        return "int8";
    case Precision::Fp16:
        return "fp16";
    }
    return "fp32";
}

Precision parsePrecision(std::string_view name) {
    for (const Precision p : kPrecisions) {
        if (name == precisionName(p)) {
            return p;
        }
    }
    throw InputError("unknown precision '" + std::string(name) + "' (expected one of " +
                     knownNames() + ")");
}

std::vector<Precision> parsePrecisions(std::string_view text) {
    std::vector<Precision> result;
    std::size_t begin = 0;
    while (begin <= text.size()) {
        const std::size_t end = std::min(text.find(',', begin), text.size());
        const Precision p = parsePrecision(text.substr(begin, end - begin));
        if (std::find(result.begin(), result.end(), p) != result.end()) {
            throw InputError("precision '" + std::string(precisionName(p)) + "' is listed twice");
        }
        result.push_back(p);
        begin = end + 1;
    }
    return result;
}

DType precisionDType(Precision precision) {
    switch (precision) {
    case Precision::Bf16:
        return DType::BFloat16;
    case Precision::Fp16:
        return DType::Float16;
    case Precision::Int8:
        return DType::UInt8;
    case Precision::Fp32:
        break;
    }
    return DType::Float32;
}

bool lowerable(const Graph& graph, NodeId node, Precision precision) {
    if (precision == Precision::Fp32) {
        return true;
    }
    const Node& n = graph.nodes[static_cast<std::size_t>(node)];
    if (n.kind != NodeKind::Compute || !n.domain.empty()) {
        return false;
    }
    const bool product = isProduct(n);
    if (precision == Precision::Int8) {
        return product && detail::int8Lowerable(graph, node);
    }
    // The elementwise neighbours of the products, so that a chain stays in the precision (Clip
    // with its bounds as inputs, opset 11 on: a lowered graph is opset 13 or later).
    const bool neighbour =
        n.opType == "Relu" || n.opType == "Add" || (n.opType == "Clip" && graph.opset >= 11);
    if (!product && !neighbour) {
        return false;
    }
    bool anyFloat = false;
    for (const TensorId t : graph.nodeInputs.row(node)) {
        if (t == kNone) {
            continue;
        }
        const DType type = graph.tensors[static_cast<std::size_t>(t)].dtype;
        if (isFloatingPoint(type) && type != DType::Float32) {
            return false;
        }
        anyFloat = anyFloat || type == DType::Float32;
    }
    return anyFloat;
}

std::vector<TensorId> int8RangeTensors(const Graph& graph) {
    std::vector<TensorId> tensors;
    std::vector<bool> seen(graph.tensors.size(), false);
    for (const NodeId n : graph.topologicalOrder) {
        if (!lowerable(graph, n, Precision::Int8)) {
            continue;
        }
        for (const TensorId t : {graph.nodeInputs.row(n)[0], graph.nodeOutputs.row(n)[0]}) {
            if (!seen[static_cast<std::size_t>(t)]) {
                seen[static_cast<std::size_t>(t)] = true;
                tensors.push_back(t);
            }
        }
    }
    return tensors;
}

LoweredGraph lowerGraph(const Graph& graph, std::span<const Precision> precisions,
                        const ActivationRanges* ranges, int int8Levels, LoweredChains chains) {
    if (precisions.size() != graph.nodes.size()) {
        throw InputError("a precision per node is needed: " + std::to_string(precisions.size()) +
                         " given for " + std::to_string(graph.nodes.size()) + " nodes");
    }
    detail::Lowering lowering(graph, ranges, int8Levels,
                              chains == LoweredChains::Joined ? precisions
                                                              : std::span<const Precision>{});
    for (const NodeId n : graph.topologicalOrder) {
        const Precision p = precisions[static_cast<std::size_t>(n)];
        if (p == Precision::Fp32) {
            lowering.keep(n);
        } else if (!lowerable(graph, n, p)) {
            throw InputError("node '" + graph.nodes[static_cast<std::size_t>(n)].name + "' (" +
                             graph.nodes[static_cast<std::size_t>(n)].opType + ") cannot run in " +
                             std::string(precisionName(p)));
        } else {
            lowering.lower(n, p);
        }
    }
    return lowering.finish();
}

PairedVariants appendLoweredNodes(const Graph& graph, Precision precision,
                                  const ActivationRanges* ranges, int int8Levels,
                                  bool productsOnly) {
    detail::Lowering lowering(graph, ranges, int8Levels);
    PairedVariants result;
    result.nodeOf.assign(graph.nodes.size(), kNone);
    for (const NodeId n : graph.topologicalOrder) {
        result.nodeOf[static_cast<std::size_t>(n)] = lowering.keepOnly(n);
        if (precision != Precision::Fp32 && lowerable(graph, n, precision) &&
            (!productsOnly || isProduct(graph.nodes[static_cast<std::size_t>(n)]))) {
            lowering.lower(n, precision, true);
        }
    }
    result.paired = lowering.finish();
    return result;
}

std::vector<Precision> lowerAll(const Graph& graph, Precision precision) {
    std::vector<Precision> result(graph.nodes.size(), Precision::Fp32);
    for (std::size_t n = 0; n < graph.nodes.size(); ++n) {
        if (lowerable(graph, static_cast<NodeId>(n), precision)) {
            result[n] = precision;
        }
    }
    return result;
}

std::string loweredGraphName(const Graph& original, Precision precision) {
    return (original.name.empty() ? std::string("model") : original.name) + " (" +
           std::string(precisionName(precision)) + " " + original.fingerprint.substr(0, 12) + ")";
}

bool isLoweredGraphName(std::string_view name, std::string_view fingerprint) {
    for (const Precision p : kPrecisions) {
        if (p == Precision::Fp32) {
            continue;
        }
        const std::string tag = " (" + std::string(precisionName(p)) + " " +
                                std::string(fingerprint.substr(0, 12)) + ")";
        if (name.size() > tag.size() && name.ends_with(tag)) {
            return true;
        }
    }
    return false;
}

std::optional<Precision> loweredGraphPrecision(std::string_view name,
                                               std::string_view fingerprint) {
    for (const Precision p : kPrecisions) {
        const std::string tag = " (" + std::string(precisionName(p)) + " " +
                                std::string(fingerprint.substr(0, 12)) + ")";
        if (p != Precision::Fp32 && name.size() > tag.size() && name.ends_with(tag)) {
            return p;
        }
    }
    return std::nullopt;
}

Precision nodePrecision(const Graph& graph, NodeId node) {
    static constexpr std::string_view kQuantized[] = {
        "QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear", "QLinearConv",
        "QLinearMatMul",  "ConvInteger",      "MatMulInteger"};
    const Node& n = graph.nodes[static_cast<std::size_t>(node)];
    if (n.domain.empty() &&
        std::find(std::begin(kQuantized), std::end(kQuantized), n.opType) != std::end(kQuantized)) {
        return Precision::Int8;
    }
    const auto outs = graph.nodeOutputs.row(node);
    if (n.domain.empty() && n.opType == "Clip" && outs.size() == 1 && outs[0] != kNone &&
        graph.tensors[static_cast<std::size_t>(outs[0])].dtype == DType::UInt8) {
        return Precision::Int8; // a quantized activation held in 7 bits (int8 lowering)
    }
    for (const auto& tensors : {graph.nodeInputs.row(node), outs}) {
        for (const TensorId t : tensors) {
            const DType type =
                t != kNone ? graph.tensors[static_cast<std::size_t>(t)].dtype : DType::Float32;
            if (type == DType::BFloat16) {
                return Precision::Bf16;
            }
            if (type == DType::Float16) {
                return Precision::Fp16;
            }
        }
    }
    return Precision::Fp32;
}

} // namespace paretune
