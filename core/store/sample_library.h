// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "library_location.h"
#include "records.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace paretune {

struct Graph;

/// Which samples SampleLibrary::samples returns. Prefixes are hex (either case); empty matches
/// all.
struct SampleFilter {
    std::string modelPrefix;
    std::string devicePrefix;
    std::string signaturePrefix;
    bool includeStale = true;
    std::int64_t limit = 0; ///< at most this many rows (0: all), oldest first

    /// The same filter with lower-case prefixes; InputError naming the field when a prefix is
    /// not hex or longer than the key.
    SampleFilter normalized() const;
};

/// The sample library: every measurement Paretune takes, keyed by model fingerprint, operator
/// signature and device fingerprint (DESIGN.md "Data model"). By default one SQLite file, WAL
/// mode, foreign keys on, schema versioned in PRAGMA user_version and marked as Paretune's by
/// PRAGMA application_id; or a PostgreSQL database shared by a team (open() with a connection
/// string), with the same tables and versions and the mark in the table paretune_library.
///
/// Several processes may open the same file and write at once: every write is one IMMEDIATE
/// transaction, and a writer waits (busy timeout) for the others instead of failing. A process
/// killed in the middle of a write loses only its uncommitted transaction.
///
/// Failures: InputError naming the file for anything wrong with the file itself (not SQLite,
/// another application's database, damaged, a schema newer than this build, unreadable) or with
/// the values given (malformed key or JSON, a sample whose model, device or signature is not
/// stored). A file that is not a Paretune library is never modified. Other problems (disk full,
/// a lock held longer than the busy timeout) throw std::runtime_error.
///
/// A SampleLibrary owns one connection; use it from one thread at a time (open one per
/// thread). Movable, not copyable.
class SampleLibrary {
public:
    enum class OpenMode {
        CreateIfMissing, ///< create the folder and the file when missing
        ExistingOnly,    ///< InputError when the file does not exist
    };

    /// Schema version this build writes; files at a lower version are migrated on open.
    static constexpr int kSchemaVersion = 9;
    /// PRAGMA application_id of a Paretune library: "PRTN".
    static constexpr std::int32_t kApplicationId = 0x5052544e;

    /// Opens (and when needed creates and migrates) the library at `path`. An empty file counts
    /// as a new library. A `path` that is a PostgreSQL connection string
    /// (isServerLibrary: postgresql://user@host/dbname, "host=… dbname=…") opens that
    /// database instead: the same tables, versions and refusals; an empty database is a new
    /// library (ExistingOnly refuses it). The password comes from PGPASSWORD or ~/.pgpass: a
    /// connection string holding one is refused, and messages name the database without it.
    static SampleLibrary open(const std::filesystem::path& path,
                              OpenMode mode = OpenMode::CreateIfMissing);

    SampleLibrary(SampleLibrary&&) noexcept;
    SampleLibrary& operator=(SampleLibrary&&) noexcept;
    ~SampleLibrary();

    /// The file, or the PostgreSQL connection string (which never holds a password).
    const std::filesystem::path& path() const;
    /// Whether the library is a PostgreSQL database rather than an SQLite file.
    bool isServer() const;
    /// PRAGMA user_version of the open file (kSchemaVersion once open).
    int schemaVersion() const;

    // Writes. Upserts insert or update one row; addSamples is all or nothing.

    /// Inserts or updates a device by fingerprint (created_at keeps its first value).
    void upsertDevice(const DeviceRecord& device);
    /// Inserts or updates a model by fingerprint.
    void upsertModel(const ModelRecord& model);
    /// Inserts a signature unless it is already stored (a signature names its content, so a
    /// stored one is never rewritten).
    void upsertSignature(const SignatureRecord& signature);
    /// upsertSignature for each, in one transaction (all or nothing).
    void upsertSignatures(std::span<const SignatureRecord> signatures);
    /// The model and the signatures of its compute nodes (modelRecordOf, signatureRecordsOf),
    /// in one transaction.
    void upsertGraph(const Graph& graph);
    /// Inserts the batch in one transaction and returns the ids in batch order. The model,
    /// device and signature of every sample must be stored already; if any sample is rejected,
    /// nothing of the batch is written. A sample identical to a stored one in every field (its
    /// time included) is stored once: the database's unique key on it decides, so two writers
    /// storing it at once store it once; its id is the stored one's.
    std::vector<std::int64_t> addSamples(std::span<const Sample> batch);
    /// Stores one micro-benchmark vector of a device already in the library; returns its id.
    std::int64_t addBenchmark(const BenchmarkRecord& benchmark);
    /// The latest vector stored as the device's reference; none before the first benchmark.
    std::optional<BenchmarkRecord> referenceBenchmark(std::string_view deviceFingerprint) const;
    /// Every vector stored for a device, oldest first.
    std::vector<BenchmarkRecord> benchmarks(std::string_view deviceFingerprint) const;
    /// The newest vector of the device that carries a measured host link (a GPU's), if any.
    std::optional<BenchmarkRecord> newestHostLink(std::string_view deviceFingerprint) const;
    /// Stores a contention measured between two different devices already in the library;
    /// returns its id. InputError for a factor under 1, a slowdown that is not a positive
    /// finite number, or a device that is not stored.
    std::int64_t addContention(const ContentionRecord& contention);
    /// The newest contention of `deviceFingerprint` slowed by `besideFingerprint`; none before
    /// the pair's first co-run.
    std::optional<ContentionRecord> contention(std::string_view deviceFingerprint,
                                               std::string_view besideFingerprint) const;

