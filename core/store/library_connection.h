// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to the sample library (store/*.cpp): the connection behind SampleLibrary, the
// statements run on it and its write transactions. Two backends implement it: an SQLite file
// (sqlite_backend.cpp) and a PostgreSQL database (postgres_backend.cpp). The SQL the library
// runs is written once with SQLite's numbered parameters (?1, ?2, …); the PostgreSQL backend
// renumbers them ($1, $2, …). Where the dialects differ, Connection::dialect() chooses.

#include "common/input_error.h"
#include "sample_library.h"

#include <cstdint>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace paretune::store {

/// How long a writer waits for another process's transaction before giving up.
inline constexpr int kBusyTimeoutMs = 60000;

enum class Dialect { Sqlite, Postgres };

/// A transaction the server failed because of another one (deadlock, serialization): running
/// it again may succeed.
class RetryableError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// One prepared statement of a backend, kept for the life of the connection. Parameters are
/// 1-based, columns 0-based. step() and run() execute on first call after reset().
class Statement {
public:
    virtual ~Statement() = default;
    virtual void bindText(int index, std::string_view text) = 0;
    virtual void bindReal(int index, double value) = 0;
    virtual void bindInteger(int index, std::int64_t value) = 0;
    virtual void bindBlob(int index, std::string_view bytes) = 0;
    /// NULL where a REAL is expected.
    virtual void bindNullReal(int index) = 0;
    /// True while there is a row; throws on failure.
    virtual bool step() = 0;
    /// Runs a statement (the first row it returns, if any, is current); false for a
    /// constraint violation (unique, foreign key,
    /// check) instead of throwing for it. Inside a PostgreSQL transaction a violation aborts
    /// the transaction: roll it back before running anything else.
    virtual bool run() = 0;
    /// Whether the last step() or run() left a row to read.
    virtual bool hasRow() const = 0;
    /// Rows the last run() inserted, updated or deleted.
    virtual std::int64_t changes() const = 0;
    virtual bool isNull(int column) const = 0;
    virtual std::string text(int column) const = 0;
    virtual std::string blob(int column) const = 0;
    virtual double real(int column) const = 0;
    virtual std::int64_t integer(int column) const = 0;
    /// Forgets the bindings and the result, so that the cached statement holds no lock.
    virtual void reset() noexcept = 0;

    /// What the statement is doing, for messages ("store samples"); set by Query.
    std::string_view doing = "read the sample library";
};

/// What each backend provides to the connection.
class Backend {
public:
    virtual ~Backend() = default;
    virtual Dialect dialect() const = 0;
    /// A prepared statement for `sql`, kept for the life of the backend.
    virtual Statement& statement(std::string_view sql) = 0;
    /// Runs SQL that returns no rows (may hold several statements).
    virtual void exec(const std::string& sql, std::string_view doing) = 0;
    /// Starts a write transaction (SQLite: BEGIN IMMEDIATE, so that two writers queue on the
    /// busy timeout; the first one of a connection checks the file).
    virtual void beginWrite() = 0;
    virtual void commit() = 0;
    virtual void rollback() noexcept = 0;
    /// Throws for a constraint violation the caller has no better message for.
    [[noreturn]] virtual void failConstraint(std::string_view doing) const = 0;
    /// Whether the database is empty (0), an older Paretune library (its version) or current;
    /// throws InputError for a foreign or newer one.
    virtual int readVersion() = 0;
    /// Marks the database as a Paretune library at kSchemaVersion (inside the migration's
    /// transaction).
    virtual void writeVersion() = 0;
    /// After the first readVersion said the database is ours or empty: per-connection settings
    /// (SQLite: WAL mode, foreign keys, synchronous writes).
    virtual void configure() = 0;
    /// Taken inside the migration's transaction, before the version is read again, so that
    /// two processes opening a new library do not both create it.
    virtual void lockForMigration() = 0;
    /// Empty when the database is sound, else the backend's findings.
    virtual std::vector<std::string> integrityProblems() = 0;
};

/// The connection and what the SampleLibrary methods share (SampleLibrary::Impl is it).
struct Connection {
    std::filesystem::path path; ///< the file, or the connection string without a password
    std::string label;          ///< path as text, for messages
    int version = 0;
    std::unique_ptr<Backend> backend;

