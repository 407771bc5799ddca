#include "sample_library.h"

#include "common/input_error.h"
#include "graph_records.h"
#include "paretune/config.h"
#include "schema.h"

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <pwd.h>
#include <stdexcept>
#include <thread>
#include <unistd.h>

namespace paretune {

namespace {

/// How long a writer waits for another process's transaction before giving up.
constexpr int kBusyTimeoutMs = 60000;
constexpr std::size_t kFingerprintLength = 64;
constexpr std::size_t kSignatureLength = 32;

bool isHex(std::string_view text) {
    for (const char c : text) {
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
            return false;
        }
    }
    return true;
}

void requireKey(std::string_view value, std::size_t length, const std::string& what) {
    if (value.size() != length || !isHex(value)) {
        throw InputError(what + " \"" + std::string(value) + "\": expected " +
                         std::to_string(length) + " lower-case hex digits");
    }
}

/// Lower-cases a hex prefix; InputError when it is not one.
std::string hexPrefix(std::string_view text, std::size_t maxLength, const std::string& what) {
    std::string prefix(text);
    for (char& c : prefix) {
        if (c >= 'A' && c <= 'F') {
            c = static_cast<char>(c - 'A' + 'a');
        }
    }
    if (prefix.size() > maxLength || !isHex(prefix)) {
        throw InputError(what + " \"" + std::string(text) + "\": expected up to " +
                         std::to_string(maxLength) + " hex digits");
    }
    return prefix;
}

/// JSON text as stored: "{}" for empty, InputError for anything that does not parse.
std::string jsonText(const std::string& text, const std::string& what) {
    if (text.empty()) {
        return "{}";
    }
    if (!nlohmann::json::accept(text)) {
        throw InputError(what + ": not valid JSON: " + text.substr(0, 80));
    }
    return text;
}

void requireFinite(double value, bool nonNegative, const std::string& what) {
    if (!std::isfinite(value) || (nonNegative && value < 0.0)) {
        throw InputError(what + ": expected a finite number" +
                         (nonNegative ? std::string(" >= 0") : std::string()) + ", got " +
                         std::to_string(value));
    }
}

std::string orNow(const std::string& timestamp) {
    return timestamp.empty() ? currentTimestamp() : timestamp;
}

} // namespace

// ---------------------------------------------------------------------------------------------

namespace {

/// The connection and what the SampleLibrary methods share (SampleLibrary::Impl is it).
struct Connection {
    std::filesystem::path path;
    std::string label; ///< path as text, for messages
    sqlite3* db = nullptr;
    int version = 0;
    std::map<std::string, sqlite3_stmt*, std::less<>> statements;

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

} // namespace

struct SampleLibrary::Impl : Connection {};

namespace {

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
    Connection& m_library;
    bool m_committed = false;
};

constexpr const char* kSampleColumns =
    "SELECT s.id, s.model_fingerprint, s.device_fingerprint, s.op_signature, s.op_meta, "
    "s.shape_tuple, s.config_json, s.latency_us, s.latency_p10_us, s.latency_p90_us, "
    "s.peak_memory_mb, s.energy_uj, s.energy_source, s.repeats, s.sample_time, s.tool_version, "
    "s.stale, o.op_type FROM perf_samples s JOIN op_signatures o ON o.signature = s.op_signature ";

Sample sampleFromRow(const Query& q) {
    Sample s;
    s.id = q.integer(0);
    s.modelFingerprint = q.text(1);
    s.deviceFingerprint = q.text(2);
    s.opSignature = q.text(3);
    s.opMeta = q.text(4);
    s.shapeTuple = q.text(5);
    s.configJson = q.text(6);
    s.latencyUs = q.real(7);
    s.latencyP10Us = q.optionalReal(8);
    s.latencyP90Us = q.optionalReal(9);
    s.peakMemoryMb = q.optionalReal(10);
    s.energyUj = q.optionalReal(11);
    s.energySource = q.text(12);
    s.repeats = static_cast<std::int32_t>(q.integer(13));
    s.sampleTime = q.text(14);
    s.toolVersion = q.text(15);
    s.stale = q.integer(16) != 0;
    s.opType = q.text(17);
    return s;
}

/// The first bytes of every SQLite 3 database file.
constexpr std::string_view kSqliteHeader{"SQLite format 3\0", 16};

} // namespace