    /// Stores a whole-model run of a model and a device already in the library; returns its id.
    /// InputError for figures that are not positive and finite, p10 > median > p90, or runs < 1.
    std::int64_t addModelRun(const ModelRunRecord& run);
    /// The newest whole-model run of the model on the device; none before its first profile.
    std::optional<ModelRunRecord> newestModelRun(std::string_view modelFingerprint,
                                                 std::string_view deviceFingerprint) const;
    /// Every whole-model run, oldest first.
    std::vector<ModelRunRecord> modelRuns() const;

    /// Flags every sample of the device taken so far as stale (its micro-benchmarks drifted).
    /// Samples are kept. Records the event with `reason`; returns how many samples it flagged.
    std::int64_t markDeviceStale(std::string_view deviceFingerprint, std::string_view reason);
    /// Inserts a plan (its model must be stored) and returns its id. Plans are only added.
    std::int64_t addPlan(const PlanRecord& plan);
    /// Stores one round of a tune run (its model must be stored) in one transaction and returns
    /// its id. InputError when the run already has that round.
    std::int64_t addTuneRound(const TuneRoundRecord& round);
    /// Stores per-node sensitivities (one transaction); a row for the same model, node,
    /// precision and inputs replaces the stored one. InputError for a model that is not
    /// stored, a deviation that is not a finite number of at least 0, or an empty field.
    void addSensitivities(std::span<const SensitivityRecord> rows);
    /// Stores activation ranges (one transaction); a row for the same model, tensor and inputs
    /// replaces the stored one. InputError for a model that is not stored, a range that is not
    /// finite or whose low end is above its high end, or an empty field.
    void addActivationRanges(std::span<const ActivationRangeRecord> rows);
    /// Stores a trained predictor (one transaction) and returns its id. Predictors are never
    /// overwritten: a retrained one is a new row, the newest is the one in use.
    std::int64_t addPredictor(const PredictorRecord& predictor);

    // Reads.

    std::optional<DeviceRecord> device(std::string_view fingerprint) const;
    std::vector<DeviceRecord> devices() const;
    std::optional<ModelRecord> model(std::string_view fingerprint) const;
    std::vector<ModelRecord> models() const;
    std::optional<SignatureRecord> signature(std::string_view signature) const;
    /// Reuse lookup, "already measured on this device?": the newest sample that is not stale
    /// for this signature on this device, from any model; with `configJson`, only a sample
    /// measured with exactly that configuration text. Without it, samples measured inside a
    /// plan (config {"context": "plan"}, added by paretune validate) are not considered: they
    /// record in-plan residuals, not the operator measured alone.
    std::optional<Sample> findSample(std::string_view signature, std::string_view deviceFingerprint,
                                     std::optional<std::string_view> configJson = {}) const;
    /// Samples matching the filter, in insertion order.
    std::vector<Sample> samples(const SampleFilter& filter = {}) const;
    std::int64_t sampleCount() const;
    /// The plans stored for a model (every model when the fingerprint is empty), oldest first.
    std::vector<PlanRecord> plans(std::string_view modelFingerprint = {}) const;
    /// The sensitivities stored for a model in a precision, measured on `inputs`, by node name.
    std::vector<SensitivityRecord> sensitivities(std::string_view modelFingerprint,
                                                 std::string_view precision,
                                                 std::string_view inputs) const;
    /// The inputs keys a model's sensitivity table in a precision was measured on, the most
    /// recently measured first.
    std::vector<std::string> sensitivityInputs(std::string_view modelFingerprint,
                                               std::string_view precision) const;
    /// The activation ranges stored for a model, measured on `inputs`, by tensor name.
    std::vector<ActivationRangeRecord> activationRanges(std::string_view modelFingerprint,
                                                        std::string_view inputs) const;
    /// The inputs keys a model's activation ranges were measured on, the most recent first.
    std::vector<std::string> activationRangeInputs(std::string_view modelFingerprint) const;
    /// The rounds stored for a tune run, by round.
    std::vector<TuneRoundRecord> tuneRounds(std::string_view tuneKey) const;
    std::optional<PredictorRecord> predictor(std::int64_t id) const;
    /// The newest predictor (highest id), if any was trained.
    std::optional<PredictorRecord> latestPredictor() const;
    /// How many predictors are stored.
    int predictorCount() const;
    /// Every operator signature stored, by signature.
    std::vector<SignatureRecord> signatures() const;