    Dialect dialect() const { return backend->dialect(); }
    /// `sqlite` on SQLite, `postgres` on PostgreSQL.
    std::string_view sql(std::string_view sqlite, std::string_view postgres) const {
        return dialect() == Dialect::Sqlite ? sqlite : postgres;
    }
    Statement& statement(std::string_view sql) const { return backend->statement(sql); }
    void exec(const std::string& sql, std::string_view doing) const { backend->exec(sql, doing); }
    [[noreturn]] void failConstraint(std::string_view doing) const {
        backend->failConstraint(doing);
        std::terminate(); // not reached: the backend throws
    }

    /// Reads the version; migrates an empty or older library in one transaction.
    void classifyAndMigrate();
    /// The migrations after version `from`, inside the caller's transaction.
    void migrate(int from);
};

/// A statement in use: binds by position (1-based), steps, and resets when it goes out of scope.
class Query {
public:
    Query(const Connection&, Statement& statement, std::string_view doing)
        : m_statement(statement) {
        m_statement.doing = doing;
    }
    Query(const Query&) = delete;
    Query& operator=(const Query&) = delete;
    ~Query() { m_statement.reset(); }

    Query& bind(int index, std::string_view text) {
        m_statement.bindText(index, text);
        return *this;
    }
    Query& bind(int index, double value) {
        m_statement.bindReal(index, value);
        return *this;
    }
    Query& bind(int index, std::int64_t value) {
        m_statement.bindInteger(index, value);
        return *this;
    }
    Query& bindBlob(int index, std::string_view bytes) {
        m_statement.bindBlob(index, bytes);
        return *this;
    }
    Query& bind(int index, const std::optional<double>& value) {
        if (value) {
            m_statement.bindReal(index, *value);
        } else {
            m_statement.bindNullReal(index);
        }
        return *this;
    }

    bool step() { return m_statement.step(); }
    /// False for a constraint violation (see Statement::run).
    bool run() { return m_statement.run(); }
    std::int64_t changes() const { return m_statement.changes(); }
    bool hasRow() const { return m_statement.hasRow(); }
    /// Steps an INSERT … RETURNING id: the new row's id, or none when ON CONFLICT DO NOTHING
    /// left the row out. A constraint violation throws.
    std::optional<std::int64_t> insert() {
        std::optional<std::int64_t> id;
        if (step()) {
            id = integer(0);
        }
        m_statement.reset(); // finished: a statement left on its row would hold the transaction
        return id;
    }

    std::string text(int column) const { return m_statement.text(column); }
    std::string blob(int column) const { return m_statement.blob(column); }
    double real(int column) const { return m_statement.real(column); }
    std::int64_t integer(int column) const { return m_statement.integer(column); }
    std::optional<double> optionalReal(int column) const {
        if (m_statement.isNull(column)) {
            return std::nullopt;
        }
        return real(column);
    }

private:
    Statement& m_statement;
};

/// A write transaction; rolls back unless committed.
class WriteTransaction {
public:
    explicit WriteTransaction(Connection& library) : m_library(library) {
        m_library.backend->beginWrite();
    }
    WriteTransaction(const WriteTransaction&) = delete;
    WriteTransaction& operator=(const WriteTransaction&) = delete;
    ~WriteTransaction() { rollback(); }
    void commit() {
        m_library.backend->commit();
        m_done = true;
    }
    /// Ends the transaction now, writing nothing.
    void rollback() noexcept {
        if (!m_done) {
            m_library.backend->rollback();
            m_done = true;
        }
    }

private:
    Connection& m_library;
    bool m_done = false;
};

/// Fills sample_key for the rows that have none (libraries from before version 5); a row whose
/// key another row already holds (an exact duplicate) keeps none. Inside a write transaction.
void fillSampleKeys(Connection& library);

/// The SQLite backend for the file at `path` (which open() has checked); creates the file when
/// `create`.
std::unique_ptr<Backend> openSqlite(const std::filesystem::path& path, const std::string& label,
                                    bool create);
/// The PostgreSQL backend for a libpq connection string without a password.
std::unique_ptr<Backend> openPostgres(const std::string& conninfo, const std::string& label);

} // namespace paretune::store

namespace paretune {

struct SampleLibrary::Impl : store::Connection {};

} // namespace paretune
