// SPDX-License-Identifier: GPL-3.0-or-later
#include "shape_evaluator.h"

#include "constant_folding.h"
#include "einsum.h"
#include "onnx_model.h"
#include "onnx_tensor_codec.h"

#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>

namespace paretune::onnx_import {

namespace {

// Constant values handed to ONNX's shape rules (see inferNode).
constexpr std::int64_t kMaxShapeDataElements = 1 << 12;

TypeInfo typeInfoOf(const onnx::TypeProto& type) {
    TypeInfo info;
    if (!type.has_tensor_type()) {
        return info;
    }
    info.dtype = dtypeFromOnnx(type.tensor_type().elem_type());
    if (type.tensor_type().has_shape()) {
        info.rankKnown = true;
        for (const auto& dim : type.tensor_type().shape().dim()) {
            info.dims.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
        }
    }
    return info;
}

onnx::TypeProto typeProtoOf(const TypeInfo& info) {
    onnx::TypeProto type;
    auto* tensor = type.mutable_tensor_type();
    tensor->set_elem_type(static_cast<std::int32_t>(info.dtype));
    if (info.rankKnown) {
        auto* shape = tensor->mutable_shape();
        for (const std::int64_t d : info.dims) {
            auto* dim = shape->add_dim();
            if (d >= 0) {
                dim->set_dim_value(d);
            }
        }
    }
    return type;
}

// Keeps the better-informed of two descriptions of a tensor.
void mergeTypeInfo(TypeInfo& into, const TypeInfo& from) {
    if (into.dtype == DType::Undefined) {
        into.dtype = from.dtype;
    }
    if (!from.rankKnown) {
        return;
    }
    if (!into.rankKnown || into.dims.size() != from.dims.size()) {
        if (!into.rankKnown) {
            into = TypeInfo{into.dtype, true, from.dims};
        }
        return;
    }
    for (std::size_t i = 0; i < into.dims.size(); ++i) {
        if (into.dims[i] < 0) {
            into.dims[i] = from.dims[i];
        }
    }
}

} // namespace

ShapeEvaluator::ShapeEvaluator(ImportDiagnostics report, std::int64_t opset,
                               std::unordered_map<std::string, int> opsets)
    : m_report(std::move(report)), m_opset(opset), m_opsets(std::move(opsets)) {}

void ShapeEvaluator::readDeclarations(const onnx::GraphProto& graph) {
    for (const auto& init : graph.initializer()) {
        if (auto value = decodeTensor(init)) {
            m_constants[init.name()] = std::move(value);
        }
    }
    collectTypes(graph);
}

void ShapeEvaluator::collectTypes(const onnx::GraphProto& graph) {
    auto take = [&](const onnx::ValueInfoProto& info) {
        mergeTypeInfo(m_types[info.name()], typeInfoOf(info.type()));
    };
    for (const auto& v : graph.input()) {
        take(v);
    }
    for (const auto& v : graph.value_info()) {
        take(v);
    }
    for (const auto& v : graph.output()) {
        take(v);
    }
    for (const auto& init : graph.initializer()) {
        TypeInfo info{
            dtypeFromOnnx(init.data_type()), true, {init.dims().begin(), init.dims().end()}};
        mergeTypeInfo(m_types[init.name()], info);
    }
}

// Folds node i when its outputs are determined at import time; returns whether it did.
bool ShapeEvaluator::foldNode(const onnx::NodeProto& node, const std::vector<Attribute>& attributes,
                              const std::string& label) {
    Node probe;
    probe.opType = node.op_type();
    probe.domain = node.domain();
    probe.attributes = attributes;
    std::vector<FoldInput> inputs;
    for (const std::string& name : node.input()) {
        FoldInput in;
        in.present = !name.empty();
        if (in.present) {
            const auto value = m_constants.find(name);
            in.value = value == m_constants.end() ? nullptr : value->second.get();
            const auto type = m_types.find(name);
            if (type != m_types.end()) {
                const TypeInfo& t = type->second;
                in.dtype = t.dtype;
                const bool isStatic =
                    t.rankKnown && std::all_of(t.dims.begin(), t.dims.end(),
                                               [](std::int64_t d) { return d >= 0; });
                in.staticDims = isStatic ? &t.dims : nullptr;
            }
        }
        inputs.push_back(in);
    }
    std::optional<std::vector<ConstantTensor>> outputs;
    if (node.op_type() == "Constant") {
        if (const Attribute* value = probe.attribute("value"); value && value->tensor) {
            outputs = std::vector<ConstantTensor>{*value->tensor};
        } else if (const Attribute* ints = probe.attribute("value_ints")) {
            outputs = std::vector<ConstantTensor>{ConstantTensor{
                DType::Int64, {static_cast<std::int64_t>(ints->ints.size())}, ints->ints, {}}};
        } else if (const Attribute* one = probe.attribute("value_int")) {
            outputs = std::vector<ConstantTensor>{ConstantTensor{DType::Int64, {}, {one->i}, {}}};
        } else if (const Attribute* f = probe.attribute("value_float")) {
            outputs = std::vector<ConstantTensor>{ConstantTensor{DType::Float32, {}, {}, {f->f}}};
        } else if (const Attribute* fs = probe.attribute("value_floats")) {
            outputs = std::vector<ConstantTensor>{ConstantTensor{
                DType::Float32, {static_cast<std::int64_t>(fs->floats.size())}, {}, fs->floats}};
        }
    } else {
        try {
            outputs = foldConstantNode(probe, m_opset, inputs, node.output_size());
        } catch (const FoldError& error) {
            fail(label + ": " + error.what());
        }
    }
    if (!outputs) {
        return false;
    }
    std::int64_t elements = 0;
    for (const ConstantTensor& t : *outputs) {
        elements += t.elementCount();
    }
    if (m_foldedElements + elements > kFoldBudgetElements) {
        if (!m_foldBudgetReported) {
            m_foldBudgetReported = true;
            warn("fold-budget", label +
                                    ": left unfolded; folding the model's constants would keep "
                                    "more than " +
                                    std::to_string(kFoldBudgetElements) +
                                    " elements in memory, the importer's budget");
        }
        return false;
    }
    m_foldedElements += elements;
    for (int k = 0; k < node.output_size(); ++k) {
        const std::string& name = node.output(k);
        if (name.empty()) {
            continue;
        }
        auto value = std::make_shared<const ConstantTensor>(
            std::move((*outputs)[static_cast<std::size_t>(k)]));
        m_types[name] = TypeInfo{value->dtype, true, value->dims};
        m_constants[name] = std::move(value);
    }
    return true;
}

// Runs ONNX's own type and shape inference for node i alone, with the types and constant
// values known so far, and merges what it finds into m_types.
void ShapeEvaluator::inferNode(const onnx::NodeProto& proto) {
    const auto opset = m_opsets.find(proto.domain() == "ai.onnx" ? std::string() : proto.domain());
    if (opset == m_opsets.end()) {
        return;
    }
    const onnx::OpSchema* schema =
        onnx::OpSchemaRegistry::Schema(proto.op_type(), opset->second, proto.domain());
    if (!schema || !schema->has_type_and_shape_inference_function()) {
        return;
    }
    onnx::NodeProto node = proto;
    std::vector<onnx::TypeProto> typeStore;
    std::vector<onnx::TensorProto> dataStore;
    typeStore.reserve(static_cast<std::size_t>(node.input_size()));
    dataStore.reserve(static_cast<std::size_t>(node.input_size()));
    std::unordered_map<std::string, onnx::TypeProto*> types;
    std::unordered_map<std::string, const onnx::TensorProto*> data;
    for (const std::string& name : node.input()) {
        if (name.empty() || types.count(name)) {
            continue;
        }
        const auto type = m_types.find(name);
        if (type != m_types.end() && type->second.dtype != DType::Undefined) {
            typeStore.push_back(typeProtoOf(type->second));
            types[name] = &typeStore.back();
        }
        // Shape rules read the values of shape-like inputs (Reshape's shape, Slice's starts,
        // Tile's repeats), which are small; a large constant is passed by type only (encoding a
        // 2^20-element one for every node that reads it took most of an import).
        const auto value = m_constants.find(name);
        if (value != m_constants.end() && value->second->elementCount() <= kMaxShapeDataElements) {
            dataStore.push_back(encodeConstantTensor(name, *value->second));
            data[name] = &dataStore.back();
        }
    }
    onnx::shape_inference::InferenceContextImpl context(node, types, data, {});
    try {
        schema->GetTypeAndShapeInferenceFunction()(context);
    } catch (const std::exception&) {
        return; // the shapes stay unknown and are reported
    }
    // What inference derives from the (possibly overridden) inputs wins over what the file
    // declares; the declaration only fills dimensions inference left open.
    for (int k = 0; k < node.output_size(); ++k) {
        if (node.output(k).empty()) {
            continue;
        }
        TypeInfo inferred = typeInfoOf(*context.getOutputType(static_cast<std::size_t>(k)));
        TypeInfo& known = m_types[node.output(k)];
        mergeTypeInfo(inferred, known);
        if (inferred.rankKnown || known.dtype == DType::Undefined) {
            known = inferred;
        }
    }
}

const std::vector<std::int64_t>* ShapeEvaluator::staticDims(const std::string& name) const {
    const auto it = m_types.find(name);
    if (it == m_types.end() || !it->second.rankKnown) {
        return nullptr;
    }
    const auto& dims = it->second.dims;
    return std::all_of(dims.begin(), dims.end(), [](std::int64_t d) { return d >= 0; }) ? &dims
                                                                                        : nullptr;
}

// Shape rules for ops whose ONNX 1.12 inference stops short of static shapes.
void ShapeEvaluator::completeShapes(const onnx::NodeProto& node,
                                    const std::vector<Attribute>& attributes) {
    if (node.output_size() == 0 || node.output(0).empty() || staticDims(node.output(0))) {
        return;
    }
    if (node.op_type() == "Einsum") {
        std::vector<std::vector<std::int64_t>> inputs;
        for (const std::string& name : node.input()) {
            const auto* dims = staticDims(name);
            if (!dims) {
                return;
            }
            inputs.push_back(*dims);
        }
        Node probe;
        probe.attributes = attributes;
        if (const auto shape = analyseEinsum(probe.attrString("equation", ""), inputs)) {
            TypeInfo& out = m_types[node.output(0)];
            out.rankKnown = true;
            out.dims = shape->outputDims;
            if (out.dtype == DType::Undefined && !node.input().empty()) {
                out.dtype = m_types[node.input(0)].dtype;
            }
        }
    }
}

Value ShapeEvaluator::valueOf(const std::string& name) const {
    Value v;
    if (const auto seq = m_sequences.find(name); seq != m_sequences.end()) {
        v.isSequence = true;
        v.elements = seq->second;
        return v;
    }
    if (const auto type = m_types.find(name); type != m_types.end()) {
        v.type = type->second;
    }
    if (const auto c = m_constants.find(name); c != m_constants.end()) {
        v.constant = c->second;
    }
    return v;
}

void ShapeEvaluator::bind(const std::string& name, const Value& value) {
    m_sequences.erase(name);
    m_constants.erase(name);
    if (value.isSequence) {
        m_types[name] = TypeInfo{value.type.dtype, false, {}}; // the elements' dtype
        m_sequences[name] = value.elements;
        return;
    }
    m_types[name] = value.type;
    if (value.constant) {
        m_constants[name] = value.constant;
    }
}

std::optional<std::int64_t> ShapeEvaluator::scalarConstant(const std::string& name) const {
    const auto c = m_constants.find(name);
    if (c == m_constants.end() || c->second->elementCount() != 1) {
        return std::nullopt;
    }
    return c->second->integer(0);
}

// Checks what the shape rules rely on before any of them runs on the node (see
// node_validation.h); an invalid node ends the import with a message naming it.
NodeCheck ShapeEvaluator::checkNode(const onnx::NodeProto& node,
                                    const std::vector<Attribute>& attributes,
                                    const std::string& label) {
    Node probe;
    probe.opType = node.op_type();
    probe.domain = node.domain();
    probe.attributes = attributes;
    std::vector<NodeInputFacts> inputs;
    for (const std::string& name : node.input()) {
        NodeInputFacts in;
        in.name = name;
        in.present = !name.empty();
        if (in.present) {
            if (const auto type = m_types.find(name); type != m_types.end()) {
                in.rankKnown = type->second.rankKnown;
                in.dims = type->second.dims;
            }
            if (const auto value = m_constants.find(name); value != m_constants.end()) {
                in.value = value->second.get();
                in.rankKnown = true;
                in.dims = value->second->dims;
            }
        }
        inputs.push_back(std::move(in));
    }
    NodeCheck check = checkNodeInputs(probe, inputs, node.output_size());
    if (!check.problem.empty()) {
        fail(label + ": " + check.problem);
    }
    return check;
}

// A shape rule that derived an absurd output (an Expand to 2^40 × 2^40, a Conv with pads of 2^31)
// describes no model that can run; it is reported rather than carried into the metrics.
void ShapeEvaluator::checkOutputSizes(const onnx::NodeProto& node, const std::string& label) {
    for (const std::string& name : node.output()) {
        const auto type = m_types.find(name);
        if (name.empty() || type == m_types.end() || !type->second.rankKnown) {
            continue;
        }
        std::int64_t elements = 1;
        for (const std::int64_t d : type->second.dims) {
            if (d < 0) {
                continue;
            }
            if (d > kMaxDimension || (d > 0 && elements > kMaxElements / d)) {
                std::string shape;
                for (const std::int64_t e : type->second.dims) {
                    shape += (shape.empty() ? "" : ",") + (e < 0 ? "?" : std::to_string(e));
                }
                fail(label + ": output " + inQuotes(name) + " would have shape [" + shape +
                     "], an absurd size (limits: " + std::to_string(kMaxDimension) +
                     " per dimension, " + std::to_string(kMaxElements) + " elements)");
            }
            elements = d == 0 ? 0 : elements * d;
        }
    }
}

bool ShapeEvaluator::evaluateNode(const onnx::NodeProto& node,
                                  const std::vector<Attribute>& attributes,
                                  const std::string& label) {
    const NodeCheck check = checkNode(node, attributes, label);
    ++m_evaluations;
    if (evaluateSequenceOp(node, attributes)) {
        // Folded when it produced a known constant (SequenceLength, SequenceAt of a constant).
        return node.output_size() > 0 && m_constants.count(node.output(0)) > 0;
    }
    if (node.op_type() == "Loop" && node.domain().empty()) {
        unrollLoop(node);
        return false;
    }
    if (node.op_type() == "If" && node.domain().empty()) {
        evaluateIf(node);
        return false;
    }
    if (foldNode(node, attributes, label)) {
        return true;
    }
    if (!check.skipOnnxInference) {
        inferNode(node);
    }
    completeShapes(node, attributes);
    checkOutputSizes(node, label);
    return false;
}

} // namespace paretune::onnx_import
