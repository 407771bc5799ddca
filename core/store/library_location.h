// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Where a sample library lives: an SQLite file (a path) or a PostgreSQL database (a libpq
// connection string), and how to name it in a message.

#include <string>
#include <string_view>

namespace paretune {

/// Whether `location` names a PostgreSQL database rather than an SQLite file: a libpq URI
/// (postgresql://… or postgres://…) or a key=value connection string whose first word is a
/// libpq keyword ("host=… dbname=…", "service=…").
bool isServerLibrary(std::string_view location);

/// The location as it may be shown: a connection string without its password (the user
/// information's ":password" and any password parameter), a path as it is.
std::string libraryLabel(std::string_view location);

} // namespace paretune
