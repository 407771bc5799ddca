// SPDX-License-Identifier: GPL-3.0-or-later
// Fusion groups: the patterns (findFusionGroups, checkFusionGroup) and the helpers the fused
// graph (fused_graph.cpp) shares with them.
#include "fusion.h"

#include "common/input_error.h"
#include "fusion_detail.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace paretune {

namespace fusion_detail {

const Node& nodeAt(const Graph& g, NodeId id) {
    return g.nodes[static_cast<std::size_t>(id)];
}

const Tensor& tensorAt(const Graph& g, TensorId t) {
    return g.tensors[static_cast<std::size_t>(t)];
}

TensorId input(const Graph& g, NodeId id, std::size_t k) {
    const auto ins = g.nodeInputs.row(id);
    return k < ins.size() ? ins[k] : kNone;
}

/// The one output of a node, or kNone when it has another (or none).
TensorId soleOutput(const Graph& g, NodeId id) {
    const auto outs = g.nodeOutputs.row(id);
    TensorId found = kNone;
    for (std::size_t k = 0; k < outs.size(); ++k) {
        if (outs[k] == kNone) {
            continue;
        }
        if (k > 0 && !g.tensorConsumers.row(outs[k]).empty()) {
            return kNone; // a second output someone reads
        }
        if (k == 0) {
            found = outs[k];
        } else if (tensorAt(g, outs[k]).graphOutput) {
            return kNone;
        }
    }
    return found;
}

std::optional<double> scalarValue(const Graph& g, TensorId t) {
    if (t == kNone || !tensorAt(g, t).value || tensorAt(g, t).value->elementCount() != 1) {
        return std::nullopt;
    }
    return tensorAt(g, t).value->real(0);
}

/// The other input of a two-input node, given one of them (kNone when neither is `one`).
TensorId otherInput(const Graph& g, NodeId id, TensorId one) {
    const auto ins = g.nodeInputs.row(id);
    if (ins.size() != 2) {
        return kNone;
    }
    return ins[0] == one ? ins[1] : ins[1] == one ? ins[0] : kNone;
}

std::string groupLabel(const Graph& g, const FusionGroup& group) {
    return "fusion group '" +
           (group.members.empty() ? std::string("?") : nodeAt(g, group.members[0]).name) + "' (" +
           group.pattern + ")";
}

} // namespace fusion_detail

using namespace fusion_detail;

namespace {

bool isOp(const Graph& g, NodeId id, std::string_view op) {
    const Node& n = nodeAt(g, id);
    return n.kind == NodeKind::Compute && n.domain.empty() && n.opType == op;
}

/// The node that alone reads `t` (a compute node of the default domain), or kNone: also when
/// `t` is a graph output.
NodeId soleReader(const Graph& g, TensorId t) {
    if (t == kNone || tensorAt(g, t).graphOutput) {
        return kNone;
    }
    const auto readers = g.tensorConsumers.row(t);
    if (readers.size() != 1 || nodeAt(g, readers[0]).kind != NodeKind::Compute) {
        return kNone;
    }
    return readers[0];
}

/// A value known before the run: an initializer, a Constant's output or a folded constant.
bool fixedTensor(const Graph& g, TensorId t) {
    if (t == kNone) {
        return false;
    }
    const Tensor& tensor = tensorAt(g, t);
    if (tensor.role == TensorRole::Initializer || tensor.value) {
        return true;
    }
    return tensor.producer != kNone && nodeAt(g, tensor.producer).kind != NodeKind::Compute &&
           nodeAt(g, tensor.producer).kind != NodeKind::PassThrough;
}

bool near(std::optional<double> v, double expected) {
    return v && std::abs(*v - expected) <= 1e-4 * std::max(1.0, std::abs(expected));
}

std::int64_t rankOf(const Graph& g, TensorId t) {
    const Tensor& tensor = tensorAt(g, t);
    return tensor.rankKnown ? static_cast<std::int64_t>(tensor.dims.size()) : -1;
}

/// Whether a reduction node reduces over the last axis only, keeping it.
bool reducesLastAxis(const Graph& g, NodeId id) {
    const Node& n = nodeAt(g, id);
    const std::int64_t rank = rankOf(g, input(g, id, 0));
    if (rank < 1 || n.attrInt("keepdims", 1) != 1) {
        return false;
    }
    std::vector<std::int64_t> axes = n.attrInts("axes");
    if (axes.empty() && input(g, id, 1) != kNone) {
        const Tensor& given = tensorAt(g, input(g, id, 1));
        if (given.value && given.value->holdsIntegers()) {
            axes = given.value->ints;
        }
    }
    return axes.size() == 1 && (axes[0] == -1 || axes[0] == rank - 1);
}

/// A bias along the last axis of `out`: a fixed tensor of shape [N] or [1, …, 1, N].
bool isLastAxisBias(const Graph& g, TensorId bias, TensorId out) {
    if (!fixedTensor(g, bias) || !tensorAt(g, bias).shapeKnown() ||
        !tensorAt(g, out).shapeKnown()) {
        return false;
    }
    const auto& b = tensorAt(g, bias).dims;
    const auto& o = tensorAt(g, out).dims;
    if (b.empty() || o.empty() || b.back() != o.back() || b.size() > o.size()) {
        return false;
    }
    return std::all_of(b.begin(), b.end() - 1, [](std::int64_t d) { return d == 1; });
}

struct Match {
    std::vector<NodeId> members;
    /// Each step: a member and the tensor it leaves for the next.
    TensorId current = kNone;

