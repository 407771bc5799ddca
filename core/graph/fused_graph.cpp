// SPDX-License-Identifier: GPL-3.0-or-later
// The fused graph: chosen fusion groups replaced by one node each (FusedConv, FusedMatMul,
// LayerNormalization).
#include "common/input_error.h"
#include "fusion.h"
#include "fusion_detail.h"
#include "graph_links.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace paretune {

using namespace fusion_detail;

namespace {

std::string floatText(double v) {
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
    return std::string(buffer, result.ptr);
}

Attribute stringAttribute(std::string name, std::string value) {
    Attribute a;
    a.kind = Attribute::Kind::String;
    a.canonical = name + "=\"" + value + '"';
    a.name = std::move(name);
    a.s = std::move(value);
    return a;
}

Attribute floatAttribute(std::string name, double value) {
    Attribute a;
    a.kind = Attribute::Kind::Float;
    a.canonical = name + '=' + floatText(value);
    a.name = std::move(name);
    a.f = value;
    return a;
}

Attribute floatsAttribute(std::string name, std::vector<double> values) {
    Attribute a;
    a.kind = Attribute::Kind::Floats;
    a.canonical = name + "=[";
    for (std::size_t k = 0; k < values.size(); ++k) {
        a.canonical += (k ? "," : "") + floatText(values[k]);
    }
    a.canonical += ']';
    a.name = std::move(name);
    a.floats = std::move(values);
    return a;
}

/// The fused node of a group: op, domain, attributes and inputs (its output is the tail's).
struct FusedNode {
    Node node;
    std::vector<TensorId> inputs;
};

void addActivation(const Graph& g, NodeId act, FusedNode& fused) {
    const Node& n = nodeAt(g, act);
    fused.node.attributes.push_back(stringAttribute("activation", n.opType));
    if (n.opType == "Clip") {
        double lo = -INFINITY;
        double hi = INFINITY;
        if (g.opset < 11) {
            lo = n.attrFloat("min", lo);
            hi = n.attrFloat("max", hi);
        } else {
            lo = scalarValue(g, input(g, act, 1)).value_or(lo);
            hi = scalarValue(g, input(g, act, 2)).value_or(hi);
        }
        fused.node.attributes.push_back(floatsAttribute("activation_params", {lo, hi}));
    }
}

FusedNode fusedConv(const Graph& g, const FusionGroup& group) {
    FusedNode fused;
    const NodeId conv = group.members[0];
    fused.node.opType = "FusedConv";
    fused.node.domain = std::string(kFusionDomain);
    fused.node.attributes = nodeAt(g, conv).attributes;
    TensorId residual = kNone;
    std::vector<TensorId> norm;
    TensorId current = soleOutput(g, conv);
    for (std::size_t k = 1; k < group.members.size(); ++k) {
        const NodeId m = group.members[k];
        const Node& n = nodeAt(g, m);
        if (n.opType == "BatchNormalization") {
            fused.node.attributes.push_back(
                floatAttribute("epsilon", n.attrFloat("epsilon", 1e-5)));
            for (std::size_t i = 1; i < 5; ++i) {
                norm.push_back(input(g, m, i));
            }
        } else if (n.opType == "Add") {
            residual = otherInput(g, m, current);
        } else {
            addActivation(g, m, fused);
        }
        current = soleOutput(g, m);
    }
    fused.inputs = {input(g, conv, 0), input(g, conv, 1), input(g, conv, 2), residual};
    fused.inputs.insert(fused.inputs.end(), norm.begin(), norm.end());
    return fused;
}

/// The activation of a matrix-product group from its member `first` on: one member (Relu) is
/// that activation, more are the spelled-out Gelu, none is none.
void addTailActivation(const Graph& g, const FusionGroup& group, std::size_t first,
                       FusedNode& fused) {
    if (group.members.size() == first + 1) {
        addActivation(g, group.members[first], fused);
    } else if (group.members.size() > first + 1) {
        fused.node.attributes.push_back(stringAttribute("activation", "Gelu"));
    }
}

FusedNode fusedMatMul(const Graph& g, const FusionGroup& group) {
    FusedNode fused;
    const NodeId matmul = group.members[0];
    fused.node.opType = "FusedMatMul";
    fused.node.domain = std::string(kFusionDomain);
    const NodeId add = group.members[1];
    fused.inputs = {input(g, matmul, 0), input(g, matmul, 1),
                    otherInput(g, add, soleOutput(g, matmul))};
    addTailActivation(g, group, 2, fused);
    return fused;
}

FusedNode fusedGemm(const Graph& g, const FusionGroup& group) {
    FusedNode fused;
    const NodeId gemm = group.members[0];
    fused.node.opType = "FusedGemm";
    fused.node.domain = std::string(kFusionDomain);
    fused.node.attributes = nodeAt(g, gemm).attributes;
    const auto ins = g.nodeInputs.row(gemm);
    fused.inputs.assign(ins.begin(), ins.end());
    addTailActivation(g, group, 1, fused);
    return fused;
}

FusedNode fusedLayerNorm(const Graph& g, const FusionGroup& group) {
    FusedNode fused;
    fused.node.opType = "LayerNormalization";
    // From the end: … variance, + ε, √, ÷, × scale, + shift (a Cast may come before the square).
    const std::size_t last = group.members.size() - 1;
    const NodeId variance = group.members[last - 5];
    const NodeId addEps = group.members[last - 4];
    const NodeId div = group.members[last - 2];
    const NodeId scale = group.members[last - 1];
    const NodeId shift = group.members[last];
    const double epsilon =
        scalarValue(g, otherInput(g, addEps, soleOutput(g, variance))).value_or(1e-5);
    fused.node.attributes = {intAttribute("axis", -1), floatAttribute("epsilon", epsilon)};
    fused.inputs = {input(g, group.members[0], 0), otherInput(g, scale, soleOutput(g, div)),
                    otherInput(g, shift, soleOutput(g, scale))};
    return fused;
}

FusedNode fusedNodeOf(const Graph& g, const FusionGroup& group) {
    const bool gemm = nodeAt(g, group.members[0]).opType == "Gemm";
    return group.kind == FusionKind::Conv     ? fusedConv(g, group)
           : group.kind == FusionKind::MatMul ? (gemm ? fusedGemm(g, group) : fusedMatMul(g, group))
                                              : fusedLayerNorm(g, group);
}

} // namespace

