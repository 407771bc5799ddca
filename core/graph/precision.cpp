// SPDX-License-Identifier: GPL-3.0-or-later
// Precision variants of compute nodes: names, which nodes can be lowered, and the lowered graph
// with its conversions.
#include "precision.h"

#include "common/input_error.h"
#include "graph_links.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace paretune {

namespace {

constexpr Precision kPrecisions[] = {Precision::Fp32, Precision::Bf16, Precision::Int8};

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

/// A small constant tensor of the lowered graph: an initializer holding `value`.
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

/// uint8 scale and zero point covering a range (0 included, so that zero is exact).
std::pair<double, std::int64_t> uint8Scale(ActivationRange range) {
    const double lo = std::min(range.lo, 0.0);
    const double hi = std::max(range.hi, 0.0);
    const double scale = hi > lo && std::isfinite(hi - lo) ? (hi - lo) / 255.0 : 1.0;
    const auto zero = static_cast<std::int64_t>(std::nearbyint(-lo / scale));
    return {scale, std::clamp<std::int64_t>(zero, 0, 255)};
}

/// Builds the lowered graph node by node, in the original topological order.
class Lowering {
public:
    Lowering(const Graph& graph, const ActivationRanges* ranges) : m_in(graph), m_ranges(ranges) {
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
        if (precision == Precision::Int8) {
            lowerToInt8(n, copy);
            return;
        }
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

    /// The activation scale and zero point of tensor t, as initializers of the lowered graph
    /// named after `prefix` ("NAME/x" gives NAME/x_scale and NAME/x_zero_point).
    std::pair<TensorId, TensorId> activationScale(TensorId t, const std::string& prefix) {
        const std::string& name = m_in.tensors[static_cast<std::size_t>(t)].name;
        ActivationRange range{-1.0, 1.0};
        const auto found = m_ranges ? m_ranges->find(name) : ActivationRanges::const_iterator();
        if (m_ranges && found != m_ranges->end()) {
            range = found->second;
        } else {
            m_out.calibrated = false;
        }
        const auto [scale, zero] = uint8Scale(range);
        return {addTensor(constantTensor(prefix + "_scale", DType::Float32, {}, {scale}, {})),
                addTensor(constantTensor(prefix + "_zero_point", DType::UInt8, {}, {}, {zero}))};
    }

    /// A Constant-kind node of the weight conversions; returns its output, a new tensor.
    TensorId constantNode(std::string name, std::string op, std::vector<TensorId> ins, Tensor out,
                          std::vector<Attribute> attributes, NodeId origin) {
        out.role = TensorRole::Activation;
        out.graphOutput = false;
        out.value.reset();
        out.rankKnown = true;
        const TensorId id = addTensor(std::move(out));
        Node node;
        node.name = std::move(name);
        node.opType = std::move(op);
        node.kind = NodeKind::Constant;
        node.attributes = std::move(attributes);
        append(std::move(node), ins, std::span(&id, 1), {}, origin);
        return id;
    }

    /// Weight W quantized to int8 per output channel (axis 0), once for all its readers: the
    /// scale max|W| / 127 per channel (at least 1e-12 / 127), zero points 0.
    struct QuantizedWeight {
        TensorId values = kNone;
        TensorId scale = kNone;
        TensorId zero = kNone;
    };
    QuantizedWeight quantizedWeight(TensorId w, NodeId origin) {
        const auto found = m_int8Weights.find(w);
        if (found != m_int8Weights.end()) {
            return found->second;
        }
        const Tensor& weight = m_in.tensors[static_cast<std::size_t>(w)];
        const std::string& name = weight.name;
        const std::int64_t channels = weight.dims.empty() ? 1 : weight.dims[0];
        std::vector<std::int64_t> axes;
        for (std::size_t a = 1; a < weight.dims.size(); ++a) {
            axes.push_back(static_cast<std::int64_t>(a));
        }
        const auto like = [&](std::string tensorName, DType type, std::vector<std::int64_t> dims) {
            Tensor t = weight;
            t.name = std::move(tensorName);
            t.dtype = type;
            t.dims = std::move(dims);
            return t;
        };
        const TensorId abs =
            constantNode(name + "/abs", "Abs", {w},
                         like(name + "@abs", DType::Float32, weight.dims), {}, origin);
        std::vector<TensorId> reduceIns{abs};
        std::vector<Attribute> reduceAttributes{intAttribute("keepdims", 0)};
        if (m_out.graph.opset >= 18) { // axes became an input
            reduceIns.push_back(addTensor(constantTensor(
                name + "@axes", DType::Int64, {static_cast<std::int64_t>(axes.size())}, {}, axes)));
        } else {
            reduceAttributes.push_back(intsAttribute("axes", axes));
        }
        const TensorId largest = constantNode(name + "/abs_max", "ReduceMax", reduceIns,
                                              like(name + "@abs_max", DType::Float32, {channels}),
                                              std::move(reduceAttributes), origin);
        const TensorId floor =
            addTensor(constantTensor(name + "@floor", DType::Float32, {}, {1e-12}, {}));
        const TensorId nonZero =
            constantNode(name + "/non_zero", "Max", {largest, floor},
                         like(name + "@non_zero", DType::Float32, {channels}), {}, origin);
        const TensorId levels =
            addTensor(constantTensor(name + "@127", DType::Float32, {}, {127.0}, {}));
        QuantizedWeight q;
        q.scale = constantNode(name + "/scale", "Div", {nonZero, levels},
                               like(name + "@scale", DType::Float32, {channels}), {}, origin);
        q.zero = addTensor(
            constantTensor(name + "@zero_point", DType::Int8, {channels}, {},
                           std::vector<std::int64_t>(static_cast<std::size_t>(channels), 0)));
        q.values = constantNode(name + "/to_int8", "QuantizeLinear", {w, q.scale, q.zero},
                                like(name + "@int8", DType::Int8, weight.dims),
                                {intAttribute("axis", 0)}, origin);
        m_int8Weights.emplace(w, q);
        return q;
    }

    /// n (a Conv) as QuantizeLinear → QLinearConv → DequantizeLinear (precision.h).
    void lowerToInt8(NodeId n, bool copy) {
        Node node = m_in.nodes[static_cast<std::size_t>(n)];
        const std::string name = node.name + (copy ? "@int8" : "");
        const auto ins = m_in.nodeInputs.row(n);
        const TensorId x = ins[0];
        const TensorId y = m_in.nodeOutputs.row(n)[0];
        const auto [xScale, xZero] = activationScale(x, name + "/x");
        const auto [yScale, yZero] = activationScale(y, name + "/y");
        const QuantizedWeight w = quantizedWeight(ins[1], n);

        Tensor quantized = m_in.tensors[static_cast<std::size_t>(x)];
        quantized.name += "@" + name + "_int8";
        quantized.dtype = DType::UInt8;
        quantized.role = TensorRole::Activation;
        quantized.graphOutput = false;
        quantized.value.reset();
        const TensorId xq = addTensor(std::move(quantized));
        Node quantize;
        quantize.name = name + "/quantize_0";
        quantize.opType = "QuantizeLinear";
        const TensorId quantizeIns[] = {x, xScale, xZero};
        const NodeId quantizeNode =
            append(std::move(quantize), quantizeIns, std::span(&xq, 1), {}, n);

        std::vector<TensorId> convIns{xq, xScale, xZero, w.values, w.scale, w.zero, yScale, yZero};
        if (ins.size() > 2 && ins[2] != kNone) {
            // The bias in int32 at scale x_scale · w_scale (ONNX's QLinearConv), computed once.
            const Tensor& bias = m_in.tensors[static_cast<std::size_t>(ins[2])];
            const auto like = [&](const std::string& suffix, DType type) {
                Tensor t = bias;
                t.name = name + suffix;
                t.dtype = type;
                return t;
            };
            const TensorId biasScale = constantNode(name + "/bias_scale", "Mul", {xScale, w.scale},
                                                    like("@bias_scale", DType::Float32), {}, n);
            const TensorId scaled = constantNode(name + "/bias_scaled", "Div", {ins[2], biasScale},
                                                 like("@bias_scaled", DType::Float32), {}, n);
            const TensorId rounded = constantNode(name + "/bias_round", "Round", {scaled},
                                                  like("@bias_rounded", DType::Float32), {}, n);
            convIns.push_back(constantNode(name + "/bias_to_int32", "Cast", {rounded},
                                           like("@bias_int32", DType::Int32),
                                           {castTo(DType::Int32)}, n));
        }
        Tensor out = m_in.tensors[static_cast<std::size_t>(y)];
        out.name += "@int8";
        if (copy) {
            out.name = m_in.tensors[static_cast<std::size_t>(y)].name + "@" + name;
        }
        out.dtype = DType::UInt8;
        out.graphOutput = false;
        out.role = TensorRole::Activation;
        out.value.reset();
        const TensorId yq = addTensor(std::move(out));
        node.name = name;
        node.opType = "QLinearConv";
        part(n).push_back(append(std::move(node), convIns, std::span(&yq, 1), {}, n));
        part(n).push_back(quantizeNode);

        TensorId back = y;
        if (copy) {
            Tensor fresh = m_in.tensors[static_cast<std::size_t>(y)];
            fresh.name += "+int8";
            fresh.graphOutput = false;
            back = addTensor(std::move(fresh));
        }
        Node dequantize;
        dequantize.name = name + "/to_fp32_0";
        dequantize.opType = "DequantizeLinear";
        const TensorId dequantizeIns[] = {yq, yScale, yZero};
        part(n).push_back(append(std::move(dequantize), dequantizeIns, std::span(&back, 1), {}, n));
    }

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
    const ActivationRanges* m_ranges;
    LoweredGraph m_out;
    std::map<std::pair<TensorId, DType>, TensorId> m_weights;
    std::map<TensorId, QuantizedWeight> m_int8Weights;
};

} // namespace

std::string_view precisionName(Precision precision) {
    switch (precision) {
    case Precision::Fp32:
        return "fp32";
    case Precision::Bf16:
        return "bf16";
    case Precision::Int8:
        return "int8";
    }
    return "fp32";
}

Precision parsePrecision(std::string_view name) {
    for (const Precision p : kPrecisions) {
        if (name == precisionName(p)) {
            return p;
        }
    }
    if (name == "fp16") {
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
    switch (precision) {
    case Precision::Bf16:
        return DType::BFloat16;
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
    if (n.kind != NodeKind::Compute || !n.domain.empty() ||
        (n.opType != "Conv" && n.opType != "MatMul" && n.opType != "Gemm")) {
        return false;
    }
    if (precision == Precision::Int8) {
        // A 2-D convolution of a float32 activation with float32 weights (and bias) known
        // before the run: QLinearConv, weights quantized per output channel.
        const auto ins = graph.nodeInputs.row(node);
        const auto outs = graph.nodeOutputs.row(node);
        if (n.opType != "Conv" || ins.size() < 2 || outs.size() != 1 || ins[0] == kNone ||
            ins[1] == kNone) {
            return false;
        }
        const auto tensor = [&](TensorId t) -> const Tensor& {
            return graph.tensors[static_cast<std::size_t>(t)];
        };
        const Tensor& x = tensor(ins[0]);
        const Tensor& w = tensor(ins[1]);
        const bool bias = ins.size() > 2 && ins[2] != kNone;
        return x.dtype == DType::Float32 && !isWeight(x) && x.rankKnown && x.dims.size() == 4 &&
               w.dtype == DType::Float32 && isWeight(w) && w.shapeKnown() && w.dims.size() == 4 &&
               tensor(outs[0]).dtype == DType::Float32 &&
               (!bias || (tensor(ins[2]).dtype == DType::Float32 && isWeight(tensor(ins[2]))));
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
                        const ActivationRanges* ranges) {
    if (precisions.size() != graph.nodes.size()) {
        throw InputError("a precision per node is needed: " + std::to_string(precisions.size()) +
                         " given for " + std::to_string(graph.nodes.size()) + " nodes");
    }
    Lowering lowering(graph, ranges);
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
                                  const ActivationRanges* ranges) {
    Lowering lowering(graph, ranges);
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
    for (const auto& tensors : {graph.nodeInputs.row(node), graph.nodeOutputs.row(node)}) {
        for (const TensorId t : tensors) {
            if (t != kNone && graph.tensors[static_cast<std::size_t>(t)].dtype == DType::BFloat16) {
                return Precision::Bf16;
            }
        }
    }
    return Precision::Fp32;
}

} // namespace paretune