// ---------------------------------------------------------------------------------------------

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

SampleLibrary SampleLibrary::open(const std::filesystem::path& path, OpenMode mode) {
    auto impl = std::make_unique<Impl>();
    impl->path = path;
    impl->label = path.string();
    const std::string& label = impl->label;
    std::error_code error;
    const auto status = std::filesystem::status(path, error);
    if (std::filesystem::is_directory(status)) {
        throw InputError(label + ": is a folder, not a sample library file");
    }
    const bool exists = std::filesystem::exists(status);
    if (!exists) {
        if (mode == OpenMode::ExistingOnly) {
            throw InputError(label + ": no sample library there (no such file)");
        }
        const std::filesystem::path folder = path.parent_path();
        if (!folder.empty()) {
            std::filesystem::create_directories(folder, error);
            if (error) {
                throw InputError(label + ": cannot create the folder " + folder.string() + " (" +
                                 error.message() + ")");
            }
        }
    } else {
        std::ifstream in(path, std::ios::binary);
        if (!in) {
            throw InputError(label + ": cannot read the sample library file");
        }
        std::array<char, kSqliteHeader.size()> header{};
        in.read(header.data(), static_cast<std::streamsize>(header.size()));
        const auto got = static_cast<std::size_t>(in.gcount());
        if (got > 0 && std::string_view(header.data(), got) != kSqliteHeader.substr(0, got)) {
            throw InputError(label +
                             ": not an SQLite database, so not a Paretune sample library; it was "
                             "left as it is: choose another file for the sample library");
        }
    }

    const int flags = SQLITE_OPEN_READWRITE | (exists ? 0 : SQLITE_OPEN_CREATE);
    const int rc = sqlite3_open_v2(label.c_str(), &impl->db, flags, nullptr);
    if (rc != SQLITE_OK) {
        impl->fail(rc, exists ? "open the sample library" : "create the sample library");
    }
    sqlite3_extended_result_codes(impl->db, 1);
    sqlite3_busy_timeout(impl->db, kBusyTimeoutMs);
    impl->classifyAndMigrate();
    return SampleLibrary(std::move(impl));
}

