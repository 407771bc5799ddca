// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string_view>

namespace paretune {

/// Element types of tensors. The numeric values are ONNX's TensorProto.DataType codes, so a
/// value read from a model file converts with a range check only.
enum class DType : std::int32_t {
    Undefined = 0,
    Float32 = 1,
    UInt8 = 2,
    Int8 = 3,
    UInt16 = 4,
    Int16 = 5,
    Int32 = 6,
    Int64 = 7,
    String = 8,
    Bool = 9,
    Float16 = 10,
    Float64 = 11,
    UInt32 = 12,
    UInt64 = 13,
    Complex64 = 14,
    Complex128 = 15,
    BFloat16 = 16,
};

/// Bytes per element; 0 for Undefined and String (no fixed size).
int dtypeSize(DType type);
/// Lower-case short name ("float32", "int64", …), used in signatures and JSON.
std::string_view dtypeName(DType type);
/// Converts an ONNX data type code; unknown codes give Undefined.
DType dtypeFromOnnx(std::int32_t code);
bool isFloatingPoint(DType type);
bool isInteger(DType type);

} // namespace paretune