    void take(const Graph& g, NodeId id) {
        members.push_back(id);
        current = soleOutput(g, id);
    }
};

/// Clip with constant bounds (attributes before opset 11, inputs from it on).
bool isConstantClip(const Graph& g, NodeId id) {
    if (!isOp(g, id, "Clip")) {
        return false;
    }
    if (g.opset < 11) {
        return true;
    }
    for (std::size_t k = 1; k < 3; ++k) {
        if (input(g, id, k) != kNone && !scalarValue(g, input(g, id, k))) {
            return false;
        }
    }
    return true;
}

std::vector<NodeId> matchConv(const Graph& g, NodeId conv) {
    if (!isOp(g, conv, "Conv") || rankOf(g, input(g, conv, 0)) != 4 ||
        !fixedTensor(g, input(g, conv, 1))) {
        return {};
    }
    Match m;
    m.take(g, conv);
    NodeId next = soleReader(g, m.current);
    if (next != kNone && isOp(g, next, "BatchNormalization") && input(g, next, 0) == m.current &&
        nodeAt(g, next).attrInt("training_mode", 0) == 0 && soleOutput(g, next) != kNone) {
        bool fixed = true;
        for (std::size_t k = 1; k < 5; ++k) {
            fixed = fixed && fixedTensor(g, input(g, next, k));
        }
        if (fixed) {
            m.take(g, next);
            next = soleReader(g, m.current);
        }
    }
    if (next != kNone && isOp(g, next, "Add")) {
        const TensorId residual = otherInput(g, next, m.current);
        if (residual != kNone && residual != m.current && tensorAt(g, residual).shapeKnown() &&
            tensorAt(g, residual).dims == tensorAt(g, m.current).dims &&
            tensorAt(g, residual).dtype == tensorAt(g, m.current).dtype &&
            soleOutput(g, next) != kNone) {
            m.take(g, next);
            next = soleReader(g, m.current);
        }
    }
    if (next != kNone && (isOp(g, next, "Relu") || isConstantClip(g, next)) &&
        input(g, next, 0) == m.current && soleOutput(g, next) != kNone) {
        m.take(g, next);
    }
    return m.members.size() >= 2 ? m.members : std::vector<NodeId>{};
}

/// The Gelu exporters spell out: y = (x · (1 + erf(x / √2))) · 0.5, from x. Its members, or none.
std::vector<NodeId> matchGelu(const Graph& g, TensorId x) {
    if (x == kNone || tensorAt(g, x).graphOutput) {
        return {};
    }
    const auto readers = g.tensorConsumers.row(x);
    if (readers.size() != 2) {
        return {};
    }
    const NodeId div = isOp(g, readers[0], "Div") ? readers[0] : readers[1];
    const NodeId mul = div == readers[0] ? readers[1] : readers[0];
    if (!isOp(g, div, "Div") || !isOp(g, mul, "Mul") || input(g, div, 0) != x ||
        !near(scalarValue(g, input(g, div, 1)), std::sqrt(2.0))) {
        return {};
    }
    const NodeId erf = soleReader(g, soleOutput(g, div));
    if (erf == kNone || !isOp(g, erf, "Erf")) {
        return {};
    }
    const NodeId plus = soleReader(g, soleOutput(g, erf));
    if (plus == kNone || !isOp(g, plus, "Add") ||
        !near(scalarValue(g, otherInput(g, plus, soleOutput(g, erf))), 1.0)) {
        return {};
    }
    if (soleReader(g, soleOutput(g, plus)) != mul || otherInput(g, mul, x) != soleOutput(g, plus)) {
        return {};
    }
    const NodeId half = soleReader(g, soleOutput(g, mul));
    if (half == kNone || !isOp(g, half, "Mul") ||
        !near(scalarValue(g, otherInput(g, half, soleOutput(g, mul))), 0.5) ||
        soleOutput(g, half) == kNone) {
        return {};
    }
    return {div, erf, plus, mul, half};
}

std::vector<NodeId> matchMatMul(const Graph& g, NodeId matmul) {
    const TensorId weight = input(g, matmul, 1);
    if (!isOp(g, matmul, "MatMul") || !fixedTensor(g, weight) || rankOf(g, weight) != 2 ||
        rankOf(g, input(g, matmul, 0)) < 2) {
        return {};
    }
    Match m;
    m.take(g, matmul);
    const NodeId add = soleReader(g, m.current);
    if (add == kNone || !isOp(g, add, "Add") ||
        !isLastAxisBias(g, otherInput(g, add, m.current), m.current) ||
        soleOutput(g, add) == kNone) {
        return {};
    }
    m.take(g, add);
    if (const NodeId relu = soleReader(g, m.current); relu != kNone && isOp(g, relu, "Relu")) {
        m.take(g, relu);
    } else if (const std::vector<NodeId> gelu = matchGelu(g, m.current); !gelu.empty()) {
        m.members.insert(m.members.end(), gelu.begin(), gelu.end());
    }
    return m.members;
}

/// Gemm (its bias included) + Relu or the spelled-out Gelu.
std::vector<NodeId> matchGemm(const Graph& g, NodeId gemm) {
    if (!isOp(g, gemm, "Gemm") || soleOutput(g, gemm) == kNone) {
        return {};
    }
    Match m;
    m.take(g, gemm);
    if (const NodeId relu = soleReader(g, m.current);
        relu != kNone && isOp(g, relu, "Relu") && soleOutput(g, relu) != kNone) {
        m.take(g, relu);
    } else if (const std::vector<NodeId> gelu = matchGelu(g, m.current); !gelu.empty()) {
        m.members.insert(m.members.end(), gelu.begin(), gelu.end());
    }
    return m.members.size() >= 2 ? m.members : std::vector<NodeId>{};
}

std::vector<NodeId> matchLayerNorm(const Graph& g, NodeId mean) {
    if (!isOp(g, mean, "ReduceMean") || !reducesLastAxis(g, mean)) {
        return {};
    }
    const TensorId x = input(g, mean, 0);
    const NodeId sub = soleReader(g, soleOutput(g, mean));
    if (sub == kNone || !isOp(g, sub, "Sub") || input(g, sub, 0) != x ||
        input(g, sub, 1) != soleOutput(g, mean)) {
        return {};
    }
    const TensorId centred = soleOutput(g, sub);
    if (centred == kNone || tensorAt(g, centred).graphOutput) {
        return {};
    }
    const auto readers = g.tensorConsumers.row(centred);
    if (readers.size() != 2) {
        return {};
    }
    // The square, or a Cast to the same type and then the square (exporters write one).
    const bool first = isOp(g, readers[0], "Pow") || isOp(g, readers[0], "Cast");
    NodeId pow = first ? readers[0] : readers[1];
    const NodeId div = first ? readers[1] : readers[0];
    NodeId cast = kNone;
    if (isOp(g, pow, "Cast")) {
        const TensorId cast0 = soleOutput(g, pow);
        if (cast0 == kNone || tensorAt(g, cast0).dtype != tensorAt(g, centred).dtype) {
            return {};
        }
        cast = pow;
        pow = soleReader(g, cast0);
        if (pow == kNone || input(g, pow, 0) != cast0) {
            return {};
        }
    } else if (input(g, pow, 0) != centred) {
        return {};
    }
    if (!isOp(g, pow, "Pow") || !isOp(g, div, "Div") ||
        !near(scalarValue(g, input(g, pow, 1)), 2.0) || input(g, div, 0) != centred) {
        return {};
    }
    const NodeId variance = soleReader(g, soleOutput(g, pow));
    if (variance == kNone || !isOp(g, variance, "ReduceMean") || !reducesLastAxis(g, variance)) {
        return {};
    }
    const NodeId addEps = soleReader(g, soleOutput(g, variance));
    if (addEps == kNone || !isOp(g, addEps, "Add") ||
        !scalarValue(g, otherInput(g, addEps, soleOutput(g, variance)))) {
        return {};
    }
    const NodeId sqrt = soleReader(g, soleOutput(g, addEps));
    if (sqrt == kNone || !isOp(g, sqrt, "Sqrt") || soleReader(g, soleOutput(g, sqrt)) != div ||
        input(g, div, 1) != soleOutput(g, sqrt)) {
        return {};
    }
    const NodeId scale = soleReader(g, soleOutput(g, div));
    if (scale == kNone || !isOp(g, scale, "Mul") ||
        !isLastAxisBias(g, otherInput(g, scale, soleOutput(g, div)), soleOutput(g, div))) {
        return {};
    }
    const NodeId shift = soleReader(g, soleOutput(g, scale));
    if (shift == kNone || !isOp(g, shift, "Add") ||
        !isLastAxisBias(g, otherInput(g, shift, soleOutput(g, scale)), soleOutput(g, scale)) ||
        soleOutput(g, shift) == kNone) {
        return {};
    }
    if (cast != kNone) {
        return {mean, sub, cast, pow, variance, addEps, sqrt, div, scale, shift};
    }
    return {mean, sub, pow, variance, addEps, sqrt, div, scale, shift};
}

std::vector<NodeId> matchAt(const Graph& g, NodeId head, FusionKind& kind) {
    for (const FusionKind k : {FusionKind::Conv, FusionKind::MatMul, FusionKind::LayerNorm}) {
        std::vector<NodeId> members =
            k == FusionKind::Conv ? matchConv(g, head)
            : k == FusionKind::MatMul
                ? (isOp(g, head, "Gemm") ? matchGemm(g, head) : matchMatMul(g, head))
                : matchLayerNorm(g, head);
        if (!members.empty()) {
            kind = k;
            return members;
        }
    }
    return {};
}

std::string patternOf(const Graph& g, const std::vector<NodeId>& members) {
    std::string text;
    for (const NodeId m : members) {
        text += (text.empty() ? "" : "+") + nodeAt(g, m).opType;
    }
    return text;
}

} // namespace

