// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "accuracy_metrics.h"
#include "performance_predictor.h"
#include "predictor_dataset.h"
#include "predictor_evaluation.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace paretune {

class SampleLibrary;

/// What `paretune train` and the workbench's Train job ask for.
struct TrainingSettings {
    std::string holdoutModel;  ///< stored model name or fingerprint prefix; empty: none
    std::string holdoutDevice; ///< device fingerprint prefix; empty: none
    /// The held-out model is held out only when the library has others to learn from: a library
    /// that holds no such model, or only that one, is trained and scored on all its samples
    /// (the report says so in a note and its evaluation's `set`). When false, such a hold-out
    /// is an InputError.
    bool holdoutModelIfPossible = false;
    PredictorOptions options;
};

/// A point of the few-shot curve: k operators of the held-out device measured, the predictor
/// fine-tuned on them and scored on the device's other operators.
struct FewShotPoint {
    int k = 0;
    AccuracyMetrics predictor, roofline;
    AccuracyMetrics coldStart; ///< the cold-start predictor on the same remaining operators
};

/// A trained and stored predictor with its evaluation.
struct TrainingReport {
    std::int64_t predictorId = 0;
    PredictorDataset dataset;
    Diagnostics diagnostics; ///< devices benchmarked, models or devices left out
    std::vector<std::string> heldOutModels, heldOutDevices;
    DatasetSplit split;
    std::size_t trainingRows = 0; ///< distinct measurements the predictor learned from
    std::vector<double> epochLoss;
    /// Rows scored: the held-out ones, or the training set when nothing is held out.
    std::vector<PredictorRow> evaluatedRows;
    std::vector<double> predictedUs;   ///< per evaluated row
    std::vector<double> rooflineUs;    ///< per evaluated row
    PredictorEvaluation evaluation;    ///< of the evaluated rows
    std::vector<FewShotPoint> fewShot; ///< with a held-out device; else empty
    /// The same figures as stored with the predictor: {"split", "epoch_loss", "evaluation"}
    /// and, with a held-out device, "few_shot", "few_shot_device", "cold_start_from".
    nlohmann::json metrics;
};

/// Predictor and roofline against the measured latencies of `rows`, overall, per (model,
/// device) pair and per precision (`set` left empty).
PredictorEvaluation evaluatePredictor(const PerformancePredictor& predictor,
                                      const PredictorDataset& dataset,
                                      const std::vector<PredictorRow>& rows);

/// Distinct signatures of `rows` ranked by expected absolute error (predicted latency ×
/// uncertainty), highest first: the most informative operators to measure (at most `count`).
std::vector<std::size_t> mostInformative(const std::vector<PredictorRow>& rows,
                                         const std::vector<LatencyPrediction>& predictions,
                                         std::size_t count);

/// Trains a predictor on the library's samples and stores it (a new row of `predictors`):
/// devices without micro-benchmark figures are benchmarked first; the held-out model / device
/// pairs are split off (never trained on) and scored beside the roofline; with a held-out
/// device the few-shot curve (k = 0, 5, 10, 20, 50) is added. `onEpoch` sees each epoch's
/// mean loss (throwing from it abandons the training; nothing is stored). InputError for bad
/// settings or a library without samples to train on.
TrainingReport trainPredictorInLibrary(SampleLibrary& library, const TrainingSettings& settings,
                                       const PerformancePredictor::EpochCallback& onEpoch = {});

} // namespace paretune
