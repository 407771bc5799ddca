// SPDX-License-Identifier: GPL-3.0-or-later
// How a connection opens a library: the file's classification, WAL mode and the schema
// migrations.
#include "library_connection.h"

#include "common/input_error.h"
#include "schema.h"

#include <chrono>
#include <thread>

namespace paretune::store {

int Connection::readVersion() {
    // One statement, so one snapshot: another process may be creating the schema right now.
    Query q(*this,
            statement("SELECT (SELECT application_id FROM pragma_application_id), "
                      "(SELECT user_version FROM pragma_user_version), "
                      "(SELECT count(*) FROM sqlite_master WHERE type IN ('table', 'view')), "
                      "(SELECT group_concat(name, ', ') FROM (SELECT name FROM sqlite_master "
                      "WHERE type IN ('table', 'view') ORDER BY name LIMIT 5))"),
            "read the file header");
    q.step();
    const std::int64_t applicationId = q.integer(0);
    const std::int64_t userVersion = q.integer(1);
    const std::int64_t tableCount = q.integer(2);
    const std::string names = q.text(3) + (tableCount > 5 ? ", …" : "");
    if (applicationId == SampleLibrary::kApplicationId) {
        if (userVersion > SampleLibrary::kSchemaVersion) {
            throw InputError(label + ": the sample library has schema version " +
                             std::to_string(userVersion) + ", newer than this paretune knows (" +
                             std::to_string(SampleLibrary::kSchemaVersion) +
                             "); use a newer paretune (the file was not changed)");
        }
        return static_cast<int>(userVersion);
    }
    if (applicationId == 0 && userVersion == 0 && tableCount == 0) {
        return 0; // an empty database: a new library
    }
    throw InputError(
        label + ": an SQLite database that is not a Paretune sample library (" +
        (tableCount == 0 ? std::string("no tables") : "tables: " + names) +
        (applicationId != 0 ? "; application id " + std::to_string(applicationId) : std::string()) +
        "); it was left as it is: choose another file for the sample library");
}

void Connection::migrate(int from) {
    for (const store::Migration& m : store::migrations()) {
        if (m.version > from) {
            exec(m.sql, "create the sample library's tables");
        }
    }
    const std::string header =
        "PRAGMA application_id = " + std::to_string(SampleLibrary::kApplicationId) +
        "; PRAGMA user_version = " + std::to_string(SampleLibrary::kSchemaVersion);
    exec(header.c_str(), "write the schema version");
}

void Connection::classifyAndMigrate() {
    version = readVersion(); // nothing is written before this says the file is ours or empty
    // WAL lets readers run beside a writer; switching needs a moment alone with the file, which
    // another process opening it at the same time can deny: retry within the busy timeout.
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
    while (true) {
        const int rc = sqlite3_exec(db, "PRAGMA journal_mode = WAL", nullptr, nullptr, nullptr);
        if (rc == SQLITE_OK) {
            break;
        }
        if ((rc & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() > deadline) {
            fail(rc, "switch the sample library to WAL mode");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    exec("PRAGMA foreign_keys = ON; PRAGMA synchronous = FULL", "configure the connection");
    if (version < SampleLibrary::kSchemaVersion) {
        WriteTransaction transaction(*this);
        version = readVersion(); // another process may have migrated it meanwhile
        if (version < SampleLibrary::kSchemaVersion) {
            migrate(version);
            version = SampleLibrary::kSchemaVersion;
        }
        transaction.commit();
    }
}

} // namespace paretune::store
