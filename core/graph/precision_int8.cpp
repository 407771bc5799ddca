// SPDX-License-Identifier: GPL-3.0-or-later
// The int8 lowering (precision.h): a Conv as QuantizeLinear → QLinearConv → DequantizeLinear, a
// MatMul or Gemm with a constant B as QuantizeLinear → QLinearMatMul → DequantizeLinear (Gemm's
// C added in float after it), weights quantized by Constant-kind nodes. In a joined chain, an
// int8 node reads its int8 producer's uint8 output as it is.
#include "precision_lowering.h"

#include "graph_links.h"

#include <algorithm>
#include <cmath>

namespace paretune::detail {

namespace {

/// uint8 scale and zero point covering a range (0 included, so that zero is exact) over
/// `levels` steps (255, or 127 for a product's input: common/int8_products.h).
std::pair<double, std::int64_t> uint8Scale(ActivationRange range, int levels) {
    const double lo = std::min(range.lo, 0.0);
    const double hi = std::max(range.hi, 0.0);
    const double scale = hi > lo && std::isfinite(hi - lo) ? (hi - lo) / levels : 1.0;
    const auto zero = static_cast<std::int64_t>(std::nearbyint(-lo / scale));
    return {scale, std::clamp<std::int64_t>(zero, 0, levels)};
}

/// The range of a constant's values; {0, 0} when the graph does not hold them.
ActivationRange valueRange(const Tensor& t) {
    if (!t.value || t.value->reals.empty()) {
        return {};
    }
    const auto [lo, hi] = std::minmax_element(t.value->reals.begin(), t.value->reals.end());
    return {*lo, *hi};
}

} // namespace

bool int8Lowerable(const Graph& graph, NodeId node) {
    // A float32 activation times float32 weights known before the run: a 2-D Conv (QLinearConv,
    // weights per output channel), or a MatMul / Gemm with B constant and 2-D (QLinearMatMul,
    // weights per column of B; ONNX allows a 1-D b_scale of N elements for a 2-D B).
    const Node& n = graph.nodes[static_cast<std::size_t>(node)];
    const auto ins = graph.nodeInputs.row(node);
    const auto outs = graph.nodeOutputs.row(node);
    if (ins.size() < 2 || outs.size() != 1 || ins[0] == kNone || ins[1] == kNone) {
        return false;
    }
    const auto tensor = [&](TensorId t) -> const Tensor& {
        return graph.tensors[static_cast<std::size_t>(t)];
    };
    const Tensor& x = tensor(ins[0]);
    const Tensor& w = tensor(ins[1]);
    const bool third = ins.size() > 2 && ins[2] != kNone;
    const bool thirdOk =
        !third || (tensor(ins[2]).dtype == DType::Float32 && isWeight(tensor(ins[2])));
    if (x.dtype != DType::Float32 || isWeight(x) || !x.rankKnown || w.dtype != DType::Float32 ||
        !isWeight(w) || !w.shapeKnown() || tensor(outs[0]).dtype != DType::Float32) {
        return false;
    }
    if (n.opType == "Conv") {
        return x.dims.size() == 4 && w.dims.size() == 4 && thirdOk;
    }
    if (n.opType == "MatMul") {
        return x.dims.size() >= 2 && w.dims.size() == 2;
    }
    // Gemm: A as it is (transA would need the activation transposed), alpha and beta 1 (what
    // exporters write for a linear layer).
    return n.opType == "Gemm" && x.dims.size() == 2 && w.dims.size() == 2 && thirdOk &&
           n.attrInt("transA", 0) == 0 && n.attrFloat("alpha", 1.0) == 1.0 &&
           n.attrFloat("beta", 1.0) == 1.0;
}

bool int8Joinable(const Graph& graph, NodeId node) {
    // Gemm's C is added in float after the DequantizeLinear: its uint8 product is not Y.
    const auto ins = graph.nodeInputs.row(node);
    const bool addsC = graph.nodes[static_cast<std::size_t>(node)].opType == "Gemm" &&
                       ins.size() > 2 && ins[2] != kNone;
    return !addsC && int8Lowerable(graph, node);
}

bool Lowering::int8Chains(NodeId producer) const {
    return producer != kNone && m_inputLevels == 255 && int8Joinable(m_in, producer);
}

std::pair<std::vector<NodeId>, TensorId> Lowering::int8Input(NodeId n, TensorId x, TensorId scale,
                                                             TensorId zero, const std::string& name,
                                                             const std::string& tag, bool copy) {
    const bool joinable = int8Chains(m_in.tensors[static_cast<std::size_t>(x)].producer);
    if (const auto joined = m_loweredOutputs.find({x, tag});
        joinable && !copy && joined != m_loweredOutputs.end()) {
        return {{}, joined->second}; // its producer's uint8 output, at the same scale
    }
    auto quantized = quantizeActivation(x, scale, zero, name, n);
    if (joinable) {
        m_out.conversions[static_cast<std::size_t>(n)].push_back(
            {quantized.first.front(), x, false});
    }
    return quantized;
}

void Lowering::int8Output(NodeId n, TensorId yq, TensorId scale, TensorId zero,
                          const std::string& name, Variant variant, bool copy) {
    const TensorId y = m_in.nodeOutputs.row(n)[0];
    const bool joinable = int8Chains(n);
    if (joinable && !copy && !m_plan.empty()) {
        m_loweredOutputs[{y, variantName(variant)}] = yq;
        if (staysLowered(y, variant)) {
            return; // every reader quantizes y at this scale: it reads yq
        }
    }
    const TensorId back = resultTensor(y, copy, "int8");
    Node dequantize;
    dequantize.name = name + "/to_fp32_0";
    dequantize.opType = "DequantizeLinear";
    const TensorId ins[] = {yq, scale, zero};
    part(n).push_back(append(std::move(dequantize), ins, std::span(&back, 1), {}, n));
    if (joinable) {
        m_out.conversions[static_cast<std::size_t>(n)].push_back({part(n).back(), y, true});
    }
}

std::pair<TensorId, TensorId> Lowering::activationScale(TensorId t, const std::string& prefix,
                                                        int levels, ActivationRange subtracted) {
    const std::string& name = m_in.tensors[static_cast<std::size_t>(t)].name;
    ActivationRange range{-1.0, 1.0};
    const auto found = m_ranges ? m_ranges->find(name) : ActivationRanges::const_iterator();
    if (m_ranges && found != m_ranges->end()) {
        range = found->second;
    } else {
        m_out.calibrated = false;
    }
    range = {range.lo - subtracted.hi, range.hi - subtracted.lo};
    const auto [scale, zero] = uint8Scale(range, levels);
    return {addTensor(constantTensor(prefix + "_scale", DType::Float32, {}, {scale}, {})),
            addTensor(constantTensor(prefix + "_zero_point", DType::UInt8, {}, {}, {zero}))};
}

TensorId Lowering::constantNode(std::string name, std::string op, std::vector<TensorId> ins,
                                Tensor out, std::vector<Attribute> attributes, NodeId origin) {
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

/// The scale max|W| / 127 along the axis (at least 1e-12 / 127), zero points 0.
Lowering::QuantizedWeight Lowering::quantizedWeight(TensorId w, std::int64_t axis, bool transposed,
                                                    NodeId origin) {
    const auto found = m_int8Weights.find({w, axis, transposed});
    if (found != m_int8Weights.end()) {
        return found->second;
    }
    const Tensor& weight = m_in.tensors[static_cast<std::size_t>(w)];
    const std::string& name = weight.name;
    const std::int64_t channels =
        weight.dims.empty() ? 1 : weight.dims[static_cast<std::size_t>(axis)];
    std::vector<std::int64_t> axes;
    for (std::size_t a = 0; a < weight.dims.size(); ++a) {
        if (static_cast<std::int64_t>(a) != axis) {
            axes.push_back(static_cast<std::int64_t>(a));
        }
    }
    const auto like = [&](std::string tensorName, DType type, std::vector<std::int64_t> dims) {
        Tensor t = weight;
        t.name = std::move(tensorName);
        t.dtype = type;
        t.dims = std::move(dims);
        return t;
    };
    // Named after the axis beyond the first, so that two quantizations of one weight differ.
    const std::string tag = axis == 0 ? name : name + "@axis" + std::to_string(axis);
    const TensorId abs = constantNode(tag + "/abs", "Abs", {w},
                                      like(tag + "@abs", DType::Float32, weight.dims), {}, origin);
    std::vector<TensorId> reduceIns{abs};
    std::vector<Attribute> reduceAttributes{intAttribute("keepdims", 0)};
    if (m_out.graph.opset >= 18) { // axes became an input
        reduceIns.push_back(addTensor(constantTensor(
            tag + "@axes", DType::Int64, {static_cast<std::int64_t>(axes.size())}, {}, axes)));
    } else {
        reduceAttributes.push_back(intsAttribute("axes", axes));
    }
    const TensorId largest = constantNode(tag + "/abs_max", "ReduceMax", reduceIns,
                                          like(tag + "@abs_max", DType::Float32, {channels}),
                                          std::move(reduceAttributes), origin);
    const TensorId floor =
        addTensor(constantTensor(tag + "@floor", DType::Float32, {}, {1e-12}, {}));
    const TensorId nonZero =
        constantNode(tag + "/non_zero", "Max", {largest, floor},
                     like(tag + "@non_zero", DType::Float32, {channels}), {}, origin);
    const TensorId levels =
        addTensor(constantTensor(tag + "@127", DType::Float32, {}, {127.0}, {}));
    QuantizedWeight q;
    q.scale = constantNode(tag + "/scale", "Div", {nonZero, levels},
                           like(tag + "@scale", DType::Float32, {channels}), {}, origin);
    q.zero =
        addTensor(constantTensor(tag + "@zero_point", DType::Int8, {channels}, {},
                                 std::vector<std::int64_t>(static_cast<std::size_t>(channels), 0)));
    q.values = constantNode(tag + "/to_int8", "QuantizeLinear", {w, q.scale, q.zero},
                            like(tag + "@int8", DType::Int8, weight.dims),
                            {intAttribute("axis", axis)}, origin);
    if (transposed && weight.dims.size() == 2) {
        q.values =
            constantNode(tag + "/transpose", "Transpose", {q.values},
                         like(tag + "@int8_t", DType::Int8, {weight.dims[1], weight.dims[0]}),
                         {intsAttribute("perm", {1, 0})}, origin);
    }
    m_int8Weights.emplace(std::make_tuple(w, axis, transposed), q);
    return q;
}

std::pair<std::vector<NodeId>, TensorId> Lowering::quantizeActivation(TensorId x, TensorId scale,
                                                                      TensorId zero,
                                                                      const std::string& name,
                                                                      NodeId origin) {
    const auto uint8Like = [&](const std::string& suffix) {
        Tensor t = m_in.tensors[static_cast<std::size_t>(x)];
        t.name += "@" + name + suffix;
        t.dtype = DType::UInt8;
        t.role = TensorRole::Activation;
        t.graphOutput = false;
        t.value.reset();
        return addTensor(std::move(t));
    };
    const TensorId xq = uint8Like("_int8");
    Node quantize;
    quantize.name = name + "/quantize_0";
    quantize.opType = "QuantizeLinear";
    const TensorId ins[] = {x, scale, zero};
    std::vector<NodeId> nodes{append(std::move(quantize), ins, std::span(&xq, 1), {}, origin)};
    if (m_inputLevels == 255) {
        return {std::move(nodes), xq};
    }
    // 7-bit inputs: a value past the calibrated range would reach 128…255 (QuantizeLinear
    // saturates at 255), which the engine would not multiply exactly. Clip keeps it at the top
    // of the scale, as QuantizeLinear does for 8-bit inputs.
    const TensorId clipped = uint8Like("_int7");
    const TensorId low = addTensor(constantTensor(name + "/x_low", DType::UInt8, {}, {}, {0}));
    const TensorId high =
        addTensor(constantTensor(name + "/x_high", DType::UInt8, {}, {}, {m_inputLevels}));
    Node clip;
    clip.name = name + "/clip_0";
    clip.opType = "Clip";
    const TensorId clipIns[] = {xq, low, high};
    nodes.push_back(append(std::move(clip), clipIns, std::span(&clipped, 1), {}, origin));
    return {std::move(nodes), clipped};
}

TensorId Lowering::quantizedOutput(TensorId y, const std::string& name, bool copy) {
    Tensor out = m_in.tensors[static_cast<std::size_t>(y)];
    out.name += copy ? "@" + name : std::string("@int8");
    out.dtype = DType::UInt8;
    out.graphOutput = false;
    out.role = TensorRole::Activation;
    out.value.reset();
    return addTensor(std::move(out));
}

/// n (a Conv) as QuantizeLinear → QLinearConv → DequantizeLinear (precision.h).
void Lowering::lowerConvToInt8(NodeId n, Variant variant, bool copy) {
    Node node = m_in.nodes[static_cast<std::size_t>(n)];
    const std::string name = node.name + (copy ? "@int8" : "");
    const auto ins = m_in.nodeInputs.row(n);
    const TensorId x = ins[0];
    const TensorId y = m_in.nodeOutputs.row(n)[0];
    const auto [xScale, xZero] = activationScale(x, name + "/x", m_inputLevels);
    const auto [yScale, yZero] = activationScale(y, name + "/y", 255);
    const QuantizedWeight w = quantizedWeight(ins[1], 0, false, n);
    const auto [quantizeNodes, xq] =
        int8Input(n, x, xScale, xZero, name, variantName(variant), copy);

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
                                       like("@bias_int32", DType::Int32), {castTo(DType::Int32)},
                                       n));
    }
    const TensorId yq = quantizedOutput(y, name, copy);
    node.name = name;
    node.opType = "QLinearConv";
    part(n).push_back(append(std::move(node), convIns, std::span(&yq, 1), {}, n));
    part(n).insert(part(n).end(), quantizeNodes.begin(), quantizeNodes.end());
    int8Output(n, yq, yScale, yZero, name, variant, copy);
}