SampleLibrary::SampleLibrary(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
SampleLibrary::SampleLibrary(SampleLibrary&&) noexcept = default;
SampleLibrary& SampleLibrary::operator=(SampleLibrary&&) noexcept = default;
SampleLibrary::~SampleLibrary() = default;

const std::filesystem::path& SampleLibrary::path() const {
    return m_impl->path;
}

int SampleLibrary::schemaVersion() const {
    return m_impl->version;
}

// Writes ---------------------------------------------------------------------------------------

void SampleLibrary::upsertDevice(const DeviceRecord& device) {
    requireKey(device.fingerprint, kFingerprintLength, "device fingerprint");
    const std::string spec = jsonText(device.specJson, "device spec_json");
    const std::string software = jsonText(device.softwareJson, "device software_json");
    Query q(*m_impl,
            m_impl->statement(
                "INSERT INTO devices(fingerprint, kind, name, spec_json, software_json, "
                "created_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(fingerprint) DO UPDATE "
                "SET kind = excluded.kind, name = excluded.name, spec_json = excluded.spec_json, "
                "software_json = excluded.software_json"),
            "store a device");
    q.bind(1, device.fingerprint)
        .bind(2, device.kind)
        .bind(3, device.name)
        .bind(4, spec)
        .bind(5, software)
        .bind(6, orNow(device.createdAt));
    if (q.run() != SQLITE_OK) {
        m_impl->fail(SQLITE_CONSTRAINT, "store a device");
    }
}

void SampleLibrary::upsertModel(const ModelRecord& model) {
    requireKey(model.fingerprint, kFingerprintLength, "model fingerprint");
    Query q(*m_impl,
            m_impl->statement(
                "INSERT INTO models(fingerprint, name, source_path, node_count, imported_at) "
                "VALUES(?1, ?2, ?3, ?4, ?5) ON CONFLICT(fingerprint) DO UPDATE SET name = "
                "excluded.name, source_path = excluded.source_path, node_count = "
                "excluded.node_count, imported_at = excluded.imported_at"),
            "store a model");
    q.bind(1, model.fingerprint)
        .bind(2, model.name)
        .bind(3, model.sourcePath)
        .bind(4, model.nodeCount)
        .bind(5, orNow(model.importedAt));
    if (q.run() != SQLITE_OK) {
        m_impl->fail(SQLITE_CONSTRAINT, "store a model");
    }
}

void SampleLibrary::upsertSignature(const SignatureRecord& signature) {
    requireKey(signature.signature, kSignatureLength, "operator signature");
    requireFinite(signature.flops, true, "signature " + signature.signature + ": flops");
    const std::string attrs = jsonText(signature.attrsJson, "signature attrs_json");
    const std::string shapes = jsonText(signature.shapesJson, "signature shapes_json");
    Query q(*m_impl,
            m_impl->statement("INSERT INTO op_signatures(signature, op_type, attrs_json, "
                              "shapes_json, flops, bytes) VALUES(?1, ?2, ?3, ?4, ?5, ?6) "
                              "ON CONFLICT(signature) DO NOTHING"),
            "store an operator signature");
    q.bind(1, signature.signature)
        .bind(2, signature.opType)
        .bind(3, attrs)
        .bind(4, shapes)
        .bind(5, signature.flops)
        .bind(6, signature.bytes);
    if (q.run() != SQLITE_OK) {
        m_impl->fail(SQLITE_CONSTRAINT, "store an operator signature");
    }
}

void SampleLibrary::upsertSignatures(std::span<const SignatureRecord> signatures) {
    WriteTransaction transaction(*m_impl);
    for (const SignatureRecord& s : signatures) {
        upsertSignature(s);
    }
    transaction.commit();
}

void SampleLibrary::upsertGraph(const Graph& graph) {
    const ModelRecord model = modelRecordOf(graph);
    const std::vector<SignatureRecord> signatures = signatureRecordsOf(graph);
    WriteTransaction transaction(*m_impl);
    upsertModel(model);
    for (const SignatureRecord& s : signatures) {
        upsertSignature(s);
    }
    transaction.commit();
}

std::vector<std::int64_t> SampleLibrary::addSamples(std::span<const Sample> batch) {
    // Check every value before taking the write lock, so a bad batch costs the others nothing.
    struct Prepared {
        std::string opMeta;
        std::string configJson;
        std::string sampleTime;
        std::string toolVersion;
    };
    std::vector<Prepared> prepared;
    prepared.reserve(batch.size());
    const std::string now = currentTimestamp();
    for (std::size_t i = 0; i < batch.size(); ++i) {
        const Sample& s = batch[i];
        const std::string where =
            "sample " + std::to_string(i + 1) + " of " + std::to_string(batch.size()) + ": ";
        requireKey(s.modelFingerprint, kFingerprintLength, where + "model fingerprint");
        requireKey(s.deviceFingerprint, kFingerprintLength, where + "device fingerprint");
        requireKey(s.opSignature, kSignatureLength, where + "operator signature");
        requireFinite(s.latencyUs, true, where + "latency_us");
        for (const auto& [value, name] :
             {std::pair{s.latencyP10Us, "latency_p10_us"},
              std::pair{s.latencyP90Us, "latency_p90_us"},
              std::pair{s.peakMemoryMb, "peak_memory_mb"}, std::pair{s.energyUj, "energy_uj"}}) {
            if (value) {
                requireFinite(*value, true, where + name);
            }
        }
        if (s.repeats < 0) {
            throw InputError(where + "repeats: expected 0 or more, got " +
                             std::to_string(s.repeats));
        }
        prepared.push_back({jsonText(s.opMeta, where + "op_meta"),
                            jsonText(s.configJson, where + "config_json"),
                            s.sampleTime.empty() ? now : s.sampleTime,
                            s.toolVersion.empty() ? std::string(PARETUNE_VERSION) : s.toolVersion});
    }

    std::vector<std::int64_t> ids;
    ids.reserve(batch.size());
    WriteTransaction transaction(*m_impl);
    sqlite3_stmt* insert = m_impl->statement(
        "INSERT INTO perf_samples(model_fingerprint, device_fingerprint, op_signature, op_meta, "
        "shape_tuple, config_json, latency_us, latency_p10_us, latency_p90_us, peak_memory_mb, "
        "energy_uj, energy_source, repeats, sample_time, tool_version) VALUES(?1, ?2, ?3, ?4, "
        "?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)");
    for (std::size_t i = 0; i < batch.size(); ++i) {
        const Sample& s = batch[i];
        const Prepared& p = prepared[i];
        Query q(*m_impl, insert, "store samples");
        q.bind(1, s.modelFingerprint)
            .bind(2, s.deviceFingerprint)
            .bind(3, s.opSignature)
            .bind(4, p.opMeta)
            .bind(5, s.shapeTuple)
            .bind(6, p.configJson)
            .bind(7, s.latencyUs)
            .bind(8, s.latencyP10Us)
            .bind(9, s.latencyP90Us)
            .bind(10, s.peakMemoryMb)
            .bind(11, s.energyUj)
            .bind(12, s.energySource)
            .bind(13, static_cast<std::int64_t>(s.repeats))
            .bind(14, p.sampleTime)
            .bind(15, p.toolVersion);
        if (q.run() != SQLITE_OK) {
            // A foreign key failed: say which key is missing.
            std::string missing = "a key";
            if (!model(s.modelFingerprint)) {
                missing = "model " + s.modelFingerprint;
            } else if (!device(s.deviceFingerprint)) {
                missing = "device " + s.deviceFingerprint;
            } else if (!signature(s.opSignature)) {
                missing = "operator signature " + s.opSignature;
            }
            throw InputError(m_impl->label + ": sample " + std::to_string(i + 1) + " of " +
                             std::to_string(batch.size()) + ": " + missing +
                             " is not in the library (store it first); the batch was not stored");
        }
        ids.push_back(sqlite3_last_insert_rowid(m_impl->db));
    }
    transaction.commit();
    return ids;
}

std::int64_t SampleLibrary::markDeviceStale(std::string_view deviceFingerprint,
                                            std::string_view reason) {
    requireKey(deviceFingerprint, kFingerprintLength, "device fingerprint");
    WriteTransaction transaction(*m_impl);
    if (!device(deviceFingerprint)) {
        throw InputError(m_impl->label + ": device " + std::string(deviceFingerprint) +
                         " is not in the library");
    }
    {
        Query q(
            *m_impl,
            m_impl->statement(
                "UPDATE perf_samples SET stale = 1 WHERE device_fingerprint = ?1 AND stale = 0"),
            "mark samples stale");
        q.bind(1, deviceFingerprint).run();
    }
    const std::int64_t count = sqlite3_changes64(m_impl->db);
    {
        Query q(*m_impl,
                m_impl->statement("INSERT INTO stale_marks(device_fingerprint, marked_at, reason, "
                                  "sample_count) VALUES(?1, ?2, ?3, ?4)"),
                "mark samples stale");
        q.bind(1, deviceFingerprint).bind(2, currentTimestamp()).bind(3, reason).bind(4, count);
        if (q.run() != SQLITE_OK) {
            m_impl->fail(SQLITE_CONSTRAINT, "mark samples stale");
        }
    }
    transaction.commit();
    return count;
}

// Reads ----------------------------------------------------------------------------------------

namespace {

DeviceRecord deviceFromRow(const Query& q) {
    return {q.text(0), q.text(1), q.text(2), q.text(3), q.text(4), q.text(5)};
}

ModelRecord modelFromRow(const Query& q) {
    return {q.text(0), q.text(1), q.text(2), q.integer(3), q.text(4)};
}

constexpr const char* kDeviceColumns =
    "SELECT fingerprint, kind, name, spec_json, software_json, created_at FROM devices ";
constexpr const char* kModelColumns =
    "SELECT fingerprint, name, source_path, node_count, imported_at FROM models ";

} // namespace

std::int64_t SampleLibrary::addBenchmark(const BenchmarkRecord& b) {
    requireKey(b.deviceFingerprint, kFingerprintLength, "device fingerprint");
    const auto positive = [](double v) { return std::isfinite(v) && v > 0; };
    if (!positive(b.gemmGflops) || !positive(b.memoryBwGbs) ||
        (b.dispatchUs && !positive(*b.dispatchUs))) {
        throw InputError(m_impl->label + ": a micro-benchmark needs positive finite figures");
    }
    WriteTransaction transaction(*m_impl);
    if (!device(b.deviceFingerprint)) {
        throw InputError(m_impl->label + ": device " + b.deviceFingerprint +
                         " is not in the library");
    }
    Query q(*m_impl,
            m_impl->statement("INSERT INTO device_benchmarks(device_fingerprint, measured_at, "
                              "gemm_gflops, memory_bw_gbs, dispatch_us, is_reference) "
                              "VALUES(?1, ?2, ?3, ?4, ?5, ?6)"),
            "store a micro-benchmark");
    q.bind(1, b.deviceFingerprint)
        .bind(2, orNow(b.measuredAt))
        .bind(3, b.gemmGflops)
        .bind(4, b.memoryBwGbs)
        .bind(5, b.dispatchUs)
        .bind(6, std::int64_t{b.reference ? 1 : 0});
    if (q.run() != SQLITE_OK) {
        m_impl->fail(SQLITE_CONSTRAINT, "store a micro-benchmark");
    }
    const std::int64_t id = sqlite3_last_insert_rowid(m_impl->db);
    transaction.commit();
    return id;
}

namespace {

constexpr const char* kBenchmarkColumns =
    "SELECT id, device_fingerprint, measured_at, gemm_gflops, memory_bw_gbs, dispatch_us, "
    "is_reference FROM device_benchmarks WHERE device_fingerprint = ?1 ";

BenchmarkRecord benchmarkFromRow(const Query& q) {
    return {q.integer(0), q.text(1),         q.text(2),        q.real(3),
            q.real(4),    q.optionalReal(5), q.integer(6) != 0};
}

} // namespace

std::optional<BenchmarkRecord>
SampleLibrary::referenceBenchmark(std::string_view deviceFingerprint) const {
    Query q(*m_impl,
            m_impl->statement(std::string(kBenchmarkColumns) +
                              "AND is_reference = 1 ORDER BY id DESC LIMIT 1"),
            "read a micro-benchmark");
    q.bind(1, deviceFingerprint);
    if (!q.step()) {
        return std::nullopt;
    }
    return benchmarkFromRow(q);
}

std::vector<BenchmarkRecord> SampleLibrary::benchmarks(std::string_view deviceFingerprint) const {
    Query q(*m_impl, m_impl->statement(std::string(kBenchmarkColumns) + "ORDER BY id"),
            "read micro-benchmarks");
    q.bind(1, deviceFingerprint);
    std::vector<BenchmarkRecord> result;
    while (q.step()) {
        result.push_back(benchmarkFromRow(q));
    }
    return result;
}

std::int64_t SampleLibrary::addPlan(const PlanRecord& plan) {
    requireKey(plan.modelFingerprint, kFingerprintLength, "plan: model fingerprint");
    const std::string devices = jsonText(plan.deviceSetJson, "plan device_set_json");
    const std::string objectives = jsonText(plan.objectivesJson, "plan objectives_json");
    const std::string assignment = jsonText(plan.assignmentJson, "plan assignment_json");
    if (plan.source.empty()) {
        throw InputError("plan: the source is empty");
    }
    Query q(*m_impl,
            m_impl->statement("INSERT INTO plans(model_fingerprint, device_set_json, "
                              "objectives_json, assignment_json, source, created_at) "
                              "VALUES(?1, ?2, ?3, ?4, ?5, ?6)"),
            "store a plan");
    q.bind(1, plan.modelFingerprint)
        .bind(2, devices)
        .bind(3, objectives)
        .bind(4, assignment)
        .bind(5, plan.source)
        .bind(6, orNow(plan.createdAt));
    if (q.run() != SQLITE_OK) {
        throw InputError("plan: model " + plan.modelFingerprint + " is not stored in the library " +
                         m_impl->path.string());
    }
    return sqlite3_last_insert_rowid(m_impl->db);
}

std::vector<PlanRecord> SampleLibrary::plans(std::string_view modelFingerprint) const {
    Query q(*m_impl,
            m_impl->statement("SELECT id, model_fingerprint, device_set_json, objectives_json, "
                              "assignment_json, source, created_at FROM plans WHERE ?1 = '' OR "
                              "model_fingerprint = ?1 ORDER BY id"),
            "read plans");
    q.bind(1, modelFingerprint);
    std::vector<PlanRecord> result;
    while (q.step()) {
        result.push_back(
            {q.integer(0), q.text(1), q.text(2), q.text(3), q.text(4), q.text(5), q.text(6)});
    }
    return result;
}

std::optional<DeviceRecord> SampleLibrary::device(std::string_view fingerprint) const {
    Query q(*m_impl, m_impl->statement(std::string(kDeviceColumns) + "WHERE fingerprint = ?1"),
            "read a device");
    q.bind(1, fingerprint);
    if (!q.step()) {
        return std::nullopt;
    }
    return deviceFromRow(q);
}

std::vector<DeviceRecord> SampleLibrary::devices() const {
    Query q(*m_impl, m_impl->statement(std::string(kDeviceColumns) + "ORDER BY created_at, name"),
            "read devices");
    std::vector<DeviceRecord> result;
    while (q.step()) {
        result.push_back(deviceFromRow(q));
    }
    return result;
}

std::optional<ModelRecord> SampleLibrary::model(std::string_view fingerprint) const {
    Query q(*m_impl, m_impl->statement(std::string(kModelColumns) + "WHERE fingerprint = ?1"),
            "read a model");
    q.bind(1, fingerprint);
    if (!q.step()) {
        return std::nullopt;
    }
    return modelFromRow(q);
}

std::vector<ModelRecord> SampleLibrary::models() const {
    Query q(*m_impl, m_impl->statement(std::string(kModelColumns) + "ORDER BY imported_at, name"),
            "read models");
    std::vector<ModelRecord> result;
    while (q.step()) {
        result.push_back(modelFromRow(q));
    }
    return result;
}

std::optional<SignatureRecord> SampleLibrary::signature(std::string_view signature) const {
    Query q(*m_impl,
            m_impl->statement("SELECT signature, op_type, attrs_json, shapes_json, flops, bytes "
                              "FROM op_signatures WHERE signature = ?1"),
            "read an operator signature");
    q.bind(1, signature);
    if (!q.step()) {
        return std::nullopt;
    }
    return SignatureRecord{q.text(0), q.text(1), q.text(2), q.text(3), q.real(4), q.integer(5)};
}

std::optional<Sample> SampleLibrary::findSample(std::string_view signature,
                                                std::string_view deviceFingerprint,
                                                std::optional<std::string_view> configJson) const {
    Query q(*m_impl,
            m_impl->statement(std::string(kSampleColumns) +
                              "WHERE s.op_signature = ?1 AND s.device_fingerprint = ?2 AND "
                              "s.stale = 0 AND (?3 IS NULL OR s.config_json = ?3) AND "
                              "(?3 IS NOT NULL OR "
                              "json_extract(s.config_json, '$.context') IS NOT 'plan') "
                              "ORDER BY s.id DESC LIMIT 1"),
            "look up a sample");
    q.bind(1, signature).bind(2, deviceFingerprint);
    if (configJson) {
        q.bind(3, configJson->empty() ? std::string_view("{}") : *configJson);
    }
    if (!q.step()) {
        return std::nullopt;
    }
    return sampleFromRow(q);
}

SampleFilter SampleFilter::normalized() const {
    SampleFilter f = *this;
    f.modelPrefix = hexPrefix(modelPrefix, kFingerprintLength, "model fingerprint prefix");
    f.devicePrefix = hexPrefix(devicePrefix, kFingerprintLength, "device fingerprint prefix");
    f.signaturePrefix = hexPrefix(signaturePrefix, kSignatureLength, "operator signature prefix");
    return f;
}

std::vector<Sample> SampleLibrary::samples(const SampleFilter& unchecked) const {
    const SampleFilter filter = unchecked.normalized();
    const std::string& model = filter.modelPrefix;
    const std::string& device = filter.devicePrefix;
    const std::string& signature = filter.signaturePrefix;
    // A prefix is the key range [prefix, prefix with its last digit raised), which the indexes
    // serve; the keys are lower-case hex, so raising a digit by one character is enough.
    auto upperBound = [](std::string prefix) {
        prefix.back() = static_cast<char>(prefix.back() + 1);
        return prefix;
    };
    std::string sql = std::string(kSampleColumns) + "WHERE 1";
    sql += model.empty() ? "" : " AND s.model_fingerprint >= ?1 AND s.model_fingerprint < ?2";
    sql += device.empty() ? "" : " AND s.device_fingerprint >= ?3 AND s.device_fingerprint < ?4";
    sql += signature.empty() ? "" : " AND s.op_signature >= ?5 AND s.op_signature < ?6";
    sql += filter.includeStale ? "" : " AND s.stale = 0";
    sql += " ORDER BY s.id";
    sql += filter.limit > 0 ? " LIMIT ?7" : "";
    Query q(*m_impl, m_impl->statement(sql), "read samples");
    if (!model.empty()) {
        q.bind(1, model).bind(2, upperBound(model));
    }
    if (!device.empty()) {
        q.bind(3, device).bind(4, upperBound(device));
    }
    if (!signature.empty()) {
        q.bind(5, signature).bind(6, upperBound(signature));
    }
    if (filter.limit > 0) {
        q.bind(7, filter.limit);
    }
    std::vector<Sample> result;
    while (q.step()) {
        result.push_back(sampleFromRow(q));
    }
    return result;
}

std::int64_t SampleLibrary::sampleCount() const {
    Query q(*m_impl, m_impl->statement("SELECT count(*) FROM perf_samples"), "count samples");
    return q.step() ? q.integer(0) : 0;
}

std::int64_t SampleLibrary::addPredictor(const PredictorRecord& predictor) {
    const std::string trainSet = jsonText(predictor.trainSetJson, "predictor train_set_json");
    const std::string metrics = jsonText(predictor.metricsJson, "predictor metrics_json");
    WriteTransaction transaction(*m_impl);
    Query q(*m_impl,
            m_impl->statement("INSERT INTO predictors(created_at, train_set_json, metrics_json, "
                              "weights) VALUES(?1, ?2, ?3, ?4)"),
            "store a predictor");
    q.bind(1, orNow(predictor.createdAt)).bind(2, trainSet).bind(3, metrics);
    q.bindBlob(4, predictor.weights);
    if (q.run() != SQLITE_OK) {
        m_impl->fail(SQLITE_CONSTRAINT, "store a predictor");
    }
    const std::int64_t id = sqlite3_last_insert_rowid(m_impl->db);
    transaction.commit();
    return id;
}

namespace {

constexpr const char* kPredictorColumns =
    "SELECT id, created_at, train_set_json, metrics_json, weights FROM predictors ";

std::optional<PredictorRecord> predictorFromQuery(Query& q) {
    if (!q.step()) {
        return std::nullopt;
    }
    PredictorRecord p;
    p.id = q.integer(0);
    p.createdAt = q.text(1);
    p.trainSetJson = q.text(2);
    p.metricsJson = q.text(3);
    p.weights = q.blob(4);
    return p;
}

} // namespace

std::optional<PredictorRecord> SampleLibrary::predictor(std::int64_t id) const {
    Query q(*m_impl, m_impl->statement(std::string(kPredictorColumns) + "WHERE id = ?1"),
            "read a predictor");
    q.bind(1, id);
    return predictorFromQuery(q);
}

std::optional<PredictorRecord> SampleLibrary::latestPredictor() const {
    Query q(*m_impl, m_impl->statement(std::string(kPredictorColumns) + "ORDER BY id DESC LIMIT 1"),
            "read the newest predictor");
    return predictorFromQuery(q);
}

int SampleLibrary::predictorCount() const {
    Query q(*m_impl, m_impl->statement("SELECT count(*) FROM predictors"), "count predictors");
    return q.step() ? static_cast<int>(q.integer(0)) : 0;
}

std::vector<std::string> SampleLibrary::integrityProblems() const {
    Query q(*m_impl, m_impl->statement("PRAGMA integrity_check"), "check the sample library");
    std::vector<std::string> problems;
    while (q.step()) {
        problems.push_back(q.text(0));
    }
    if (problems.size() == 1 && problems.front() == "ok") {
        problems.clear();
    }
    return problems;
}

// Free functions -------------------------------------------------------------------------------

std::filesystem::path defaultSampleLibraryPath() {
    const char* dataHome = std::getenv("XDG_DATA_HOME");
    if (dataHome != nullptr && dataHome[0] == '/') {
        return std::filesystem::path(dataHome) / "paretune" / "samples.db";
    }
    std::string home;
    if (const char* env = std::getenv("HOME"); env != nullptr && env[0] != '\0') {
        home = env;
    } else if (const passwd* entry = getpwuid(getuid()); entry != nullptr) {
        home = entry->pw_dir;
    }
    return std::filesystem::path(home) / ".local" / "share" / "paretune" / "samples.db";
}

std::string currentTimestamp() {
    const auto now = std::chrono::system_clock::now();
    const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
    const auto millis =
        std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() %
        1000;
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char text[32];
    const std::size_t length = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
    std::snprintf(text + length, sizeof text - length, ".%03dZ", static_cast<int>(millis));
    return text;
}

} // namespace paretune
