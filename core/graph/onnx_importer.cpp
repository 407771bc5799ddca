#include "onnx_importer.h"

#include "onnx_model.h"

#include "common/input_error.h"
#include "constant_folding.h"
#include "einsum.h"
#include "model_fingerprint.h"
#include "node_validation.h"
#include "op_metrics.h"

#include <onnx/checker.h>
#include <onnx/defs/parser.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <queue>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

namespace paretune {

namespace fs = std::filesystem;

namespace {

// A dimension beyond this is treated as a corrupt file rather than a real model.
constexpr std::int64_t kMaxDimension = std::int64_t{1} << 31;
constexpr std::int64_t kMaxElements = std::int64_t{1} << 40;
// Values of floating-point constants are kept only when small (scalars, masks, tables); integer
// constants (shapes, indices, axes) up to ConstantTensor::kMaxElements.
constexpr std::int64_t kMaxKeptFloatElements = 1 << 16;
// Constant values handed to ONNX's shape rules (see inferNode).
constexpr std::int64_t kMaxShapeDataElements = 1 << 12;

std::string inQuotes(std::string_view text) {
    return "'" + std::string(text) + "'";
}

std::string nodeLabel(const onnx::NodeProto& node, int index) {
    const std::string name = node.name().empty() ? "#" + std::to_string(index) : node.name();
    return "node " + inQuotes(name) + " (" + node.op_type() + ")";
}

std::string formatFloat(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.9g", value);
    return buffer;
}

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

std::string dimsText(const google::protobuf::RepeatedField<std::int64_t>& dims) {
    std::string text = "[";
    for (int i = 0; i < dims.size(); ++i) {
        text += (i ? "," : "") + std::to_string(dims.Get(i));
    }
    return text + "]";
}

// How many values the typed field that holds this data type stores (complex numbers take two).
std::int64_t typedValueCount(const onnx::TensorProto& proto, DType dtype) {
    switch (dtype) {
    case DType::Float32:
    case DType::Complex64:
        return proto.float_data_size();
    case DType::Float64:
    case DType::Complex128:
        return proto.double_data_size();
    case DType::Int64:
        return proto.int64_data_size();
    case DType::UInt32:
    case DType::UInt64:
        return proto.uint64_data_size();
    case DType::String:
        return proto.string_data_size();
    default:
        return proto.int32_data_size();
    }
}

// What is wrong with a tensor's stored data (empty when it matches its dims and data type): the
// decoder, the checker and the runtimes index it by the dims, so data that falls short of them
// is read out of bounds.
std::string tensorDataProblem(const onnx::TensorProto& proto) {
    std::int64_t count = 1;
    for (const std::int64_t d : proto.dims()) {
        if (d < 0) {
            return "has a negative dimension " + std::to_string(d) + " in dims " +
                   dimsText(proto.dims());
        }
        if (d > 0 && count > kMaxElements / d) {
            return "has dims " + dimsText(proto.dims()) + ", more than " +
                   std::to_string(kMaxElements) + " elements, an absurd size";
        }
        count *= d;
    }
    if (proto.data_location() == onnx::TensorProto::EXTERNAL) {
        return {}; // checked again once the external data is loaded
    }
    const DType dtype = dtypeFromOnnx(proto.data_type());
    if (dtype == DType::Undefined) {
        return "has data type " + std::to_string(proto.data_type()) +
               ", which is undefined or unknown";
    }
    const std::string countText = std::to_string(count) + " " + std::string(dtypeName(dtype)) +
                                  (count == 1 ? " value" : " values");
    if (proto.has_raw_data()) {
        if (dtype == DType::String) {
            return "stores strings as raw_data, which ONNX does not allow";
        }
        const auto expected =
            static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(dtypeSize(dtype));
        if (proto.raw_data().size() != expected) {
            return "has dims " + dimsText(proto.dims()) + " promising " + countText + " (" +
                   std::to_string(expected) + " bytes), but its raw_data holds " +
                   std::to_string(proto.raw_data().size()) + " bytes";
        }
        return {};
    }
    const std::int64_t perElement = dtype == DType::Complex64 || dtype == DType::Complex128 ? 2 : 1;
    const std::int64_t stored = typedValueCount(proto, dtype);
    if (stored != count * perElement) {
        return "has dims " + dimsText(proto.dims()) + " promising " + countText + ", but stores " +
               std::to_string(stored / perElement);
    }
    return {};
}

// Decodes a TensorProto into a ConstantTensor when it is small enough to keep; nullptr when it
// is not kept or its stored data does not match its dims (reported by tensorDataProblem).
std::shared_ptr<const ConstantTensor> decodeTensor(const onnx::TensorProto& proto) {
    auto tensor = std::make_shared<ConstantTensor>();
    tensor->dtype = dtypeFromOnnx(proto.data_type());
    std::int64_t count = 1;
    for (const std::int64_t d : proto.dims()) {
        if (d < 0 || (d > 0 && count > kMaxElements / d)) {
            return nullptr;
        }
        count *= d;
        tensor->dims.push_back(d);
    }
    const std::int64_t limit =
        isFloatingPoint(tensor->dtype) ? kMaxKeptFloatElements : ConstantTensor::kMaxElements;
    if (count > limit || tensor->dtype == DType::Undefined || tensor->dtype == DType::String ||
        tensor->dtype == DType::Complex64 || tensor->dtype == DType::Complex128 ||
        proto.data_location() == onnx::TensorProto::EXTERNAL) {
        return nullptr;
    }
    const auto n = static_cast<std::size_t>(count);
    const std::string& raw = proto.raw_data();
    const bool fromRaw = proto.has_raw_data();
    if (fromRaw && raw.size() != n * static_cast<std::size_t>(dtypeSize(tensor->dtype))) {
        return nullptr;
    }
    if (!fromRaw && typedValueCount(proto, tensor->dtype) != count) {
        return nullptr; // every read below stays inside the typed field
    }
    auto rawAt = [&](std::size_t i, auto sample) {
        decltype(sample) v{};
        std::memcpy(&v, raw.data() + i * sizeof v, sizeof v);
        return v;
    };
    if (tensor->holdsIntegers()) {
        tensor->ints.resize(n);
    } else {
        tensor->reals.resize(n);
    }
    for (std::size_t i = 0; i < n; ++i) {
        switch (tensor->dtype) {
        case DType::Float32:
            tensor->reals[i] = fromRaw ? rawAt(i, float{}) : proto.float_data(static_cast<int>(i));
            break;
        case DType::Float64:
            tensor->reals[i] =
                fromRaw ? rawAt(i, double{}) : proto.double_data(static_cast<int>(i));
            break;
        case DType::Float16:
        case DType::BFloat16:
            return nullptr; // not needed for shape computations
        case DType::Int64:
            tensor->ints[i] =
                fromRaw ? rawAt(i, std::int64_t{}) : proto.int64_data(static_cast<int>(i));
            break;
        case DType::UInt64:
            tensor->ints[i] = static_cast<std::int64_t>(
                fromRaw ? rawAt(i, std::uint64_t{}) : proto.uint64_data(static_cast<int>(i)));
            break;
        case DType::Int32:
            tensor->ints[i] =
                fromRaw ? rawAt(i, std::int32_t{}) : proto.int32_data(static_cast<int>(i));
            break;
        case DType::UInt32:
            tensor->ints[i] =
                fromRaw ? rawAt(i, std::uint32_t{})
                        : static_cast<std::uint32_t>(proto.uint64_data(static_cast<int>(i)));
            break;
        case DType::Int16:
            tensor->ints[i] =
                fromRaw ? rawAt(i, std::int16_t{}) : proto.int32_data(static_cast<int>(i));
            break;
        case DType::UInt16:
            tensor->ints[i] =
                fromRaw ? rawAt(i, std::uint16_t{}) : proto.int32_data(static_cast<int>(i));
            break;
        case DType::Int8:
            tensor->ints[i] =
                fromRaw ? rawAt(i, std::int8_t{}) : proto.int32_data(static_cast<int>(i));
            break;
        case DType::UInt8:
        case DType::Bool:
            tensor->ints[i] =
                fromRaw ? rawAt(i, std::uint8_t{}) : proto.int32_data(static_cast<int>(i));
            break;
        default:
            return nullptr;
        }
    }
    return tensor;
}

onnx::TensorProto encodeTensor(const std::string& name, const ConstantTensor& tensor) {
    onnx::TensorProto proto;
    proto.set_name(name);
    proto.set_data_type(static_cast<std::int32_t>(tensor.dtype));
    for (const std::int64_t d : tensor.dims) {
        proto.add_dims(d);
    }
    const std::int64_t n = tensor.elementCount();
    for (std::int64_t i = 0; i < n; ++i) {
        switch (tensor.dtype) {
        case DType::Float32:
        case DType::Float16:
        case DType::BFloat16:
            proto.set_data_type(static_cast<std::int32_t>(DType::Float32));
            proto.add_float_data(static_cast<float>(tensor.real(i)));
            break;
        case DType::Float64:
            proto.add_double_data(tensor.real(i));
            break;
        case DType::Int64:
            proto.add_int64_data(tensor.integer(i));
            break;
        case DType::UInt32:
        case DType::UInt64:
            proto.add_uint64_data(static_cast<std::uint64_t>(tensor.integer(i)));
            break;
        default:
            proto.add_int32_data(static_cast<std::int32_t>(tensor.integer(i)));
            break;
        }
    }
    return proto;
}

Attribute decodeAttribute(const onnx::AttributeProto& proto) {
    Attribute a;
    a.name = proto.name();
    std::ostringstream canonical;
    canonical << a.name << '=';
    switch (proto.type()) {
    case onnx::AttributeProto::INT:
        a.kind = Attribute::Kind::Int;
        a.i = proto.i();
        canonical << a.i;
        break;
    case onnx::AttributeProto::FLOAT:
        a.kind = Attribute::Kind::Float;
        a.f = proto.f();
        canonical << formatFloat(a.f);
        break;
    case onnx::AttributeProto::STRING:
        a.kind = Attribute::Kind::String;
        a.s = proto.s();
        canonical << '"' << a.s << '"';
        break;
    case onnx::AttributeProto::INTS:
        a.kind = Attribute::Kind::Ints;
        a.ints.assign(proto.ints().begin(), proto.ints().end());
        canonical << '[';
        for (std::size_t k = 0; k < a.ints.size(); ++k) {
            canonical << (k ? "," : "") << a.ints[k];
        }
        canonical << ']';
        break;
    case onnx::AttributeProto::FLOATS:
        a.kind = Attribute::Kind::Floats;
        a.floats.assign(proto.floats().begin(), proto.floats().end());
        canonical << '[';
        for (std::size_t k = 0; k < a.floats.size(); ++k) {
            canonical << (k ? "," : "") << formatFloat(a.floats[k]);
        }
        canonical << ']';
        break;
    case onnx::AttributeProto::STRINGS:
        a.kind = Attribute::Kind::Strings;
        a.strings.assign(proto.strings().begin(), proto.strings().end());
        canonical << '[';
        for (std::size_t k = 0; k < a.strings.size(); ++k) {
            canonical << (k ? "," : "") << '"' << a.strings[k] << '"';
        }
        canonical << ']';
        break;
    case onnx::AttributeProto::TENSOR: {
        a.kind = Attribute::Kind::Tensor;
        a.tensor = decodeTensor(proto.t());
        // Weight values are not structure; integer values (shapes, indices) are.
        canonical << "tensor(" << dtypeName(dtypeFromOnnx(proto.t().data_type())) << '[';
        for (int k = 0; k < proto.t().dims_size(); ++k) {
            canonical << (k ? "," : "") << proto.t().dims(k);
        }
        canonical << ']';
        if (a.tensor && a.tensor->holdsIntegers() && a.tensor->elementCount() <= 64) {
            canonical << '{';
            for (std::size_t k = 0; k < a.tensor->ints.size(); ++k) {
                canonical << (k ? "," : "") << a.tensor->ints[k];
            }
            canonical << '}';
        }
        canonical << ')';
        break;
    }
    case onnx::AttributeProto::GRAPH:
        a.kind = Attribute::Kind::Graph;
        canonical << "graph(";
        for (const onnx::NodeProto& n : proto.g().node()) {
            canonical << n.op_type() << ';';
        }
        canonical << ')';
        break;
    default:
        a.kind = Attribute::Kind::Other;
        canonical << "type" << static_cast<int>(proto.type());
        break;
    }
    a.canonical = canonical.str();
    return a;
}

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

bool isStatic(const TypeInfo& t) {
    return t.rankKnown && std::all_of(t.dims.begin(), t.dims.end(), [](std::int64_t d) { return d >= 0; });
}

// Every value a subgraph (and its nested subgraphs) produces.
void collectProducedNames(const onnx::GraphProto& graph, std::vector<std::string>& names) {
    for (const auto& node : graph.node()) {
        names.insert(names.end(), node.output().begin(), node.output().end());
        for (const auto& a : node.attribute()) {
            if (a.has_g()) {
                collectProducedNames(a.g(), names);
            }
        }
    }
}

// Names a subgraph reads from enclosing scopes: used by its nodes, defined nowhere inside it.
void collectOuterReferences(const onnx::GraphProto& graph, std::set<std::string>& names) {
    std::unordered_set<std::string> defined;
    for (const auto& v : graph.input()) {
        defined.insert(v.name());
    }
    for (const auto& init : graph.initializer()) {
        defined.insert(init.name());
    }
    for (const auto& node : graph.node()) {
        for (const std::string& in : node.input()) {
            if (!in.empty() && !defined.count(in)) {
                names.insert(in);
            }
        }
        for (const auto& a : node.attribute()) {
            if (a.has_g()) {
                std::set<std::string> nested;
                collectOuterReferences(a.g(), nested);
                for (const std::string& n : nested) {
                    if (!defined.count(n)) {
                        names.insert(n);
                    }
                }
            }
        }
        defined.insert(node.output().begin(), node.output().end());
    }
}

/// Inputs of a node: the explicit ones, then the outer-scope values its subgraphs read.
std::vector<std::string> implicitInputs(const onnx::NodeProto& node) {
    std::set<std::string> names;
    for (const auto& a : node.attribute()) {
        if (a.has_g()) {
            collectOuterReferences(a.g(), names);
        }
    }
    return {names.begin(), names.end()};
}

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
    [[noreturn]] void fail(const std::string& problem) const {
        throw InputError(m_file + ": " + problem);
    }
    void warn(const std::string& code, const std::string& message) {
        m_result.diagnostics.push_back({Diagnostic::Severity::Warning, code, message});
    }

