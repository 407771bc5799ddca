// SPDX-License-Identifier: GPL-3.0-or-later
// Tensors between the engine and ATen: element types, graph constants, host copies, and the
// text of LibTorch's errors and of shapes.
#include "op_kernels.h"

namespace paretune::detail {

HostTensor toHost(const at::Tensor& t) {
    HostTensor h;
    if (!t.defined()) {
        return h;
    }
    h.dtype = dtypeOf(t.scalar_type());
    h.dims.assign(t.sizes().begin(), t.sizes().end());
    const at::Tensor cpu = t.to(at::kCPU);
    const at::Tensor d = cpu.to(at::kDouble).contiguous();
    h.values.assign(d.data_ptr<double>(), d.data_ptr<double>() + d.numel());
    if (at::isIntegralType(t.scalar_type(), true)) {
        const at::Tensor i = cpu.to(at::kLong).contiguous();
        h.ints.assign(i.data_ptr<std::int64_t>(), i.data_ptr<std::int64_t>() + i.numel());
    }
    return h;
}

at::Tensor fromHost(const HostTensor& h) {
    const at::ScalarType type = scalarTypeOf(h.dtype);
    const std::int64_t count = h.elementCount();
    const bool exact = at::isIntegralType(type, true) && !h.ints.empty();
    const auto given = static_cast<std::int64_t>(exact ? h.ints.size() : h.values.size());
    if (given != count) {
        throw OpFailure("a host tensor of shape " + dimsText(h.dims) + " holds " +
                        std::to_string(given) + " values, expected " + std::to_string(count));
    }
    const at::Tensor flat =
        exact ? at::tensor(at::ArrayRef<std::int64_t>(h.ints), at::TensorOptions().dtype(at::kLong))
              : at::tensor(at::ArrayRef<double>(h.values), at::TensorOptions().dtype(at::kDouble));
    return flat.reshape(h.dims).to(type);
}

std::string torchMessage(const c10::Error& e) {
    std::string text = e.what_without_backtrace();
    const auto cut = text.find("\nException raised from");
    return cut == std::string::npos ? text : text.substr(0, cut);
}

std::string dimsText(at::IntArrayRef dims) {
    std::string text = "[";
    for (std::size_t i = 0; i < dims.size(); ++i) {
        text += (i ? "," : "") + std::to_string(dims[i]);
    }
    return text + "]";
}

std::string dimsText(const std::vector<std::int64_t>& dims) {
    return dimsText(at::IntArrayRef(dims));
}

at::ScalarType scalarTypeOf(DType dtype) {
    switch (dtype) {
    case DType::Float32:
        return at::kFloat;
    case DType::Float64:
        return at::kDouble;
    case DType::Float16:
        return at::kHalf;
    case DType::BFloat16:
        return at::kBFloat16;
    case DType::UInt8:
        return at::kByte;
    case DType::Int8:
        return at::kChar;
    case DType::Int16:
        return at::kShort;
    case DType::Int32:
        return at::kInt;
    case DType::Int64:
        return at::kLong;
    case DType::Bool:
        return at::kBool;
    default:
        break;
    }
    throw UnsupportedOp("element type " + std::string(dtypeName(dtype)));
}

DType dtypeOf(at::ScalarType type) {
    switch (type) {
    case at::kFloat:
        return DType::Float32;
    case at::kDouble:
        return DType::Float64;
    case at::kHalf:
        return DType::Float16;
    case at::kBFloat16:
        return DType::BFloat16;
    case at::kByte:
        return DType::UInt8;
    case at::kChar:
        return DType::Int8;
    case at::kShort:
        return DType::Int16;
    case at::kInt:
        return DType::Int32;
    case at::kLong:
        return DType::Int64;
    case at::kBool:
        return DType::Bool;
    default:
        return DType::Undefined;
    }
}

at::Tensor tensorFromConstant(const ConstantTensor& value) {
    const at::ScalarType type = scalarTypeOf(value.dtype);
    at::Tensor t;
    if (value.holdsIntegers()) {
        t = at::tensor(at::ArrayRef<std::int64_t>(value.ints),
                       at::TensorOptions().dtype(at::kLong));
    } else {
        t = at::tensor(at::ArrayRef<double>(value.reals), at::TensorOptions().dtype(at::kDouble));
    }
    return t.reshape(value.dims).to(type);
}

} // namespace paretune::detail
