// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to the ONNX importer's files: it includes ONNX's protobuf classes. Tensor data kept in
// files beside the model (ONNX external data), and the rules for the paths a model names: only
// regular files inside the model's folder are read, never an absolute path, a path through
// `..`, a symbolic link or one that resolves outside the folder.

#include "onnx_import_diagnostics.h"

#include <onnx/onnx_pb.h>

#include <filesystem>

namespace paretune::onnx_import {

/// Reads the external data of every initializer of `graph` into its raw_data, from the file its
/// location names inside `folder` (the model's folder; empty for a model held in memory, which
/// then cannot have external data). Exactly the bytes the tensor's dims and data type need are
/// read, and the tensor is checked as tensorDataProblem does. Fails through `report` with a
/// message naming the initializer and the location.
void loadExternalData(onnx::GraphProto& graph, const std::filesystem::path& folder,
                      const ImportDiagnostics& report);

} // namespace paretune::onnx_import
