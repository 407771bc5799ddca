// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Checked-in sample libraries (tests/data/samples/*.sql, made by tools/make_predictor_fixture.sh):
// real measurements, restored into a fresh SQLite file, so that what a test learns from them
// does not depend on the machine that runs it.
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
