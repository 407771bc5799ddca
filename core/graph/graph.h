// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "constant_tensor.h"
#include "dtype.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace paretune {

using NodeId = std::int32_t;
using TensorId = std::int32_t;
constexpr std::int32_t kNone = -1;

/// One attribute of a node, decoded from ONNX. `canonical` is a stable text form used in
/// signatures and fingerprints (floats printed with full precision, lists in order).
struct Attribute {
    enum class Kind { Int, Float, String, Ints, Floats, Strings, Tensor, Graph, Other };

    std::string name;
    Kind kind = Kind::Other;
    std::int64_t i = 0;
    double f = 0.0;
    std::string s;
    std::vector<std::int64_t> ints;
    std::vector<double> floats;
    std::vector<std::string> strings;
    std::shared_ptr<const ConstantTensor> tensor; ///< Kind::Tensor when small enough to keep
    std::string canonical;
};

/// What a node means for cost: Compute nodes are profiled and placed; the other kinds cost
/// nothing at run time (Constant produces a value known in advance, PassThrough only relabels
/// or reshapes a buffer, ShapeComputation was folded to a constant at import).
enum class NodeKind { Compute, Constant, PassThrough, ShapeComputation };

std::string_view nodeKindName(NodeKind kind);

struct Node {
    std::string name; ///< unique within the graph (made unique at import when needed)
    std::string opType;
    std::string domain;                ///< empty for the default ONNX domain
    std::vector<Attribute> attributes; ///< sorted by name
    NodeKind kind = NodeKind::Compute;
    bool knownOperator = true; ///< false when no ONNX schema exists for it at the model's opset
    /// Intra-op threads it runs with, from a plan's variant (graph/precision.h: "fp32-t1"); 0:
    /// its device's. Not an ONNX attribute: a bundle's plan.json names the variant.
    std::int32_t threads = 0;

    const Attribute* attribute(std::string_view attributeName) const;
    std::int64_t attrInt(std::string_view attributeName, std::int64_t fallback) const;
    double attrFloat(std::string_view attributeName, double fallback) const;
    std::string attrString(std::string_view attributeName, std::string_view fallback) const;
    std::vector<std::int64_t> attrInts(std::string_view attributeName) const;
};

enum class TensorRole { GraphInput, Initializer, Activation };

struct Tensor {
    std::string name;
    DType dtype = DType::Undefined;
    bool rankKnown = false;
    std::vector<std::int64_t> dims; ///< -1 for a dimension that is not known
    TensorRole role = TensorRole::Activation;
    bool graphOutput = false;
    NodeId producer = kNone;
    std::shared_ptr<const ConstantTensor> value; ///< small constants only
    /// An ONNX sequence of tensors (torch's unbind / tensor_split around a Loop). `dtype` is the
    /// elements' type; `sequenceKnown` says whether its length is known, `elementDims` then holds
    /// each element's dimensions. dims/rankKnown are unused for sequences.
    bool sequence = false;
    bool sequenceKnown = false;
    std::vector<std::vector<std::int64_t>> elementDims;

    bool shapeKnown() const;
    /// Number of elements, or -1 when the shape is not known.
    std::int64_t elementCount() const;
    /// Size in bytes, or -1 when the shape or the element size is not known.
    std::int64_t byteSize() const;
    /// "float32[1,3,224,224]", with '?' for unknown dimensions.
    std::string typeString() const;
};

/// Cost-relevant figures of one node. FLOPs count a multiply-add as 2.
struct OpMetrics {
    double flops = 0.0;
    std::int64_t bytesRead = 0;    ///< all inputs, weights included
    std::int64_t bytesWritten = 0; ///< all outputs
    std::int64_t paramBytes = 0;   ///< inputs that are initializers (weights, biases)
};

/// A stored span of a CSR adjacency: offsets has one entry more than there are rows.
struct Csr {
    std::vector<std::int32_t> offsets{0};
    std::vector<std::int32_t> values;

    std::span<const std::int32_t> row(std::int32_t index) const {
        return {values.data() + offsets[static_cast<std::size_t>(index)],
                values.data() + offsets[static_cast<std::size_t>(index) + 1]};
    }
    void appendRow(std::span<const std::int32_t> items) {
        values.insert(values.end(), items.begin(), items.end());
        offsets.push_back(static_cast<std::int32_t>(values.size()));
    }
};

/// A model's computation graph, as a value. The importer builds it; after that it is read-only.
/// Adjacency is kept in flat CSR arrays so that the simulator can walk it without allocating.
struct Graph {
    std::string name;
    std::string sourcePath; ///< the file it came from; empty when imported from memory
    std::string producer;   ///< producer_name and version from the file
    std::int64_t opset = 0; ///< default-domain opset
    std::int64_t irVersion = 0;

    std::vector<Node> nodes;
    std::vector<Tensor> tensors;
    Csr nodeInputs;  ///< per node, tensor ids in input order; kNone for an omitted optional input
    Csr nodeOutputs; ///< per node, tensor ids in output order; kNone for an omitted output
    /// per node, outer-scope tensors its subgraphs read (Loop, If, Scan bodies); they count as
    /// inputs in tensorConsumers and predecessors
    Csr capturedInputs;
    Csr tensorConsumers;           ///< per tensor, consuming node ids (each node once)
    Csr predecessors;              ///< per node, producing node ids of its inputs (each once)
    Csr successors;                ///< per node, consuming node ids of its outputs (each once)
    std::vector<TensorId> inputs;  ///< graph inputs that are not initializers
    std::vector<TensorId> outputs; ///< graph outputs
    std::vector<NodeId> topologicalOrder;

    std::vector<OpMetrics> metrics;      ///< per node
    std::vector<std::string> signatures; ///< per node, see OpSignature
    std::string fingerprint;             ///< see ModelFingerprint

    std::int64_t parameterCount() const;
    double totalFlops() const;
    int computeNodeCount() const;
    int unknownShapeCount() const;
    TensorId findTensor(std::string_view tensorName) const;
    NodeId findNode(std::string_view nodeName) const;
};

} // namespace paretune
