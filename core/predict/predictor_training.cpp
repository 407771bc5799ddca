// SPDX-License-Identifier: GPL-3.0-or-later
#include "predictor_training.h"

#include "graph/precision.h"

#include "accuracy_metrics.h"
#include "common/input_error.h"
#include "store/sample_library.h"

#include <array>
#include <map>
#include <set>

namespace paretune {

namespace {

std::string pairName(const PredictorDataset& dataset, const PredictorRow& row) {
    const auto model = dataset.modelNames.find(row.modelFingerprint);
    const auto device = dataset.devices.find(row.deviceFingerprint);
    return (model != dataset.modelNames.end() ? model->second : row.modelFingerprint) + " on " +
           (device != dataset.devices.end() ? device->second.name : row.deviceFingerprint) + " (" +
           row.deviceFingerprint.substr(0, 12) + ")";
}

/// Few-shot adaptation to the held-out device: k = 0 is the cold start (nearest known device),
/// then the k most informative operators of the test rows are "measured" (taken from the
/// samples), the predictor is fine-tuned on them and scored on the other test rows.
std::vector<FewShotPoint> fewShotCurve(const PredictorRecord& base, const PredictorDataset& dataset,
                                       const std::vector<PredictorRow>& testRows,
                                       const std::string& device) {
    std::vector<FewShotPoint> curve;
    const DeviceFigures& figures = dataset.devices.at(device);
    std::vector<PredictorRow> onDevice;
    for (const PredictorRow& r : testRows) {
        if (r.deviceFingerprint == device) {
            onDevice.push_back(r);
        }
    }
    const PerformancePredictor cold = PerformancePredictor::fromRecord(base);
    const std::vector<LatencyPrediction> coldPredictions = cold.predict(onDevice, dataset.devices);
    for (const std::size_t k : {0, 5, 10, 20, 50}) {
        const std::vector<std::size_t> shots = mostInformative(onDevice, coldPredictions, k);
        if (shots.size() < k) {
            break;
        }
        std::vector<PredictorRow> shotRows;
        std::set<std::string> shotSignatures;
        for (const std::size_t i : shots) {
            shotRows.push_back(onDevice[i]);
            shotSignatures.insert(onDevice[i].signature);
        }
        std::vector<PredictorRow> rest;
        for (const PredictorRow& r : onDevice) {
            if (!shotSignatures.contains(r.signature)) {
                rest.push_back(r);
            }
        }
        if (rest.size() < 2) {
            break;
        }
        PerformancePredictor adapted = PerformancePredictor::fromRecord(base);
        if (k > 0) {
            adapted.fineTune(shotRows, figures);
        }
        // The same remaining operators as the cold start predicts them: what adapting gained
        // (the remaining set shrinks and changes with k, so points of different k differ in it).
        const PredictorEvaluation scored = evaluatePredictor(adapted, dataset, rest);
        curve.push_back({static_cast<int>(k), scored.predictor, scored.roofline,
                         evaluatePredictor(cold, dataset, rest).predictor});
    }
    return curve;
}

/// The few-shot curve as stored: each point's "k", "predictor", "roofline" and "cold_start".
nlohmann::json fewShotJson(const std::vector<FewShotPoint>& curve) {
    nlohmann::json points = nlohmann::json::array();
    for (const FewShotPoint& p : curve) {
        points.push_back({{"k", p.k},
                          {"predictor", toJson(p.predictor)},
                          {"roofline", toJson(p.roofline)},
                          {"cold_start", toJson(p.coldStart)}});
    }
    return points;
}

} // namespace

PredictorEvaluation evaluatePredictor(const PerformancePredictor& predictor,
                                      const PredictorDataset& dataset,
                                      const std::vector<PredictorRow>& rows) {
    const std::vector<LatencyPrediction> predictions = predictor.predict(rows, dataset.devices);
    std::vector<double> predicted, roofline, measured;
    std::vector<std::string> groups;
    std::map<std::string, std::array<double, 3>> sums; // predicted, roofline, measured
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const PredictorRow& r = rows[i];
        predicted.push_back(predictions[i].latencyUs);
        roofline.push_back(rooflineBaselineUs(dataset.devices.at(r.deviceFingerprint), r.opType,
                                              r.flops, r.bytes));
        measured.push_back(r.latencyUs);
        groups.push_back(pairName(dataset, r));
        auto& sum = sums[groups.back()];
        sum[0] += predicted.back();
        sum[1] += roofline.back();
        sum[2] += measured.back();
    }
    PredictorEvaluation evaluation;
    evaluation.predictor = accuracyMetrics(predicted, measured, groups);
    evaluation.roofline = accuracyMetrics(roofline, measured, groups);
    // Each pair is also scored on its own: a noisy device's many small ops must not hide how
    // well (or badly) the other device's are predicted.
    for (const auto& [name, sum] : sums) {
        std::vector<double> p, r, m;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            if (groups[i] == name) {
                p.push_back(predicted[i]);
                r.push_back(roofline[i]);
                m.push_back(measured[i]);
            }
        }
        const std::vector<std::string> one(m.size(), name);
        evaluation.pairs.push_back(
            {name, sum[2], sum[0], sum[1], accuracyMetrics(p, m, one), accuracyMetrics(r, m, one)});
    }
    // And each precision: the variants' rows are few beside the fp32 ones, and predicted from
    // fewer samples; their error must show on its own.
    for (const Precision precision :
         {Precision::Fp32, Precision::Bf16, Precision::Fp16, Precision::Int8}) {
        PrecisionEvaluation scored;
        scored.precision = precision;
        std::vector<double> p, r, m;
        std::vector<std::string> pairs;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            if (rows[i].precision == precision) {
                p.push_back(predicted[i]);
                r.push_back(roofline[i]);
                m.push_back(measured[i]);
                pairs.push_back(groups[i]);
                scored.predictedSumUs += predicted[i];
                scored.rooflineSumUs += roofline[i];
                scored.measuredSumUs += measured[i];
            }
        }
        if (m.empty()) {
            continue;
        }
        scored.predictor = accuracyMetrics(p, m, pairs);
        scored.roofline = accuracyMetrics(r, m, pairs);
        evaluation.precisions.push_back(std::move(scored));
    }
    return evaluation;
}