std::string_view fusionKindName(FusionKind kind) {
    switch (kind) {
    case FusionKind::Conv:
        return "conv";
    case FusionKind::MatMul:
        return "matmul";
    case FusionKind::LayerNorm:
        return "layernorm";
    }
    return "?";
}

std::string_view fusedBaseOp(std::string_view opType) {
    return opType == "FusedConv"     ? "Conv"
           : opType == "FusedMatMul" ? "MatMul"
           : opType == "FusedGemm"   ? "Gemm"
                                     : opType;
}

std::vector<FusionGroup> findFusionGroups(const Graph& graph) {
    std::vector<FusionGroup> groups;
    std::vector<std::uint8_t> taken(graph.nodes.size(), 0);
    for (const NodeId head : graph.topologicalOrder) {
        if (taken[static_cast<std::size_t>(head)]) {
            continue;
        }
        FusionKind kind = FusionKind::Conv;
        std::vector<NodeId> members = matchAt(graph, head, kind);
        if (members.empty() || std::any_of(members.begin(), members.end(), [&](NodeId m) {
                return taken[static_cast<std::size_t>(m)] != 0;
            })) {
            continue;
        }
        for (const NodeId m : members) {
            taken[static_cast<std::size_t>(m)] = 1;
        }
        FusionGroup group{kind, std::move(members), {}};
        group.pattern = patternOf(graph, group.members);
        groups.push_back(std::move(group));
    }
    std::vector<int> position(graph.nodes.size(), 0);
    for (std::size_t k = 0; k < graph.topologicalOrder.size(); ++k) {
        position[static_cast<std::size_t>(graph.topologicalOrder[k])] = static_cast<int>(k);
    }
    std::stable_sort(groups.begin(), groups.end(), [&](const FusionGroup& a, const FusionGroup& b) {
        return position[static_cast<std::size_t>(a.tail())] <
               position[static_cast<std::size_t>(b.tail())];
    });
    return groups;
}

