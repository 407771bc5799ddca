// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to the ONNX importer's files (onnx_*.cpp, shape_evaluator*.cpp): it includes ONNX's
// protobuf classes. How the importer's pieces report what they find: an error that ends the
// import names the file first (ImportDiagnostics::fail throws InputError), a warning goes to the
// import's diagnostics, and tensors, nodes and dims are written the same way in every message.
// Also the sizes beyond which a file is taken for corrupt rather than for a real model, which
// every piece checks against.

#include "common/diagnostic.h"
#include "common/input_error.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace paretune::onnx_import {

// A dimension beyond this is treated as a corrupt file rather than a real model.
constexpr std::int64_t kMaxDimension = std::int64_t{1} << 31;
constexpr std::int64_t kMaxElements = std::int64_t{1} << 40;

inline std::string inQuotes(std::string_view text) {
    return "'" + std::string(text) + "'";
}

inline std::string nodeLabel(const onnx::NodeProto& node, int index) {
    const std::string name = node.name().empty() ? "#" + std::to_string(index) : node.name();
    return "node " + inQuotes(name) + " (" + node.op_type() + ")";
}

inline std::string dimsText(const google::protobuf::RepeatedField<std::int64_t>& dims) {
    std::string text = "[";
    for (int i = 0; i < dims.size(); ++i) {
        text += (i ? "," : "") + std::to_string(dims.Get(i));
    }
    return text + "]";
}

/// Where one import reports: `file` heads every error message; warnings are appended to
/// `diagnostics`, which must outlive this object.
class ImportDiagnostics {
public:
    ImportDiagnostics(std::string file, Diagnostics& diagnostics)
        : m_file(std::move(file)), m_diagnostics(&diagnostics) {}

    [[noreturn]] void fail(const std::string& problem) const {
        throw InputError(m_file + ": " + problem);
    }
    void warn(const std::string& code, const std::string& message) const {
        m_diagnostics->push_back({Diagnostic::Severity::Warning, code, message});
    }

private:
    std::string m_file;
    Diagnostics* m_diagnostics;
};

} // namespace paretune::onnx_import
