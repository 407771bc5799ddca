// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Writing output files so that nobody ever sees half of one, and nothing that is not an output
// file of ours is replaced.
#include <filesystem>
#include <string>
#include <string_view>

namespace paretune {

/// Writes `bytes` to `path`. "-" writes to standard output. A regular file (or a new one) is
/// written into a temporary beside it, then renamed over it, so a reader sees the old content or
/// the new, never a part. A FIFO or character device (a pipe, /dev/stdout) is written through
/// as it is. Anything else that exists there (a folder, a symbolic link, a socket) is refused:
/// InputError naming the path and what it is; a failed write is an InputError too.
void writeOutputFile(const std::string& path, std::string_view bytes);

/// Renames `from` to `to` unless `to` exists (renameat2 RENAME_NOREPLACE; where the file system
/// lacks it, an existence check first). On failure returns false and says why in `problem`
/// ("already exists; it is never replaced ..." or the system's reason).
bool renameWithoutReplacing(const std::filesystem::path& from, const std::filesystem::path& to,
                            std::string& problem);

} // namespace paretune
