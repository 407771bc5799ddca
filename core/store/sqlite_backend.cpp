// SPDX-License-Identifier: GPL-3.0-or-later
// The sample library in an SQLite file: WAL mode, foreign keys, the schema version in PRAGMA
// user_version and Paretune's mark in PRAGMA application_id.
#include "library_connection.h"

#include <sqlite3.h>

#include <chrono>
#include <map>
#include <stdexcept>
#include <thread>

namespace paretune::store {

namespace {

class SqliteBackend;

class SqliteStatement final : public Statement {
public:
    SqliteStatement(const SqliteBackend& backend, sqlite3_stmt* statement)
        : m_backend(backend), m_statement(statement) {}
    ~SqliteStatement() override { sqlite3_finalize(m_statement); }

    void bindText(int index, std::string_view text) override {
        // An empty view may have no data pointer, which SQLite would bind as NULL, not ''.
        check(sqlite3_bind_text(m_statement, index, text.data() ? text.data() : "",
                                static_cast<int>(text.size()), SQLITE_TRANSIENT));
    }
    void bindReal(int index, double value) override {
        check(sqlite3_bind_double(m_statement, index, value));
    }
    void bindInteger(int index, std::int64_t value) override {
        check(sqlite3_bind_int64(m_statement, index, value));
    }
    void bindBlob(int index, std::string_view bytes) override {
        check(
            sqlite3_bind_blob64(m_statement, index, bytes.data(), bytes.size(), SQLITE_TRANSIENT));
    }
    void bindNullReal(int index) override { check(sqlite3_bind_null(m_statement, index)); }

    bool step() override;
    bool hasRow() const override { return m_hasRow; }
    bool run() override;
    std::int64_t changes() const override {
        return sqlite3_changes64(sqlite3_db_handle(m_statement));
    }
    bool isNull(int column) const override {
        return sqlite3_column_type(m_statement, column) == SQLITE_NULL;
    }
    std::string text(int column) const override {
        const auto* data = sqlite3_column_text(m_statement, column);
        return data == nullptr ? std::string()
                               : std::string(reinterpret_cast<const char*>(data),
                                             static_cast<std::size_t>(
                                                 sqlite3_column_bytes(m_statement, column)));
    }
    std::string blob(int column) const override {
        const auto* data = static_cast<const char*>(sqlite3_column_blob(m_statement, column));
        return data == nullptr ? std::string()
                               : std::string(data, static_cast<std::size_t>(
                                                       sqlite3_column_bytes(m_statement, column)));
    }
    double real(int column) const override { return sqlite3_column_double(m_statement, column); }
    std::int64_t integer(int column) const override {
        return sqlite3_column_int64(m_statement, column);
    }
    void reset() noexcept override {
        m_hasRow = false;
        sqlite3_reset(m_statement);
        sqlite3_clear_bindings(m_statement);
    }

private:
    void check(int rc) const;

    const SqliteBackend& m_backend;
    sqlite3_stmt* m_statement;
    bool m_hasRow = false;
};

class SqliteBackend final : public Backend {
public:
    SqliteBackend(std::string label) : m_label(std::move(label)) {}
    SqliteBackend(const SqliteBackend&) = delete;
    SqliteBackend& operator=(const SqliteBackend&) = delete;
    ~SqliteBackend() override {
        m_statements.clear();
        sqlite3_close_v2(m_db);
    }

    void open(const std::filesystem::path& path, bool create) {
        const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
        const int rc = sqlite3_open_v2(path.c_str(), &m_db, flags, nullptr);
        if (rc != SQLITE_OK) {
            fail(rc, create ? "create the sample library" : "open the sample library");
        }
        sqlite3_extended_result_codes(m_db, 1);
        sqlite3_busy_timeout(m_db, kBusyTimeoutMs);
    }

    /// Throws for a failed SQLite call: InputError when the file is at fault, runtime_error
    /// otherwise.
    [[noreturn]] void fail(int rc, std::string_view doing) const {
        const std::string detail = m_db != nullptr ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
        switch (rc & 0xff) {
        case SQLITE_CORRUPT:
        case SQLITE_NOTADB:
            throw InputError(m_label + ": the sample library is damaged (" + detail +
                             "); it was left as it is: restore it from a backup or move it "
                             "aside to start a new one");
        case SQLITE_READONLY:
        case SQLITE_CANTOPEN:
        case SQLITE_PERM:
        case SQLITE_AUTH:
            throw InputError(m_label + ": cannot " + std::string(doing) + " (" + detail + ")");
        case SQLITE_BUSY:
        case SQLITE_LOCKED:
            throw std::runtime_error(m_label + ": " + std::string(doing) +
                                     ": another process held the sample library locked for " +
                                     std::to_string(kBusyTimeoutMs / 1000) + " s (" + detail + ")");
        default:
            throw std::runtime_error(m_label + ": " + std::string(doing) + ": " + detail);
        }
    }

    Dialect dialect() const override { return Dialect::Sqlite; }

    Statement& statement(std::string_view sql) override {
        const auto found = m_statements.find(sql);
        if (found != m_statements.end()) {
            return *found->second;
        }
        sqlite3_stmt* prepared = nullptr;
        const int rc = sqlite3_prepare_v3(m_db, sql.data(), static_cast<int>(sql.size()),
                                          SQLITE_PREPARE_PERSISTENT, &prepared, nullptr);
        if (rc != SQLITE_OK) {
            fail(rc, "read the sample library");
        }
        auto statement = std::make_unique<SqliteStatement>(*this, prepared);
        return *m_statements.emplace(std::string(sql), std::move(statement)).first->second;
    }

