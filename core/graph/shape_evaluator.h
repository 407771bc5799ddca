// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to the ONNX importer's files: it includes ONNX's protobuf classes. The importer's
// static shape interpreter: it evaluates a graph's nodes in topological order, knowing for each
// value its type, its shape and, where the file determines it, its data. A node whose inputs are
// known constants is folded (constant_folding.h); any other node gets its output types from
// ONNX's shape rules, completed where they stop short. Sequences are tracked element by element,
// Loops with a constant trip count are unrolled and an If with a constant condition takes its
// branch (shape_evaluator_control_flow.cpp), so that a model with fixed input shapes gets a
// static shape on every tensor.

#include "graph.h"
#include "node_validation.h"
#include "onnx_import_diagnostics.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace paretune::onnx_import {

struct TypeInfo {
    DType dtype = DType::Undefined;
    bool rankKnown = false;
    std::vector<std::int64_t> dims;
};

// What the importer knows about a value: its type, its data when constant, and for an ONNX
// sequence the same about each element (sequences appear around torch's tensor_split/unbind).
struct Value {
    TypeInfo type;
    std::shared_ptr<const ConstantTensor> constant;
    bool isSequence = false;
    std::vector<Value> elements;
};

class ShapeEvaluator {
public:
    /// `opset` is the model's default operator set, `opsets` its version of every domain it
    /// imports (the default domain under ""). Errors and warnings go through `report`.
    ShapeEvaluator(ImportDiagnostics report, std::int64_t opset,
                   std::unordered_map<std::string, int> opsets);

    /// Starts from what the file states: the values of its initializers (those decodeTensor
    /// keeps) and the types it declares for inputs, value_info, outputs and initializers.
    void readDeclarations(const onnx::GraphProto& graph);

    /// Evaluates one node (of the main graph or of a subgraph being unrolled): folds it when its
    /// outputs are known constants, otherwise infers its output types. Returns whether it folded.
    /// `attributes` are the node's, decoded and sorted by name; `label` names the node in
    /// messages. Throws InputError (through the report) for a node no runtime could run.
    bool evaluateNode(const onnx::NodeProto& node, const std::vector<Attribute>& attributes,
                      const std::string& label);

    const std::unordered_map<std::string, TypeInfo>& types() const { return m_types; }
    const std::unordered_map<std::string, std::shared_ptr<const ConstantTensor>>&
    constants() const {
        return m_constants;
    }
    /// The sequence-typed values, by name, element by element.
    const std::unordered_map<std::string, std::vector<Value>>& sequences() const {
        return m_sequences;
    }

private:
    [[noreturn]] void fail(const std::string& problem) const { m_report.fail(problem); }
    void warn(const std::string& code, const std::string& message) { m_report.warn(code, message); }

    void collectTypes(const onnx::GraphProto& graph);
    bool foldNode(const onnx::NodeProto& node, const std::vector<Attribute>& attributes,
                  const std::string& label);
    void inferNode(const onnx::NodeProto& node);
    void completeShapes(const onnx::NodeProto& node, const std::vector<Attribute>& attributes);
    NodeCheck checkNode(const onnx::NodeProto& node, const std::vector<Attribute>& attributes,
                        const std::string& label);
    void checkOutputSizes(const onnx::NodeProto& node, const std::string& label);
    Value valueOf(const std::string& name) const;
    void bind(const std::string& name, const Value& value);
    std::optional<std::int64_t> scalarConstant(const std::string& name) const;
    const std::vector<std::int64_t>* staticDims(const std::string& name) const;

    // In shape_evaluator_control_flow.cpp.
    void evaluateGraph(const onnx::GraphProto& graph);
    bool evaluateSequenceOp(const onnx::NodeProto& node, const std::vector<Attribute>& attributes);
    bool unrollLoop(const onnx::NodeProto& node);
    bool evaluateIf(const onnx::NodeProto& node);

    ImportDiagnostics m_report;
    std::int64_t m_opset = 0;
    std::unordered_map<std::string, int> m_opsets;
    std::unordered_map<std::string, TypeInfo> m_types;
    std::unordered_map<std::string, std::shared_ptr<const ConstantTensor>> m_constants;
    std::unordered_map<std::string, std::vector<Value>> m_sequences; ///< sequence-typed values

    // Budgets of import-time work (issue 22: 700 folded Adds of 2^20-element constants reached
    // 5.9 GB; three nested Loops of 4096 trips ran for minutes). Beyond them nodes are left
    // unfolded or Loops not unrolled, with one diagnostic each; the shapes that depend on them
    // stay unknown and are reported.
    static constexpr std::int64_t kFoldBudgetElements = std::int64_t{1} << 25;
    static constexpr std::int64_t kEvaluationBudget = std::int64_t{1} << 16;
    std::int64_t m_foldedElements = 0;
    std::int64_t m_evaluations = 0;
    bool m_foldBudgetReported = false;
    bool m_unrollBudgetReported = false;
};

} // namespace paretune::onnx_import
