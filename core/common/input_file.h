// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace paretune {

/// Largest JSON document (catalog, plans file, bundle manifest, workspace) a command reads.
inline constexpr std::uint64_t kMaxJsonDocumentBytes = std::uint64_t{64} << 20;

/// Reads a whole input file that must be a regular file of at most `maxBytes` bytes. `what`
/// names it in messages ("device catalog", "plans file"). The file is opened without blocking,
/// so a FIFO, a terminal or a device such as /dev/zero or /dev/urandom is refused at once
/// instead of being read forever. Throws InputError "PATH: the WHAT …" naming the problem: no
/// such file, a directory, not a regular file, over the limit (stated), unreadable.
std::string readInputFile(const std::string& path, const std::string& what,
                          std::uint64_t maxBytes = kMaxJsonDocumentBytes);

/// What a file that is not a regular one is, for messages: "a FIFO (named pipe)", "a character
/// device", "a block device", "a socket", "a folder", else "not a regular file".
std::string fileKindText(std::filesystem::file_type type);

/// "64 MiB", "2 GiB", "512 bytes": a size limit as messages state it.
std::string byteSizeText(std::uint64_t bytes);

} // namespace paretune
