// SPDX-License-Identifier: GPL-3.0-or-later
// The sample library in a PostgreSQL database, through libpq: statements prepared once per
// connection with typed parameters, results read as text. The schema version and Paretune's
// mark live in a one-row table, paretune_library.
#include "library_connection.h"

#include <libpq-fe.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <stdexcept>

namespace paretune::store {

namespace {

// Type OIDs of the parameters (pg_type.h).
constexpr Oid kInt8Oid = 20;
constexpr Oid kTextOid = 25;
constexpr Oid kFloat8Oid = 701;
constexpr Oid kByteaOid = 17;

/// The advisory lock a migration holds: "PRTN".
constexpr std::int64_t kMigrationLock = SampleLibrary::kApplicationId;

/// `sql` with SQLite's ?N parameters written as $N (outside quoted text); `count` is set to
/// the highest N.
std::string renumbered(std::string_view sql, int& count) {
    std::string out;
    out.reserve(sql.size());
    char quote = 0;
    count = 0;
    for (std::size_t i = 0; i < sql.size(); ++i) {
        char c = sql[i];
        if (quote != 0) {
            quote = c == quote ? 0 : quote;
        } else if (c == '\'' || c == '"') {
            quote = c;
        } else if (c == '?') {
            c = '$';
            int n = 0;
            std::from_chars(sql.data() + i + 1, sql.data() + sql.size(), n);
            count = std::max(count, n);
        }
        out += c;
    }
    return out;
}

int hexValue(char c) {
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

std::string errorText(const PGconn* connection) {
    std::string text = PQerrorMessage(connection);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) {
        text.pop_back();
    }
    for (char& c : text) {
        c = c == '\n' || c == '\t' ? ' ' : c;
    }
    return text;
}

class PostgresBackend;

class PostgresStatement final : public Statement {
public:
    PostgresStatement(PostgresBackend& backend, std::string_view sql)
        : m_backend(backend), m_sql(renumbered(sql, m_paramCount)) {}
    ~PostgresStatement() override { PQclear(m_result); }

    void bindText(int index, std::string_view text) override {
        set(index, kTextOid, std::string(text), 0);
    }
    void bindReal(int index, double value) override {
        char text[32];
        const auto end = std::to_chars(text, text + sizeof text, value).ptr;
        set(index, kFloat8Oid, std::string(text, end), 0);
    }
    void bindInteger(int index, std::int64_t value) override {
        set(index, kInt8Oid, std::to_string(value), 0);
    }
    void bindBlob(int index, std::string_view bytes) override {
        set(index, kByteaOid, std::string(bytes), 1);
    }
    void bindNullReal(int index) override {
        set(index, kFloat8Oid, std::string(), 0);
        m_params[static_cast<std::size_t>(index - 1)].null = true;
    }

    bool step() override {
        if (m_result == nullptr) {
            execute(false);
        }
        return ++m_row < PQntuples(m_result);
    }
    bool hasRow() const override {
        return m_result != nullptr && m_row >= 0 && m_row < PQntuples(m_result);
    }
    bool run() override {
        const bool ran = execute(true);
        m_row = ran && PQntuples(m_result) > 0 ? 0 : -1;
        return ran;
    }
    std::int64_t changes() const override {
        const char* count = m_result != nullptr ? PQcmdTuples(m_result) : "";
        std::int64_t value = 0;
        std::from_chars(count, count + std::char_traits<char>::length(count), value);
        return value;
    }
    bool isNull(int column) const override { return PQgetisnull(m_result, m_row, column) != 0; }
    std::string text(int column) const override {
        return std::string(PQgetvalue(m_result, m_row, column),
                           static_cast<std::size_t>(PQgetlength(m_result, m_row, column)));
    }
    std::string blob(int column) const override {
        // bytea comes as text in hex format: \x0a1b…
        const std::string hex = text(column);
        std::string bytes;
        if (hex.size() >= 2 && hex[0] == '\\' && hex[1] == 'x') {
            bytes.reserve((hex.size() - 2) / 2);
            for (std::size_t i = 2; i + 1 < hex.size(); i += 2) {
                bytes += static_cast<char>(hexValue(hex[i]) * 16 + hexValue(hex[i + 1]));
            }
        }
        return bytes;
    }
    double real(int column) const override {
        const char* value = PQgetvalue(m_result, m_row, column);
        double parsed = 0;
        // PostgreSQL 12 and later print a double's shortest exact form: it reads back bit for bit.
        std::from_chars(value, value + PQgetlength(m_result, m_row, column), parsed);
        return parsed;
    }
    std::int64_t integer(int column) const override {
        const char* value = PQgetvalue(m_result, m_row, column);
        const int length = PQgetlength(m_result, m_row, column);
        if (length == 1 && (value[0] == 't' || value[0] == 'f')) { // a boolean
            return value[0] == 't' ? 1 : 0;
        }
        std::int64_t parsed = 0;
        std::from_chars(value, value + length, parsed);
        return parsed;
    }
    void reset() noexcept override {
        PQclear(m_result);
        m_result = nullptr;
        m_row = -1;
        m_params.clear();
    }

private:
    struct Param {
        Oid type = kTextOid; // unbound: a NULL text (an unused parameter still needs a type)
        std::string value;
        int format = 0;
        bool null = true;
    };