FusedGraph fuseGroups(const Graph& graph, std::span<const FusionGroup> groups) {
    const std::size_t nodeCount = graph.nodes.size();
    std::vector<std::int32_t> groupOf(nodeCount, -1);
    for (std::size_t k = 0; k < groups.size(); ++k) {
        checkFusionGroup(graph, groups[k]);
        for (const NodeId m : groups[k].members) {
            if (groupOf[static_cast<std::size_t>(m)] >= 0) {
                throw InputError(groupLabel(graph, groups[k]) + ": node '" + nodeAt(graph, m).name +
                                 "' is in two groups");
            }
            groupOf[static_cast<std::size_t>(m)] = static_cast<std::int32_t>(k);
        }
    }
    FusedGraph out;
    out.graph = emptyCopyOf(graph);
    Graph& g = out.graph;
    out.nodeOf.assign(nodeCount, kNone);
    out.groupNode.assign(groups.size(), kNone);
    for (const NodeId n : graph.topologicalOrder) {
        const std::int32_t k = groupOf[static_cast<std::size_t>(n)];
        if (k < 0) {
            out.nodeOf[static_cast<std::size_t>(n)] =
                appendNode(g, graph.nodes[static_cast<std::size_t>(n)], graph.nodeInputs.row(n),
                           graph.nodeOutputs.row(n), graph.capturedInputs.row(n));
            continue;
        }
        const FusionGroup& group = groups[static_cast<std::size_t>(k)];
        if (n != group.tail()) {
            continue;
        }
        FusedNode fused = fusedNodeOf(graph, group);
        fused.node.name = nodeAt(graph, group.members[0]).name + "+fused";
        fused.node.kind = NodeKind::Compute;
        const TensorId output = soleOutput(graph, group.tail());
        const NodeId id =
            appendNode(g, std::move(fused.node), fused.inputs, std::span(&output, 1), {});
        out.groupNode[static_cast<std::size_t>(k)] = id;
        for (const NodeId m : group.members) {
            out.nodeOf[static_cast<std::size_t>(m)] = id;
        }
    }
    linkGraph(g);
    return out;
}

FusedGraph appendFusedNodes(const Graph& graph, std::span<const FusionGroup> groups) {
    std::vector<std::int32_t> groupOfTail(graph.nodes.size(), -1);
    for (std::size_t k = 0; k < groups.size(); ++k) {
        checkFusionGroup(graph, groups[k]);
        groupOfTail[static_cast<std::size_t>(groups[k].tail())] = static_cast<std::int32_t>(k);
    }
    FusedGraph out;
    Graph& g = out.graph;
    g = graph;
    g.nodes.clear();
    g.nodeInputs = {};
    g.nodeOutputs = {};
    g.capturedInputs = {};
    g.topologicalOrder.clear();
    out.nodeOf.assign(graph.nodes.size(), kNone);
    out.groupNode.assign(groups.size(), kNone);
    for (const NodeId n : graph.topologicalOrder) {
        out.nodeOf[static_cast<std::size_t>(n)] =
            appendNode(g, graph.nodes[static_cast<std::size_t>(n)], graph.nodeInputs.row(n),
                       graph.nodeOutputs.row(n), graph.capturedInputs.row(n));
        const std::int32_t k = groupOfTail[static_cast<std::size_t>(n)];
        if (k < 0) {
            continue;
        }
        const FusionGroup& group = groups[static_cast<std::size_t>(k)];
        FusedNode fused = fusedNodeOf(graph, group);
        fused.node.name = nodeAt(graph, group.members[0]).name + "+fused";
        fused.node.kind = NodeKind::Compute;
        Tensor output = tensorAt(graph, soleOutput(graph, group.tail()));
        output.name += "+fused";
        output.graphOutput = false;
        const auto id = static_cast<TensorId>(g.tensors.size());
        g.tensors.push_back(std::move(output));
        out.groupNode[static_cast<std::size_t>(k)] =
            appendNode(g, std::move(fused.node), fused.inputs, std::span(&id, 1), {});
    }
    linkGraph(g);
    return out;
}

std::string fusedGraphName(const Graph& original) {
    return (original.name.empty() ? std::string("model") : original.name) + " (fused " +
           original.fingerprint.substr(0, 12) + ")";
}

bool isFusedGraphName(std::string_view name, std::string_view fingerprint) {
    const std::string tag = " (fused " + std::string(fingerprint.substr(0, 12)) + ")";
    return name.size() > tag.size() && name.ends_with(tag);
}

} // namespace paretune
