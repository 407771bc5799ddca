// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// For core's own .cpp files only: it includes ONNX's protobuf classes, which no header that the
// rest of the code includes may carry.

#include "model_weights.h"
#include "onnx_importer.h"

#include <onnx/onnx_pb.h>

#include <string>
#include <string_view>

namespace paretune {

/// importOnnxFile that also hands back the model as the importer prepared it: external data
/// loaded into the initializers, graph input shapes fixed as in the Graph, nodes in topological
/// order. Node i of preparedModel.graph() is node i of the Graph; its name is the file's (the
/// Graph's may differ when the file's was empty or repeated). Throws like importOnnxFile.
ImportResult importOnnxFile(const std::string& path, const ImportOptions& options,
                            onnx::ModelProto& preparedModel);

/// importOnnxBytes that also hands back the prepared model (as importOnnxFile above).
ImportResult importOnnxBytes(std::string_view bytes, const ImportOptions& options,
                             const std::string& displayName, onnx::ModelProto& preparedModel);

/// The values of the initializers of `prepared` (importOnnxFile's or importOnnxBytes's model)
/// that `graph`, imported with it, holds no value for.
std::shared_ptr<ModelWeights> weightsOfModel(const Graph& graph, const onnx::ModelProto& prepared);

/// A constant as an ONNX initializer named `name`. Integer and bool values are exact;
/// floating-point values are written as float32 (float16 and bfloat16 change type).
onnx::TensorProto encodeConstantTensor(const std::string& name, const ConstantTensor& tensor);

/// An attribute as an ONNX file stores it (the inverse of the importer's decoding, for nodes the
/// engine writes itself: conversions, quantized operators). Throws std::invalid_argument for a
/// graph attribute or a tensor attribute whose value was not kept.
onnx::AttributeProto encodeAttribute(const Attribute& attribute);

} // namespace paretune
