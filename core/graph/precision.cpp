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

bool isFloat32(const Graph& graph, TensorId t) {
    return t != kNone && graph.tensors[static_cast<std::size_t>(t)].dtype == DType::Float32;
}

bool isActivation4d(const Graph& graph, TensorId t) {
    const Tensor& tensor = graph.tensors[static_cast<std::size_t>(t)];
    return tensor.dtype == DType::Float32 && tensor.shapeKnown() && tensor.dims.size() == 4 &&
           !detail::isWeight(tensor);
}

/// fp32-nhwc (precision.h, lowerable): a 2-D Conv of a float32 activation, or a Relu, Clip or
/// Add of 4-D float32 activations (an Add's of one shape; a Clip's bounds may be weights).
bool channelsLastLowerable(const Graph& graph, NodeId node) {
    const Node& n = graph.nodes[static_cast<std::size_t>(node)];
    const auto ins = graph.nodeInputs.row(node);
    if (ins.empty() || ins[0] == kNone || !isActivation4d(graph, ins[0])) {
        return false;
    }
    if (n.opType == "Conv") {
        return ins.size() >= 2 && isFloat32(graph, ins[1]) &&
               (ins.size() < 3 || ins[2] == kNone || isFloat32(graph, ins[2]));
    }
    if (n.opType == "Relu" || (n.opType == "Clip" && graph.opset >= 11)) {
        return true;
    }
    if (n.opType == "Add") {
        return std::all_of(ins.begin(), ins.end(), [&](TensorId t) {
            return t != kNone && isActivation4d(graph, t) &&
                   graph.tensors[static_cast<std::size_t>(t)].dims ==
                       graph.tensors[static_cast<std::size_t>(ins[0])].dims;
        });
    }
    return false;
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

std::string variantName(Variant variant) {
    std::string name(precisionName(variant.precision));
    if (variant.layout == Layout::ChannelsLast) {
        name += "-nhwc";
    }
    if (variant.threads > 0) {
        name += "-t" + std::to_string(variant.threads);
    }
    return name;
}

Variant parseVariant(std::string_view name) {
    const auto refuse = [&](const std::string& why) {
        return InputError("unknown variant '" + std::string(name) + "': " + why +
                          " (a variant is PRECISION[-nhwc][-tN]: a precision, " + knownNames() +
                          "; -nhwc for fp32 with channels-last activations; -tN for N intra-op "
                          "threads, 1 to 255; e.g. bf16, fp32-nhwc, fp32-t1)");
    };
    const std::size_t dash = name.find('-');
    Variant v;
    try {
        v.precision = parsePrecision(name.substr(0, dash));
    } catch (const InputError&) {
        throw refuse("'" + std::string(name.substr(0, dash)) + "' is not a precision");
    }
    std::string_view rest = dash == std::string_view::npos ? std::string_view{} : name.substr(dash);
    if (rest.starts_with("-nhwc")) {
        if (v.precision != Precision::Fp32) {
            throw refuse("channels-last is offered for fp32 only");
        }
        v.layout = Layout::ChannelsLast;
        rest.remove_prefix(5);
    }
    if (rest.starts_with("-t") && rest.size() > 2 && rest.size() <= 5 &&
        std::all_of(rest.begin() + 2, rest.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        const int threads = std::stoi(std::string(rest.substr(2)));
        if (threads < 1 || threads > 255) {
            throw refuse("threads must be 1 to 255");
        }
        v.threads = static_cast<std::uint8_t>(threads);
        rest = {};
    }
    if (!rest.empty()) {
        throw refuse("'" + std::string(rest) + "' is not -nhwc or -tN");
    }
    return v;
}

std::vector<Variant> parseVariants(std::string_view text) {
    std::vector<Variant> result;
    std::size_t begin = 0;
    while (begin <= text.size()) {
        const std::size_t end = std::min(text.find(',', begin), text.size());
        const Variant v = parseVariant(text.substr(begin, end - begin));
        if (std::find(result.begin(), result.end(), v) != result.end()) {
            throw InputError("variant '" + std::string(variantName(v)) + "' is listed twice");
        }
        result.push_back(v);
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

bool lowerable(const Graph& graph, NodeId node, Variant variant) {
    if (variant == Precision::Fp32) {
        return true;
    }
    const Node& n = graph.nodes[static_cast<std::size_t>(node)];
    if (n.kind != NodeKind::Compute || !n.domain.empty()) {
        return false;
    }
    if (variant.threads > 0) { // any node on other threads; else as the variant on its device's
        return variant.onDeviceThreads() == Precision::Fp32 ||
               lowerable(graph, node, variant.onDeviceThreads());
    }
    if (variant.layout == Layout::ChannelsLast) {
        return variant.precision == Precision::Fp32 && channelsLastLowerable(graph, node);
    }
    const Precision precision = variant.precision;
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

LoweredGraph lowerGraph(const Graph& graph, std::span<const Variant> variants,
                        const ActivationRanges* ranges, int int8Levels, LoweredChains chains) {
    if (variants.size() != graph.nodes.size()) {
        throw InputError("a variant per node is needed: " + std::to_string(variants.size()) +
                         " given for " + std::to_string(graph.nodes.size()) + " nodes");
    }
    detail::Lowering lowering(graph, ranges, int8Levels,
                              chains == LoweredChains::Joined ? variants
                                                              : std::span<const Variant>{});
    for (const NodeId n : graph.topologicalOrder) {
        const Variant p = variants[static_cast<std::size_t>(n)];
        if (p == Precision::Fp32) {
            lowering.keep(n);
        } else if (!lowerable(graph, n, p)) {
            throw InputError("node '" + graph.nodes[static_cast<std::size_t>(n)].name + "' (" +
                             graph.nodes[static_cast<std::size_t>(n)].opType + ") cannot run in " +
                             std::string(variantName(p)));
        } else {
            lowering.lower(n, p);
        }
    }
    return lowering.finish();
}

PairedVariants appendLoweredNodes(const Graph& graph, Variant variant,
                                  const ActivationRanges* ranges, int int8Levels,
                                  bool productsOnly) {
    detail::Lowering lowering(graph, ranges, int8Levels);
    PairedVariants result;
    result.nodeOf.assign(graph.nodes.size(), kNone);
    for (const NodeId n : graph.topologicalOrder) {
        result.nodeOf[static_cast<std::size_t>(n)] = lowering.keepOnly(n);
        if (variant != Precision::Fp32 && lowerable(graph, n, variant) &&
            (!productsOnly || isProduct(graph.nodes[static_cast<std::size_t>(n)]))) {
            lowering.lower(n, variant, true);
        }
    }
    result.paired = lowering.finish();
    return result;
}

std::vector<Variant> lowerAll(const Graph& graph, Variant variant) {
    std::vector<Variant> result(graph.nodes.size(), Precision::Fp32);
    for (std::size_t n = 0; n < graph.nodes.size(); ++n) {
        if (lowerable(graph, static_cast<NodeId>(n), variant)) {
            result[n] = variant;
        }
    }
    return result;
}

std::string loweredGraphName(const Graph& original, Variant variant) {
    return (original.name.empty() ? std::string("model") : original.name) + " (" +
           std::string(variantName(variant)) + " " + original.fingerprint.substr(0, 12) + ")";
}

bool isLoweredGraphName(std::string_view name, std::string_view fingerprint) {
    return loweredGraphVariant(name, fingerprint).has_value();
}

std::optional<Variant> loweredGraphVariant(std::string_view name, std::string_view fingerprint) {
    const std::string end = " " + std::string(fingerprint.substr(0, 12)) + ")";
    if (!name.ends_with(end)) {
        return std::nullopt;
    }
    name.remove_suffix(end.size());
    const std::size_t open = name.rfind(" (");
    if (open == std::string_view::npos || open == 0) {
        return std::nullopt;
    }
    try {
        const Variant v = parseVariant(name.substr(open + 2));
        return v == Precision::Fp32 ? std::nullopt : std::optional<Variant>(v);
    } catch (const InputError&) {
        return std::nullopt;
    }
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