    // Moving samples between libraries (library_file.h writes and reads them as a file).

    /// The samples with their devices, models, signatures, micro-benchmarks and contention.
    LibraryRecords records() const;
    /// Stores records another library exported, in one transaction (all or nothing): devices,
    /// models and signatures are upserted, benchmarks and contention rows added unless an
    /// identical one is stored, samples added unless stored (addSamples' key). Importing the
    /// same records twice adds nothing. InputError for a value addSamples would refuse, or a
    /// sample whose model, device or signature is neither in the records nor the library.
    ImportCounts importRecords(const LibraryRecords& records);

    // The profiling queue (profile_jobs), drained by `paretune worker` (profile/profile_worker.h).

    /// Queues a job (state "queued"); returns its id.
    std::int64_t queueProfileJob(const ProfileJobRecord& job);
    /// Claims the oldest job for the device that is queued, or running with a lease that ran
    /// out (a worker that died): it becomes "running", held by `worker` for `leaseSeconds`, its
    /// attempts counted. Exactly one of several workers claiming at once gets a job (PostgreSQL:
    /// FOR UPDATE SKIP LOCKED, so the others take the next; SQLite: the write lock). None when
    /// no job waits.
    std::optional<ProfileJobRecord> claimProfileJob(std::string_view deviceFingerprint,
                                                    std::string_view worker, double leaseSeconds);
    /// Extends the lease of a job `worker` holds; false when it no longer holds it (the lease
    /// ran out and another worker took the job).
    bool renewProfileJob(std::int64_t id, std::string_view worker, double leaseSeconds);
    /// Ends a job `worker` holds as "done" or "failed" with its result; false when it no longer
    /// holds it.
    bool finishProfileJob(std::int64_t id, std::string_view worker, bool done,
                          std::string_view resultJson);
    /// Every job, oldest first, without the model bytes.
    std::vector<ProfileJobRecord> profileJobs() const;

    /// PRAGMA integrity_check: empty when the file is sound, else SQLite's messages.
    std::vector<std::string> integrityProblems() const;

private:
    struct Impl;
    explicit SampleLibrary(std::unique_ptr<Impl> impl);
    static SampleLibrary openServer(const std::string& location, OpenMode mode);
    /// A sample's values as its row holds them, and its key.
    struct PreparedSample {
        std::string opMeta;
        std::string configJson;
        std::string sampleTime;
        std::string toolVersion;
        std::string key;
    };
    /// Checks a batch and prepares its rows; InputError naming the sample and the field.
    static std::vector<PreparedSample> prepareSamples(std::span<const Sample> batch);
    /// Inserts prepared samples inside the caller's transaction: the index of a sample whose
    /// keys are missing (roll back), else none. `added` counts the rows that were new.
    std::optional<std::size_t> storeSamples(std::span<const Sample> batch,
                                            std::span<const PreparedSample> prepared,
                                            std::vector<std::int64_t>& ids, std::int64_t& added);
    [[noreturn]] void throwMissingKey(std::span<const Sample> batch, std::size_t refused) const;
    /// importRecords' rows of device_benchmarks and device_contention (inside its
    /// transaction): those not stored yet; returns how many.
    std::int64_t importBenchmarks(std::span<const BenchmarkRecord> benchmarks);
    std::int64_t importContention(std::span<const ContentionRecord> contention);
    /// importRecords' model runs: each one not stored yet (same model, device, time and median).
    std::int64_t importModelRuns(std::span<const ModelRunRecord> runs);
    void checkModelRun(const ModelRunRecord& run) const;
    std::int64_t insertModelRun(const ModelRunRecord& run);
    /// InputError naming the library unless the figures are positive and finite.
    void checkBenchmark(const BenchmarkRecord& b) const;
    void checkContention(const ContentionRecord& c) const;
    /// Inserts one row inside the caller's transaction: its id, or none when the database
    /// refused it (a device that is not stored).
    std::optional<std::int64_t> insertBenchmark(const BenchmarkRecord& b);
    std::optional<std::int64_t> insertContention(const ContentionRecord& c);
    std::unique_ptr<Impl> m_impl;
};

/// Where the sample library lives unless told otherwise: $XDG_DATA_HOME/paretune/samples.db,
/// or ~/.local/share/paretune/samples.db when XDG_DATA_HOME is unset or not absolute.
std::filesystem::path defaultSampleLibraryPath();

/// Current UTC time as the library writes it ("2026-11-29T11:35:32.123Z").
std::string currentTimestamp();

} // namespace paretune
