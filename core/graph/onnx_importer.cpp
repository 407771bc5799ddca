// SPDX-License-Identifier: GPL-3.0-or-later
// The import session: parses the file, checks what the rest of the importer relies on (stored
// tensors, input shapes, node order, the ONNX checker), has the shape evaluator walk the nodes
// and builds the Graph from what it learnt, collecting the diagnostics on the way.
#include "onnx_importer.h"

#include "onnx_model.h"

#include "common/input_file.h"
#include "onnx_external_data.h"
#include "onnx_graph_structure.h"
#include "onnx_import_diagnostics.h"
#include "onnx_import_session.h"
#include "onnx_tensor_codec.h"
#include "shape_evaluator.h"

#include <onnx/checker.h>
#include <onnx/defs/parser.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace paretune {

namespace fs = std::filesystem;

namespace {

bool looksLikeText(std::string_view bytes) {
    const std::size_t n = std::min<std::size_t>(bytes.size(), 256);
    if (n == 0) {
        return false;
    }
    for (std::size_t i = 0; i < n; ++i) {
        const auto c = static_cast<unsigned char>(bytes[i]);
        if (c < 0x09 || (c > 0x0d && c < 0x20) || c == 0x7f) {
            return false;
        }
    }
    return true;
}

std::int64_t defaultOpset(const onnx::ModelProto& model) {
    for (const auto& entry : model.opset_import()) {
        if (entry.domain().empty() || entry.domain() == "ai.onnx") {
            return entry.version();
        }
    }
    return 0;
}

} // namespace

namespace onnx_import {

void ImportSession::parseBytes(std::string_view bytes) {
    if (bytes.empty()) {
        fail("file is empty (0 bytes), not an ONNX model");
    }
    if (looksLikeText(bytes)) {
        fail("is a text file, not a binary ONNX model (protobuf)");
    }
    if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()) ||
        !m_model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
        fail("not a valid ONNX model: the protobuf data is truncated or corrupt (" +
             std::to_string(bytes.size()) + " bytes)");
    }
}

// Parses straight from the file so that a large model is not held twice (bytes + messages).
void ImportSession::parseFile(const std::string& path, std::uintmax_t size) {
    if (size == 0) {
        fail("file is empty (0 bytes), not an ONNX model");
    }
    std::ifstream head(path, std::ios::binary);
    std::string start(256, '\0');
    head.read(start.data(), static_cast<std::streamsize>(start.size()));
    start.resize(static_cast<std::size_t>(head.gcount()));
    if (looksLikeText(start)) {
        fail("is a text file, not a binary ONNX model (protobuf)");
    }
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        fail(std::string("cannot be opened for reading: ") + std::strerror(errno));
    }
    const bool parsed = m_model.ParseFromFileDescriptor(fd);
    ::close(fd);
    if (!parsed) {
        fail("not a valid ONNX model: the protobuf data is truncated or corrupt (" +
             std::to_string(size) + " bytes)");
    }
}

void ImportSession::checkParsed() {
    if (m_model.ir_version() <= 0 || !m_model.has_graph()) {
        fail("not an ONNX model: no ir_version or no graph in the protobuf data");
    }
    for (const auto& entry : m_model.opset_import()) {
        m_opsets[entry.domain() == "ai.onnx" ? std::string() : entry.domain()] =
            static_cast<int>(entry.version());
    }
    m_opset = defaultOpset(m_model);
    if (m_opset <= 0) {
        fail("the model imports no version of the default ONNX operator set (opset_import)");
    }
}

// Every tensor the file stores (initializers and tensor attributes, in subgraphs too) holds the
// data its dims and data type promise; nothing reads it before this check.
void ImportSession::checkTensors(const onnx::GraphProto& graph, const std::string& scope) {
    for (const auto& init : graph.initializer()) {
        if (const std::string problem = tensorDataProblem(init); !problem.empty()) {
            fail(scope + "initializer " + inQuotes(init.name()) + " " + problem);
        }
    }
    int index = 0;
    for (const auto& node : graph.node()) {
        const std::string label = scope + nodeLabel(node, index++);
        for (const auto& a : node.attribute()) {
            const std::string what = label + ": attribute " + inQuotes(a.name()) + " ";
            if (a.has_t()) {
                if (const std::string problem = tensorDataProblem(a.t()); !problem.empty()) {
                    fail(what + problem);
                }
            }
            for (const auto& t : a.tensors()) {
                if (const std::string problem = tensorDataProblem(t); !problem.empty()) {
                    fail(what + problem);
                }
            }
            if (a.has_g()) {
                checkTensors(a.g(), label + ", subgraph " + inQuotes(a.name()) + ": ");
            }
            for (const auto& g : a.graphs()) {
                checkTensors(g, label + ", subgraph " + inQuotes(a.name()) + ": ");
            }
        }
    }
}

