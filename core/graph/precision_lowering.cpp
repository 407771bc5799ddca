// SPDX-License-Identifier: GPL-3.0-or-later
// The lowered graph's builder (precision_lowering.h): nodes kept as they are, and nodes lowered
// to bf16 or fp16 through Casts. The int8 lowering is in precision_int8.cpp.
#include "precision_lowering.h"

#include "common/input_error.h"
#include "graph_links.h"

#include <algorithm>

namespace paretune::detail {

namespace {

/// NCHW dimensions as NHWC (a tensor of another rank as it is).
std::vector<std::int64_t> toNhwc(std::vector<std::int64_t> dims) {
    if (dims.size() == 4) {
        dims = {dims[0], dims[2], dims[3], dims[1]};
    }
    return dims;
}

} // namespace

bool isWeight(const Tensor& t) {
    return t.role == TensorRole::Initializer || (t.value && t.role != TensorRole::GraphInput);
}

Attribute castTo(DType type) {
    Attribute a;
    a.name = "to";
    a.kind = Attribute::Kind::Int;
    a.i = static_cast<std::int64_t>(type);
    a.canonical = "to=" + std::to_string(a.i);
    return a;
}

Tensor constantTensor(std::string name, DType type, std::vector<std::int64_t> dims,
                      std::vector<double> reals, std::vector<std::int64_t> ints) {
    auto value = std::make_shared<ConstantTensor>();
    value->dtype = type;
    value->dims = dims;
    value->reals = std::move(reals);
    value->ints = std::move(ints);
    Tensor t;
    t.name = std::move(name);
    t.dtype = type;
    t.rankKnown = true;
    t.dims = std::move(dims);
    t.role = TensorRole::Initializer;
    t.value = std::move(value);
    return t;
}

Lowering::Lowering(const Graph& graph, const ActivationRanges* ranges, int inputLevels,
                   std::span<const Variant> plan)
    : m_in(graph), m_ranges(ranges), m_inputLevels(inputLevels), m_plan(plan) {
    if (inputLevels != 255 && inputLevels != 127) {
        throw InputError("int8 inputs are quantized over 255 or 127 levels, not " +
                         std::to_string(inputLevels));
    }
    m_out.graph = emptyCopyOf(graph);
    m_out.graph.opset =
        std::max<std::int64_t>(graph.opset, 13); // Cast to bfloat16 (float16: opset 6)
    m_out.parts.resize(graph.nodes.size());
    m_out.conversions.resize(graph.nodes.size());
    m_out.variants.assign(graph.nodes.size(), Precision::Fp32);
}

void Lowering::keep(NodeId n) {
    part(n).push_back(keepOnly(n));
}

void Lowering::lower(NodeId n, Variant variant, bool copy) {
    m_out.variants[static_cast<std::size_t>(n)] = variant;
    const std::size_t first = part(n).size();
    lowerParts(n, variant, copy);
    for (std::size_t k = first; k < part(n).size(); ++k) { // the variant's threads, where not 0
        m_out.graph.nodes[static_cast<std::size_t>(part(n)[k])].threads = variant.threads;
    }
}

void Lowering::lowerParts(NodeId n, Variant variant, bool copy) {
    if (variant.onDeviceThreads() == Precision::Fp32) { // other threads only: the node itself
        Node node = m_in.nodes[static_cast<std::size_t>(n)];
        std::vector<TensorId> outs(m_in.nodeOutputs.row(n).begin(), m_in.nodeOutputs.row(n).end());
        if (copy) {
            const std::string tag = variantName(variant);
            node.name += "@" + tag;
            for (TensorId& t : outs) {
                t = t == kNone ? kNone : resultTensor(t, true, tag);
            }
        }
        part(n).push_back(
            append(std::move(node), m_in.nodeInputs.row(n), outs, m_in.capturedInputs.row(n), n));
        return;
    }
    if (variant.precision == Precision::Int8) {
        if (m_in.nodes[static_cast<std::size_t>(n)].opType == "Conv") {
            lowerConvToInt8(n, variant, copy);
        } else {
            lowerProductToInt8(n, variant, copy);
        }
        return;
    }
    const bool nhwc = variant.layout == Layout::ChannelsLast;
    const Conversion to{precisionDType(variant.precision), nhwc, std::string(variantName(variant))};
    const std::string& tag = to.tag;
    Node node = m_in.nodes[static_cast<std::size_t>(n)];
    if (copy) {
        node.name += "@" + tag;
    }
    if (nhwc && node.opType == "Conv") {
        node.domain = std::string(kNhwcConvDomain);
        node.opType = std::string(kNhwcConvOp);
    }
    std::vector<NodeId> conversions;
    std::vector<TensorId> ins(m_in.nodeInputs.row(n).begin(), m_in.nodeInputs.row(n).end());
    for (std::size_t i = 0; i < ins.size(); ++i) {
        const TensorId t = ins[i];
        if (t == kNone || m_in.tensors[static_cast<std::size_t>(t)].dtype != DType::Float32) {
            continue;
        }
        const Tensor& original = m_in.tensors[static_cast<std::size_t>(t)];
        if (nhwc && (isWeight(original) || original.dims.size() != 4)) {
            continue; // weights (Conv's OIHW) and bounds are read as they are
        }
        if (isWeight(original)) {
            // Converted once, when a program is prepared (a Constant-kind node): every
            // lowered reader of the weight shares it.
            auto [it, added] = m_weights.try_emplace({t, to.type}, kNone);
            if (added) {
                it->second = convert(t, to.type, original.name + "@" + tag, NodeKind::Constant,
                                     original.name + "/to_" + tag, n, nullptr);
            }
            ins[i] = it->second;
        } else if (const auto joined = m_loweredOutputs.find({t, tag});
                   !copy && joined != m_loweredOutputs.end()) {
            ins[i] = joined->second; // its producer computes in this variant too
        } else {
            ins[i] = convertActivation(t, to, original.name + "@" + node.name + "_" + tag,
                                       node.name + "/to_" + (nhwc ? std::string("nhwc") : tag) +
                                           "_" + std::to_string(i),
                                       n, &conversions);
            m_out.conversions[static_cast<std::size_t>(n)].push_back(
                {conversions.back(), t, false});
        }
    }
    std::vector<TensorId> outs(m_in.nodeOutputs.row(n).begin(), m_in.nodeOutputs.row(n).end());
    std::vector<std::pair<TensorId, TensorId>> back; // lowered output, original output
    for (TensorId& t : outs) {
        if (t == kNone || m_in.tensors[static_cast<std::size_t>(t)].dtype != DType::Float32) {
            continue;
        }
        Tensor lowered = m_in.tensors[static_cast<std::size_t>(t)];
        lowered.name += "@" + tag;
        lowered.dtype = to.type;
        if (nhwc) {
            lowered.dims = toNhwc(lowered.dims);
        }
        lowered.graphOutput = false;
        lowered.role = TensorRole::Activation;
        lowered.value.reset();
        const TensorId id = addTensor(std::move(lowered));
        if (!copy && !m_plan.empty()) {
            m_loweredOutputs[{t, tag}] = id;
        }
        if (copy || !staysLowered(t, variant)) {
            back.emplace_back(id, t);
        }
        t = id;
    }
    const std::string name = node.name;
    part(n).push_back(append(std::move(node), ins, outs, m_in.capturedInputs.row(n), n));
    part(n).insert(part(n).end(), conversions.begin(), conversions.end());
    for (std::size_t k = 0; k < back.size(); ++k) {
        const TensorId result = resultTensor(back[k].second, copy, tag);
        part(n).push_back(
            convertBack(back[k].first, result, to,
                        name + "/to_" + (nhwc ? "nchw" : "fp32") + "_" + std::to_string(k), n));
        m_out.conversions[static_cast<std::size_t>(n)].push_back(
            {part(n).back(), back[k].second, true});
    }
}

bool Lowering::staysLowered(TensorId t, Variant v) const {
    const auto readers = m_in.tensorConsumers.row(t);
    if (m_plan.empty() || m_in.tensors[static_cast<std::size_t>(t)].graphOutput ||
        readers.empty()) {
        return false;
    }
    return std::all_of(readers.begin(), readers.end(),
                       [&](NodeId r) { return m_plan[static_cast<std::size_t>(r)] == v; });
}

TensorId Lowering::convertActivation(TensorId t, const Conversion& to, std::string tensorName,
                                     std::string nodeName, NodeId origin,
                                     std::vector<NodeId>* nodes) {
    if (!to.transposed) {
        return convert(t, to.type, std::move(tensorName), NodeKind::Compute, std::move(nodeName),
                       origin, nodes);
    }
    const TensorId id = convertedTensor(t, std::move(tensorName), DType::Float32, true);
    Node transpose;
    transpose.name = std::move(nodeName);
    transpose.opType = "Transpose";
    transpose.attributes = {intsAttribute("perm", {0, 2, 3, 1})};
    nodes->push_back(append(std::move(transpose), std::span(&t, 1), std::span(&id, 1), {}, origin));
    return id;
}

NodeId Lowering::convertBack(TensorId from, TensorId to, const Conversion& of, std::string name,
                             NodeId origin) {
    Node node;
    node.name = std::move(name);
    if (of.transposed) {
        node.opType = "Transpose";
        node.attributes = {intsAttribute("perm", {0, 3, 1, 2})};
    } else {
        node.opType = "Cast";
        node.attributes = {castTo(DType::Float32)};
    }
    return append(std::move(node), std::span(&from, 1), std::span(&to, 1), {}, origin);
}

NodeId Lowering::keepOnly(NodeId n) {
    return append(m_in.nodes[static_cast<std::size_t>(n)], m_in.nodeInputs.row(n),
                  m_in.nodeOutputs.row(n), m_in.capturedInputs.row(n), n);
}

LoweredGraph Lowering::finish() {
    linkGraph(m_out.graph);
    return std::move(m_out);
}

TensorId Lowering::resultTensor(TensorId y, bool copy, const std::string& tag) {
    if (!copy) {
        return y;
    }
    Tensor fresh = m_in.tensors[static_cast<std::size_t>(y)];
    fresh.name += "+" + tag;
    fresh.graphOutput = false;
    return addTensor(std::move(fresh));
}

TensorId Lowering::convertedTensor(TensorId t, std::string name, DType type, bool nhwc) {
    Tensor converted = m_in.tensors[static_cast<std::size_t>(t)];
    converted.name = std::move(name);
    converted.dtype = type;
    if (nhwc) {
        converted.dims = toNhwc(converted.dims);
    }
    converted.role = TensorRole::Activation;
    converted.graphOutput = false;
    converted.value.reset();
    return addTensor(std::move(converted));
}

TensorId Lowering::addTensor(Tensor t) {
    t.producer = kNone;
    m_out.graph.tensors.push_back(std::move(t));
    return static_cast<TensorId>(m_out.graph.tensors.size() - 1);
}

TensorId Lowering::convert(TensorId t, DType type, std::string tensorName, NodeKind kind,
                           std::string nodeName, NodeId origin, std::vector<NodeId>* nodes) {
    const TensorId id = convertedTensor(t, std::move(tensorName), type, false);
    Node cast;
    cast.name = std::move(nodeName);
    cast.opType = "Cast";
    cast.kind = kind;
    cast.attributes = {castTo(type)};
    const NodeId node = append(std::move(cast), std::span(&t, 1), std::span(&id, 1), {}, origin);
    if (nodes) {
        nodes->push_back(node);
    }
    return id;
}

NodeId Lowering::append(Node node, std::span<const TensorId> ins, std::span<const TensorId> outs,
                        std::span<const TensorId> captured, NodeId origin) {
    m_out.origin.push_back(origin);
    return appendNode(m_out.graph, std::move(node), ins, outs, captured);
}

} // namespace paretune::detail