    void checkParsed();
    void loadExternalData();
    void checkTensors(const onnx::GraphProto& graph, const std::string& scope);
    void fixInputShapes();
    void orderNodes();
    void runChecker();
    void inferAndFold();
    void collectTypes();
    bool foldNode(const onnx::NodeProto& node, const std::vector<Attribute>& attributes,
                  const std::string& label);
    void inferNode(const onnx::NodeProto& node);
    void completeShapes(const onnx::NodeProto& node, const std::vector<Attribute>& attributes);
    bool evaluateNode(const onnx::NodeProto& node, const std::vector<Attribute>& attributes,
                      const std::string& label);
    NodeCheck checkNode(const onnx::NodeProto& node, const std::vector<Attribute>& attributes,
                        const std::string& label);
    void checkOutputSizes(const onnx::NodeProto& node, const std::string& label);
    void evaluateGraph(const onnx::GraphProto& graph);
    bool evaluateSequenceOp(const onnx::NodeProto& node, const std::vector<Attribute>& attributes);
    bool unrollLoop(const onnx::NodeProto& node);
    bool evaluateIf(const onnx::NodeProto& node);
    Value valueOf(const std::string& name) const;
    void bind(const std::string& name, const Value& value);
    std::optional<std::int64_t> scalarConstant(const std::string& name) const;
    const std::vector<std::int64_t>* staticDims(const std::string& name) const;
    void buildGraph();

