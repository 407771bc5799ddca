// SPDX-License-Identifier: GPL-3.0-or-later
// Inputs that make each ONNX operator meaningful: the graph's constants, shape-like inputs
// derived from the node's static output shape, and random values valid for each input's role.
#include "op_kernel_context.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

namespace paretune::detail {
namespace {

/// Static dims of a tensor; OpFailure when any is unknown.
Ints staticDims(const Graph& g, TensorId id) {
    const Tensor& t = g.tensors[static_cast<std::size_t>(id)];
    if (!t.shapeKnown() || t.sequence) {
        throw OpFailure("tensor '" + t.name + "' has no static shape (" + t.typeString() + ")");
    }
    return t.dims;
}

TensorId inputTensor(const Graph& g, NodeId node, int index) {
    const auto ins = g.nodeInputs.row(node);
    return index < static_cast<int>(ins.size()) ? ins[static_cast<std::size_t>(index)] : kNone;
}

TensorId outputTensor(const Graph& g, NodeId node, int index) {
    const auto outs = g.nodeOutputs.row(node);
    return index < static_cast<int>(outs.size()) ? outs[static_cast<std::size_t>(index)] : kNone;
}

/// Shape-like inputs that are not graph constants, derived from the node's static output shape
/// (which the importer's folding already computed from the real values). Nothing when the
/// input is not shape-like.
std::optional<at::Tensor> derivedShapeInput(const Graph& g, NodeId id, int index) {
    const Node& node = g.nodes[static_cast<std::size_t>(id)];
    const std::string& op = node.opType;
    auto outDims = [&] { return staticDims(g, outputTensor(g, id, 0)); };
    auto inDims = [&] { return staticDims(g, inputTensor(g, id, 0)); };
    if ((op == "Reshape" || op == "Expand") && index == 1) {
        return longTensor(outDims());
    }
    if (op == "ConstantOfShape" && index == 0) {
        return longTensor(outDims());
    }
    if (op == "Resize" && index == 3) {
        return longTensor(outDims());
    }
    if (op == "Tile" && index == 1) {
        const Ints in = inDims();
        const Ints out = outDims();
        Ints repeats;
        for (std::size_t i = 0; i < in.size() && i < out.size(); ++i) {
            repeats.push_back(in[i] ? out[i] / in[i] : 1);
        }
        return longTensor(repeats);
    }
    if (op == "Slice" && index >= 1 && index <= 4) {
        const Ints out = outDims();
        Ints values(out.size(), 0);
        if (index == 2) {
            values = out;
        } else if (index == 3) {
            std::iota(values.begin(), values.end(), 0);
        } else if (index == 4) {
            values.assign(out.size(), 1);
        }
        return longTensor(values);
    }
    if (op == "Range" && index <= 2) {
        const Ints out = outDims();
        const std::int64_t v = index == 0 ? 0 : index == 1 ? (out.empty() ? 0 : out[0]) : 1;
        const Tensor& t = g.tensors[static_cast<std::size_t>(inputTensor(g, id, index))];
        return at::scalar_tensor(v, at::TensorOptions().dtype(scalarTypeOf(t.dtype)));
    }
    if (op == "Pad" && index == 1) {
        const Ints in = inDims();
        const Ints out = outDims();
        Ints pads(2 * in.size(), 0);
        for (std::size_t i = 0; i < in.size(); ++i) {
            pads[in.size() + i] = out[i] - in[i];
        }
        return longTensor(pads);
    }
    if (op == "Split" && index == 1) {
        const std::int64_t axis = node.attrInt("axis", 0);
        Ints sizes;
        for (TensorId o : g.nodeOutputs.row(id)) {
            const Ints d = staticDims(g, o);
            sizes.push_back(d[static_cast<std::size_t>(
                axis < 0 ? axis + static_cast<std::int64_t>(d.size()) : axis)]);
        }
        return longTensor(sizes);
    }
    const bool axesInput =
        ((op == "Squeeze" || op == "Unsqueeze" || op.rfind("Reduce", 0) == 0) && index == 1) ||
        (op == "Pad" && index == 3) || (op == "Resize" && (index == 1 || index == 2)) ||
        (op == "TopK" && index == 1);
    if (axesInput) {
        throw OpFailure("input " + std::to_string(index) + " of " + op +
                        " is not a graph constant and cannot be derived from the output shape");
    }
    return std::nullopt;
}

at::Tensor randomTensor(const Ints& dims, at::ScalarType type, double lo, double hi,
                        at::Generator& gen) {
    const auto options = at::TensorOptions().dtype(type);
    if (type == at::kBool) {
        return at::randint(0, 2, dims, gen, at::TensorOptions().dtype(at::kLong)).to(at::kBool);
    }
    if (at::isIntegralType(type, false)) {
        const auto low = static_cast<std::int64_t>(std::floor(lo));
        const auto high = std::max(static_cast<std::int64_t>(std::ceil(hi)), low + 1);
        return at::randint(low, high, dims, gen, at::TensorOptions().dtype(at::kLong)).to(type);
    }
    at::Tensor t = at::empty(dims, at::TensorOptions().dtype(at::kFloat));
    t.uniform_(lo, hi, gen);
    return t.to(options);
}

} // namespace

at::Tensor makeInput(const Graph& graph, NodeId id, int index, at::Generator& generator) {
    const TensorId tid = inputTensor(graph, id, index);
    if (tid == kNone) {
        return {};
    }
    const Tensor& t = graph.tensors[static_cast<std::size_t>(tid)];
    if (t.value) {
        return tensorFromConstant(*t.value);
    }
    if (auto derived = derivedShapeInput(graph, id, index)) {
        return *derived;
    }
    const Ints dims = staticDims(graph, tid);
    const at::ScalarType type = scalarTypeOf(t.dtype);
    const Node& node = graph.nodes[static_cast<std::size_t>(id)];
    const std::string& op = node.opType;
    if ((op == "Gather" || op == "GatherElements") && index == 1) {
        const Ints data = staticDims(graph, inputTensor(graph, id, 0));
        const std::int64_t axis = node.attrInt("axis", 0);
        const std::int64_t d = data[static_cast<std::size_t>(
            axis < 0 ? axis + static_cast<std::int64_t>(data.size()) : axis)];
        return randomTensor(dims, type, 0, static_cast<double>(d), generator);
    }
    if (op == "ScatterND" && index == 1) {
        const Ints data = staticDims(graph, inputTensor(graph, id, 0));
        const std::int64_t k = dims.empty() ? 0 : dims.back();
        std::vector<at::Tensor> components;
        Ints componentDims(dims.begin(), dims.end() - 1);
        componentDims.push_back(1);
        for (std::int64_t j = 0; j < k; ++j) {
            components.push_back(
                randomTensor(componentDims, at::kLong, 0,
                             static_cast<double>(data[static_cast<std::size_t>(j)]), generator));
        }
        return at::cat(components, -1).to(type);
    }
    const bool positive = ((op == "Sqrt" || op == "Log" || op == "Reciprocal") && index == 0) ||
                          (op == "Pow" && index == 0) ||
                          ((op == "Div" || op == "Mod") && index == 1) ||
                          (op == "BatchNormalization" && index == 4) ||
                          (op == "FusedConv" && index == 7) || // its normalisation's variance
                          // quantization scales
                          ((op == "QuantizeLinear" || op == "DequantizeLinear") && index == 1) ||
                          ((op == "QLinearConv" || op == "QLinearMatMul") &&
                           (index == 1 || index == 4 || index == 6));
    if ((op == "QLinearConv" || op == "QLinearMatMul") && index == 5) {
        return at::zeros(dims, at::TensorOptions().dtype(type)); // symmetric weights
    }
    if (at::isIntegralType(type, false)) {
        // Non-zero, so that integer divisors are valid.
        return randomTensor(dims, type, 1, 8, generator);
    }
    return positive ? randomTensor(dims, type, 0.5, 1.5, generator)
                    : randomTensor(dims, type, -1.0, 1.0, generator);
}

std::vector<at::Tensor> makeInputs(const Graph& graph, NodeId node, at::Generator& generator) {
    std::vector<at::Tensor> inputs;
    const int count = static_cast<int>(graph.nodeInputs.row(node).size());
    for (int i = 0; i < count; ++i) {
        inputs.push_back(makeInput(graph, node, i, generator));
    }
    const std::string& op = graph.nodes[static_cast<std::size_t>(node)].opType;
    const bool chained = (op == "Conv" || op == "FusedConv")
                             ? !inputs.empty() && runsChannelsLast(inputs[0])
                             : op == "QLinearConv" && !inputs.empty() && inputs[0].dim() == 4 &&
                                   channelsLastChains();
    if (chained) {
        inputs[0] = inputs[0].contiguous(at::MemoryFormat::ChannelsLast);
    }
    return inputs;
}

} // namespace paretune::detail
