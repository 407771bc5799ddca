// SPDX-License-Identifier: GPL-3.0-or-later
// Precision variants of compute nodes: names, which nodes can be lowered, and the lowered graph
// with its conversions.
#include "precision.h"

#include "common/input_error.h"
#include "graph_links.h"

#include <algorithm>
#include <map>

namespace paretune {

namespace {

constexpr Precision kPrecisions[] = {Precision::Fp32, Precision::Bf16};

std::string knownNames() {
    std::string names;
    for (const Precision p : kPrecisions) {
        names += (names.empty() ? "" : ", ") + std::string(precisionName(p));
    }
    return names;
}

Attribute castTo(DType type) {
    Attribute a;
    a.name = "to";
    a.kind = Attribute::Kind::Int;
    a.i = static_cast<std::int64_t>(type);
    a.canonical = "to=" + std::to_string(a.i);
    return a;
}

bool isWeight(const Tensor& t) {
    return t.role == TensorRole::Initializer || (t.value && t.role != TensorRole::GraphInput);
}

/// Builds the lowered graph node by node, in the original topological order.
class Lowering {
public:
    explicit Lowering(const Graph& graph) : m_in(graph) {
        m_out.graph = emptyCopyOf(graph);
        m_out.graph.opset = std::max<std::int64_t>(graph.opset, 13); // Cast to bfloat16
        m_out.parts.resize(graph.nodes.size());
        m_out.precisions.assign(graph.nodes.size(), Precision::Fp32);
    }

    void keep(NodeId n) {
        const NodeId id = append(m_in.nodes[static_cast<std::size_t>(n)], m_in.nodeInputs.row(n),
                                 m_in.nodeOutputs.row(n), m_in.capturedInputs.row(n), n);
        part(n).push_back(id);
    }

