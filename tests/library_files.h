// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// SQLite files of other applications, and a file's bytes, for the suites that check a library
// is never written unless it is a healthy Paretune library (tst_store, tst_librarysafety).
#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QString>
#include <QtTest>

#include <sqlite3.h>

/// The whole file, or an empty array when it cannot be read.
inline QByteArray readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

/// Replaces the file's contents (a failure fails the calling test function).
inline void writeAll(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(file.write(bytes), bytes.size());
}

/// Writes at `path` another application's database in write-ahead-log mode whose rows are
/// only in its `-wal` (copied while its writer still holds it open, so never checkpointed);
/// `scratch` is a folder for the writer's own file. Returns an empty string, or what failed.
inline QString writeUncheckpointedWalDatabase(const QString& path, const QDir& scratch) {
    const QString live = scratch.filePath(QStringLiteral("live.db"));
    sqlite3* db = nullptr;
    QString failure;
    if (sqlite3_open(QFile::encodeName(live).constData(), &db) != SQLITE_OK ||
        sqlite3_exec(db,
                     "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;"
                     "CREATE TABLE notes(id INTEGER PRIMARY KEY, text TEXT);"
                     "INSERT INTO notes(text) VALUES('kept in the log');",
                     nullptr, nullptr, nullptr) != SQLITE_OK) {
        failure = live + QStringLiteral(": ") + QString::fromUtf8(sqlite3_errmsg(db));
    } else if (!QFile::copy(live, path) ||
               !QFile::copy(live + QStringLiteral("-wal"), path + QStringLiteral("-wal"))) {
        failure = path + QStringLiteral(": the copy failed");
    }
    sqlite3_close(db);
    return failure;
}
