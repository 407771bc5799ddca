#include "predictor_training.h"

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
nlohmann::json fewShotCurve(const PredictorRecord& base, const PredictorDataset& dataset,
                            const std::vector<PredictorRow>& testRows, const std::string& device) {
    nlohmann::json curve = nlohmann::json::array();
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
        nlohmann::json point = evaluatePredictor(adapted, dataset, rest);
        point.erase("pairs");
        point["k"] = k;
        // The same remaining operators as the cold start predicts them: what adapting gained
        // (the remaining set shrinks and changes with k, so points of different k differ in it).
        point["cold_start"] = evaluatePredictor(cold, dataset, rest)["predictor"];
        curve.push_back(point);
    }
    return curve;
}

} // namespace

nlohmann::json evaluatePredictor(const PerformancePredictor& predictor,
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
    // Each pair is also scored on its own: a noisy device's many small ops must not hide how
    // well (or badly) the other device's are predicted.
    nlohmann::json pairs = nlohmann::json::array();
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
        pairs.push_back({{"pair", name},
                         {"measured_sum_us", sum[2]},
                         {"predicted_sum_us", sum[0]},
                         {"roofline_sum_us", sum[1]},
                         {"predictor", toJson(accuracyMetrics(p, m, one))},
                         {"roofline", toJson(accuracyMetrics(r, m, one))}});
    }
    return {{"predictor", toJson(accuracyMetrics(predicted, measured, groups))},
            {"roofline", toJson(accuracyMetrics(roofline, measured, groups))},
            {"pairs", pairs}};
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
        throw InputError("epochs: expected 1 to 100000, got " + std::to_string(options.epochs));
    }
    if (options.members < 1 || options.members > 32) {
        throw InputError("members: expected 1 to 32, got " + std::to_string(options.members));
    }
    TrainingReport report;
    report.notes = recordMicroBenchmarks(library);
    report.dataset = assembleDataset(library);
    const PredictorDataset& dataset = report.dataset;
    report.notes.insert(report.notes.end(), dataset.notes.begin(), dataset.notes.end());
    if (dataset.rows.empty()) {
        throw InputError(library.path().string() +
                         ": no samples to train on: profile models first (paretune profile MODEL "
                         "--device cpu:0)");
    }
    std::vector<std::string>& heldModels = report.heldOutModels;
    std::vector<std::string>& heldDevices = report.heldOutDevices;
    if (!settings.holdoutModel.empty()) {
        heldModels.push_back(resolveModel(dataset, settings.holdoutModel));
    }
    if (!settings.holdoutDevice.empty()) {
        heldDevices.push_back(resolveDevice(dataset, settings.holdoutDevice));
    }
    report.split = splitDataset(dataset, heldModels, heldDevices);
    DatasetSplit& split = report.split;
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
    nlohmann::json evaluation = evaluatePredictor(predictor, dataset, report.evaluatedRows);
    evaluation["set"] = heldOut ? "held out" : "training set (in-sample, nothing held out)";
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
                      {"evaluation", evaluation}};
    PredictorRecord record = predictor.toRecord(report.metrics);
    if (!heldDevices.empty()) {
        report.metrics["few_shot"] =
            fewShotCurve(record, dataset, report.evaluatedRows, heldDevices.front());
        report.metrics["few_shot_device"] = heldDevices.front();
        report.metrics["cold_start_from"] =
            predictor.nearestDevice(dataset.devices.at(heldDevices.front()));
        record.metricsJson = report.metrics.dump();
    }
    report.predictorId = library.addPredictor(record);
    return report;
}

} // namespace paretune
