// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to the sample library (store/sample_library*.cpp): the SQLite connection behind
// SampleLibrary, the statements run on it and its write transactions.

#include "common/input_error.h"
#include "sample_library.h"

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace paretune::store {

/// How long a writer waits for another process's transaction before giving up.
inline constexpr int kBusyTimeoutMs = 60000;

/// The connection and what the SampleLibrary methods share (SampleLibrary::Impl is it).
struct Connection {
    std::filesystem::path path;
    std::string label; ///< path as text, for messages
    sqlite3* db = nullptr;
    int version = 0;
    std::map<std::string, sqlite3_stmt*, std::less<>> statements;
    /// The file passed PRAGMA quick_check since it was opened: a damaged library is never
    /// written to (the first write transaction checks it).
    bool checkedForWrites = false;

    Connection() = default;
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;
    ~Connection() {
        for (auto& [sql, statement] : statements) {
            sqlite3_finalize(statement);
        }
        sqlite3_close_v2(db);
    }

    /// Throws for a failed SQLite call: InputError when the file is at fault, runtime_error
    /// otherwise.
    [[noreturn]] void fail(int rc, std::string_view doing) const {
        const std::string detail = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
        switch (rc & 0xff) {
        case SQLITE_CORRUPT:
        case SQLITE_NOTADB:
            throw InputError(label + ": the sample library is damaged (" + detail +
                             "); it was left as it is: restore it from a backup or move it "
                             "aside to start a new one");
        case SQLITE_READONLY:
        case SQLITE_CANTOPEN:
        case SQLITE_PERM:
        case SQLITE_AUTH:
            throw InputError(label + ": cannot " + std::string(doing) + " (" + detail + ")");
        case SQLITE_BUSY:
        case SQLITE_LOCKED:
            throw std::runtime_error(label + ": " + std::string(doing) +
                                     ": another process held the sample library locked for " +
                                     std::to_string(kBusyTimeoutMs / 1000) + " s (" + detail + ")");
        default:
            throw std::runtime_error(label + ": " + std::string(doing) + ": " + detail);
        }
    }

    void exec(const char* sql, std::string_view doing) {
        const int rc = sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
        if (rc != SQLITE_OK) {
            fail(rc, doing);
        }
    }

    /// A prepared statement, kept for the life of the connection.
    sqlite3_stmt* statement(std::string_view sql) {
        const auto found = statements.find(sql);
        if (found != statements.end()) {
            return found->second;
        }
        sqlite3_stmt* prepared = nullptr;
        const int rc = sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()),
                                          SQLITE_PREPARE_PERSISTENT, &prepared, nullptr);
        if (rc != SQLITE_OK) {
            fail(rc, "read the sample library");
        }
        statements.emplace(std::string(sql), prepared);
        return prepared;
    }

    void classifyAndMigrate();
    /// Whether the file is empty (0), an older Paretune library (its version) or current;
    /// throws InputError for a foreign, newer or damaged file.
    int readVersion();
    void migrate(int from);
};

/// A statement in use: binds by position (1-based), steps, and resets when it goes out of scope
/// so that the cached statement holds no lock.
class Query {
public:
    Query(const Connection& library, sqlite3_stmt* statement, std::string_view doing)
        : m_library(library), m_statement(statement), m_doing(doing) {}
    Query(const Query&) = delete;
    Query& operator=(const Query&) = delete;
    ~Query() {
        sqlite3_reset(m_statement);
        sqlite3_clear_bindings(m_statement);
    }

    Query& bind(int index, std::string_view text) {
        // An empty view may have no data pointer, which SQLite would bind as NULL, not ''.
        check(sqlite3_bind_text(m_statement, index, text.data() ? text.data() : "",
                                static_cast<int>(text.size()), SQLITE_TRANSIENT));
        return *this;
    }
    Query& bind(int index, double value) {
        check(sqlite3_bind_double(m_statement, index, value));
        return *this;
    }
    Query& bind(int index, std::int64_t value) {
        check(sqlite3_bind_int64(m_statement, index, value));
        return *this;
    }
    Query& bindBlob(int index, std::string_view bytes) {
        check(
            sqlite3_bind_blob64(m_statement, index, bytes.data(), bytes.size(), SQLITE_TRANSIENT));
        return *this;
    }
    Query& bind(int index, const std::optional<double>& value) {
        check(value ? sqlite3_bind_double(m_statement, index, *value)
                    : sqlite3_bind_null(m_statement, index));
        return *this;
    }

