// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Checked-in sample libraries (tests/data/samples/*.sql, made by tools/make_predictor_fixture.sh
// and tools/make_variant_fixture.sh): real measurements, restored into a fresh SQLite file, so
// that what a test learns from them does not depend on the machine that runs it.
#include "testpaths.h"

#include <QFile>
#include <QString>

#include <sqlite3.h>

/// Restores tests/data/samples/<name>.sql into a new library at `dbPath`. Returns an empty
/// string, or what went wrong.
inline QString restoreSampleFixture(const QString& name, const QString& dbPath) {
    QFile file(QStringLiteral(PARETUNE_TEST_DATA_DIR "/samples/") + name + QStringLiteral(".sql"));
    if (!file.open(QIODevice::ReadOnly)) {
        return file.fileName() + QStringLiteral(": ") + file.errorString();
    }
    const QByteArray sql = file.readAll();
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(dbPath.toUtf8().constData(), &db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
        const QString why = QString::fromUtf8(sqlite3_errmsg(db));
        sqlite3_close(db);
        return dbPath + QStringLiteral(": ") + why;
    }
    char* error = nullptr;
    const int rc = sqlite3_exec(db, sql.constData(), nullptr, nullptr, &error);
    const QString why = error ? QString::fromUtf8(error) : QString();
    sqlite3_free(error);
    sqlite3_close(db);
    return rc == SQLITE_OK ? QString() : file.fileName() + QStringLiteral(": ") + why;
}

/// Points the models of a restored library at the files of the same names in `modelsDir`: a
/// fixture records the folder it was measured from. Returns an empty string, or what went wrong.
inline QString relocateFixtureModels(const QString& dbPath, const QString& modelsDir) {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(dbPath.toUtf8().constData(), &db, SQLITE_OPEN_READWRITE, nullptr) !=
        SQLITE_OK) {
        const QString why = QString::fromUtf8(sqlite3_errmsg(db));
        sqlite3_close(db);
        return dbPath + QStringLiteral(": ") + why;
    }
    // rtrim strips the file name, up to the last '/': what is left is the folder to replace.
    sqlite3_stmt* statement = nullptr;
    int rc = sqlite3_prepare_v2(
        db,
        "UPDATE models SET source_path = ?1 || "
        "substr(source_path, length(rtrim(source_path, replace(source_path, '/', ''))))",
        -1, &statement, nullptr);
    if (rc == SQLITE_OK) {
        const QByteArray dir = modelsDir.toUtf8();
        sqlite3_bind_text(statement, 1, dir.constData(), static_cast<int>(dir.size()),
                          SQLITE_TRANSIENT);
        rc = sqlite3_step(statement) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    }
    const QString why = rc == SQLITE_OK ? QString() : QString::fromUtf8(sqlite3_errmsg(db));
    sqlite3_finalize(statement);
    sqlite3_close(db);
    return rc == SQLITE_OK ? QString() : dbPath + QStringLiteral(": ") + why;
}
