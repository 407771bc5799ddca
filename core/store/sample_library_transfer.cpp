// SPDX-License-Identifier: GPL-3.0-or-later
// SampleLibrary: what moves between libraries (records, importRecords), whatever the backends.
#include "sample_library.h"

#include "common/input_error.h"
#include "library_connection.h"
#include "value_checks.h"

namespace paretune {

using store::kFingerprintLength;
using store::Query;
using store::requireKey;
using store::WriteTransaction;

std::vector<SignatureRecord> SampleLibrary::signatures() const {
    Query q(*m_impl,
            m_impl->statement("SELECT signature, op_type, attrs_json, shapes_json, flops, bytes "
                              "FROM op_signatures ORDER BY signature"),
            "read operator signatures");
    std::vector<SignatureRecord> result;
    while (q.step()) {
        result.push_back({q.text(0), q.text(1), q.text(2), q.text(3), q.real(4), q.integer(5)});
    }
    return result;
}

LibraryRecords SampleLibrary::records() const {
    LibraryRecords r;
    r.devices = devices();
    r.models = models();
    r.signatures = signatures();
    for (const DeviceRecord& d : r.devices) {
        for (BenchmarkRecord& b : benchmarks(d.fingerprint)) {
            r.benchmarks.push_back(std::move(b));
        }
        for (const DeviceRecord& beside : r.devices) {
            if (beside.fingerprint != d.fingerprint) {
                if (auto c = contention(d.fingerprint, beside.fingerprint)) {
                    r.contention.push_back(std::move(*c));
                }
            }
        }
    }
    r.modelRuns = modelRuns();
    r.samples = samples();
    return r;
}

ImportCounts SampleLibrary::importRecords(const LibraryRecords& r) {
    for (const BenchmarkRecord& b : r.benchmarks) {
        requireKey(b.deviceFingerprint, kFingerprintLength, "benchmark: device fingerprint");
    }
    for (const ContentionRecord& c : r.contention) {
        requireKey(c.deviceFingerprint, kFingerprintLength, "contention: device fingerprint");
        requireKey(c.besideFingerprint, kFingerprintLength, "contention: beside fingerprint");
    }
    for (const ModelRunRecord& m : r.modelRuns) {
        checkModelRun(m);
    }
    const std::vector<PreparedSample> prepared = prepareSamples(r.samples);
    for (int attempt = 1;; ++attempt) {
        try {
            ImportCounts counts;
            std::optional<std::size_t> refused;
            {
                WriteTransaction transaction(*m_impl);
                for (const DeviceRecord& d : r.devices) {
                    counts.devices += device(d.fingerprint) ? 0 : 1;
                    upsertDevice(d);
                }
                for (const ModelRecord& m : r.models) {
                    counts.models += model(m.fingerprint) ? 0 : 1;
                    upsertModel(m);
                }
                for (const SignatureRecord& s : r.signatures) {
                    counts.signatures += signature(s.signature) ? 0 : 1;
                    upsertSignature(s);
                }
                counts.benchmarks = importBenchmarks(r.benchmarks);
                counts.contention = importContention(r.contention);
                counts.modelRuns = importModelRuns(r.modelRuns);
                std::vector<std::int64_t> ids;
                refused = storeSamples(r.samples, prepared, ids, counts.samples);
                if (!refused) {
                    transaction.commit();
                    counts.samplesPresent =
                        static_cast<std::int64_t>(r.samples.size()) - counts.samples;
                    return counts;
                }
            }
            throwMissingKey(r.samples, *refused);
        } catch (const store::RetryableError&) {
            if (attempt == 5) {
                throw;
            }
        }
    }
}

std::int64_t SampleLibrary::importModelRuns(std::span<const ModelRunRecord> runs) {
    std::int64_t added = 0;
    for (const ModelRunRecord& m : runs) {
        {
            Query same(*m_impl,
                       m_impl->statement("SELECT 1 FROM model_runs WHERE model_fingerprint = ?1 "
                                         "AND device_fingerprint = ?2 AND measured_at = ?3 AND "
                                         "median_us = ?4"),
                       "read model runs");
            same.bind(1, m.modelFingerprint)
                .bind(2, m.deviceFingerprint)
                .bind(3, m.measuredAt)
                .bind(4, m.medianUs);
            if (same.step()) {
                continue;
            }
        }
        insertModelRun(m);
        ++added;
    }
    return added;
}

std::int64_t SampleLibrary::importBenchmarks(std::span<const BenchmarkRecord> benchmarks) {
    std::int64_t added = 0;
    for (const BenchmarkRecord& b : benchmarks) {
        checkBenchmark(b);
        {
            Query same(*m_impl,
                       m_impl->statement(
                           "SELECT 1 FROM device_benchmarks WHERE device_fingerprint = ?1 AND "
                           "measured_at = ?2 AND gemm_gflops = ?3 AND memory_bw_gbs = ?4 AND "
                           "is_reference = ?5 AND COALESCE(link_h2d_gbs, -1.0) = "
                           "COALESCE(?6, -1.0) AND COALESCE(link_d2h_gbs, -1.0) = "
                           "COALESCE(?7, -1.0) AND COALESCE(link_latency_us, -1.0) = "
                           "COALESCE(?8, -1.0)"),
                       "read micro-benchmarks");
            same.bind(1, b.deviceFingerprint)
                .bind(2, b.measuredAt)
                .bind(3, b.gemmGflops)
                .bind(4, b.memoryBwGbs)
                .bind(5, std::int64_t{b.reference ? 1 : 0})
                .bind(6, store::linkFigure(b, &HostLinkFigures::h2dGbs))
                .bind(7, store::linkFigure(b, &HostLinkFigures::d2hGbs))
                .bind(8, store::linkFigure(b, &HostLinkFigures::latencyUs));
            if (same.step()) {
                continue;
            }
        }
        if (!insertBenchmark(b)) {
            throw InputError(m_impl->label + ": micro-benchmark of device " + b.deviceFingerprint +
                             ": the device is not in the library or the file");
        }
        ++added;
    }
    return added;
}

std::int64_t SampleLibrary::importContention(std::span<const ContentionRecord> contention) {
    std::int64_t added = 0;
    for (const ContentionRecord& c : contention) {
        checkContention(c);
        {
            Query same(*m_impl,
                       m_impl->statement("SELECT 1 FROM device_contention WHERE "
                                         "device_fingerprint = ?1 AND beside_fingerprint = ?2 AND "
                                         "measured_at = ?3 AND factor = ?4"),
                       "read contention");
            same.bind(1, c.deviceFingerprint)
                .bind(2, c.besideFingerprint)
                .bind(3, c.measuredAt)
                .bind(4, c.factor);
            if (same.step()) {
                continue;
            }
        }
        if (!insertContention(c)) {
            throw InputError(m_impl->label + ": contention of device " + c.deviceFingerprint +
                             ": a device is not in the library or the file");
        }
        ++added;
    }
    return added;
}

} // namespace paretune