std::optional<FusionGroup> fusionGroupAt(const Graph& graph, NodeId head) {
    if (head < 0 || static_cast<std::size_t>(head) >= graph.nodes.size()) {
        return std::nullopt;
    }
    FusionKind kind = FusionKind::Conv;
    std::vector<NodeId> members = matchAt(graph, head, kind);
    if (members.empty()) {
        return std::nullopt;
    }
    FusionGroup group{kind, std::move(members), {}};
    group.pattern = patternOf(graph, group.members);
    return group;
}

std::vector<FusionGroup> fusionGroupsByName(const Graph& graph,
                                            const std::vector<std::vector<std::string>>& groups,
                                            const std::string& where) {
    std::vector<FusionGroup> found;
    for (const std::vector<std::string>& names : groups) {
        std::string listed;
        for (const std::string& name : names) {
            listed += (listed.empty() ? "" : ", ") + name;
        }
        FusionGroup group;
        for (const std::string& name : names) {
            const NodeId node = graph.findNode(name);
            if (node == kNone) {
                throw InputError(where + ": fusion group [" + listed + "]: node '" + name +
                                 "' is not in the model");
            }
            group.members.push_back(node);
        }
        const std::optional<FusionGroup> allowed =
            group.members.empty() ? std::nullopt : fusionGroupAt(graph, group.members[0]);
        if (!allowed || allowed->members != group.members) {
            throw InputError(where + ": fusion group [" + listed + "] is not a fusion group of " +
                             "this model" +
                             (allowed ? " (the group starting there is " + allowed->pattern + ")"
                                      : std::string()));
        }
        found.push_back(*allowed);
    }
    return found;
}

void checkFusionGroup(const Graph& graph, const FusionGroup& group) {
    for (const NodeId m : group.members) {
        if (m < 0 || static_cast<std::size_t>(m) >= graph.nodes.size()) {
            throw InputError("fusion group: node index " + std::to_string(m) +
                             " is not in the graph");
        }
    }
    if (group.members.size() < 2) {
        throw InputError(groupLabel(graph, group) + ": a group has at least two members");
    }
    FusionKind kind = FusionKind::Conv;
    const std::vector<NodeId> expected = matchAt(graph, group.members[0], kind);
    if (expected.empty()) {
        throw InputError(groupLabel(graph, group) + ": node '" +
                         nodeAt(graph, group.members[0]).name +
                         "' does not start a fusion group in this graph");
    }
    if (expected != group.members || kind != group.kind) {
        throw InputError(groupLabel(graph, group) + ": the graph's group there is " +
                         patternOf(graph, expected) + " starting at node '" +
                         nodeAt(graph, expected[0]).name + "'");
    }
}

} // namespace paretune
