// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// For the importer's own files: the import session (onnx_importer.cpp) and the Graph it builds
// at the end (onnx_graph_build.cpp).
#include "onnx_import_diagnostics.h"
#include "onnx_importer.h"
#include "shape_evaluator.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace paretune::onnx_import {

namespace fs = std::filesystem;

/// One import: parses the model, checks what the rest of the importer relies on (stored
/// tensors, input shapes, node order, the ONNX checker), has the shape evaluator walk the nodes
/// and builds the Graph from what it learnt, collecting the diagnostics on the way.
class ImportSession {
public:
    ImportSession(const std::string& displayName, fs::path folder, const ImportOptions& options)
        : m_file(displayName), m_folder(std::move(folder)), m_options(options) {}

    void parseBytes(std::string_view bytes);
    void parseFile(const std::string& path, std::uintmax_t size);
    /// Imports the parsed model.
    ImportResult run();
    /// The model as run() prepared it (see importOnnxFile in onnx_model.h); call after run().
    onnx::ModelProto takeModel() { return std::move(m_model); }

private:
    [[noreturn]] void fail(const std::string& problem) const { m_report.fail(problem); }
    void warn(const std::string& code, const std::string& message) { m_report.warn(code, message); }

    void checkParsed();
    void checkTensors(const onnx::GraphProto& graph, const std::string& scope);
    void fixInputShapes();
    void orderNodes();
    void runChecker();
    void inferAndFold();
    void buildGraph();

    std::string m_file;
    fs::path m_folder;
    const ImportOptions& m_options;
    onnx::ModelProto m_model;
    std::int64_t m_opset = 0;
    ImportResult m_result;
    ImportDiagnostics m_report{m_file, m_result.diagnostics};

    std::vector<onnx::NodeProto> m_nodes; // topologically ordered, names made unique
    std::vector<std::string> m_nodeNames;
    std::vector<bool> m_knownOp;
    std::vector<bool> m_folded;
    std::unordered_map<std::string, int> m_opsets;
    std::unordered_set<std::string> m_initializerNames;
    std::vector<std::vector<Attribute>> m_attributes;

    std::optional<ShapeEvaluator> m_evaluator; ///< from inferAndFold on
};

} // namespace paretune::onnx_import
