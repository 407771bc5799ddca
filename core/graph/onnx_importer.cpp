// The import session: parses the file, checks what the rest of the importer relies on (stored
// tensors, input shapes, node order, the ONNX checker), has the shape evaluator walk the nodes
// and builds the Graph from what it learnt, collecting the diagnostics on the way.
#include "onnx_importer.h"

#include "onnx_model.h"

#include "model_fingerprint.h"
#include "onnx_external_data.h"
#include "onnx_graph_structure.h"
#include "onnx_import_diagnostics.h"
#include "onnx_tensor_codec.h"
#include "op_metrics.h"
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

using onnx_import::decodeAttribute;
using onnx_import::implicitInputs;
using onnx_import::ImportDiagnostics;
using onnx_import::inQuotes;
using onnx_import::kMaxDimension;
using onnx_import::kMaxElements;
using onnx_import::nodeLabel;
using onnx_import::ShapeEvaluator;
using onnx_import::tensorDataProblem;
using onnx_import::Value;

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
    // Consumers and node adjacency.
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
    g.metrics.reserve(g.nodes.size());
    g.signatures.reserve(g.nodes.size());
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
        g.metrics.push_back(computeOpMetrics(g, static_cast<NodeId>(i)));
        g.signatures.push_back(opSignature(g, static_cast<NodeId>(i)));
    }
    g.fingerprint = modelFingerprint(g);
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

} // namespace

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
        throw InputError(display + ": is not a regular file");
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
