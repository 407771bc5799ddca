// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What an SQLite file says about itself, read with plain file reads: SQLite is not opened, so
// nothing is checkpointed, journalled or created beside the file.

#include <cstdint>
#include <filesystem>
#include <optional>

namespace paretune::store {

struct DatabaseHeader {
    std::uint32_t applicationId = 0; ///< PRAGMA application_id
    std::uint32_t userVersion = 0;   ///< PRAGMA user_version
    bool walMode = false;            ///< the file is in write-ahead-log mode
    bool walPending = false;         ///< a -wal beside it holds a newer first page
    bool hasTables = false;          ///< its schema (sqlite_master) lists something
};

/// The header and first page of the SQLite database at `path` as its readers see them: the
/// newest committed copy of page 1 in the -wal beside it, when there is one, else the file's.
/// Empty when the file is shorter than one page or not an SQLite database.
std::optional<DatabaseHeader> readDatabaseHeader(const std::filesystem::path& path);

} // namespace paretune::store