    void set(int index, Oid type, std::string value, int format) {
        const auto slot = static_cast<std::size_t>(index - 1);
        if (m_params.size() <= slot) {
            m_params.resize(slot + 1);
        }
        m_params[slot] = {type, std::move(value), format, false};
    }

    /// Runs the statement (prepared on first use for these parameter types); with
    /// `constraintIsResult`, a constraint violation returns false instead of throwing.
    bool execute(bool constraintIsResult);

    PostgresBackend& m_backend;
    int m_paramCount = 0;
    std::string m_sql;
    std::vector<Param> m_params;
    std::map<std::string, std::string> m_prepared; ///< parameter types → statement name
    PGresult* m_result = nullptr;
    int m_row = -1;
};

class PostgresBackend final : public Backend {
public:
    explicit PostgresBackend(std::string label) : m_label(std::move(label)) {}
    PostgresBackend(const PostgresBackend&) = delete;
    PostgresBackend& operator=(const PostgresBackend&) = delete;
    ~PostgresBackend() override {
        m_statements.clear();
        PQfinish(m_connection);
    }

    void connect(const std::string& conninfo) {
        // The connection string's own settings win over these defaults (expand_dbname).
        // A writer waits for another's locks as long as an SQLite writer does (kBusyTimeoutMs).
        const std::string lockTimeout = "-c lock_timeout=" + std::to_string(kBusyTimeoutMs);
        const char* keywords[] = {"connect_timeout", "application_name", "client_encoding",
                                  "options",         "dbname",           nullptr};
        const char* values[] = {"10",   "paretune", "UTF8", lockTimeout.c_str(), conninfo.c_str(),
                                nullptr};
        m_connection = PQconnectdbParams(keywords, values, 1);
        if (m_connection == nullptr) {
            throw std::runtime_error(m_label + ": cannot connect: out of memory");
        }
        if (PQstatus(m_connection) != CONNECTION_OK) {
            throw InputError(m_label + ": cannot connect to the PostgreSQL sample library (" +
                             errorText(m_connection) +
                             "); a password comes from PGPASSWORD or ~/.pgpass");
        }
        PQsetNoticeProcessor(
            m_connection, [](void*, const char*) {}, nullptr);
    }

    PGconn* connection() const { return m_connection; }
    const std::string& label() const { return m_label; }
    std::string nextStatementName() { return "paretune_" + std::to_string(++m_statementCount); }

