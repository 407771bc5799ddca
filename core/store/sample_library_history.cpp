// SPDX-License-Identifier: GPL-3.0-or-later
// SampleLibrary: the records that are only ever added, a device's micro-benchmark vectors and
// contention beside other devices, plans and trained predictors.
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

void SampleLibrary::checkBenchmark(const BenchmarkRecord& b) const {
    const auto positive = [](double v) { return std::isfinite(v) && v > 0; };
    if (!positive(b.gemmGflops) || !positive(b.memoryBwGbs) ||
        (b.dispatchUs && !positive(*b.dispatchUs))) {
        throw InputError(m_impl->label + ": a micro-benchmark needs positive finite figures");
    }
    const auto positiveOrNone = [&](double v) { return v == 0.0 || positive(v); };
    if (b.hostLink &&
        (!positive(b.hostLink->h2dGbs) || !positive(b.hostLink->d2hGbs) ||
         !positive(b.hostLink->latencyUs) || !positiveOrNone(b.hostLink->h2dPageableGbs) ||
         !positiveOrNone(b.hostLink->d2hPageableGbs))) {
        throw InputError(m_impl->label +
                         ": a micro-benchmark's host link needs positive finite figures");
    }
}

std::optional<std::int64_t> SampleLibrary::insertBenchmark(const BenchmarkRecord& b) {
    Query q(*m_impl,
            m_impl->statement("INSERT INTO device_benchmarks(device_fingerprint, measured_at, "
                              "gemm_gflops, memory_bw_gbs, dispatch_us, is_reference, "
                              "link_h2d_gbs, link_d2h_gbs, link_latency_us, "
                              "link_h2d_pageable_gbs, link_d2h_pageable_gbs) VALUES(?1, ?2, ?3, "
                              "?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) RETURNING id"),
            "store a micro-benchmark");
    q.bind(1, b.deviceFingerprint)
        .bind(2, orNow(b.measuredAt))
        .bind(3, b.gemmGflops)
        .bind(4, b.memoryBwGbs)
        .bind(5, b.dispatchUs)
        .bind(6, std::int64_t{b.reference ? 1 : 0})
        .bind(7, store::linkFigure(b, &HostLinkFigures::h2dGbs))
        .bind(8, store::linkFigure(b, &HostLinkFigures::d2hGbs))
        .bind(9, store::linkFigure(b, &HostLinkFigures::latencyUs))
        .bind(10, store::linkFigure(b, &HostLinkFigures::h2dPageableGbs))
        .bind(11, store::linkFigure(b, &HostLinkFigures::d2hPageableGbs));
    if (!q.run()) {
        return std::nullopt;
    }
    return q.integer(0);
}

std::int64_t SampleLibrary::addBenchmark(const BenchmarkRecord& b) {
    requireKey(b.deviceFingerprint, kFingerprintLength, "device fingerprint");
    checkBenchmark(b);
    WriteTransaction transaction(*m_impl);
    const std::optional<std::int64_t> id =
        device(b.deviceFingerprint) ? insertBenchmark(b) : std::nullopt;
    if (!id) {
        throw InputError(m_impl->label + ": device " + b.deviceFingerprint +
                         " is not in the library");
    }
    transaction.commit();
    return *id;
}

