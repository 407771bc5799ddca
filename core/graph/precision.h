// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The variant layer of a plan (DESIGN.md "The plan, second generation"): how a compute node
// runs, beside where. This build offers precisions; a node in a lower precision reads its
// activations and weights converted to it and gives its outputs back in fp32 (the conversions
// are nodes of their own in the lowered graph, measured like any operator), except between
// neighbours in the same bf16 or fp16 precision, which pass their tensors on as they are. bf16 and
// fp16 convert with Cast; int8 quantizes with QuantizeLinear / QLinearConv or QLinearMatMul /
// DequantizeLinear, its activation scales calibrated from measured ranges and its weights'
// per-channel scales computed from the weights when a program is prepared.

#include "common/int8_products.h"
#include "graph/graph.h"

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace paretune {

/// Precision of a node's arithmetic. Fp32 is the model as given (variant 0 of a cost table).
/// The values are the order of the predictor's one-hot precision features (op_features.h):
/// Fp16 came last so that the older features stay a prefix.
enum class Precision : std::uint8_t { Fp32, Bf16, Int8, Fp16 };

std::string_view precisionName(Precision precision); ///< "fp32", "bf16", "int8", "fp16"
/// Parses one name. Throws InputError naming it and the names this build knows.
Precision parsePrecision(std::string_view name);

/// Memory layout of a node's 4-D activations. Nchw is ONNX's; ChannelsLast (NHWC) is the one
/// oneDNN's fast convolution kernels read and write on many CPUs. A node lowered to
/// ChannelsLast reads its activations transposed to NHWC and gives its outputs back transposed
/// to NCHW (Transpose nodes, measured like any operator), except between neighbours in the
/// same variant, which pass their NHWC tensors on as they are (lowerGraph).
enum class Layout : std::uint8_t { Nchw, ChannelsLast };

/// How a compute node runs: its precision, its activations' layout and its intra-op threads
/// (DESIGN.md "The plan, second generation": the variant layer). Variant 0 of a cost table is
/// fp32 in NCHW on the device's threads, the model as given. Named PRECISION[-nhwc][-tN]:
/// fp32, bf16, int8, fp16 (each in the layout its kernels choose: bf16 convolutions run
/// channels-last inside on CPUs computing bf16 natively); fp32-nhwc (fp32 convolutions and their
/// elementwise neighbours in NHWC); a -tN suffix runs the node (and its conversions) with N
/// intra-op threads instead of its device's (a CPU device of more than N cores: fp32-t1,
/// bf16-t1).
struct Variant {
    Precision precision = Precision::Fp32;
    Layout layout = Layout::Nchw;
    std::uint8_t threads = 0; ///< intra-op threads; 0: the device's own

    constexpr Variant() = default;
    // A precision in its default layout (implicit: every precision is a variant).
    constexpr Variant(Precision p, Layout l = Layout::Nchw, // NOLINT(google-explicit-constructor)
                      std::uint8_t t = 0)
        : precision(p), layout(l), threads(t) {}
    friend constexpr bool operator==(Variant a, Variant b) = default;
    /// The same precision and layout on the device's own threads.
    constexpr Variant onDeviceThreads() const { return {precision, layout}; }
};

/// The operator a Conv lowered to fp32-nhwc runs as: Conv's attributes, inputs and weights (W in
/// OIHW), its activation X and output Y in NHWC (a Paretune operator: onnxruntime's contrib
/// NhwcConv reads its weights in another layout).
inline constexpr std::string_view kNhwcConvDomain = "ai.paretune";
inline constexpr std::string_view kNhwcConvOp = "NhwcConv";

/// "fp32", "bf16", "int8", "fp16", "fp32-nhwc", "fp32-t1", "bf16-t2", "fp32-nhwc-t1".
std::string variantName(Variant variant);
/// Parses one name (PRECISION[-nhwc][-tN], N from 1 to 255; nhwc with fp32 only). Throws
/// InputError naming it and what a name is made of.
Variant parseVariant(std::string_view name);
/// Parses "bf16,…" (distinct names). Throws InputError like parseVariant, or for a repeat.
std::vector<Variant> parseVariants(std::string_view text);
/// The element type a precision stores floating-point activations in (fp16: float16; int8:
/// uint8, the quantized activations; its weights are int8).
DType precisionDType(Precision precision);

/// Whether a node can run in `variant`: Fp32 always; bf16 and fp16 for a Conv, MatMul or Gemm
/// whose floating-point inputs are all float32 (the products that dominate a model's time), and
/// for a Relu, Add or Clip (opset 11 on) of float32 inputs (their neighbours: a chain of lowered
/// nodes converts only at its ends, lowerGraph); int8
/// for a 2-D Conv of a float32 activation with float32 weights (and bias) that are initializers, a
/// MatMul of a float32 activation of rank ≥ 2 by a constant 2-D float32 B, and a Gemm of a 2-D
/// activation (transA 0, alpha and beta 1) by a constant B (transB either way) and constant C.
/// fp32-nhwc for a 2-D Conv of a float32 activation (ONNX's domain), and a Relu, Clip (opset 11
/// on) or Add whose activations are all float32 and 4-D (an Add's of one shape, no weight); a
/// variant on other threads (-tN) where the variant on its device's threads is, and fp32-tN for
/// every compute node of ONNX's domain.
/// Fused nodes (fusion.h) stay fp32, bf16 or fp16. Whether a device runs the variant is
/// another question (profile/precision_support.h).
bool lowerable(const Graph& graph, NodeId node, Variant variant);

/// The range of a tensor's values over calibration inputs: what an int8 node's activation
/// scale and zero point come from (asymmetric uint8 over [min(lo, 0), max(hi, 0)]).
struct ActivationRange {
    double lo = 0.0;
    double hi = 0.0;
};
/// By tensor name.
using ActivationRanges = std::map<std::string, ActivationRange>;
/// The tensors whose ranges int8 lowering needs: the activation input and the output of every
/// node lowerable to int8, each once, in graph order.
std::vector<TensorId> int8RangeTensors(const Graph& graph);

/// A graph with some of its nodes in a lower precision, and where its nodes came from.
struct LoweredGraph {
    Graph graph;
    /// Per lowered-graph node: the original node it runs or converts for.
    std::vector<NodeId> origin;
    /// Per original node: its nodes in the lowered graph (the node itself first, then the
    /// conversions of its inputs and outputs).
    std::vector<std::vector<NodeId>> parts;
    /// Per original node, the variant it was lowered to (fp32: kept as it was).
    std::vector<Variant> variants;
    /// A conversion of an activation that a node lowered to bf16, fp16, fp32-nhwc or int8 runs:
    /// of its input `tensor` into the variant, or (output) of its own output `tensor` back into
    /// float32 NCHW. `node` is the Cast, Transpose, QuantizeLinear or DequantizeLinear in the
    /// lowered graph, `tensor` an original tensor. An int8 node lists only those a chain can
    /// spare (int8 chains, below).
    struct Conversion {
        NodeId node = kNone;
        TensorId tensor = kNone;
        bool output = false;
    };
    /// Per original node, its conversions of activations (in order; a subset of its parts).
    std::vector<std::vector<Conversion>> conversions;
    /// Whether every int8 node's scales come from measured ranges. Without them (no ranges
    /// given, or a tensor missing) a placeholder range [-1, 1] stands in: the graph has the
    /// right operators, types and shapes (enough to cost it) but must not be run for accuracy.
    bool calibrated = true;
};

/// Lowers each node to its precision (one entry per graph node; Fp32 leaves it as it is): its
/// float32 activations pass through a Cast to the precision's type, its float32 initializers
/// are stored converted, and each float32 output is computed in the precision and cast back to
/// float32 (a node "NAME/to_fp32_K" producing the original tensor). Throws InputError for a
/// size mismatch or a node that is not lowerable to its precision. The result is a valid ONNX
/// graph (opset ≥ 13 for bfloat16 Cast; float16 Casts are older). An int8 node is spelled in ONNX's
/// quantized operators: its activation passes through a QuantizeLinear ("NAME/quantize_0", scale
/// and zero point from `ranges`), it runs as a QLinearConv on its weights quantized per output
/// channel (Constant-kind nodes computing the scales from the weights: Abs, ReduceMax, Max, Div,
/// QuantizeLinear; the bias as int32 at the input scale × the weight scale), and its output
/// comes back through a DequantizeLinear ("NAME/to_fp32_0"). A MatMul or Gemm runs as a
/// QLinearMatMul on B quantized per column (b_scale of N elements; Gemm's transposed B
/// quantized per row, then transposed by a Constant-kind Transpose), and a Gemm's C is added
/// in float after the DequantizeLinear ("NAME/bias", an Add); its output scale covers Y's range
/// less C's values. An int8 product's input is quantized over `int8Levels` steps (255, or 127
/// where this CPU's engines would not multiply 8-bit inputs exactly: common/int8_products.h), its
/// output over 255. Throws InputError for other levels. A variant on other threads (-tN) sets
/// Node::threads on the node and its conversions; fp32-tN keeps the node as it is. A node in
/// fp32-nhwc reads its 4-D
/// activations through a Transpose to NHWC ("NAME/to_nhwc_K", perm 0 2 3 1) and gives its output
/// back through a Transpose to NCHW ("NAME/to_nchw_0"); a Conv runs as "ai.paretune::NhwcConv"
/// (Conv's attributes and weights, NHWC input and output), its elementwise neighbours as they
/// are, on NHWC tensors.
///
/// Chains (LoweredChains::Joined, the default): where a node and its producer both compute in
/// the same variant that converts with Casts or Transposes (bf16, fp16, fp32-nhwc), the
/// consumer reads the producer's lowered output directly (no conversion back and again), and a
/// producer whose readers all compute in its variant converts no output back (unless the output
/// is a graph output). So a chain of
/// lowered nodes converts only where the precision changes: what a plan runs. int8 chains
/// likewise: an int8 Conv or MatMul reads its int8 producer's uint8 output as it is (the
/// producer's output scale is its input scale: both cover the same tensor's range), and a
/// producer whose readers are all int8 dequantizes nothing. A Gemm with a C does not pass its
/// output on (C is added in float), nor does any producer where inputs are quantized over 127
/// levels (they are quantized again in 7 bits).
/// LoweredChains::Isolated gives every lowered node its own conversions: the cost of each node
/// alone, with what the chain would save, as CostTable::Conversion cells.
enum class LoweredChains : std::uint8_t { Joined, Isolated };
LoweredGraph lowerGraph(const Graph& graph, std::span<const Variant> variants,
                        const ActivationRanges* ranges = nullptr,
                        int int8Levels = int8InputLevels(),
                        LoweredChains chains = LoweredChains::Joined);

/// The graph with, after each node lowerable to `variant`, a lowered copy of it: "NAME@bf16"
/// with its conversions, its outputs cast back into new float32 tensors ("OUT+bf16") that
/// nothing reads. Profiling measures a node and its lowered form in one run this way, at one
/// machine speed. `parts[n]` holds the copy's compute nodes (the lowered node first), `origin`
/// the original node of every node; `nodeOf[n]` is node n itself in the paired graph.
struct PairedVariants {
    LoweredGraph paired;
    std::vector<NodeId> nodeOf;
};
/// `productsOnly`: only the Conv, MatMul and Gemm nodes get a copy, as before their elementwise
/// neighbours were lowerable (how the paired graphs of older libraries were made).
PairedVariants appendLoweredNodes(const Graph& graph, Variant variant,
                                  const ActivationRanges* ranges = nullptr,
                                  int int8Levels = int8InputLevels(), bool productsOnly = false);

/// Every node lowerable to `variant` lowered to it: what `profile --variants` measures.
std::vector<Variant> lowerAll(const Graph& graph, Variant variant);

/// "NAME (bf16 0123456789ab)": the name a model's graph of lowered nodes is stored under beside
/// the model (the first 12 digits of the model's fingerprint), like fusedGraphName.
std::string loweredGraphName(const Graph& original, Variant variant);
/// Whether a graph name is that of a lowered graph of the model with this fingerprint.
bool isLoweredGraphName(std::string_view name, std::string_view fingerprint);
/// The variant of a lowered graph's name (loweredGraphName of the model with this
/// fingerprint); none for any other name.
std::optional<Variant> loweredGraphVariant(std::string_view name, std::string_view fingerprint);

/// The precision a node computes in, read from the node itself (so that a lowered graph, a
/// profiled pair and an imported quantized model all say the same): int8 for ONNX's quantized
/// operators (QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, QLinearConv,
/// QLinearMatMul, ConvInteger, MatMulInteger, and a Clip of uint8: int8 lowering's 7-bit
/// inputs), bf16 for a node that reads or writes a bfloat16
/// tensor (a lowered node and the Casts of its conversions), fp16 likewise for a float16 tensor
/// (a model exported in half precision reads as fp16 too), fp32 otherwise. Pure.
Precision nodePrecision(const Graph& graph, NodeId node);

} // namespace paretune