/// n (a MatMul or Gemm) as QuantizeLinear → QLinearMatMul → DequantizeLinear, then Gemm's C
/// added in float ("NAME/bias", an Add).
void Lowering::lowerProductToInt8(NodeId n, Variant variant, bool copy) {
    Node node = m_in.nodes[static_cast<std::size_t>(n)];
    const std::string name = node.name + (copy ? "@int8" : "");
    const auto ins = m_in.nodeInputs.row(n);
    const TensorId x = ins[0];
    const TensorId y = m_in.nodeOutputs.row(n)[0];
    const bool gemm = node.opType == "Gemm";
    const TensorId c = gemm && ins.size() > 2 ? ins[2] : kNone;
    const bool transB = gemm && node.attrInt("transB", 0) != 0;
    const auto [xScale, xZero] = activationScale(x, name + "/x", m_inputLevels);
    // The product is Gemm's Y less C: within Y's range less C's.
    const auto [yScale, yZero] = activationScale(
        y, name + "/y", 255,
        c == kNone ? ActivationRange{} : valueRange(m_in.tensors[static_cast<std::size_t>(c)]));
    // Per column of B: axis 1 of a [K, N] B, axis 0 of Gemm's [N, K] B^T (then transposed).
    const QuantizedWeight w = quantizedWeight(ins[1], transB ? 0 : 1, transB, n);
    const auto [quantizeNodes, xq] =
        int8Input(n, x, xScale, xZero, name, variantName(variant), copy);
    const TensorId yq = quantizedOutput(y, name, copy);
    Node product;
    product.name = name;
    product.opType = "QLinearMatMul";
    const TensorId productIns[] = {xq, xScale, xZero, w.values, w.scale, w.zero, yScale, yZero};
    part(n).push_back(append(std::move(product), productIns, std::span(&yq, 1), {}, n));
    part(n).insert(part(n).end(), quantizeNodes.begin(), quantizeNodes.end());
    if (c == kNone) {
        int8Output(n, yq, yScale, yZero, name, variant, copy);
        return;
    }

    // Gemm's C, added in float after the DequantizeLinear.
    const TensorId back = resultTensor(y, copy, "int8");
    Tensor sum = m_in.tensors[static_cast<std::size_t>(y)];
    sum.name += "@" + name + "_product";
    sum.graphOutput = false;
    sum.role = TensorRole::Activation;
    sum.value.reset();
    const TensorId dequantized = addTensor(std::move(sum));
    Node dequantize;
    dequantize.name = name + "/to_fp32_0";
    dequantize.opType = "DequantizeLinear";
    const TensorId dequantizeIns[] = {yq, yScale, yZero};
    part(n).push_back(
        append(std::move(dequantize), dequantizeIns, std::span(&dequantized, 1), {}, n));
    Node add;
    add.name = name + "/bias";
    add.opType = "Add";
    const TensorId addIns[] = {dequantized, c};
    part(n).push_back(append(std::move(add), addIns, std::span(&back, 1), {}, n));
}

} // namespace paretune::detail
