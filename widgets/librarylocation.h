// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Where the workbench's sample library is: an SQLite file or a PostgreSQL server
// (`postgresql://user@host:port/dbname`, as `--db` takes it), how it is shown, and the one the
// workbench remembers between sessions. A password is never part of what is shown or
// remembered: it is given for the session only (the PGPASSWORD libpq reads) or kept in
// ~/.pgpass.

#include <QString>

namespace paretune {

/// Whether `location` names a PostgreSQL server rather than an SQLite file (core's
/// isServerLibrary: a postgresql:// or postgres:// URI, or a libpq key=value string).
bool isServerLocation(const QString& location);

/// The fields of a server location; empty fields are left to libpq's defaults.
struct ServerLocation {
    QString host;
    int port = 0; ///< 0: libpq's default (5432)
    QString database;
    QString user;
};

/// `postgresql://user@host:port/database`, each part percent-encoded; never a password.
QString serverLocationText(const ServerLocation& server);
/// The fields of a postgresql:// URI (a password in it is dropped); empty for anything else.
ServerLocation parseServerLocation(const QString& location);

/// Whether `location` carries a password (`user:secret@` or `?password=` in a URI,
/// `password=` in a key=value string).
bool hasPassword(const QString& location);

/// `location` fit to show or remember (core's libraryLabel): a password in a URI
/// (`user:secret@`, `?password=`) or a key=value string (`password=secret`) is removed.
QString withoutPassword(const QString& location);

/// The library the workbench used last (without password), or an empty string.
QString rememberedLibrary();
/// Remembers `location` for the next session, without its password.
void rememberLibrary(const QString& location);

} // namespace paretune