namespace {

constexpr const char* kBenchmarkColumns =
    "SELECT id, device_fingerprint, measured_at, gemm_gflops, memory_bw_gbs, dispatch_us, "
    "is_reference, link_h2d_gbs, link_d2h_gbs, link_latency_us, link_h2d_pageable_gbs, "
    "link_d2h_pageable_gbs FROM device_benchmarks WHERE device_fingerprint = ?1 ";

BenchmarkRecord benchmarkFromRow(const Query& q) {
    BenchmarkRecord b{q.integer(0), q.text(1),         q.text(2),         q.real(3),
                      q.real(4),    q.optionalReal(5), q.integer(6) != 0, std::nullopt};
    if (q.optionalReal(7)) {
        b.hostLink =
            HostLinkFigures{q.real(7), q.real(8), q.real(9), q.optionalReal(10).value_or(0.0),
                            q.optionalReal(11).value_or(0.0)};
    }
    return b;
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

std::optional<BenchmarkRecord>
SampleLibrary::newestHostLink(std::string_view deviceFingerprint) const {
    Query q(*m_impl,
            m_impl->statement(std::string(kBenchmarkColumns) +
                              "AND link_h2d_gbs IS NOT NULL ORDER BY id DESC LIMIT 1"),
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

void SampleLibrary::checkContention(const ContentionRecord& c) const {
    if (c.deviceFingerprint == c.besideFingerprint) {
        throw InputError(m_impl->label + ": contention of device " + c.deviceFingerprint +
                         " beside itself");
    }
    const auto positive = [](double v) { return std::isfinite(v) && v > 0; };
    if (!(std::isfinite(c.factor) && c.factor >= 1.0) || !positive(c.gemmBesideGemm) ||
        !positive(c.gemmBesideTriad) || !positive(c.triadBesideGemm) ||
        !positive(c.triadBesideTriad)) {
        throw InputError(m_impl->label +
                         ": a contention needs a factor of at least 1 and "
                         "positive finite slowdowns (factor " +
                         std::to_string(c.factor) + ")");
    }
}

std::optional<std::int64_t> SampleLibrary::insertContention(const ContentionRecord& c) {
    Query q(*m_impl,
            m_impl->statement("INSERT INTO device_contention(device_fingerprint, "
                              "beside_fingerprint, measured_at, factor, gemm_beside_gemm, "
                              "gemm_beside_triad, triad_beside_gemm, triad_beside_triad) "
                              "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) RETURNING id"),
            "store a contention");
    q.bind(1, c.deviceFingerprint)
        .bind(2, c.besideFingerprint)
        .bind(3, orNow(c.measuredAt))
        .bind(4, c.factor)
        .bind(5, c.gemmBesideGemm)
        .bind(6, c.gemmBesideTriad)
        .bind(7, c.triadBesideGemm)
        .bind(8, c.triadBesideTriad);
    if (!q.run()) {
        return std::nullopt;
    }
    return q.integer(0);
}

std::int64_t SampleLibrary::addContention(const ContentionRecord& c) {
    requireKey(c.deviceFingerprint, kFingerprintLength, "contention: device fingerprint");
    requireKey(c.besideFingerprint, kFingerprintLength, "contention: beside fingerprint");
    checkContention(c);
    WriteTransaction transaction(*m_impl);
    for (const std::string* fingerprint : {&c.deviceFingerprint, &c.besideFingerprint}) {
        if (!device(*fingerprint)) {
            throw InputError(m_impl->label + ": device " + *fingerprint + " is not in the library");
        }
    }
    const std::int64_t id = insertContention(c).value();
    transaction.commit();
    return id;
}

std::optional<ContentionRecord>
SampleLibrary::contention(std::string_view deviceFingerprint,
                          std::string_view besideFingerprint) const {
    Query q(*m_impl,
            m_impl->statement("SELECT id, device_fingerprint, beside_fingerprint, measured_at, "
                              "factor, gemm_beside_gemm, gemm_beside_triad, triad_beside_gemm, "
                              "triad_beside_triad FROM device_contention WHERE "
                              "device_fingerprint = ?1 AND beside_fingerprint = ?2 "
                              "ORDER BY id DESC LIMIT 1"),
            "read a contention");
    q.bind(1, deviceFingerprint).bind(2, besideFingerprint);
    if (!q.step()) {
        return std::nullopt;
    }
    return ContentionRecord{q.integer(0), q.text(1), q.text(2), q.text(3), q.real(4),
                            q.real(5),    q.real(6), q.real(7), q.real(8)};
}

void SampleLibrary::checkModelRun(const ModelRunRecord& run) const {
    requireKey(run.modelFingerprint, kFingerprintLength, "model run: model fingerprint");
    requireKey(run.deviceFingerprint, kFingerprintLength, "model run: device fingerprint");
    const auto positive = [](double v) { return std::isfinite(v) && v > 0; };
    if (!positive(run.medianUs) || !positive(run.p10Us) || !positive(run.p90Us) ||
        !positive(run.sumOfOpsUs) || run.p10Us > run.medianUs || run.p90Us < run.medianUs ||
        run.runs < 1) {
        throw InputError(m_impl->label +
                         ": a model run needs positive finite times with p10 <= median <= p90 "
                         "and at least one run (median " +
                         std::to_string(run.medianUs) + " us, " + std::to_string(run.runs) +
                         " runs)");
    }
}

std::int64_t SampleLibrary::insertModelRun(const ModelRunRecord& run) {
    if (!model(run.modelFingerprint)) {
        throw InputError(m_impl->label + ": model " + run.modelFingerprint +
                         " is not in the library");
    }
    if (!device(run.deviceFingerprint)) {
        throw InputError(m_impl->label + ": device " + run.deviceFingerprint +
                         " is not in the library");
    }
    Query q(*m_impl,
            m_impl->statement("INSERT INTO model_runs(model_fingerprint, device_fingerprint, "
                              "measured_at, median_us, p10_us, p90_us, runs, sum_of_ops_us) "
                              "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) RETURNING id"),
            "store a model run");
    q.bind(1, run.modelFingerprint)
        .bind(2, run.deviceFingerprint)
        .bind(3, orNow(run.measuredAt))
        .bind(4, run.medianUs)
        .bind(5, run.p10Us)
        .bind(6, run.p90Us)
        .bind(7, std::int64_t{run.runs})
        .bind(8, run.sumOfOpsUs);
    const std::optional<std::int64_t> id = q.insert();
    if (!id) {
        throw InputError(m_impl->label + ": the model run was not stored");
    }
    return *id;
}

std::int64_t SampleLibrary::addModelRun(const ModelRunRecord& run) {
    checkModelRun(run);
    WriteTransaction transaction(*m_impl);
    const std::int64_t id = insertModelRun(run);
    transaction.commit();
    return id;
}

namespace {

constexpr const char* kModelRunColumns = "id, model_fingerprint, device_fingerprint, "
                                         "measured_at, median_us, p10_us, p90_us, runs, "
                                         "sum_of_ops_us";

ModelRunRecord modelRunOf(const Query& q) {
    return ModelRunRecord{q.integer(0), q.text(1), q.text(2), q.text(3),
                          q.real(4),    q.real(5), q.real(6), static_cast<int>(q.integer(7)),
                          q.real(8)};
}

} // namespace

std::vector<ModelRunRecord> SampleLibrary::modelRuns() const {
    Query q(*m_impl,
            m_impl->statement(std::string("SELECT ") + kModelRunColumns +
                              " FROM model_runs ORDER BY id"),
            "read model runs");
    std::vector<ModelRunRecord> runs;
    while (q.step()) {
        runs.push_back(modelRunOf(q));
    }
    return runs;
}

std::optional<ModelRunRecord>
SampleLibrary::newestModelRun(std::string_view modelFingerprint,
                              std::string_view deviceFingerprint) const {
    Query q(*m_impl,
            m_impl->statement(std::string("SELECT ") + kModelRunColumns +
                              " FROM model_runs WHERE model_fingerprint = ?1 AND "
                              "device_fingerprint = ?2 ORDER BY id DESC LIMIT 1"),
            "read a model run");
    q.bind(1, modelFingerprint).bind(2, deviceFingerprint);
    if (!q.step()) {
        return std::nullopt;
    }
    return modelRunOf(q);
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
                              "VALUES(?1, ?2, ?3, ?4, ?5, ?6) RETURNING id"),
            "store a plan");
    q.bind(1, plan.modelFingerprint)
        .bind(2, devices)
        .bind(3, objectives)
        .bind(4, assignment)
        .bind(5, plan.source)
        .bind(6, orNow(plan.createdAt));
    if (!q.run()) {
        throw InputError("plan: model " + plan.modelFingerprint + " is not stored in the library " +
                         m_impl->path.string());
    }
    return q.integer(0);
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

std::int64_t SampleLibrary::addTuneRound(const TuneRoundRecord& round) {
    requireKey(round.modelFingerprint, kFingerprintLength, "tune round: model fingerprint");
    const std::string record = jsonText(round.recordJson, "tune round record_json");
    if (round.tuneKey.empty() || round.round < 0) {
        throw InputError("tune round: needs a key and a round of 0 or more");
    }
    WriteTransaction transaction(*m_impl);
    {
        Query exists(*m_impl,
                     m_impl->statement("SELECT 1 FROM tune_rounds WHERE tune_key = ?1 AND "
                                       "round = ?2"),
                     "read tune rounds");
        exists.bind(1, round.tuneKey).bind(2, std::int64_t{round.round});
        if (exists.step()) {
            throw InputError("tune round " + std::to_string(round.round) + " of run " +
                             round.tuneKey + " is already stored");
        }
    }
    Query q(*m_impl,
            m_impl->statement("INSERT INTO tune_rounds(tune_key, round, model_fingerprint, "
                              "record_json, created_at) VALUES(?1, ?2, ?3, ?4, ?5) RETURNING id"),
            "store a tune round");
    q.bind(1, round.tuneKey)
        .bind(2, std::int64_t{round.round})
        .bind(3, round.modelFingerprint)
        .bind(4, record)
        .bind(5, orNow(round.createdAt));
    const std::int64_t id = q.insert().value();
    transaction.commit();
    return id;
}

std::vector<TuneRoundRecord> SampleLibrary::tuneRounds(std::string_view tuneKey) const {
    Query q(*m_impl,
            m_impl->statement("SELECT id, tune_key, round, model_fingerprint, record_json, "
                              "created_at FROM tune_rounds WHERE tune_key = ?1 ORDER BY round"),
            "read tune rounds");
    q.bind(1, tuneKey);
    std::vector<TuneRoundRecord> result;
    while (q.step()) {
        result.push_back({q.integer(0), q.text(1), static_cast<std::int32_t>(q.integer(2)),
                          q.text(3), q.text(4), q.text(5)});
    }
    return result;
}

void SampleLibrary::addSensitivities(std::span<const SensitivityRecord> rows) {
    for (const SensitivityRecord& r : rows) {
        requireKey(r.modelFingerprint, kFingerprintLength, "sensitivity: model fingerprint");
        if (r.nodeName.empty() || r.precision.empty() || r.inputs.empty()) {
            throw InputError("sensitivity: needs a node name, a precision and the inputs");
        }
        if (!std::isfinite(r.deviationPct) || r.deviationPct < 0.0) {
            throw InputError("sensitivity of node '" + r.nodeName + "': deviation " +
                             std::to_string(r.deviationPct) +
                             " % is not a finite number of at least 0");
        }
        if (!model(r.modelFingerprint)) {
            throw InputError("sensitivity: model " + r.modelFingerprint + " is not stored");
        }
    }
    WriteTransaction transaction(*m_impl);
    for (const SensitivityRecord& r : rows) {
        Query q(*m_impl,
                m_impl->statement(
                    "INSERT INTO precision_sensitivity(model_fingerprint, node_name, precision, "
                    "inputs, deviation_pct, measured_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6) "
                    "ON CONFLICT(model_fingerprint, precision, inputs, node_name) DO UPDATE SET "
                    "deviation_pct = excluded.deviation_pct, measured_at = excluded.measured_at"),
                "store a sensitivity");
        q.bind(1, r.modelFingerprint)
            .bind(2, r.nodeName)
            .bind(3, r.precision)
            .bind(4, r.inputs)
            .bind(5, r.deviationPct)
            .bind(6, orNow(r.measuredAt));
        if (!q.run()) {
            throw InputError("sensitivity of node '" + r.nodeName + "' was refused by the library");
        }
    }
    transaction.commit();
}

std::vector<SensitivityRecord> SampleLibrary::sensitivities(std::string_view modelFingerprint,
                                                            std::string_view precision,
                                                            std::string_view inputs) const {
    Query q(*m_impl,
            m_impl->statement("SELECT model_fingerprint, node_name, precision, inputs, "
                              "deviation_pct, measured_at FROM precision_sensitivity WHERE "
                              "model_fingerprint = ?1 AND precision = ?2 AND inputs = ?3 ORDER BY "
                              "node_name"),
            "read sensitivities");
    q.bind(1, modelFingerprint).bind(2, precision).bind(3, inputs);
    std::vector<SensitivityRecord> result;
    while (q.step()) {
        result.push_back({q.text(0), q.text(1), q.text(2), q.text(3), q.real(4), q.text(5)});
    }
    return result;
}

std::vector<std::string> SampleLibrary::sensitivityInputs(std::string_view modelFingerprint,
                                                          std::string_view precision) const {
    Query q(*m_impl,
            m_impl->statement("SELECT inputs FROM precision_sensitivity WHERE model_fingerprint = "
                              "?1 AND precision = ?2 GROUP BY inputs ORDER BY MAX(measured_at) "
                              "DESC, inputs"),
            "read sensitivities");
    q.bind(1, modelFingerprint).bind(2, precision);
    std::vector<std::string> result;
    while (q.step()) {
        result.push_back(q.text(0));
    }
    return result;
}

std::int64_t SampleLibrary::addPredictor(const PredictorRecord& predictor) {
    const std::string trainSet = jsonText(predictor.trainSetJson, "predictor train_set_json");
    const std::string metrics = jsonText(predictor.metricsJson, "predictor metrics_json");
    WriteTransaction transaction(*m_impl);
    Query q(*m_impl,
            m_impl->statement("INSERT INTO predictors(created_at, train_set_json, metrics_json, "
                              "weights) VALUES(?1, ?2, ?3, ?4) RETURNING id"),
            "store a predictor");
    q.bind(1, orNow(predictor.createdAt)).bind(2, trainSet).bind(3, metrics);
    q.bindBlob(4, predictor.weights);
    const std::int64_t id = q.insert().value();
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

} // namespace paretune
