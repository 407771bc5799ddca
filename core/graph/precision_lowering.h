// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Inside precision.cpp: the builder of a lowered graph (precision.h), node by node in the
// original topological order. The bf16 and fp16 lowering (Casts) and the fp32-nhwc one
// (Transposes) are in precision_lowering.cpp, the int8 one (ONNX's quantized operators) in
// precision_int8.cpp.

#include "graph/precision.h"

#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace paretune::detail {

/// Whether a tensor's value is known before the run (an initializer or a constant).
bool isWeight(const Tensor& t);
/// A Cast attribute "to".
Attribute castTo(DType type);
/// A small constant tensor of the lowered graph: an initializer holding `value`.
Tensor constantTensor(std::string name, DType type, std::vector<std::int64_t> dims,
                      std::vector<double> reals, std::vector<std::int64_t> ints);
/// Whether node n of `graph` can run in int8 (precision.h, lowerable).
bool int8Lowerable(const Graph& graph, NodeId node);
/// Whether node n, in int8, computes its output as a uint8 tensor an int8 reader can take as it
/// is: int8-lowerable, and no Gemm with a C (added in float after the DequantizeLinear).
bool int8Joinable(const Graph& graph, NodeId node);

class Lowering {
public:
    /// `inputLevels`: the steps an int8 product's input is quantized over (255 or 127).
    /// `plan`: every node's variant, when neighbours in the same Cast or layout variant are
    /// joined (lowerGraph's LoweredChains::Joined); empty: every lowered node converts its own
    /// inputs and outputs.
    Lowering(const Graph& graph, const ActivationRanges* ranges, int inputLevels,
             std::span<const Variant> plan = {});

    /// n as it is, its id recorded as n's part.
    void keep(NodeId n);
    /// n in `variant`. A copy (beside n, which stays) is named "NAME@bf16" and writes its
    /// outputs back into new tensors; else it replaces n, giving back n's own outputs.
    void lower(NodeId n, Variant variant, bool copy = false);
    /// The node n as it is, in the graph being built.
    NodeId keepOnly(NodeId n);
    LoweredGraph finish();

private:
    /// lower's nodes, before their threads are set.
    void lowerParts(NodeId n, Variant variant, bool copy);
    /// Weight W quantized to int8 along `axis` (per output channel of a Conv, per column of a
    /// matrix product's B), once for all its readers.
    struct QuantizedWeight {
        TensorId values = kNone;
        TensorId scale = kNone;
        TensorId zero = kNone;
    };

    std::vector<NodeId>& part(NodeId n) { return m_out.parts[static_cast<std::size_t>(n)]; }
    /// Whether every reader of n's output t computes in n's variant v, so that t stays in v
    /// (joined chains only; never a graph output, nor a tensor nothing reads).
    bool staysLowered(TensorId t, Variant v) const;
    /// How an activation is converted into a variant and back: a Cast to `type` and back to
    /// float32, or (fp32-nhwc) a Transpose to NHWC and back to NCHW.
    struct Conversion {
        DType type = DType::Float32;
        bool transposed = false;
        std::string tag; ///< the variant's name
    };
    /// Activation t converted for node `origin` (a Cast, or a Transpose to NHWC).
    TensorId convertActivation(TensorId t, const Conversion& to, std::string tensorName,
                               std::string nodeName, NodeId origin, std::vector<NodeId>* nodes);
    /// The node converting the lowered output `from` back into original tensor `to` (float32,
    /// NCHW).
    NodeId convertBack(TensorId from, TensorId to, const Conversion& of, std::string name,
                       NodeId origin);
    /// The activation scale and zero point of tensor t, as initializers of the lowered graph
    /// named after `prefix` ("NAME/x" gives NAME/x_scale and NAME/x_zero_point), over t's range
    /// less `subtracted` (what a value of t minus one in `subtracted` can be), over `levels`
    /// steps (uint8Scale).
    std::pair<TensorId, TensorId> activationScale(TensorId t, const std::string& prefix, int levels,
                                                  ActivationRange subtracted = {});
    TensorId constantNode(std::string name, std::string op, std::vector<TensorId> ins, Tensor out,
                          std::vector<Attribute> attributes, NodeId origin);
    /// Quantized along `axis`; `transposed`: a 2-D weight given back transposed (Gemm's transB).
    QuantizedWeight quantizedWeight(TensorId w, std::int64_t axis, bool transposed, NodeId origin);
    /// QuantizeLinear of activation x for node `name`; returns the node and its output.
    /// 7-bit inputs (m_inputLevels 127) are clipped to 127 after it (a Clip on uint8).
    std::pair<std::vector<NodeId>, TensorId> quantizeActivation(TensorId x, TensorId scale,
                                                                TensorId zero,
                                                                const std::string& name,
                                                                NodeId origin);
    /// A new uint8 tensor like y, the quantized output of the lowered node.
    TensorId quantizedOutput(TensorId y, const std::string& name, bool copy);
    /// y itself, or for a copy a new float32 tensor "Y+TAG" like it that nothing reads.
    TensorId resultTensor(TensorId y, bool copy, const std::string& tag);
    void lowerConvToInt8(NodeId n, Variant variant, bool copy);
    void lowerProductToInt8(NodeId n, Variant variant, bool copy);
    /// Whether an int8 reader of `producer`'s output may read its uint8 tensor as it is: the
    /// producer is int8Joinable and inputs are quantized over 255 levels, as outputs are (with
    /// 127, each reader quantizes again in 7 bits).
    bool int8Chains(NodeId producer) const;
    /// The quantized activation x of int8 node n: its producer's uint8 output where that
    /// producer computes in the same variant (tag) and int8Chains, else a QuantizeLinear of x,
    /// listed as n's conversion where the producer int8Chains (what a chain saves).
    std::pair<std::vector<NodeId>, TensorId> int8Input(NodeId n, TensorId x, TensorId scale,
                                                       TensorId zero, const std::string& name,
                                                       const std::string& tag, bool copy);
    /// n's uint8 output yq dequantized into n's output (a DequantizeLinear, listed as n's
    /// conversion where n int8Chains), or, where every reader computes in n's variant, left as
    /// it is for them.
    void int8Output(NodeId n, TensorId yq, TensorId scale, TensorId zero, const std::string& name,
                    Variant variant, bool copy);
    TensorId addTensor(Tensor t);
    /// A new activation like original tensor t, named `name`, of `type`, its dims NHWC where
    /// `nhwc`: what a conversion of t writes.
    TensorId convertedTensor(TensorId t, std::string name, DType type, bool nhwc);
    TensorId convert(TensorId t, DType type, std::string tensorName, NodeKind kind,
                     std::string nodeName, NodeId origin, std::vector<NodeId>* nodes);
    NodeId append(Node node, std::span<const TensorId> ins, std::span<const TensorId> outs,
                  std::span<const TensorId> captured, NodeId origin);

    const Graph& m_in;
    const ActivationRanges* m_ranges;
    int m_inputLevels;
    LoweredGraph m_out;
    std::span<const Variant> m_plan;
    std::map<std::pair<TensorId, DType>, TensorId> m_weights;
    /// Original activations computed in a Cast or layout variant, or in int8 (its uint8 output),
    /// by their lowered producer: the tensor in that variant (joined chains read it directly),
    /// by variant name.
    std::map<std::pair<TensorId, std::string>, TensorId> m_loweredOutputs;
    std::map<std::tuple<TensorId, std::int64_t, bool>, QuantizedWeight> m_int8Weights;
};

} // namespace paretune::detail
