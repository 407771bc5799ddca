// SPDX-License-Identifier: GPL-3.0-or-later
// The parts of ShapeEvaluator that go beyond one tensor-valued node: ONNX sequences, tracked
// element by element, and control flow, evaluated through the subgraphs it runs (a Loop with a
// constant trip count unrolled, the branch an If with a constant condition takes).
#include "shape_evaluator.h"

#include "onnx_graph_structure.h"
#include "onnx_tensor_codec.h"

#include <algorithm>

namespace paretune::onnx_import {

namespace {

bool isStatic(const TypeInfo& t) {
    return t.rankKnown &&
           std::all_of(t.dims.begin(), t.dims.end(), [](std::int64_t d) { return d >= 0; });
}

} // namespace

void ShapeEvaluator::evaluateGraph(const onnx::GraphProto& graph) {
    for (const auto& init : graph.initializer()) {
        Value v;
        v.type = TypeInfo{
            dtypeFromOnnx(init.data_type()), true, {init.dims().begin(), init.dims().end()}};
        v.constant = decodeTensor(init);
        bind(init.name(), v);
    }
    int index = 0;
    for (const auto& node : graph.node()) {
        std::vector<Attribute> attributes;
        for (const auto& a : node.attribute()) {
            attributes.push_back(decodeAttribute(a));
        }
        std::sort(attributes.begin(), attributes.end(),
                  [](const Attribute& a, const Attribute& b) { return a.name < b.name; });
        evaluateNode(node, attributes,
                     nodeLabel(node, index++) + " in subgraph " + inQuotes(graph.name()));
    }
}

bool ShapeEvaluator::evaluateSequenceOp(const onnx::NodeProto& node,
                                        const std::vector<Attribute>& attributes) {
    const std::string& op = node.op_type();
    if (!node.domain().empty() || node.output_size() == 0 || node.output(0).empty()) {
        return false;
    }
    const std::string& out = node.output(0);
    auto input = [&](int k) { return k < node.input_size() ? node.input(k) : std::string(); };
    auto sequenceInput = [&](int k) -> const std::vector<Value>* {
        const auto it = m_sequences.find(input(k));
        return it == m_sequences.end() ? nullptr : &it->second;
    };
    Value result;
    result.isSequence = true;
    if (const auto type = m_types.find(out); type != m_types.end()) {
        result.type.dtype = type->second.dtype;
    }
    if (op == "SequenceEmpty") {
        Node probe;
        probe.attributes = attributes;
        result.type.dtype = dtypeFromOnnx(static_cast<std::int32_t>(probe.attrInt("dtype", 1)));
        bind(out, result);
        return true;
    }
    if (op == "SequenceConstruct") {
        for (const std::string& name : node.input()) {
            result.elements.push_back(valueOf(name));
            result.type.dtype = result.elements.back().type.dtype;
        }
        bind(out, result);
        return true;
    }
    if (op == "SequenceInsert" || op == "SequenceErase" || op == "SequenceAt" ||
        op == "SequenceLength" || op == "ConcatFromSequence") {
        const std::vector<Value>* sequence = sequenceInput(0);
        if (!sequence) {
            return true; // length unknown: its users stay unknown and are reported
        }
        const auto count = static_cast<std::int64_t>(sequence->size());
        if (op == "SequenceLength") {
            Value length;
            length.type = TypeInfo{DType::Int64, true, {}};
            length.constant = std::make_shared<const ConstantTensor>(
                ConstantTensor{DType::Int64, {}, {count}, {}});
            bind(out, length);
            return true;
        }
        if (op == "ConcatFromSequence") {
            Node probe;
            probe.attributes = attributes;
            const std::int64_t newAxis = probe.attrInt("new_axis", 0);
            if (sequence->empty() || !isStatic(sequence->front().type)) {
                return true;
            }
            std::vector<std::int64_t> dims = sequence->front().type.dims;
            const auto rank = static_cast<std::int64_t>(dims.size()) + newAxis;
            std::int64_t axis = probe.attrInt("axis", 0);
            axis = axis < 0 ? axis + rank : axis;
            if (axis < 0 || axis >= rank) {
                return true;
            }
            if (newAxis) {
                dims.insert(dims.begin() + axis, count);
            } else {
                dims[static_cast<std::size_t>(axis)] = 0;
                for (const Value& e : *sequence) {
                    if (!isStatic(e.type) ||
                        e.type.dims.size() != sequence->front().type.dims.size()) {
                        return true;
                    }
                    dims[static_cast<std::size_t>(axis)] +=
                        e.type.dims[static_cast<std::size_t>(axis)];
                }
            }
            Value concatenated;
            concatenated.type = TypeInfo{sequence->front().type.dtype, true, dims};
            bind(out, concatenated);
            return true;
        }
        const std::optional<std::int64_t> position =
            input(op == "SequenceInsert" ? 2 : 1).empty()
                ? std::optional<std::int64_t>(op == "SequenceInsert" ? count : count - 1)
                : scalarConstant(input(op == "SequenceInsert" ? 2 : 1));
        if (!position) {
            return true;
        }
        const std::int64_t limit = op == "SequenceInsert" ? count : count - 1;
        const std::int64_t at = *position < 0 ? *position + count : *position;
        if (at < 0 || at > limit) {
            return true;
        }
        if (op == "SequenceAt") {
            bind(out, (*sequence)[static_cast<std::size_t>(at)]);
            return true;
        }
        result.elements = *sequence;
        if (op == "SequenceInsert") {
            result.type.dtype = valueOf(input(1)).type.dtype;
            result.elements.insert(result.elements.begin() + at, valueOf(input(1)));
        } else {
            result.elements.erase(result.elements.begin() + at);
        }
        bind(out, result);
        return true;
    }
    if (op == "Identity" && sequenceInput(0)) {
        result.elements = *sequenceInput(0);
        bind(out, result);
        return true;
    }
    return false;
}

// Loops with a constant trip count are unrolled at the type level: each iteration binds the
// body's inputs and evaluates its nodes, so carried values and scan outputs get static shapes.
bool ShapeEvaluator::unrollLoop(const onnx::NodeProto& node) {
    constexpr std::int64_t kMaxIterations = 4096;
    const onnx::GraphProto* body = nullptr;
    for (const auto& a : node.attribute()) {
        if (a.name() == "body" && a.has_g()) {
            body = &a.g();
        }
    }
    if (!body || node.input_size() < 2) {
        return false;
    }
    std::int64_t tripCount = 0;
    if (const auto trips = node.input(0).empty() ? std::nullopt : scalarConstant(node.input(0))) {
        tripCount = *trips;
    } else {
        return false; // data-dependent trip count
    }
    std::optional<std::int64_t> condition =
        node.input(1).empty() ? std::optional<std::int64_t>(1) : scalarConstant(node.input(1));
    if (!condition || tripCount > kMaxIterations) {
        return false;
    }
    const int carriedCount = node.input_size() - 2;
    if (body->input_size() != carriedCount + 2 || body->output_size() < carriedCount + 1) {
        return false;
    }
    const int scanCount = body->output_size() - 1 - carriedCount;
    std::vector<Value> carried;
    for (int k = 0; k < carriedCount; ++k) {
        carried.push_back(valueOf(node.input(2 + k)));
    }
    std::vector<std::vector<Value>> scans(static_cast<std::size_t>(scanCount));
    std::vector<std::string> bodyValues;
    collectProducedNames(*body, bodyValues);
    std::int64_t iterations = 0;
    const std::int64_t bodyWork = std::max(1, body->node_size());
    if (m_evaluations + tripCount * bodyWork > kEvaluationBudget) {
        if (!m_unrollBudgetReported) {
            m_unrollBudgetReported = true;
            warn("unroll-budget", "node " + inQuotes(node.name()) + " (Loop): not unrolled; " +
                                      std::to_string(tripCount) + " trips of " +
                                      std::to_string(bodyWork) +
                                      " nodes exceed the importer's budget of " +
                                      std::to_string(kEvaluationBudget) + " node evaluations");
        }
        return false;
    }
    for (; iterations < tripCount && condition.value_or(0) != 0; ++iterations) {
        if (m_evaluations > kEvaluationBudget) {
            return false; // nested Loops used the budget up; the outputs stay unknown
        }
        // Nothing computed in the previous iteration may leak into this one.
        for (const std::string& name : bodyValues) {
            m_types.erase(name);
            m_constants.erase(name);
            m_sequences.erase(name);
        }
        Value index;
        index.type = TypeInfo{DType::Int64, true, {}};
        index.constant = std::make_shared<const ConstantTensor>(
            ConstantTensor{DType::Int64, {}, {iterations}, {}});
        bind(body->input(0).name(), index);
        Value cond;
        cond.type = TypeInfo{DType::Bool, true, {}};
        cond.constant = std::make_shared<const ConstantTensor>(
            ConstantTensor{DType::Bool, {}, {*condition}, {}});
        bind(body->input(1).name(), cond);
        for (int k = 0; k < carriedCount; ++k) {
            bind(body->input(2 + k).name(), carried[static_cast<std::size_t>(k)]);
        }
        evaluateGraph(*body);
        condition = scalarConstant(body->output(0).name());
        if (!condition) {
            return false; // data-dependent termination: the shapes stay unknown
        }
        for (int k = 0; k < carriedCount; ++k) {
            carried[static_cast<std::size_t>(k)] = valueOf(body->output(1 + k).name());
        }
        for (int k = 0; k < scanCount; ++k) {
            scans[static_cast<std::size_t>(k)].push_back(
                valueOf(body->output(1 + carriedCount + k).name()));
        }
    }
    for (int k = 0; k < carriedCount && k < node.output_size(); ++k) {
        if (!node.output(k).empty()) {
            bind(node.output(k), carried[static_cast<std::size_t>(k)]);
        }
    }
    for (int k = 0; k < scanCount && carriedCount + k < node.output_size(); ++k) {
        const auto& steps = scans[static_cast<std::size_t>(k)];
        if (node.output(carriedCount + k).empty() || steps.empty() ||
            !isStatic(steps.front().type)) {
            continue;
        }
        Value stacked;
        stacked.type = steps.front().type;
        stacked.type.dims.insert(stacked.type.dims.begin(), iterations);
        bind(node.output(carriedCount + k), stacked);
    }
    return true;
}

// An If whose condition is a known constant: only the chosen branch can run.
bool ShapeEvaluator::evaluateIf(const onnx::NodeProto& node) {
    const std::optional<std::int64_t> condition =
        node.input_size() > 0 ? scalarConstant(node.input(0)) : std::nullopt;
    if (!condition) {
        inferNode(node);
        return false;
    }
    const std::string wanted = *condition ? "then_branch" : "else_branch";
    for (const auto& a : node.attribute()) {
        if (a.name() != wanted || !a.has_g()) {
            continue;
        }
        evaluateGraph(a.g());
        for (int k = 0; k < node.output_size() && k < a.g().output_size(); ++k) {
            if (!node.output(k).empty()) {
                bind(node.output(k), valueOf(a.g().output(k).name()));
            }
        }
        return true;
    }
    return false;
}

} // namespace paretune::onnx_import
