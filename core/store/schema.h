// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <span>

namespace paretune::store {

/// One step of the sample library's schema: running `sql` (SQLite) or `postgresSql` on a library at
/// version `version - 1` brings it to `version`. Steps are applied in order, each library upgrade
/// in one transaction; a released step is never edited, a change is a new step.
struct Migration {
    int version;
    const char* summary;
    const char* sql;
    const char* postgresSql = nullptr; ///< the same step in PostgreSQL's types
};

/// Every migration, in version order; the last one's version is SampleLibrary::kSchemaVersion.
std::span<const Migration> migrations();

} // namespace paretune::store
