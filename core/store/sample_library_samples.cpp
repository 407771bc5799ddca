// SPDX-License-Identifier: GPL-3.0-or-later
// SampleLibrary: the measurements themselves (perf_samples), how they are found and how a
// device's samples are marked stale.
#include "sample_library.h"

#include "common/input_error.h"
#include "common/sha256.h"
#include "library_connection.h"
#include "paretune/config.h"
#include "value_checks.h"

#include <algorithm>
#include <charconv>
#include <numeric>

#include <utility>

namespace paretune {

using store::hexPrefix;
using store::jsonText;
using store::kFingerprintLength;
using store::kSignatureLength;
using store::Query;
using store::requireFinite;
using store::requireKey;
using store::WriteTransaction;

namespace {

constexpr const char* kSampleColumns =
    "SELECT s.id, s.model_fingerprint, s.device_fingerprint, s.op_signature, s.op_meta, "
    "s.shape_tuple, s.config_json, s.latency_us, s.latency_p10_us, s.latency_p90_us, "
    "s.peak_memory_mb, s.energy_uj, s.energy_source, s.repeats, s.sample_time, s.tool_version, "
    "s.stale, o.op_type FROM perf_samples s JOIN op_signatures o ON o.signature = s.op_signature ";

/// What makes a sample unique (schema version 5): a hash of every stored field but its id and
/// stale flag, each with its length so that no two field lists hash alike; numbers by their
/// shortest exact text. A sample stored twice, by two writers or two imports, has one key.
std::string sampleKey(const Sample& s) {
    Sha256 hash;
    const auto field = [&hash](std::string_view text) {
        hash.update(std::to_string(text.size()) + ":");
        hash.update(text);
    };
    const auto number = [&field](std::optional<double> value) {
        char text[32] = "null";
        std::size_t length = 4;
        if (value) { // -0 reads back from SQLite as 0
            const double exact = *value == 0 ? 0.0 : *value;
            length =
                static_cast<std::size_t>(std::to_chars(text, text + sizeof text, exact).ptr - text);
        }
        field(std::string_view(text, length));
    };
    for (const std::string* text :
         {&s.modelFingerprint, &s.deviceFingerprint, &s.opSignature, &s.opMeta, &s.shapeTuple,
          &s.configJson, &s.energySource, &s.sampleTime, &s.toolVersion}) {
        field(*text);
    }
    for (const std::optional<double> value : {std::optional<double>(s.latencyUs), s.latencyP10Us,
                                              s.latencyP90Us, s.peakMemoryMb, s.energyUj}) {
        number(value);
    }
    field(std::to_string(s.repeats));
    return hash.hexDigest();
}

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

} // namespace

std::vector<SampleLibrary::PreparedSample>
SampleLibrary::prepareSamples(std::span<const Sample> batch) {
    std::vector<PreparedSample> prepared;
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
        Sample stored = s; // as the row will hold it
        stored.opMeta = jsonText(s.opMeta, where + "op_meta");
        stored.configJson = jsonText(s.configJson, where + "config_json");
        stored.sampleTime = s.sampleTime.empty() ? now : s.sampleTime;
        stored.toolVersion = s.toolVersion.empty() ? std::string(PARETUNE_VERSION) : s.toolVersion;
        const std::string key = sampleKey(stored);
        prepared.push_back({std::move(stored.opMeta), std::move(stored.configJson),
                            std::move(stored.sampleTime), std::move(stored.toolVersion), key});
    }
    return prepared;
}

std::vector<std::int64_t> SampleLibrary::addSamples(std::span<const Sample> batch) {
    // Check every value before taking the write lock, so a bad batch costs the others nothing.
    const std::vector<PreparedSample> prepared = prepareSamples(batch);
    // Two writers storing the same samples in different orders can deadlock on PostgreSQL
    // (each waits for the other's uncommitted key); the server then fails one of them, which
    // tries its batch again.
    for (int attempt = 1;; ++attempt) {
        try {
            std::vector<std::int64_t> ids;
            std::int64_t added = 0;
            std::optional<std::size_t> refused;
            {
                WriteTransaction transaction(*m_impl);
                refused = storeSamples(batch, prepared, ids, added);
                if (!refused) {
                    transaction.commit();
                    return ids;
                }
            } // rolled back: on PostgreSQL, nothing else runs in a failed transaction
            throwMissingKey(batch, *refused);
        } catch (const store::RetryableError&) {
            if (attempt == 5) {
                throw;
            }
        }
    }
}