    /// Throws for a failed result: InputError when the database or the values are at fault
    /// (permissions, a violated constraint), runtime_error otherwise.
    [[noreturn]] void fail(const PGresult* result, std::string_view doing) const {
        const char* state =
            result != nullptr ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
        const std::string sqlState = state != nullptr ? state : "";
        std::string detail = result != nullptr ? PQresultErrorMessage(result) : "";
        if (detail.empty()) {
            detail = errorText(m_connection);
        }
        while (!detail.empty() && (detail.back() == '\n' || detail.back() == ' ')) {
            detail.pop_back();
        }
        for (char& c : detail) {
            c = c == '\n' || c == '\t' ? ' ' : c;
        }
        const std::string where = m_label + ": cannot " + std::string(doing) + " (" + detail +
                                  (sqlState.empty() ? "" : "; SQLSTATE " + sqlState) + ")";
        if (PQstatus(m_connection) != CONNECTION_OK) {
            throw std::runtime_error(where + ": the connection to the server was lost");
        }
        if (sqlState == "40001" || sqlState == "40P01") {
            throw RetryableError(where);
        }
        // The database or the values at fault: a violated constraint (23), a bad value (22),
        // credentials (28), no such database (3D), missing rights (42501), a table or column
        // of the library missing (42P01, 42703). Anything else (our SQL, the server) is internal.
        const std::string errorClass = sqlState.substr(0, 2);
        if (errorClass == "23" || errorClass == "22" || errorClass == "28" || errorClass == "3D" ||
            sqlState == "42501" || sqlState == "42P01" || sqlState == "42703") {
            throw InputError(where);
        }
        throw std::runtime_error(where);
    }

    Dialect dialect() const override { return Dialect::Postgres; }

    Statement& statement(std::string_view sql) override {
        const auto found = m_statements.find(sql);
        if (found != m_statements.end()) {
            return *found->second;
        }
        auto statement = std::make_unique<PostgresStatement>(*this, sql);
        return *m_statements.emplace(std::string(sql), std::move(statement)).first->second;
    }

    void exec(const std::string& sql, std::string_view doing) override {
        PGresult* result = PQexec(m_connection, sql.c_str());
        const ExecStatusType status = PQresultStatus(result);
        if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
            const std::unique_ptr<PGresult, decltype(&PQclear)> owned(result, &PQclear);
            fail(result, doing);
        }
        PQclear(result);
    }

    void beginWrite() override { exec("BEGIN", "start a write"); }
    void commit() override { exec("COMMIT", "commit"); }
    void rollback() noexcept override { PQclear(PQexec(m_connection, "ROLLBACK")); }
    [[noreturn]] void failConstraint(std::string_view doing) const override {
        throw InputError(m_label + ": cannot " + std::string(doing) +
                         " (a value the library's constraints refuse)");
    }

    int readVersion() override;
    void writeVersion() override {
        exec("CREATE TABLE IF NOT EXISTS paretune_library(application_id BIGINT NOT NULL, "
             "schema_version BIGINT NOT NULL); DELETE FROM paretune_library; INSERT INTO "
             "paretune_library(application_id, "
             "schema_version) VALUES(" +
                 std::to_string(SampleLibrary::kApplicationId) + ", " +
                 std::to_string(SampleLibrary::kSchemaVersion) + ")",
             "write the schema version");
    }
    void configure() override {}
    void lockForMigration() override {
        exec("SELECT pg_advisory_xact_lock(" + std::to_string(kMigrationLock) + ")",
             "lock the library for its migration");
    }
    std::vector<std::string> integrityProblems() override {
        // The server keeps its files sound; what can go wrong is the library's own mark.
        Statement& q = statement("SELECT count(*) FROM paretune_library");
        q.doing = "check the sample library";
        q.step();
        const std::int64_t rows = q.integer(0);
        q.reset();
        if (rows != 1) {
            return {"paretune_library holds " + std::to_string(rows) + " rows, expected 1"};
        }
        return {};
    }

private:
    std::string m_label;
    PGconn* m_connection = nullptr;
    std::map<std::string, std::unique_ptr<PostgresStatement>, std::less<>> m_statements;
    int m_statementCount = 0;
};

bool PostgresStatement::execute(bool constraintIsResult) {
    PQclear(m_result);
    m_result = nullptr;
    m_row = -1;
    if (m_params.size() < static_cast<std::size_t>(m_paramCount)) {
        m_params.resize(static_cast<std::size_t>(m_paramCount));
    }
    std::string types;
    std::vector<Oid> oids;
    std::vector<const char*> values;
    std::vector<int> lengths;
    std::vector<int> formats;
    for (const Param& p : m_params) {
        types += std::to_string(p.type) + ",";
        oids.push_back(p.type);
        values.push_back(p.null ? nullptr : p.value.data());
        lengths.push_back(static_cast<int>(p.value.size()));
        formats.push_back(p.format);
    }
    PGconn* connection = m_backend.connection();
    auto found = m_prepared.find(types);
    if (found == m_prepared.end()) {
        const std::string name = m_backend.nextStatementName();
        PGresult* prepared = PQprepare(connection, name.c_str(), m_sql.c_str(),
                                       static_cast<int>(oids.size()), oids.data());
        if (PQresultStatus(prepared) != PGRES_COMMAND_OK) {
            const std::unique_ptr<PGresult, decltype(&PQclear)> owned(prepared, &PQclear);
            m_backend.fail(prepared, doing);
        }
        PQclear(prepared);
        found = m_prepared.emplace(types, name).first;
    }
    m_result = PQexecPrepared(connection, found->second.c_str(), static_cast<int>(values.size()),
                              values.data(), lengths.data(), formats.data(), 0);
    const ExecStatusType status = PQresultStatus(m_result);
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
        return true;
    }
    const char* state = PQresultErrorField(m_result, PG_DIAG_SQLSTATE);
    if (constraintIsResult && state != nullptr && std::string_view(state).substr(0, 2) == "23") {
        return false;
    }
    PGresult* failed = m_result;
    m_result = nullptr;
    const std::unique_ptr<PGresult, decltype(&PQclear)> owned(failed, &PQclear);
    m_backend.fail(failed, doing);
}

