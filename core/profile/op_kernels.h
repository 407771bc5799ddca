// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to paretune_torch: includes ATen. Only the operator kernels (op_kernels*.cpp,
// op_inputs.cpp, tensor_conversion.cpp), op_runner.cpp and the graph executor (through
// graph_program.h) see it.

#include "graph/graph.h"
#include "op_profile.h"

#include <ATen/ATen.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace paretune::detail {

/// An operator (or one of its modes) that has no LibTorch implementation here.
class UnsupportedOp : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A node that cannot be run as given (unknown shape, missing constant, bad attribute).
class OpFailure : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Whether a kernel exists for an op type of the default domain, or for a "domain::OpType" key
/// (the fused nodes of graph/fusion.h: "ai.paretune::FusedConv").
bool isSupportedOp(std::string_view opType);
/// The kernel table's key of a node: its op type, prefixed by "domain::" outside the default
/// domain.
std::string kernelKey(const Node& node);

/// Inputs of a node to use instead of the graph's, computed once before its runs from its fixed
/// inputs (index, value; an undefined value: leave that input out): a FusedConv's batch
/// normalisation folded into its weight and bias. Empty for every other node.
std::vector<std::pair<int, at::Tensor>> foldedInputs(const Graph& graph, NodeId node,
                                                     const std::vector<at::Tensor>& inputs);
std::vector<std::string> supportedOpList();

at::ScalarType scalarTypeOf(DType dtype); ///< throws UnsupportedOp for string/complex types
DType dtypeOf(at::ScalarType type);
at::Tensor tensorFromConstant(const ConstantTensor& value);

/// The tensor for input `inputIndex` of `node`: the graph's constant when it has one, else
/// random values valid for that input's role (see OpRunner).
at::Tensor makeInput(const Graph& graph, NodeId node, int inputIndex, at::Generator& generator);
/// All inputs of a node; undefined tensors for omitted optional inputs.
std::vector<at::Tensor> makeInputs(const Graph& graph, NodeId node, at::Generator& generator);

/// Executes the ONNX semantics of the node. Returns one tensor per node output (undefined for
/// an omitted output). Throws UnsupportedOp, OpFailure or c10::Error.
std::vector<at::Tensor> executeNode(const Graph& graph, NodeId node,
                                    const std::vector<at::Tensor>& inputs);

/// Host copy of a tensor (any device); an empty HostTensor for an undefined one.
HostTensor toHost(const at::Tensor& t);
/// CPU tensor of a host tensor. Throws OpFailure when values and dims disagree.
at::Tensor fromHost(const HostTensor& h);
/// c10 error text without the C++ backtrace LibTorch appends.
std::string torchMessage(const c10::Error& e);

/// "[1,3,224,224]".
std::string dimsText(at::IntArrayRef dims);
std::string dimsText(const std::vector<std::int64_t>& dims);

} // namespace paretune::detail
