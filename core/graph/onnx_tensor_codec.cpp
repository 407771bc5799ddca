// SPDX-License-Identifier: GPL-3.0-or-later
#include "onnx_tensor_codec.h"

#include "onnx_import_diagnostics.h"
#include "onnx_model.h"

#include <cstdio>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace paretune {

namespace onnx_import {

namespace {

// Values of floating-point constants are kept only when small (scalars, masks, tables); integer
// constants (shapes, indices, axes) up to ConstantTensor::kMaxElements.
constexpr std::int64_t kMaxKeptFloatElements = 1 << 16;

std::string formatFloat(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.9g", value);
    return buffer;
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

} // namespace

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

} // namespace onnx_import

onnx::TensorProto encodeConstantTensor(const std::string& name, const ConstantTensor& tensor) {
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

onnx::AttributeProto encodeAttribute(const Attribute& attribute) {
    onnx::AttributeProto proto;
    proto.set_name(attribute.name);
    switch (attribute.kind) {
    case Attribute::Kind::Int:
        proto.set_type(onnx::AttributeProto::INT);
        proto.set_i(attribute.i);
        break;
    case Attribute::Kind::Float:
        proto.set_type(onnx::AttributeProto::FLOAT);
        proto.set_f(static_cast<float>(attribute.f));
        break;
    case Attribute::Kind::String:
        proto.set_type(onnx::AttributeProto::STRING);
        proto.set_s(attribute.s);
        break;
    case Attribute::Kind::Ints:
        proto.set_type(onnx::AttributeProto::INTS);
        for (const std::int64_t v : attribute.ints) {
            proto.add_ints(v);
        }
        break;
    case Attribute::Kind::Floats:
        proto.set_type(onnx::AttributeProto::FLOATS);
        for (const double v : attribute.floats) {
            proto.add_floats(static_cast<float>(v));
        }
        break;
    case Attribute::Kind::Strings:
        proto.set_type(onnx::AttributeProto::STRINGS);
        for (const std::string& v : attribute.strings) {
            proto.add_strings(v);
        }
        break;
    case Attribute::Kind::Tensor:
        if (attribute.tensor == nullptr) {
            throw std::invalid_argument("attribute '" + attribute.name +
                                        "': its tensor value was not kept");
        }
        proto.set_type(onnx::AttributeProto::TENSOR);
        *proto.mutable_t() = encodeConstantTensor(std::string(), *attribute.tensor);
        break;
    case Attribute::Kind::Graph:
    case Attribute::Kind::Other:
        throw std::invalid_argument("attribute '" + attribute.name +
                                    "': a graph or unknown attribute cannot be written back");
    }
    return proto;
}

} // namespace paretune
