// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to the ONNX importer's files: it includes ONNX's protobuf classes. Tensors and
// attributes as an ONNX file stores them, read into the Graph's values: the raw and the typed
// fields of every data type, and the check that stored data holds what its dims promise. The
// other direction, a constant written back as a TensorProto, is encodeConstantTensor in
// onnx_model.h.

#include "graph.h"

#include <onnx/onnx_pb.h>

#include <memory>
#include <string>

namespace paretune::onnx_import {

/// What is wrong with a tensor's stored data (empty when it matches its dims and data type): the
/// decoder, the checker and the runtimes index it by the dims, so data that falls short of them
/// is read out of bounds. Tensors with external data are checked only for their dims here.
std::string tensorDataProblem(const onnx::TensorProto& proto);

/// Decodes a TensorProto into a ConstantTensor when it is small enough to keep; nullptr when it
/// is not kept or its stored data does not match its dims (reported by tensorDataProblem).
std::shared_ptr<const ConstantTensor> decodeTensor(const onnx::TensorProto& proto);

/// An attribute's value, with the canonical text (name=value) that operator signatures compare.
/// Tensor attributes are decoded with decodeTensor.
Attribute decodeAttribute(const onnx::AttributeProto& proto);

} // namespace paretune::onnx_import
