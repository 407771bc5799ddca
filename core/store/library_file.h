// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The file `paretune library export` writes and `paretune library import` reads: a library's
// samples and what they refer to (LibraryRecords), as JSON lines.
//
// Format "paretune-library", version 2. Line 1 is the header:
//   {"format":"paretune-library","version":2,"schema_version":9,"tool_version":"…",
//    "exported_at":"…","source":"<library, without a password>",
//    "counts":{"devices":D,"models":M,"signatures":S,"benchmarks":B,"contention":C,
//              "model_runs":R,"samples":N}}
// then one record a line, each an object with one key naming its kind: "device", "model",
// "signature", "benchmark", "contention", "model_run", "sample" (fields as the library's
// columns; JSON columns as their exact text, so that a sample keeps its key). The counts must
// match the records: a truncated file is refused. Version 1 (no model runs, no "model_runs"
// count) is read too.

#include "records.h"

#include <filesystem>
#include <string>

namespace paretune {

/// The largest file importLibraryFile reads.
inline constexpr std::uint64_t kMaxLibraryFileBytes = std::uint64_t{4} << 30;

/// Writes the records to `path` atomically (a temporary renamed over it). `source` names the
/// library in the header. InputError when the path cannot be written.
void writeLibraryFile(const std::filesystem::path& path, const LibraryRecords& records,
                      const std::string& source);

/// Reads a file written by writeLibraryFile. InputError "PATH: line N: …" for anything that is
/// not such a file: another format, a newer version, a malformed line or field, a count that
/// does not match.
LibraryRecords readLibraryFile(const std::filesystem::path& path);

} // namespace paretune
