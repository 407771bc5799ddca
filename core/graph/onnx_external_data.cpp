// SPDX-License-Identifier: GPL-3.0-or-later
#include "onnx_external_data.h"

#include "common/input_file.h"
#include "dtype.h"
#include "onnx_tensor_codec.h"

#include <fstream>
#include <limits>

namespace paretune::onnx_import {

namespace fs = std::filesystem;

namespace {

/// The most external data one model may bring into memory: it is held there whole while the
/// model is imported, so a model whose tensors promise more is refused before anything is read.
constexpr std::uint64_t kMaxExternalDataBytes = std::uint64_t{16} << 30;

} // namespace

void loadExternalData(onnx::GraphProto& graph, const fs::path& folder,
                      const ImportDiagnostics& report) {
    std::uint64_t total = 0;
    for (onnx::TensorProto& tensor : *graph.mutable_initializer()) {
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
                report.fail(what + " has a malformed " + entry.key() + " " +
                            inQuotes(entry.value()));
            }
        }
        if (folder.empty()) {
            report.fail(what + " " + inQuotes(location) +
                        " cannot be read from a model held in memory; import the file instead");
        }
        const fs::path relative(location);
        if (location.empty()) {
            report.fail(what + " has no location");
        }
        if (relative.is_absolute()) {
            report.fail(what + " location " + inQuotes(location) +
                        " is an absolute path; only files inside the model's folder are allowed");
        }
        for (const fs::path& part : relative) {
            if (part == "..") {
                report.fail(what + " location " + inQuotes(location) +
                            " leaves the model's folder");
            }
        }
        const fs::path full = folder / relative;
        std::error_code ec;
        const fs::file_status status = fs::symlink_status(full, ec);
        if (ec || !fs::exists(status)) {
            report.fail(what + " file " + inQuotes(full.string()) + " does not exist");
        }
        if (fs::is_symlink(status)) {
            report.fail(what + " file " + inQuotes(full.string()) +
                        " is a symbolic link, which is not allowed");
        }
        if (!fs::is_regular_file(status)) {
            report.fail(what + " " + inQuotes(full.string()) + " is not a regular file");
        }
        const fs::path canonicalFolder = fs::weakly_canonical(folder);
        const fs::path canonicalFile = fs::weakly_canonical(full);
        const auto rel = canonicalFile.lexically_relative(canonicalFolder);
        if (rel.empty() || *rel.begin() == "..") {
            report.fail(what + " location " + inQuotes(location) +
                        " resolves outside the model's folder");
        }
        const auto fileSize = static_cast<std::int64_t>(fs::file_size(full));
        if (length < 0) {
            length = fileSize - offset;
        }
        if (offset < 0 || offset > fileSize || length < 0 || length > fileSize - offset) {
            report.fail(what + " range [" + std::to_string(offset) + ", +" +
                        std::to_string(length) + ") lies outside " + inQuotes(full.string()) +
                        " (" + std::to_string(fileSize) + " bytes)");
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
            report.fail(what + " " + inQuotes(location) + ": the tensor's dims " +
                        dimsText(tensor.dims()) + " need " +
                        (expected == std::numeric_limits<std::uint64_t>::max()
                             ? std::string("an absurd number of")
                             : std::to_string(expected)) +
                        " bytes, but the data range holds " + std::to_string(length));
        }
        total += static_cast<std::uint64_t>(length);
        if (total > kMaxExternalDataBytes) {
            report.fail(what + " " + inQuotes(location) + ": " + std::to_string(length) +
                        " more bytes would bring the model's external data to " +
                        std::to_string(total) + " bytes, over the importer's budget of " +
                        byteSizeText(kMaxExternalDataBytes));
        }
        std::ifstream in(full, std::ios::binary);
        std::string data(static_cast<std::size_t>(length), '\0');
        in.seekg(offset);
        in.read(data.data(), length);
        if (!in) {
            report.fail(what + " could not be read from " + inQuotes(full.string()));
        }
        tensor.set_raw_data(std::move(data));
        tensor.clear_external_data();
        tensor.set_data_location(onnx::TensorProto::DEFAULT);
        if (const std::string problem = tensorDataProblem(tensor); !problem.empty()) {
            report.fail(what + " " + inQuotes(location) + ": the tensor " + problem);
        }
    }
}

} // namespace paretune::onnx_import