std::optional<std::size_t> SampleLibrary::storeSamples(std::span<const Sample> batch,
                                                       std::span<const PreparedSample> prepared,
                                                       std::vector<std::int64_t>& ids,
                                                       std::int64_t& added) {
    ids.assign(batch.size(), 0);
    store::Statement& insert = m_impl->statement(
        "INSERT INTO perf_samples(model_fingerprint, device_fingerprint, op_signature, op_meta, "
        "shape_tuple, config_json, latency_us, latency_p10_us, latency_p90_us, peak_memory_mb, "
        "energy_uj, energy_source, repeats, sample_time, tool_version, sample_key, stale) "
        "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17) ON "
        "CONFLICT(sample_key) DO NOTHING RETURNING id");
    for (std::size_t i = 0; i < batch.size(); ++i) {
        const Sample& s = batch[i];
        const PreparedSample& p = prepared[i];
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
            .bind(15, p.toolVersion)
            .bind(16, p.key)
            .bind(17, std::int64_t{s.stale ? 1 : 0});
        if (!q.run()) {
            return i; // a foreign key failed
        }
        if (q.hasRow()) {
            ids[i] = q.integer(0);
            ++added;
            continue;
        }
        // Stored already (by this batch, an earlier one or another writer): its id.
        Query existing(*m_impl,
                       m_impl->statement("SELECT id FROM perf_samples WHERE sample_key = ?1"),
                       "store samples");
        existing.bind(1, p.key);
        ids[i] = existing.step() ? existing.integer(0) : 0;
    }
    return std::nullopt;
}

void SampleLibrary::throwMissingKey(std::span<const Sample> batch, std::size_t refused) const {
    const Sample& s = batch[refused];
    std::string missing = "a key";
    if (!model(s.modelFingerprint)) {
        missing = "model " + s.modelFingerprint;
    } else if (!device(s.deviceFingerprint)) {
        missing = "device " + s.deviceFingerprint;
    } else if (!signature(s.opSignature)) {
        missing = "operator signature " + s.opSignature;
    }
    throw InputError(m_impl->label + ": sample " + std::to_string(refused + 1) + " of " +
                     std::to_string(batch.size()) + ": " + missing +
                     " is not in the library (store it first); the batch was not stored");
}

std::int64_t SampleLibrary::markDeviceStale(std::string_view deviceFingerprint,
                                            std::string_view reason) {
    requireKey(deviceFingerprint, kFingerprintLength, "device fingerprint");
    WriteTransaction transaction(*m_impl);
    if (!device(deviceFingerprint)) {
        throw InputError(m_impl->label + ": device " + std::string(deviceFingerprint) +
                         " is not in the library");
    }
    std::int64_t count = 0;
    {
        Query q(
            *m_impl,
            m_impl->statement(
                "UPDATE perf_samples SET stale = 1 WHERE device_fingerprint = ?1 AND stale = 0"),
            "mark samples stale");
        q.bind(1, deviceFingerprint).run();
        count = q.changes();
    }
    {
        Query q(*m_impl,
                m_impl->statement("INSERT INTO stale_marks(device_fingerprint, marked_at, reason, "
                                  "sample_count) VALUES(?1, ?2, ?3, ?4)"),
                "mark samples stale");
        q.bind(1, deviceFingerprint).bind(2, currentTimestamp()).bind(3, reason).bind(4, count);
        if (!q.run()) {
            m_impl->failConstraint("mark samples stale");
        }
    }
    transaction.commit();
    return count;
}

std::optional<Sample> SampleLibrary::findSample(std::string_view signature,
                                                std::string_view deviceFingerprint,
                                                std::optional<std::string_view> configJson) const {
    static const std::string sqlite =
        std::string(kSampleColumns) +
        "WHERE s.op_signature = ?1 AND s.device_fingerprint = ?2 AND s.stale = 0 AND (?3 IS NULL "
        "OR s.config_json = ?3) AND (?3 IS NOT NULL OR json_extract(s.config_json, '$.context') "
        "IS NOT 'plan') ORDER BY s.id DESC LIMIT 1";
    static const std::string postgres =
        std::string(kSampleColumns) +
        "WHERE s.op_signature = ?1 AND s.device_fingerprint = ?2 AND s.stale = 0 AND (?3::text "
        "IS NULL OR s.config_json = ?3::text) AND (?3::text IS NOT NULL OR "
        "(s.config_json::json ->> 'context') IS DISTINCT FROM 'plan') ORDER BY s.id DESC LIMIT 1";
    Query q(*m_impl, m_impl->statement(m_impl->sql(sqlite, postgres)), "look up a sample");
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
    std::string sql = std::string(kSampleColumns) + "WHERE 1 = 1";
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

namespace store {

void fillSampleKeys(Connection& library) {
    struct Keyed {
        std::int64_t id;
        std::string key;
    };
    std::vector<Keyed> keyed;
    {
        Query q(library,
                library.statement(std::string(kSampleColumns) +
                                  "WHERE s.sample_key IS NULL ORDER BY s.id"),
                "key the stored samples");
        while (q.step()) {
            const Sample s = sampleFromRow(q);
            keyed.push_back({s.id, sampleKey(s)});
        }
    }
    Statement& update = library.statement(
        "UPDATE perf_samples SET sample_key = ?1 WHERE id = ?2 AND NOT EXISTS (SELECT 1 FROM "
        "perf_samples WHERE sample_key = ?1)");
    for (const Keyed& k : keyed) {
        Query q(library, update, "key the stored samples");
        q.bind(1, k.key).bind(2, k.id);
        if (!q.run()) {
            library.failConstraint("key the stored samples");
        }
    }
}

} // namespace store

std::int64_t SampleLibrary::sampleCount() const {
    Query q(*m_impl, m_impl->statement("SELECT count(*) FROM perf_samples"), "count samples");
    return q.step() ? q.integer(0) : 0;
}

} // namespace paretune
