// SPDX-License-Identifier: GPL-3.0-or-later
// SampleLibrary: the measurements themselves (perf_samples), how they are found and how a
// device's samples are marked stale.
#include "sample_library.h"

#include "common/input_error.h"
#include "library_connection.h"
#include "paretune/config.h"
#include "value_checks.h"

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

} // namespace paretune