    void exec(const std::string& sql, std::string_view doing) override {
        const int rc = sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, nullptr);
        if (rc != SQLITE_OK) {
            fail(rc, doing);
        }
    }

    void beginWrite() override {
        exec("BEGIN IMMEDIATE", "start a write");
        if (!m_checkedForWrites) {
            checkBeforeWriting();
        }
    }
    void commit() override { exec("COMMIT", "commit"); }
    void rollback() noexcept override { sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr); }
    [[noreturn]] void failConstraint(std::string_view doing) const override {
        fail(SQLITE_CONSTRAINT, doing);
    }

    int readVersion() override;
    void writeVersion() override {
        exec("PRAGMA application_id = " + std::to_string(SampleLibrary::kApplicationId) +
                 "; PRAGMA user_version = " + std::to_string(SampleLibrary::kSchemaVersion),
             "write the schema version");
    }
    void configure() override;
    void lockForMigration() override {} // BEGIN IMMEDIATE holds the write lock already

    std::vector<std::string> integrityProblems() override {
        Statement& check = statement("PRAGMA integrity_check");
        std::vector<std::string> problems;
        while (check.step()) {
            problems.push_back(check.text(0));
        }
        check.reset();
        if (problems.size() == 1 && problems.front() == "ok") {
            problems.clear();
        }
        return problems;
    }

private:
    void checkBeforeWriting();

    std::string m_label;
    sqlite3* m_db = nullptr;
    std::map<std::string, std::unique_ptr<SqliteStatement>, std::less<>> m_statements;
    /// The file passed PRAGMA quick_check since it was opened: a damaged library is never
    /// written to (the first write transaction checks it).
    bool m_checkedForWrites = false;
};

void SqliteStatement::check(int rc) const {
    if (rc != SQLITE_OK) {
        m_backend.fail(rc, doing);
    }
}

bool SqliteStatement::step() {
    const int rc = sqlite3_step(m_statement);
    m_hasRow = rc == SQLITE_ROW;
    if (rc == SQLITE_ROW) {
        return true;
    }
    if (rc == SQLITE_DONE) {
        return false;
    }
    m_backend.fail(rc, doing);
}

bool SqliteStatement::run() {
    const int rc = sqlite3_step(m_statement);
    m_hasRow = rc == SQLITE_ROW;
    if (rc == SQLITE_DONE || rc == SQLITE_ROW) {
        return true;
    }
    if ((rc & 0xff) == SQLITE_CONSTRAINT) {
        return false;
    }
    m_backend.fail(rc, doing);
}

int SqliteBackend::readVersion() {
    // One statement, so one snapshot: another process may be creating the schema right now.
    Statement& q =
        statement("SELECT (SELECT application_id FROM pragma_application_id), "
                  "(SELECT user_version FROM pragma_user_version), "
                  "(SELECT count(*) FROM sqlite_master WHERE type IN ('table', 'view')), "
                  "(SELECT group_concat(name, ', ') FROM (SELECT name FROM sqlite_master "
                  "WHERE type IN ('table', 'view') ORDER BY name LIMIT 5))");
    q.doing = "read the file header";
    q.step();
    const std::int64_t applicationId = q.integer(0);
    const std::int64_t userVersion = q.integer(1);
    const std::int64_t tableCount = q.integer(2);
    const std::string names = q.text(3) + (tableCount > 5 ? ", …" : "");
    q.reset();
    if (applicationId == SampleLibrary::kApplicationId) {
        if (userVersion > SampleLibrary::kSchemaVersion) {
            throw InputError(m_label + ": the sample library has schema version " +
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
        m_label + ": an SQLite database that is not a Paretune sample library (" +
        (tableCount == 0 ? std::string("no tables") : "tables: " + names) +
        (applicationId != 0 ? "; application id " + std::to_string(applicationId) : std::string()) +
        "); it was left as it is: choose another file for the sample library");
}

void SqliteBackend::configure() {
    // WAL lets readers run beside a writer; switching needs a moment alone with the file, which
    // another process opening it at the same time can deny: retry within the busy timeout.
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
    while (true) {
        const int rc = sqlite3_exec(m_db, "PRAGMA journal_mode = WAL", nullptr, nullptr, nullptr);
        if (rc == SQLITE_OK) {
            break;
        }
        if ((rc & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() > deadline) {
            fail(rc, "switch the sample library to WAL mode");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    exec("PRAGMA foreign_keys = ON; PRAGMA synchronous = FULL", "configure the connection");
}

/// PRAGMA quick_check inside the transaction: a damaged file is rolled back to as it was and
/// refused, with the check's first findings.
void SqliteBackend::checkBeforeWriting() {
    std::string findings;
    int count = 0;
    {
        sqlite3_stmt* check = nullptr;
        if (sqlite3_prepare_v2(m_db, "PRAGMA quick_check(3)", -1, &check, nullptr) != SQLITE_OK) {
            const int rc = sqlite3_errcode(m_db);
            rollback();
            fail(rc, "check the sample library");
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
        rollback();
        throw InputError(m_label + ": the sample library is damaged (quick_check: " + findings +
                         "); nothing was written and it was left as it is: restore it from a "
                         "backup or move it aside to start a new one");
    }
    m_checkedForWrites = true;
}

} // namespace

std::unique_ptr<Backend> openSqlite(const std::filesystem::path& path, const std::string& label,
                                    bool create) {
    auto backend = std::make_unique<SqliteBackend>(label);
    backend->open(path, create);
    return backend;
}

} // namespace paretune::store