void ImportSession::fixInputShapes() {
    onnx::GraphProto& graph = *m_model.mutable_graph();
    std::unordered_set<std::string> initializers;
    for (const auto& init : graph.initializer()) {
        initializers.insert(init.name());
        for (const std::int64_t d : init.dims()) {
            if (d < 0) {
                fail("initializer " + inQuotes(init.name()) + " has a negative dimension " +
                     std::to_string(d));
            }
        }
    }
    std::set<std::string> unusedOverrides;
    for (const auto& [name, dims] : m_options.inputShapes) {
        unusedOverrides.insert(name);
    }
    for (onnx::ValueInfoProto& input : *graph.mutable_input()) {
        if (initializers.count(input.name())) {
            continue;
        }
        const std::string what = "input " + inQuotes(input.name());
        auto* tensorType = input.mutable_type()->mutable_tensor_type();
        if (!input.type().has_tensor_type()) {
            fail(what + " is not a tensor; only tensor inputs are supported");
        }
        const auto override = m_options.inputShapes.find(input.name());
        if (override != m_options.inputShapes.end()) {
            unusedOverrides.erase(input.name());
            auto* shape = tensorType->mutable_shape();
            shape->clear_dim();
            for (const std::int64_t d : override->second) {
                shape->add_dim()->set_dim_value(d);
            }
        }
        if (!tensorType->has_shape()) {
            warn("unknown-input-shape",
                 what + " declares no shape; give it with the input-shape setting");
            continue;
        }
        std::int64_t elements = 1;
        int index = 0;
        for (auto& dim : *tensorType->mutable_shape()->mutable_dim()) {
            const std::string dimText = what + " dimension " + std::to_string(index);
            if (dim.has_dim_value()) {
                const std::int64_t d = dim.dim_value();
                if (d < 0) {
                    fail(dimText + " is " + std::to_string(d) + ": dimensions cannot be negative");
                }
                if (d > kMaxDimension) {
                    fail(dimText + " is " + std::to_string(d) + ", an absurd size (limit " +
                         std::to_string(kMaxDimension) + ")");
                }
            } else {
                const std::string symbol = dim.has_dim_param() ? dim.dim_param() : std::string("?");
                warn("dynamic-dimension", dimText + " (" + symbol + ") is dynamic; fixed to " +
                                              std::to_string(m_options.defaultDynamicDim) +
                                              " (the input-shape setting chooses)");
                dim.set_dim_value(m_options.defaultDynamicDim);
            }
            elements = dim.dim_value() == 0 ? 0 : elements * dim.dim_value();
            if (elements > kMaxElements) {
                fail(what + " has more than " + std::to_string(kMaxElements) +
                     " elements, an absurd size");
            }
            ++index;
        }
    }
    if (!unusedOverrides.empty()) {
        fail("the input-shape setting names " + inQuotes(*unusedOverrides.begin()) +
             ", which is not an input of the model");
    }
}

void ImportSession::orderNodes() {
    for (const auto& init : m_model.graph().initializer()) {
        m_initializerNames.insert(init.name());
    }
    m_nodeNames = onnx_import::orderNodes(*m_model.mutable_graph(), m_report);
}

void ImportSession::runChecker() {
    const auto& opsets = m_opsets;
    bool allKnown = true;
    int index = 0;
    for (const auto& node : m_model.graph().node()) {
        const std::string domain = node.domain() == "ai.onnx" ? std::string() : node.domain();
        const auto opset = opsets.find(domain);
        const bool known = opset != opsets.end() &&
                           onnx::OpSchemaRegistry::Schema(node.op_type(), opset->second, domain);
        m_knownOp.push_back(known);
        if (!known) {
            allKnown = false;
            warn("unknown-op",
                 "node " + inQuotes(m_nodeNames[static_cast<std::size_t>(index)]) + ": operator " +
                     inQuotes(node.op_type()) +
                     (domain.empty() ? std::string() : " in domain " + inQuotes(domain)) +
                     " is unknown at this opset; imported without a schema, it "
                     "cannot be profiled and its output shapes come from the file");
        }
        ++index;
    }
    try {
        if (allKnown) {
            onnx::checker::check_model(m_model);
            return;
        }
        // check_model stops at the first unknown operator; check the rest node by node.
        onnx::checker::CheckerContext context;
        context.set_ir_version(static_cast<int>(m_model.ir_version()));
        context.set_opset_imports(opsets);
        onnx::checker::LexicalScopeContext scope;
        for (const auto& init : m_model.graph().initializer()) {
            scope.add(init.name());
        }
        for (const auto& input : m_model.graph().input()) {
            scope.add(input.name());
        }
        index = 0;
        for (const auto& node : m_model.graph().node()) {
            if (m_knownOp[static_cast<std::size_t>(index++)]) {
                onnx::checker::check_node(node, context, scope);
            }
            for (const auto& out : node.output()) {
                scope.add(out);
            }
        }
    } catch (const onnx::checker::ValidationError& error) {
        std::string message = error.what();
        if (const auto cut = message.find("\n\n==>"); cut != std::string::npos) {
            message.erase(cut);
        }
        fail("the ONNX checker rejects the model: " + message);
    }
}