    /// True while there is a row; throws on failure.
    bool step() {
        const int rc = sqlite3_step(m_statement);
        if (rc == SQLITE_ROW) {
            return true;
        }
        if (rc == SQLITE_DONE) {
            return false;
        }
        m_library.fail(rc, m_doing);
    }
    /// Steps a statement that returns no row; returns the SQLite result code of a constraint
    /// violation (SQLITE_CONSTRAINT_*) instead of throwing for it.
    int run() {
        const int rc = sqlite3_step(m_statement);
        if (rc == SQLITE_DONE || rc == SQLITE_ROW) {
            return SQLITE_OK;
        }
        const int extended = sqlite3_extended_errcode(sqlite3_db_handle(m_statement));
        if ((rc & 0xff) == SQLITE_CONSTRAINT) {
            return extended;
        }
        m_library.fail(rc, m_doing);
    }
    /// Runs an INSERT; a constraint violation fails like any other error. Returns the new
    /// row's id.
    std::int64_t insert() {
        if (run() != SQLITE_OK) {
            m_library.fail(SQLITE_CONSTRAINT, m_doing);
        }
        return sqlite3_last_insert_rowid(sqlite3_db_handle(m_statement));
    }

    std::string text(int column) const {
        const auto* data = sqlite3_column_text(m_statement, column);
        return data == nullptr ? std::string()
                               : std::string(reinterpret_cast<const char*>(data),
                                             static_cast<std::size_t>(
                                                 sqlite3_column_bytes(m_statement, column)));
    }
    std::string blob(int column) const {
        const auto* data = static_cast<const char*>(sqlite3_column_blob(m_statement, column));
        return data == nullptr ? std::string()
                               : std::string(data, static_cast<std::size_t>(
                                                       sqlite3_column_bytes(m_statement, column)));
    }
    double real(int column) const { return sqlite3_column_double(m_statement, column); }
    std::int64_t integer(int column) const { return sqlite3_column_int64(m_statement, column); }
    std::optional<double> optionalReal(int column) const {
        if (sqlite3_column_type(m_statement, column) == SQLITE_NULL) {
            return std::nullopt;
        }
        return real(column);
    }

private:
    void check(int rc) const {
        if (rc != SQLITE_OK) {
            m_library.fail(rc, m_doing);
        }
    }

    const Connection& m_library;
    sqlite3_stmt* m_statement;
    std::string_view m_doing;
};

/// BEGIN IMMEDIATE (the write lock is taken up front, so two writers queue on the busy
/// timeout instead of one failing when it upgrades); rolls back unless committed.
class WriteTransaction {
public:
    explicit WriteTransaction(Connection& library) : m_library(library) {
        m_library.exec("BEGIN IMMEDIATE", "start a write");
        if (!m_library.checkedForWrites) {
            checkBeforeWriting();
        }
    }
    WriteTransaction(const WriteTransaction&) = delete;
    WriteTransaction& operator=(const WriteTransaction&) = delete;
    ~WriteTransaction() {
        if (!m_committed) {
            sqlite3_exec(m_library.db, "ROLLBACK", nullptr, nullptr, nullptr);
        }
    }
    void commit() {
        m_library.exec("COMMIT", "commit");
        m_committed = true;
    }

private:
    /// PRAGMA quick_check inside the transaction: a damaged file is rolled back to as it was
    /// and refused, with the check's first findings.
    void checkBeforeWriting() {
        std::string findings;
        int count = 0;
        {
            sqlite3_stmt* check = nullptr;
            if (sqlite3_prepare_v2(m_library.db, "PRAGMA quick_check(3)", -1, &check, nullptr) !=
                SQLITE_OK) {
                const int rc = sqlite3_errcode(m_library.db);
                sqlite3_exec(m_library.db, "ROLLBACK", nullptr, nullptr, nullptr);
                m_committed = true;
                m_library.fail(rc, "check the sample library");
            }
            int rc = SQLITE_ROW;
            while ((rc = sqlite3_step(check)) == SQLITE_ROW) {
                const auto* text = sqlite3_column_text(check, 0);
                const std::string line = text != nullptr ? reinterpret_cast<const char*>(text) : "";
                if (line != "ok") {
                    findings += (count++ ? "; " : "") + line;
                }
            }
            sqlite3_finalize(check);
            if (rc != SQLITE_DONE && findings.empty()) {
                findings = sqlite3_errstr(rc);
            }
        }
        if (!findings.empty()) {
            sqlite3_exec(m_library.db, "ROLLBACK", nullptr, nullptr, nullptr);
            m_committed = true; // nothing left to roll back
            throw InputError(m_library.label +
                             ": the sample library is damaged (quick_check: " + findings +
                             "); nothing was written and it was left as it is: restore it from a "
                             "backup or move it aside to start a new one");
        }
        m_library.checkedForWrites = true;
    }

    Connection& m_library;
    bool m_committed = false;
};

} // namespace paretune::store

namespace paretune {

struct SampleLibrary::Impl : store::Connection {};

} // namespace paretune
