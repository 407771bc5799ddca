// SPDX-License-Identifier: GPL-3.0-or-later
// The end of an import: the Graph built from the prepared model and what the shape evaluator
// learnt (tensors, nodes, edges, metrics, signatures, fingerprint).
#include "graph_links.h"
#include "onnx_graph_structure.h"
#include "onnx_import_session.h"

#include <algorithm>
#include <unordered_set>

namespace paretune::onnx_import {

namespace {

NodeKind kindOf(const std::string& opType, bool folded) {
    if (opType == "Constant") {
        return NodeKind::Constant;
    }
    if (folded) {
        return NodeKind::ShapeComputation;
    }
    static const std::unordered_set<std::string> kPassThrough = {
        "Identity", "Dropout", "Reshape", "Flatten", "Squeeze", "Unsqueeze"};
    return kPassThrough.count(opType) ? NodeKind::PassThrough : NodeKind::Compute;
}

} // namespace

void ImportSession::buildGraph() {
    Graph& g = m_result.graph;
    const ShapeEvaluator& known = *m_evaluator;
    g.opset = m_opset;
    g.irVersion = m_model.ir_version();
    g.name = m_model.graph().name();
    g.producer = m_model.producer_name() +
                 (m_model.producer_version().empty() ? "" : " " + m_model.producer_version());

    std::unordered_map<std::string, TensorId> ids;
    auto addTensor = [&](const std::string& name, TensorRole role) {
        const auto [it, inserted] = ids.emplace(name, static_cast<TensorId>(g.tensors.size()));
        if (inserted) {
            Tensor t;
            t.name = name;
            t.role = role;
            const auto type = known.types().find(name);
            if (type != known.types().end()) {
                t.dtype = type->second.dtype;
                t.rankKnown = type->second.rankKnown;
                t.dims = type->second.dims;
            }
            const auto value = known.constants().find(name);
            if (value != known.constants().end()) {
                t.value = value->second;
            }
            if (const auto seq = known.sequences().find(name); seq != known.sequences().end()) {
                t.sequence = true;
                t.sequenceKnown = true;
                for (const Value& element : seq->second) {
                    t.dtype = element.type.dtype;
                    t.elementDims.push_back(element.type.rankKnown ? element.type.dims
                                                                   : std::vector<std::int64_t>{-1});
                }
            }
            g.tensors.push_back(std::move(t));
        }
        return it->second;
    };
    for (const auto& input : m_model.graph().input()) {
        if (!m_initializerNames.count(input.name())) {
            g.inputs.push_back(addTensor(input.name(), TensorRole::GraphInput));
        }
    }
    // The file's own initializers, in file order (folded values were appended after them).
    for (const auto& init : m_model.graph().initializer()) {
        if (m_initializerNames.count(init.name())) {
            addTensor(init.name(), TensorRole::Initializer);
        }
    }
    for (std::size_t i = 0; i < m_nodes.size(); ++i) {
        const onnx::NodeProto& proto = m_nodes[i];
        Node node;
        node.name = m_nodeNames[i];
        node.opType = proto.op_type();
        node.domain = proto.domain() == "ai.onnx" ? std::string() : proto.domain();
        node.attributes = std::move(m_attributes[i]);
        node.knownOperator = m_knownOp[i];
        node.kind = kindOf(node.opType, m_folded[i]);
        std::vector<std::int32_t> ins;
        for (const std::string& name : proto.input()) {
            ins.push_back(name.empty() ? kNone : ids.at(name));
        }
        g.nodeInputs.appendRow(ins);
        std::vector<std::int32_t> outs;
        for (const std::string& name : proto.output()) {
            if (name.empty()) {
                outs.push_back(kNone);
                continue;
            }
            const TensorId id = addTensor(name, TensorRole::Activation);
            g.tensors[static_cast<std::size_t>(id)].producer = static_cast<NodeId>(i);
            outs.push_back(id);
        }
        g.nodeOutputs.appendRow(outs);
        std::vector<std::int32_t> captured;
        for (const std::string& name : implicitInputs(proto)) {
            captured.push_back(ids.at(name));
        }
        g.capturedInputs.appendRow(captured);
        g.nodes.push_back(std::move(node));
        g.topologicalOrder.push_back(static_cast<NodeId>(i));
    }
    for (const auto& output : m_model.graph().output()) {
        const auto it = ids.find(output.name());
        if (it == ids.end()) {
            fail("graph output " + inQuotes(output.name()) +
                 " is not produced by any node or input");
        }
        g.outputs.push_back(it->second);
        g.tensors[static_cast<std::size_t>(it->second)].graphOutput = true;
    }
    linkGraph(g);
    for (const Tensor& t : g.tensors) {
        if (!t.shapeKnown()) {
            warn("unknown-shape",
                 "tensor " + inQuotes(t.name) + " has no static shape (" + t.typeString() + ")" +
                     (t.producer == kNone
                          ? std::string()
                          : ", produced by node " +
                                inQuotes(g.nodes[static_cast<std::size_t>(t.producer)].name) +
                                " (" + g.nodes[static_cast<std::size_t>(t.producer)].opType + ")"));
        }
    }
}

} // namespace paretune::onnx_import