    /// n in `precision`. A copy (beside n, which stays) is named "NAME@bf16" and writes its
    /// outputs back into new tensors; else it replaces n, giving back n's own outputs.
    void lower(NodeId n, Precision precision, bool copy = false) {
        m_out.precisions[static_cast<std::size_t>(n)] = precision;
        const DType type = precisionDType(precision);
        const std::string tag(precisionName(precision));
        Node node = m_in.nodes[static_cast<std::size_t>(n)];
        if (copy) {
            node.name += "@" + tag;
        }
        std::vector<NodeId> conversions;
        std::vector<TensorId> ins(m_in.nodeInputs.row(n).begin(), m_in.nodeInputs.row(n).end());
        for (std::size_t i = 0; i < ins.size(); ++i) {
            const TensorId t = ins[i];
            if (t == kNone || m_in.tensors[static_cast<std::size_t>(t)].dtype != DType::Float32) {
                continue;
            }
            const Tensor& original = m_in.tensors[static_cast<std::size_t>(t)];
            if (isWeight(original)) {
                // Converted once, when a program is prepared (a Constant-kind node): every
                // lowered reader of the weight shares it.
                auto [it, added] = m_weights.try_emplace({t, type}, kNone);
                if (added) {
                    it->second = convert(t, type, original.name + "@" + tag, NodeKind::Constant,
                                         original.name + "/to_" + tag, n, nullptr);
                }
                ins[i] = it->second;
            } else {
                ins[i] =
                    convert(t, type, original.name + "@" + node.name + "_" + tag, NodeKind::Compute,
                            node.name + "/to_" + tag + "_" + std::to_string(i), n, &conversions);
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
            lowered.dtype = type;
            lowered.graphOutput = false;
            lowered.role = TensorRole::Activation;
            lowered.value.reset();
            const TensorId id = addTensor(std::move(lowered));
            back.emplace_back(id, t);
            t = id;
        }
        const std::string name = node.name;
        part(n).push_back(append(std::move(node), ins, outs, m_in.capturedInputs.row(n), n));
        part(n).insert(part(n).end(), conversions.begin(), conversions.end());
        for (std::size_t k = 0; k < back.size(); ++k) {
            Node cast;
            cast.name = name + "/to_fp32_" + std::to_string(k);
            cast.opType = "Cast";
            cast.attributes = {castTo(DType::Float32)};
            const TensorId from = back[k].first;
            TensorId to = back[k].second;
            if (copy) {
                Tensor fresh = m_in.tensors[static_cast<std::size_t>(to)];
                fresh.name += "+" + tag;
                fresh.graphOutput = false;
                to = addTensor(std::move(fresh));
            }
            part(n).push_back(
                append(std::move(cast), std::span(&from, 1), std::span(&to, 1), {}, n));
        }
    }

    /// The node n as it is, in the graph being built.
    NodeId keepOnly(NodeId n) {
        return append(m_in.nodes[static_cast<std::size_t>(n)], m_in.nodeInputs.row(n),
                      m_in.nodeOutputs.row(n), m_in.capturedInputs.row(n), n);
    }

    LoweredGraph finish() {
        linkGraph(m_out.graph);
        return std::move(m_out);
    }

private:
    std::vector<NodeId>& part(NodeId n) { return m_out.parts[static_cast<std::size_t>(n)]; }

    TensorId addTensor(Tensor t) {
        t.producer = kNone;
        m_out.graph.tensors.push_back(std::move(t));
        return static_cast<TensorId>(m_out.graph.tensors.size() - 1);
    }

    /// A Cast of tensor t to `type` as a node of its own; returns the converted tensor.
    TensorId convert(TensorId t, DType type, std::string tensorName, NodeKind kind,
                     std::string nodeName, NodeId origin, std::vector<NodeId>* nodes) {
        Tensor converted = m_in.tensors[static_cast<std::size_t>(t)];
        converted.name = std::move(tensorName);
        converted.dtype = type;
        converted.role = TensorRole::Activation;
        converted.graphOutput = false;
        converted.value.reset();
        const TensorId id = addTensor(std::move(converted));
        Node cast;
        cast.name = std::move(nodeName);
        cast.opType = "Cast";
        cast.kind = kind;
        cast.attributes = {castTo(type)};
        const NodeId node =
            append(std::move(cast), std::span(&t, 1), std::span(&id, 1), {}, origin);
        if (nodes) {
            nodes->push_back(node);
        }
        return id;
    }

    NodeId append(Node node, std::span<const TensorId> ins, std::span<const TensorId> outs,
                  std::span<const TensorId> captured, NodeId origin) {
        m_out.origin.push_back(origin);
        return appendNode(m_out.graph, std::move(node), ins, outs, captured);
    }

    const Graph& m_in;
    LoweredGraph m_out;
    std::map<std::pair<TensorId, DType>, TensorId> m_weights;
};

} // namespace

std::string_view precisionName(Precision precision) {
    switch (precision) {
    case Precision::Fp32:
        return "fp32";
    case Precision::Bf16:
        return "bf16";
    }
    return "fp32";
}

Precision parsePrecision(std::string_view name) {
    for (const Precision p : kPrecisions) {
        if (name == precisionName(p)) {
            return p;
        }
    }
    if (name == "int8" || name == "fp16") {
        throw InputError("precision '" + std::string(name) +
                         "' is not offered by this version yet (available: " + knownNames() + ")");
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
    return precision == Precision::Bf16 ? DType::BFloat16 : DType::Float32;
}

bool lowerable(const Graph& graph, NodeId node, Precision precision) {
    if (precision == Precision::Fp32) {
        return true;
    }
    const Node& n = graph.nodes[static_cast<std::size_t>(node)];
    if (n.kind != NodeKind::Compute || !n.domain.empty() ||
        (n.opType != "Conv" && n.opType != "MatMul" && n.opType != "Gemm")) {
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

LoweredGraph lowerGraph(const Graph& graph, std::span<const Precision> precisions) {
    if (precisions.size() != graph.nodes.size()) {
        throw InputError("a precision per node is needed: " + std::to_string(precisions.size()) +
                         " given for " + std::to_string(graph.nodes.size()) + " nodes");
    }
    Lowering lowering(graph);
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

PairedVariants appendLoweredNodes(const Graph& graph, Precision precision) {
    Lowering lowering(graph);
    PairedVariants result;
    result.nodeOf.assign(graph.nodes.size(), kNone);
    for (const NodeId n : graph.topologicalOrder) {
        result.nodeOf[static_cast<std::size_t>(n)] = lowering.keepOnly(n);
        if (precision != Precision::Fp32 && lowerable(graph, n, precision)) {
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

} // namespace paretune
