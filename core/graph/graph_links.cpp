// SPDX-License-Identifier: GPL-3.0-or-later
#include "graph_links.h"

#include "model_fingerprint.h"
#include "op_metrics.h"

#include <algorithm>

namespace paretune {

void linkGraph(Graph& g) {
    g.tensorConsumers = {};
    g.predecessors = {};
    g.successors = {};
    std::vector<std::vector<std::int32_t>> consumers(g.tensors.size());
    std::vector<std::vector<std::int32_t>> successors(g.nodes.size());
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
        std::vector<std::int32_t> preds;
        std::vector<TensorId> reads(g.nodeInputs.row(static_cast<std::int32_t>(i)).begin(),
                                    g.nodeInputs.row(static_cast<std::int32_t>(i)).end());
        const auto captured = g.capturedInputs.row(static_cast<std::int32_t>(i));
        reads.insert(reads.end(), captured.begin(), captured.end());
        for (const TensorId t : reads) {
            if (t == kNone) {
                continue;
            }
            auto& list = consumers[static_cast<std::size_t>(t)];
            if (list.empty() || list.back() != static_cast<std::int32_t>(i)) {
                list.push_back(static_cast<std::int32_t>(i));
            }
            const NodeId p = g.tensors[static_cast<std::size_t>(t)].producer;
            if (p != kNone && std::find(preds.begin(), preds.end(), p) == preds.end()) {
                preds.push_back(p);
                successors[static_cast<std::size_t>(p)].push_back(static_cast<std::int32_t>(i));
            }
        }
        g.predecessors.appendRow(preds);
    }
    for (const auto& list : consumers) {
        g.tensorConsumers.appendRow(list);
    }
    for (const auto& list : successors) {
        g.successors.appendRow(list);
    }
    g.metrics.clear();
    g.signatures.clear();
    g.metrics.reserve(g.nodes.size());
    g.signatures.reserve(g.nodes.size());
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
        g.metrics.push_back(computeOpMetrics(g, static_cast<NodeId>(i)));
        g.signatures.push_back(opSignature(g, static_cast<NodeId>(i)));
    }
    g.fingerprint = modelFingerprint(g);
}

Graph emptyCopyOf(const Graph& graph) {
    Graph g;
    g.name = graph.name;
    g.sourcePath = graph.sourcePath;
    g.producer = graph.producer;
    g.opset = graph.opset;
    g.irVersion = graph.irVersion;
    g.tensors = graph.tensors;
    for (Tensor& t : g.tensors) {
        t.producer = kNone;
    }
    g.inputs = graph.inputs;
    g.outputs = graph.outputs;
    return g;
}

NodeId appendNode(Graph& g, Node node, std::span<const TensorId> ins,
                  std::span<const TensorId> outs, std::span<const TensorId> captured) {
    const auto id = static_cast<NodeId>(g.nodes.size());
    std::sort(node.attributes.begin(), node.attributes.end(),
              [](const Attribute& a, const Attribute& b) { return a.name < b.name; });
    g.nodes.push_back(std::move(node));
    g.nodeInputs.appendRow(ins);
    g.nodeOutputs.appendRow(outs);
    g.capturedInputs.appendRow(captured);
    for (const TensorId t : outs) {
        if (t != kNone) {
            g.tensors[static_cast<std::size_t>(t)].producer = id;
        }
    }
    g.topologicalOrder.push_back(id);
    return id;
}

Attribute intAttribute(std::string name, std::int64_t value) {
    Attribute a;
    a.kind = Attribute::Kind::Int;
    a.canonical = name + '=' + std::to_string(value);
    a.name = std::move(name);
    a.i = value;
    return a;
}

Attribute intsAttribute(std::string name, std::vector<std::int64_t> values) {
    Attribute a;
    a.kind = Attribute::Kind::Ints;
    a.canonical = name + "=[";
    for (std::size_t k = 0; k < values.size(); ++k) {
        a.canonical += (k ? "," : "") + std::to_string(values[k]);
    }
    a.canonical += ']';
    a.name = std::move(name);
    a.ints = std::move(values);
    return a;
}

} // namespace paretune