void ImportSession::inferAndFold() {
    m_evaluator.emplace(m_report, m_opset, m_opsets);
    m_evaluator->readDeclarations(m_model.graph());
    m_nodes.assign(m_model.graph().node().begin(), m_model.graph().node().end());
    m_folded.assign(m_nodes.size(), false);
    for (const auto& node : m_nodes) {
        std::vector<Attribute> attributes;
        for (const auto& a : node.attribute()) {
            attributes.push_back(decodeAttribute(a));
        }
        std::sort(attributes.begin(), attributes.end(),
                  [](const Attribute& a, const Attribute& b) { return a.name < b.name; });
        m_attributes.push_back(std::move(attributes));
    }
    // One pass in topological order: every node's inputs are final when it is reached, so a
    // folded shape feeds the next Reshape's inference directly, however deep the chain.
    for (std::size_t i = 0; i < m_nodes.size(); ++i) {
        if (!m_knownOp[i]) {
            continue;
        }
        m_folded[i] = m_evaluator->evaluateNode(m_nodes[i], m_attributes[i],
                                                "node " + inQuotes(m_nodeNames[i]) + " (" +
                                                    m_nodes[i].op_type() + ")");
    }
}

ImportResult ImportSession::run() {
    checkParsed();
    onnx_import::loadExternalData(*m_model.mutable_graph(), m_folder, m_report);
    checkTensors(m_model.graph(), "");
    fixInputShapes();
    orderNodes();
    runChecker();
    inferAndFold();
    buildGraph();
    return std::move(m_result);
}

} // namespace onnx_import

using onnx_import::ImportSession;
using onnx_import::inQuotes;

ImportResult importOnnxFile(const std::string& path, const ImportOptions& options) {
    onnx::ModelProto unused;
    return importOnnxFile(path, options, unused);
}

ImportResult importOnnxFile(const std::string& path, const ImportOptions& options,
                            onnx::ModelProto& preparedModel) {
    const std::string display = path;
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (ec || !fs::exists(status)) {
        throw InputError(display + ": no such file");
    }
    if (fs::is_directory(status)) {
        throw InputError(display + ": is a directory, not an ONNX model file");
    }
    if (!fs::is_regular_file(status)) {
        throw InputError(display + ": is " + fileKindText(status.type()) +
                         ", not an ONNX model file; only regular files are read");
    }
    ImportSession session(display, fs::absolute(path).parent_path(), options);
    session.parseFile(path, fs::file_size(path, ec));
    ImportResult result = session.run();
    preparedModel = session.takeModel();
    result.graph.sourcePath = path;
    if (result.graph.name.empty()) {
        result.graph.name = fs::path(path).stem().string();
    }
    return result;
}

ImportResult importOnnxBytes(std::string_view bytes, const ImportOptions& options,
                             const std::string& displayName) {
    onnx::ModelProto unused;
    return importOnnxBytes(bytes, options, displayName, unused);
}

ImportResult importOnnxBytes(std::string_view bytes, const ImportOptions& options,
                             const std::string& displayName, onnx::ModelProto& preparedModel) {
    ImportSession session(displayName, {}, options);
    session.parseBytes(bytes);
    ImportResult result = session.run();
    preparedModel = session.takeModel();
    return result;
}

ImportResult importOnnxText(std::string_view text, const ImportOptions& options,
                            const std::string& displayName) {
    onnx::ModelProto model;
    const std::string source(text);
    onnx::Common::Status status;
    try {
        status = onnx::OnnxParser::Parse(model, source.c_str());
    } catch (const std::exception& error) {
        // ONNX 1.12's parser converts numbers with std::stoll/stod, which throw on "2x".
        throw InputError(displayName + ": not valid ONNX text: " + error.what() +
                         " failed on a number");
    }
    if (!status.IsOK()) {
        throw InputError(displayName + ": not valid ONNX text: " + status.ErrorMessage());
    }
    return importOnnxBytes(model.SerializeAsString(), options, displayName);
}

std::vector<std::int64_t> parseShapeText(std::string_view text) {
    std::vector<std::int64_t> dims;
    std::string current;
    auto flush = [&] {
        if (current.empty()) {
            throw InputError("shape " + inQuotes(text) + ": empty dimension");
        }
        std::size_t used = 0;
        long long value = 0;
        try {
            value = std::stoll(current, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != current.size() || value < 0) {
            throw InputError("shape " + inQuotes(text) + ": " + inQuotes(current) +
                             " is not a non-negative integer");
        }
        dims.push_back(value);
        current.clear();
    };
    for (const char c : text) {
        if (c == 'x' || c == ',') {
            flush();
        } else {
            current.push_back(c);
        }
    }
    flush();
    return dims;
}

} // namespace paretune