    std::string m_file;
    fs::path m_folder;
    const ImportOptions& m_options;
    onnx::ModelProto m_model;
    std::int64_t m_opset = 0;
    ImportResult m_result;

    std::vector<onnx::NodeProto> m_nodes; // topologically ordered, names made unique
    std::vector<std::string> m_nodeNames;
    std::vector<bool> m_knownOp;
    std::vector<bool> m_folded;
    std::unordered_map<std::string, int> m_opsets;
    std::unordered_map<std::string, TypeInfo> m_types;
    std::unordered_map<std::string, std::shared_ptr<const ConstantTensor>> m_constants;
    std::unordered_map<std::string, std::vector<Value>> m_sequences; ///< sequence-typed values
    std::unordered_set<std::string> m_initializerNames;
    std::vector<std::vector<Attribute>> m_attributes;

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

void ImportSession::loadExternalData() {
    for (onnx::TensorProto& tensor : *m_model.mutable_graph()->mutable_initializer()) {
        if (tensor.data_location() != onnx::TensorProto::EXTERNAL) {
            continue;
        }
        const std::string what = "initializer " + inQuotes(tensor.name()) + ": external data";
        std::string location;
        std::int64_t offset = 0;
        std::int64_t length = -1;
        for (const auto& entry : tensor.external_data()) {
            try {
                if (entry.key() == "location") {
                    location = entry.value();
                } else if (entry.key() == "offset") {
                    offset = std::stoll(entry.value());
                } else if (entry.key() == "length") {
                    length = std::stoll(entry.value());
                }
            } catch (const std::exception&) {
                fail(what + " has a malformed " + entry.key() + " " + inQuotes(entry.value()));
            }
        }
        if (m_folder.empty()) {
            fail(what + " " + inQuotes(location) +
                 " cannot be read from a model held in memory; import the file instead");
        }
        const fs::path relative(location);
        if (location.empty()) {
            fail(what + " has no location");
        }
        if (relative.is_absolute()) {
            fail(what + " location " + inQuotes(location) +
                 " is an absolute path; only files inside the model's folder are allowed");
        }
        for (const fs::path& part : relative) {
            if (part == "..") {
                fail(what + " location " + inQuotes(location) + " leaves the model's folder");
            }
        }
        const fs::path full = m_folder / relative;
        std::error_code ec;
        const fs::file_status status = fs::symlink_status(full, ec);
        if (ec || !fs::exists(status)) {
            fail(what + " file " + inQuotes(full.string()) + " does not exist");
        }
        if (fs::is_symlink(status)) {
            fail(what + " file " + inQuotes(full.string()) +
                 " is a symbolic link, which is not allowed");
        }
        if (!fs::is_regular_file(status)) {
            fail(what + " " + inQuotes(full.string()) + " is not a regular file");
        }
        const fs::path canonicalFolder = fs::weakly_canonical(m_folder);
        const fs::path canonicalFile = fs::weakly_canonical(full);
        const auto rel = canonicalFile.lexically_relative(canonicalFolder);
        if (rel.empty() || *rel.begin() == "..") {
            fail(what + " location " + inQuotes(location) + " resolves outside the model's folder");
        }
        const auto fileSize = static_cast<std::int64_t>(fs::file_size(full));
        if (length < 0) {
            length = fileSize - offset;
        }
        if (offset < 0 || offset > fileSize || length < 0 || length > fileSize - offset) {
            fail(what + " range [" + std::to_string(offset) + ", +" + std::to_string(length) +
                 ") lies outside " + inQuotes(full.string()) + " (" + std::to_string(fileSize) +
                 " bytes)");
        }
        // The tensor's dims say how many bytes it needs; nothing more is read (a length or a
        // file far larger than the tensor would otherwise be held in memory first).
        std::uint64_t expected =
            static_cast<std::uint64_t>(dtypeSize(dtypeFromOnnx(tensor.data_type())));
        for (const std::int64_t d : tensor.dims()) {
            expected = d < 0 || (d > 0 && expected > static_cast<std::uint64_t>(kMaxElements) * 16 /
                                                         static_cast<std::uint64_t>(d))
                           ? std::numeric_limits<std::uint64_t>::max()
                           : expected * static_cast<std::uint64_t>(d);
        }
        if (expected != static_cast<std::uint64_t>(length)) {
            fail(what + " " + inQuotes(location) + ": the tensor's dims " +
                 dimsText(tensor.dims()) + " need " +
                 (expected == std::numeric_limits<std::uint64_t>::max()
                      ? std::string("an absurd number of")
                      : std::to_string(expected)) +
                 " bytes, but the data range holds " + std::to_string(length));
        }
        std::ifstream in(full, std::ios::binary);
        std::string data(static_cast<std::size_t>(length), '\0');
        in.seekg(offset);
        in.read(data.data(), length);
        if (!in) {
            fail(what + " could not be read from " + inQuotes(full.string()));
        }
        tensor.set_raw_data(std::move(data));
        tensor.clear_external_data();
        tensor.set_data_location(onnx::TensorProto::DEFAULT);
        if (const std::string problem = tensorDataProblem(tensor); !problem.empty()) {
            fail(what + " " + inQuotes(location) + ": the tensor " + problem);
        }
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
            warn("unknown-input-shape", what + " declares no shape; give it with --input-shape");
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
                                              " (use --input-shape to choose)");
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
        fail("--input-shape names " + inQuotes(*unusedOverrides.begin()) +
             ", which is not an input of the model");
    }
}

void ImportSession::orderNodes() {
    const onnx::GraphProto& graph = m_model.graph();
    const int n = graph.node_size();
    std::unordered_map<std::string, int> producer;
    std::unordered_set<std::string> available;
    for (const auto& input : graph.input()) {
        available.insert(input.name());
    }
    for (const auto& init : graph.initializer()) {
        available.insert(init.name());
        m_initializerNames.insert(init.name());
    }
    for (int i = 0; i < n; ++i) {
        for (const std::string& out : graph.node(i).output()) {
            if (out.empty()) {
                continue;
            }
            if (available.count(out)) {
                fail(nodeLabel(graph.node(i), i) + ": output " + inQuotes(out) +
                     " is also a graph input or initializer");
            }
            const auto [it, inserted] = producer.emplace(out, i);
            if (!inserted) {
                fail("tensor " + inQuotes(out) + " is produced twice, by " +
                     nodeLabel(graph.node(it->second), it->second) + " and " +
                     nodeLabel(graph.node(i), i));
            }
        }
    }
    // Stable Kahn: among ready nodes, the one first in the file goes first, so a sorted file
    // keeps its order.
    std::vector<int> pending(static_cast<std::size_t>(n), 0);
    std::vector<std::vector<int>> consumers(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        const onnx::NodeProto& node = graph.node(i);
        std::unordered_set<int> seen;
        std::vector<std::string> inputs(node.input().begin(), node.input().end());
        const std::size_t explicitCount = inputs.size();
        const std::vector<std::string> captured = implicitInputs(node);
        inputs.insert(inputs.end(), captured.begin(), captured.end());
        for (std::size_t k = 0; k < inputs.size(); ++k) {
            const std::string& in = inputs[k];
            if (in.empty() || available.count(in)) {
                continue;
            }
            const auto it = producer.find(in);
            if (it == producer.end()) {
                fail(nodeLabel(node, i) + (k < explicitCount ? ": input " : ": a subgraph reads ") +
                     inQuotes(in) + " which is not produced by any node, initializer or graph input");
            }
            if (seen.insert(it->second).second) {
                ++pending[static_cast<std::size_t>(i)];
                consumers[static_cast<std::size_t>(it->second)].push_back(i);
            }
        }
    }
    std::priority_queue<int, std::vector<int>, std::greater<>> ready;
    for (int i = 0; i < n; ++i) {
        if (pending[static_cast<std::size_t>(i)] == 0) {
            ready.push(i);
        }
    }
    std::vector<int> order;
    while (!ready.empty()) {
        const int i = ready.top();
        ready.pop();
        order.push_back(i);
        for (const int c : consumers[static_cast<std::size_t>(i)]) {
            if (--pending[static_cast<std::size_t>(c)] == 0) {
                ready.push(c);
            }
        }
    }
    if (static_cast<int>(order.size()) != n) {
        // Walk back along unfinished producers from any unfinished node until one repeats.
        int start = 0;
        while (pending[static_cast<std::size_t>(start)] == 0) {
            ++start;
        }
        std::vector<int> path;
        std::unordered_map<int, std::size_t> position;
        int current = start;
        while (!position.count(current)) {
            position[current] = path.size();
            path.push_back(current);
            for (const std::string& in : graph.node(current).input()) {
                const auto it = producer.find(in);
                if (it != producer.end() && pending[static_cast<std::size_t>(it->second)] > 0) {
                    current = it->second;
                    break;
                }
            }
        }
        std::string cycle;
        for (std::size_t k = path.size(); k-- > position[current];) {
            cycle += nodeLabel(graph.node(path[k]), path[k]) + " -> ";
        }
        cycle += nodeLabel(graph.node(current), current);
        fail("the graph has a cycle: " + cycle);
    }
    bool sorted = std::is_sorted(order.begin(), order.end());
    if (!sorted) {
        warn("unsorted-nodes",
             "nodes are not in topological order in the file; they were reordered");
        google::protobuf::RepeatedPtrField<onnx::NodeProto> reordered;
        for (const int i : order) {
            *reordered.Add() = graph.node(i);
        }
        m_model.mutable_graph()->mutable_node()->Swap(&reordered);
    }
    // Unique, non-empty node names for the IR (the file keeps its own).
    std::unordered_map<std::string, int> used;
    for (const auto& node : m_model.graph().node()) {
        if (!node.name().empty()) {
            ++used[node.name()];
        }
    }
    std::unordered_set<std::string> taken;
    int index = 0;
    for (const auto& node : m_model.graph().node()) {
        std::string base =
            node.name().empty() ? node.op_type() + "_" + std::to_string(index) : node.name();
        std::string name = base;
        for (int k = 2; taken.count(name) || (node.name() != name && used.count(name)); ++k) {
            name = base + "_" + std::to_string(k);
        }
        if (!node.name().empty() && name != node.name()) {
            warn("duplicate-node-name", "node name " + inQuotes(node.name()) +
                                            " is used more than once; one is called " +
                                            inQuotes(name));
        }
        taken.insert(name);
        m_nodeNames.push_back(name);
        ++index;
    }
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

void ImportSession::collectTypes() {
    const onnx::GraphProto& graph = m_model.graph();
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
bool ImportSession::foldNode(const onnx::NodeProto& node, const std::vector<Attribute>& attributes,
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
void ImportSession::inferNode(const onnx::NodeProto& proto) {
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
            dataStore.push_back(encodeTensor(name, *value->second));
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

const std::vector<std::int64_t>* ImportSession::staticDims(const std::string& name) const {
    const auto it = m_types.find(name);
    if (it == m_types.end() || !it->second.rankKnown) {
        return nullptr;
    }
    const auto& dims = it->second.dims;
    return std::all_of(dims.begin(), dims.end(), [](std::int64_t d) { return d >= 0; }) ? &dims
                                                                                      : nullptr;
}

// Shape rules for ops whose ONNX 1.12 inference stops short of static shapes.
void ImportSession::completeShapes(const onnx::NodeProto& node,
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

Value ImportSession::valueOf(const std::string& name) const {
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

void ImportSession::bind(const std::string& name, const Value& value) {
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

std::optional<std::int64_t> ImportSession::scalarConstant(const std::string& name) const {
    const auto c = m_constants.find(name);
    if (c == m_constants.end() || c->second->elementCount() != 1) {
        return std::nullopt;
    }
    return c->second->integer(0);
}

// Evaluates one node (of the main graph or of a subgraph being unrolled): folds it when its
// outputs are known constants, otherwise infers its output types. Returns whether it folded.
// Checks what the shape rules rely on before any of them runs on the node (see
// node_validation.h); an invalid node ends the import with a message naming it.
NodeCheck ImportSession::checkNode(const onnx::NodeProto& node,
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
void ImportSession::checkOutputSizes(const onnx::NodeProto& node, const std::string& label) {
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

bool ImportSession::evaluateNode(const onnx::NodeProto& node,
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

void ImportSession::evaluateGraph(const onnx::GraphProto& graph) {
    for (const auto& init : graph.initializer()) {
        Value v;
        v.type = TypeInfo{dtypeFromOnnx(init.data_type()), true, {init.dims().begin(), init.dims().end()}};
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

bool ImportSession::evaluateSequenceOp(const onnx::NodeProto& node,
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
            length.constant = std::make_shared<const ConstantTensor>(ConstantTensor{DType::Int64, {}, {count}, {}});
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
                    if (!isStatic(e.type) || e.type.dims.size() != sequence->front().type.dims.size()) {
                        return true;
                    }
                    dims[static_cast<std::size_t>(axis)] += e.type.dims[static_cast<std::size_t>(axis)];
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
bool ImportSession::unrollLoop(const onnx::NodeProto& node) {
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
        index.constant = std::make_shared<const ConstantTensor>(ConstantTensor{DType::Int64, {}, {iterations}, {}});
        bind(body->input(0).name(), index);
        Value cond;
        cond.type = TypeInfo{DType::Bool, true, {}};
        cond.constant = std::make_shared<const ConstantTensor>(ConstantTensor{DType::Bool, {}, {*condition}, {}});
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
            scans[static_cast<std::size_t>(k)].push_back(valueOf(body->output(1 + carriedCount + k).name()));
        }
    }
    for (int k = 0; k < carriedCount && k < node.output_size(); ++k) {
        if (!node.output(k).empty()) {
            bind(node.output(k), carried[static_cast<std::size_t>(k)]);
        }
    }
    for (int k = 0; k < scanCount && carriedCount + k < node.output_size(); ++k) {
        const auto& steps = scans[static_cast<std::size_t>(k)];
        if (node.output(carriedCount + k).empty() || steps.empty() || !isStatic(steps.front().type)) {
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
bool ImportSession::evaluateIf(const onnx::NodeProto& node) {
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

void ImportSession::inferAndFold() {
    for (const auto& init : m_model.graph().initializer()) {
        if (auto value = decodeTensor(init)) {
            m_constants[init.name()] = std::move(value);
        }
    }
    collectTypes();
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
        m_folded[i] =
            evaluateNode(m_nodes[i], m_attributes[i],
                         "node " + inQuotes(m_nodeNames[i]) + " (" + m_nodes[i].op_type() + ")");
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
            const auto type = m_types.find(name);
            if (type != m_types.end()) {
                t.dtype = type->second.dtype;
                t.rankKnown = type->second.rankKnown;
                t.dims = type->second.dims;
            }
            const auto value = m_constants.find(name);
            if (value != m_constants.end()) {
                t.value = value->second;
            }
            if (const auto seq = m_sequences.find(name); seq != m_sequences.end()) {
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
    loadExternalData();
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

onnx::TensorProto encodeConstantTensor(const std::string& name, const ConstantTensor& tensor) {
    return encodeTensor(name, tensor);
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
