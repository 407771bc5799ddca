// SPDX-License-Identifier: GPL-3.0-or-later
#include "model_fingerprint.h"

#include "common/sha256.h"

#include <unordered_map>

namespace paretune {

namespace {

constexpr std::int64_t kMaxSignatureValues = 64;

void appendValues(std::string& text, const Tensor& tensor) {
    if (!tensor.value || !tensor.value->holdsIntegers() ||
        tensor.value->elementCount() > kMaxSignatureValues) {
        return;
    }
    text += '{';
    for (std::size_t k = 0; k < tensor.value->ints.size(); ++k) {
        text += (k ? "," : "") + std::to_string(tensor.value->ints[k]);
    }
    text += '}';
}

void appendNodeHeader(std::string& text, const Node& node) {
    text += node.opType;
    if (!node.domain.empty()) {
        text += '@' + node.domain;
    }
    text += '(';
    for (const Attribute& a : node.attributes) {
        text += a.canonical + ';';
    }
    text += ')';
    if (node.threads > 0) { // a variant's intra-op threads: another measurement
        text += " threads=" + std::to_string(node.threads);
    }
}

/// Whether input k of the node is a quantization zero point: its value does not change what the
/// operator costs (and an int8 node's activation zero points come from calibration), so nodes
/// that differ only in it share a signature and its samples.
bool zeroPointInput(const Node& node, std::size_t k) {
    if (!node.domain.empty()) {
        return false;
    }
    if (node.opType == "QuantizeLinear" || node.opType == "DequantizeLinear") {
        return k == 2;
    }
    return (node.opType == "QLinearConv" || node.opType == "QLinearMatMul") &&
           (k == 2 || k == 5 || k == 7);
}

} // namespace

std::string opSignatureText(const Graph& graph, NodeId node) {
    std::string text;
    appendNodeHeader(text, graph.nodes[static_cast<std::size_t>(node)]);
    text += " in:";
    const auto ins = graph.nodeInputs.row(node);
    for (std::size_t k = 0; k < ins.size(); ++k) {
        const TensorId t = ins[k];
        if (t == kNone) {
            text += "none;";
            continue;
        }
        const Tensor& tensor = graph.tensors[static_cast<std::size_t>(t)];
        text += tensor.typeString();
        if ((tensor.role == TensorRole::Initializer ||
             (tensor.producer != kNone &&
              graph.nodes[static_cast<std::size_t>(tensor.producer)].kind != NodeKind::Compute)) &&
            !zeroPointInput(graph.nodes[static_cast<std::size_t>(node)], k)) {
            appendValues(text, tensor);
        }
        text += ';';
    }
    text += " out:";
    for (const TensorId t : graph.nodeOutputs.row(node)) {
        text += t == kNone ? std::string("none")
                           : graph.tensors[static_cast<std::size_t>(t)].typeString();
        text += ';';
    }
    return text;
}

std::string opSignature(const Graph& graph, NodeId node) {
    return Sha256::hex(opSignatureText(graph, node)).substr(0, 32);
}

std::string modelFingerprint(const Graph& graph) {
    Sha256 hash;
    std::unordered_map<TensorId, std::string> inputIndex;
    for (std::size_t k = 0; k < graph.inputs.size(); ++k) {
        inputIndex[graph.inputs[k]] = "in" + std::to_string(k);
    }
    std::vector<int> position(graph.nodes.size(), 0);
    for (std::size_t k = 0; k < graph.topologicalOrder.size(); ++k) {
        position[static_cast<std::size_t>(graph.topologicalOrder[k])] = static_cast<int>(k);
    }
    // Where a tensor comes from, without naming it.
    auto source = [&](TensorId t) {
        if (t == kNone) {
            return std::string("none");
        }
        const Tensor& tensor = graph.tensors[static_cast<std::size_t>(t)];
        if (tensor.producer != kNone) {
            const auto outs = graph.nodeOutputs.row(tensor.producer);
            int slot = 0;
            while (outs[static_cast<std::size_t>(slot)] != t) {
                ++slot;
            }
            return "n" + std::to_string(position[static_cast<std::size_t>(tensor.producer)]) + "." +
                   std::to_string(slot);
        }
        const auto it = inputIndex.find(t);
        if (it != inputIndex.end()) {
            return it->second;
        }
        std::string text = "w:" + tensor.typeString();
        appendValues(text, tensor);
        return text;
    };
    std::string header = "paretune.model/1 opset=" + std::to_string(graph.opset) + " inputs:";
    for (const TensorId t : graph.inputs) {
        header += graph.tensors[static_cast<std::size_t>(t)].typeString() + ';';
    }
    hash.update(header);
    for (const NodeId n : graph.topologicalOrder) {
        std::string line = "\n";
        appendNodeHeader(line, graph.nodes[static_cast<std::size_t>(n)]);
        line += " <- ";
        for (const TensorId t : graph.nodeInputs.row(n)) {
            line += source(t) + ';';
        }
        line += " -> ";
        for (const TensorId t : graph.nodeOutputs.row(n)) {
            line += (t == kNone ? std::string("none")
                                : graph.tensors[static_cast<std::size_t>(t)].typeString()) +
                    ';';
        }
        hash.update(line);
    }
    std::string footer = "\noutputs:";
    for (const TensorId t : graph.outputs) {
        footer += source(t) + ';';
    }
    hash.update(footer);
    return hash.hexDigest();
}

} // namespace paretune