std::vector<std::size_t> mostInformative(const std::vector<PredictorRow>& rows,
                                         const std::vector<LatencyPrediction>& predictions,
                                         std::size_t count) {
    std::vector<std::size_t> order(rows.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        order[i] = i;
    }
    auto score = [&](std::size_t i) {
        return predictions[i].latencyUs * predictions[i].uncertainty;
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return score(a) > score(b); });
    std::vector<std::size_t> chosen;
    std::set<std::string> signatures;
    for (const std::size_t i : order) {
        if (chosen.size() < count && signatures.insert(rows[i].signature).second) {
            chosen.push_back(i);
        }
    }
    return chosen;
}

TrainingReport trainPredictorInLibrary(SampleLibrary& library, const TrainingSettings& settings,
                                       const PerformancePredictor::EpochCallback& onEpoch) {
    const PredictorOptions& options = settings.options;
    if (options.epochs < 1 || options.epochs > 100000) {
        throw InputError::forSetting("epochs",
                                     "expected 1 to 100000, got " + std::to_string(options.epochs));
    }
    if (options.members < 1 || options.members > 32) {
        throw InputError::forSetting("members",
                                     "expected 1 to 32, got " + std::to_string(options.members));
    }
    TrainingReport report;
    report.diagnostics = recordMicroBenchmarks(library);
    report.dataset = assembleDataset(library);
    const PredictorDataset& dataset = report.dataset;
    report.diagnostics.insert(report.diagnostics.end(), dataset.diagnostics.begin(),
                              dataset.diagnostics.end());
    if (dataset.rows.empty()) {
        throw InputError(library.path().string() +
                         ": no samples to train on: profile models on a device first");
    }
    std::vector<std::string>& heldModels = report.heldOutModels;
    std::vector<std::string>& heldDevices = report.heldOutDevices;
    if (!settings.holdoutModel.empty()) {
        try {
            // Its fused graphs (the fusion groups profiled as fused nodes) and lowered graphs
            // (its nodes in other precisions) are the same model: splitDataset holds them out
            // with it, or their samples would tell the predictor about it.
            heldModels.push_back(resolveModel(dataset, settings.holdoutModel));
        } catch (const InputError& e) {
            if (!settings.holdoutModelIfPossible) {
                throw;
            }
            report.diagnostics.push_back({Diagnostic::Severity::Warning, "holdout-unknown",
                                          std::string(e.what()) + ": nothing held out"});
        }
    }
    if (!settings.holdoutDevice.empty()) {
        heldDevices.push_back(resolveDevice(dataset, settings.holdoutDevice));
    }
    report.split = splitDataset(dataset, heldModels, heldDevices);
    heldModels = report.split.heldOutModels; // with their derived graphs
    DatasetSplit& split = report.split;
    if (settings.holdoutModelIfPossible && !heldModels.empty() &&
        (split.train.empty() || split.test.empty())) {
        report.diagnostics.push_back({Diagnostic::Severity::Info, "holdout-only-model",
                                      "the library has no other model to learn from besides " +
                                          dataset.modelNames.at(heldModels.front()) +
                                          ": trained and scored on all its samples"});
        heldModels.clear();
        report.split = splitDataset(dataset, heldModels, heldDevices);
    }
    const bool heldOut = !heldModels.empty() || !heldDevices.empty();
    if (!heldOut) {
        split.train.resize(dataset.rows.size());
        for (std::size_t i = 0; i < split.train.size(); ++i) {
            split.train[i] = i;
        }
    }
    if (heldOut && split.test.empty()) {
        throw InputError("the held-out model and device have no samples together");
    }
    if (split.train.empty()) {
        throw InputError("nothing left to train on once the held-out pairs are removed");
    }
    const PerformancePredictor predictor =
        PerformancePredictor::train(dataset, split.train, options, [&](int epoch, double loss) {
            report.epochLoss.push_back(loss);
            if (onEpoch) {
                onEpoch(epoch, loss);
            }
        });
    report.trainingRows = predictor.trainingRows();
    for (const std::size_t i : heldOut ? split.test : split.train) {
        report.evaluatedRows.push_back(dataset.rows[i]);
    }
    for (const LatencyPrediction& p : predictor.predict(report.evaluatedRows, dataset.devices)) {
        report.predictedUs.push_back(p.latencyUs);
    }
    for (const PredictorRow& r : report.evaluatedRows) {
        report.rooflineUs.push_back(rooflineBaselineUs(dataset.devices.at(r.deviceFingerprint),
                                                       r.opType, r.flops, r.bytes));
    }
    report.evaluation = evaluatePredictor(predictor, dataset, report.evaluatedRows);
    report.evaluation.set =
        heldOut ? PredictorEvaluation::kHeldOutSet : PredictorEvaluation::kTrainingSet;
    nlohmann::json heldModelNames = nlohmann::json::array();
    for (const std::string& m : heldModels) {
        heldModelNames.push_back({{"fingerprint", m}, {"name", dataset.modelNames.at(m)}});
    }
    report.metrics = {{"split",
                       {{"held_out_models", heldModelNames},
                        {"held_out_devices", heldDevices},
                        {"train_rows", split.train.size()},
                        {"test_rows", split.test.size()},
                        {"leaks", splitLeaks(dataset, split).size()}}},
                      {"epoch_loss", report.epochLoss},
                      {"evaluation", toJson(report.evaluation)}};
    PredictorRecord record = predictor.toRecord(report.metrics);
    if (!heldDevices.empty()) {
        report.fewShot = fewShotCurve(record, dataset, report.evaluatedRows, heldDevices.front());
        report.metrics["few_shot"] = fewShotJson(report.fewShot);
        report.metrics["few_shot_device"] = heldDevices.front();
        report.metrics["cold_start_from"] =
            predictor.nearestDevice(dataset.devices.at(heldDevices.front()));
        record.metricsJson = report.metrics.dump();
    }
    report.predictorId = library.addPredictor(record);
    return report;
}

} // namespace paretune
