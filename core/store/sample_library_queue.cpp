// SPDX-License-Identifier: GPL-3.0-or-later
// SampleLibrary: the profiling queue (profile_jobs). Leases are seconds since the epoch by the
// database's clock, so that machines whose clocks differ agree on when one runs out.
#include "sample_library.h"

#include "common/input_error.h"
#include "library_connection.h"
#include "value_checks.h"

#include <cmath>

namespace paretune {

using store::jsonText;
using store::kFingerprintLength;
using store::orNow;
using store::Query;
using store::requireKey;
using store::WriteTransaction;

namespace {

constexpr std::string_view kSqliteNow = "((julianday('now') - 2440587.5) * 86400.0)";
constexpr std::string_view kPostgresNow = "extract(epoch from clock_timestamp())::float8";

constexpr const char* kJobColumns =
    "id, model_fingerprint, model_name, device_fingerprint, options_json, state, queued_at, "
    "worker, lease_expires, attempts, finished_at, result_json";

ProfileJobRecord jobFromRow(const Query& q) {
    ProfileJobRecord j;
    j.id = q.integer(0);
    j.modelFingerprint = q.text(1);
    j.modelName = q.text(2);
    j.deviceFingerprint = q.text(3);
    j.optionsJson = q.text(4);
    j.state = q.text(5);
    j.queuedAt = q.text(6);
    j.worker = q.text(7);
    j.leaseExpires = q.optionalReal(8);
    j.attempts = q.integer(9);
    j.finishedAt = q.text(10);
    j.resultJson = q.text(11);
    return j;
}

void requireLease(double leaseSeconds) {
    if (!std::isfinite(leaseSeconds) || leaseSeconds <= 0) {
        throw InputError::forSetting("lease-seconds", "must be a positive number of seconds");
    }
}

} // namespace

std::int64_t SampleLibrary::queueProfileJob(const ProfileJobRecord& job) {
    requireKey(job.modelFingerprint, kFingerprintLength, "job: model fingerprint");
    requireKey(job.deviceFingerprint, kFingerprintLength, "job: device fingerprint");
    const std::string options = jsonText(job.optionsJson, "job options_json");
    if (job.modelOnnx.empty()) {
        throw InputError("job: the model is empty");
    }
    WriteTransaction transaction(*m_impl);
    Query q(*m_impl,
            m_impl->statement("INSERT INTO profile_jobs(model_fingerprint, model_name, "
                              "model_onnx, device_fingerprint, options_json, queued_at) "
                              "VALUES(?1, ?2, ?3, ?4, ?5, ?6) RETURNING id"),
            "queue a profiling job");
    q.bind(1, job.modelFingerprint).bind(2, job.modelName);
    q.bindBlob(3, job.modelOnnx);
    q.bind(4, job.deviceFingerprint).bind(5, options).bind(6, orNow(job.queuedAt));
    const std::int64_t id = q.insert().value();
    transaction.commit();
    return id;
}

std::optional<ProfileJobRecord> SampleLibrary::claimProfileJob(std::string_view deviceFingerprint,
                                                               std::string_view worker,
                                                               double leaseSeconds) {
    requireLease(leaseSeconds);
    const std::string now(m_impl->sql(kSqliteNow, kPostgresNow));
    // PostgreSQL: the row lock of FOR UPDATE decides between workers claiming at once (a
    // locked job is skipped, not waited for), and the condition is checked again on the row
    // once locked. SQLite: the transaction's write lock serialises the claims.
    const std::string sql =
        "UPDATE profile_jobs SET state = 'running', worker = ?1, lease_expires = " + now +
        " + ?2, attempts = attempts + 1 WHERE id = (SELECT id FROM profile_jobs WHERE "
        "device_fingerprint = ?3 AND (state = 'queued' OR (state = 'running' AND lease_expires < " +
        now + ")) ORDER BY id LIMIT 1" + std::string(m_impl->sql("", " FOR UPDATE SKIP LOCKED")) +
        ") RETURNING id, model_fingerprint, model_name, model_onnx, device_fingerprint, "
        "options_json, state, queued_at, worker, lease_expires, attempts";
    WriteTransaction transaction(*m_impl);
    std::optional<ProfileJobRecord> job;
    {
        Query q(*m_impl, m_impl->statement(sql), "claim a profiling job");
        q.bind(1, worker).bind(2, leaseSeconds).bind(3, deviceFingerprint);
        if (q.step()) {
            ProfileJobRecord j;
            j.id = q.integer(0);
            j.modelFingerprint = q.text(1);
            j.modelName = q.text(2);
            j.modelOnnx = q.blob(3);
            j.deviceFingerprint = q.text(4);
            j.optionsJson = q.text(5);
            j.state = q.text(6);
            j.queuedAt = q.text(7);
            j.worker = q.text(8);
            j.leaseExpires = q.optionalReal(9);
            j.attempts = q.integer(10);
            job = std::move(j);
        }
    }
    transaction.commit();
    return job;
}

bool SampleLibrary::renewProfileJob(std::int64_t id, std::string_view worker, double leaseSeconds) {
    requireLease(leaseSeconds);
    const std::string sql = "UPDATE profile_jobs SET lease_expires = " +
                            std::string(m_impl->sql(kSqliteNow, kPostgresNow)) +
                            " + ?1 WHERE id = ?2 AND worker = ?3 AND state = 'running'";
    Query q(*m_impl, m_impl->statement(sql), "renew a job's lease");
    q.bind(1, leaseSeconds).bind(2, id).bind(3, worker);
    if (!q.run()) {
        m_impl->failConstraint("renew a job's lease");
    }
    return q.changes() == 1;
}

bool SampleLibrary::finishProfileJob(std::int64_t id, std::string_view worker, bool done,
                                     std::string_view resultJson) {
    const std::string result = jsonText(std::string(resultJson), "job result_json");
    Query q(*m_impl,
            m_impl->statement("UPDATE profile_jobs SET state = ?1, finished_at = ?2, "
                              "result_json = ?3, lease_expires = NULL WHERE id = ?4 AND "
                              "worker = ?5 AND state = 'running'"),
            "finish a profiling job");
    q.bind(1, std::string_view(done ? "done" : "failed"))
        .bind(2, currentTimestamp())
        .bind(3, result)
        .bind(4, id)
        .bind(5, worker);
    if (!q.run()) {
        m_impl->failConstraint("finish a profiling job");
    }
    return q.changes() == 1;
}

std::vector<ProfileJobRecord> SampleLibrary::profileJobs() const {
    Query q(
        *m_impl,
        m_impl->statement(std::string("SELECT ") + kJobColumns + " FROM profile_jobs ORDER BY id"),
        "read the profiling queue");
    std::vector<ProfileJobRecord> result;
    while (q.step()) {
        result.push_back(jobFromRow(q));
    }
    return result;
}

} // namespace paretune