int PostgresBackend::readVersion() {
    // The tables of the first schema on the search path, where the library's tables are made.
    Statement& tables = statement(
        "SELECT current_schema() IS NOT NULL, "
        "(SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema()), "
        "(SELECT coalesce(string_agg(tablename, ', ' ORDER BY tablename), '') FROM "
        "(SELECT tablename FROM pg_catalog.pg_tables WHERE schemaname = current_schema() "
        "ORDER BY tablename LIMIT 5) t), "
        "(SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND "
        "tablename = 'paretune_library')");
    tables.doing = "read the database's tables";
    tables.step();
    const bool haveSchema = tables.integer(0) != 0;
    const std::int64_t tableCount = tables.integer(1);
    const std::string names = tables.text(2) + (tableCount > 5 ? ", …" : "");
    const bool marked = tables.integer(3) != 0;
    tables.reset();
    if (!haveSchema) {
        throw InputError(m_label + ": no schema on the search path to hold the sample library's "
                                   "tables (create one, or set search_path)");
    }
    if (!marked) {
        if (tableCount == 0) {
            return 0; // an empty database: a new library
        }
        throw InputError(
            m_label +
            ": a PostgreSQL database that is not a Paretune sample library (tables: " + names +
            "); it was left as it is: choose another database for the sample "
            "library");
    }
    Statement& mark =
        statement("SELECT application_id, schema_version FROM paretune_library LIMIT 2");
    mark.doing = "read the library's schema version";
    std::int64_t applicationId = 0;
    std::int64_t version = 0;
    int rows = 0;
    while (mark.step()) {
        applicationId = mark.integer(0);
        version = mark.integer(1);
        ++rows;
    }
    mark.reset();
    if (rows != 1 || applicationId != SampleLibrary::kApplicationId) {
        throw InputError(m_label +
                         ": a PostgreSQL database that is not a Paretune sample library "
                         "(paretune_library does not hold Paretune's mark); it was left as it is");
    }
    if (version > SampleLibrary::kSchemaVersion) {
        throw InputError(m_label + ": the sample library has schema version " +
                         std::to_string(version) + ", newer than this paretune knows (" +
                         std::to_string(SampleLibrary::kSchemaVersion) +
                         "); use a newer paretune (the database was not changed)");
    }
    return static_cast<int>(version);
}

} // namespace

std::unique_ptr<Backend> openPostgres(const std::string& conninfo, const std::string& label) {
    auto backend = std::make_unique<PostgresBackend>(label);
    backend->connect(conninfo);
    return backend;
}

} // namespace paretune::store
