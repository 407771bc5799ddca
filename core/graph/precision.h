// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The variant layer of a plan (DESIGN.md "The plan, second generation"): how a compute node
// runs, beside where. This build offers precisions; a node in a lower precision reads its
// activations and weights converted to it and gives its outputs back in fp32 (the conversions
// are nodes of their own in the lowered graph, measured like any operator).

#include "graph/graph.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace paretune {

/// Precision of a node's arithmetic. Fp32 is the model as given (variant 0 of a cost table).
enum class Precision : std::uint8_t { Fp32, Bf16 };

std::string_view precisionName(Precision precision); ///< "fp32", "bf16"
/// Parses one name. Throws InputError naming it and the names this build knows; a precision the
/// design lists but this build does not run yet (int8, fp16) says so.
Precision parsePrecision(std::string_view name);
/// Parses "bf16,…" (distinct names). Throws InputError like parsePrecision, or for a repeat.
std::vector<Precision> parsePrecisions(std::string_view text);
/// The element type a precision stores floating-point tensors in.
DType precisionDType(Precision precision);

/// Whether a node can run in `precision`: Fp32 always; a lower precision for a Conv, MatMul or
/// Gemm whose floating-point inputs are all float32 (the products that dominate a model's time).
bool lowerable(const Graph& graph, NodeId node, Precision precision);

/// A graph with some of its nodes in a lower precision, and where its nodes came from.
struct LoweredGraph {
    Graph graph;
    /// Per lowered-graph node: the original node it runs or converts for.
    std::vector<NodeId> origin;
    /// Per original node: its nodes in the lowered graph (the node itself first, then the
    /// conversions of its inputs and outputs).
    std::vector<std::vector<NodeId>> parts;
    /// Per original node, the precision it was lowered to (Fp32: kept as it was).
    std::vector<Precision> precisions;
};

/// Lowers each node to its precision (one entry per graph node; Fp32 leaves it as it is): its
/// float32 activations pass through a Cast to the precision's type, its float32 initializers
/// are stored converted, and each float32 output is computed in the precision and cast back to
/// float32 (a node "NAME/to_fp32_K" producing the original tensor). Throws InputError for a
/// size mismatch or a node that is not lowerable to its precision. The result is a valid ONNX
/// graph (opset ≥ 13 for bfloat16 Cast).
LoweredGraph lowerGraph(const Graph& graph, std::span<const Precision> precisions);

/// The graph with, after each node lowerable to `precision`, a lowered copy of it: "NAME@bf16"
/// with its conversions, its outputs cast back into new float32 tensors ("OUT+bf16") that
/// nothing reads. Profiling measures a node and its lowered form in one run this way, at one
/// machine speed. `parts[n]` holds the copy's compute nodes (the lowered node first), `origin`
/// the original node of every node; `nodeOf[n]` is node n itself in the paired graph.
struct PairedVariants {
    LoweredGraph paired;
    std::vector<NodeId> nodeOf;
};
PairedVariants appendLoweredNodes(const Graph& graph, Precision precision);

/// Every node lowerable to `precision` lowered to it: what `profile --variants` measures.
std::vector<Precision> lowerAll(const Graph& graph, Precision precision);

/// "NAME (bf16 0123456789ab)": the name a model's graph of lowered nodes is stored under beside
/// the model (the first 12 digits of the model's fingerprint), like fusedGraphName.
std::string loweredGraphName(const Graph& original, Precision precision);
/// Whether a graph name is that of a lowered graph of the model with this fingerprint.
bool isLoweredGraphName(std::string_view name, std::string_view fingerprint);

} // namespace paretune
