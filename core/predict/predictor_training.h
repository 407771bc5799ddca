// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "accuracy_metrics.h"
#include "performance_predictor.h"
#include "predictor_dataset.h"

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

/// One (model, device) pair's figures within an evaluation.
struct PairEvaluation {
    std::string pair; ///< "MODEL on DEVICE (FINGERPRINT)"
    double measuredSumUs = 0.0, predictedSumUs = 0.0, rooflineSumUs = 0.0;
    AccuracyMetrics predictor, roofline;
};

/// The rows of one precision within an evaluation (PredictorRow::precision): the variants'
/// lowered nodes and their conversions beside the fp32 nodes. The end-to-end error is over the
/// rows' (model, device) pairs, each summed over its rows of this precision.
struct PrecisionEvaluation {
    Precision precision = Precision::Fp32;
    double measuredSumUs = 0.0, predictedSumUs = 0.0, rooflineSumUs = 0.0;
    AccuracyMetrics predictor, roofline;
};

/// The predictor and the roofline baseline scored on a set of measured rows.
struct PredictorEvaluation {
    /// Which rows: kHeldOutSet, kTrainingSet, or empty where the caller names them.
    std::string set;
    AccuracyMetrics predictor, roofline;
    std::vector<PairEvaluation> pairs; ///< each (model, device) pair on its own, by name
    /// each precision the rows hold on its own, in the order fp32, bf16, int8
    std::vector<PrecisionEvaluation> precisions;
    /// True when the rows are the training set (nothing held out).
    bool inSample() const { return set == kTrainingSet; }

    static constexpr const char* kHeldOutSet = "held out";
    static constexpr const char* kTrainingSet = "training set (in-sample, nothing held out)";
};

/// {"set" (when not empty), "predictor", "roofline", "pairs": [{"pair", "measured_sum_us",
/// "predicted_sum_us", "roofline_sum_us", "predictor", "roofline"}], "precisions":
/// [{"precision", "measured_sum_us", "predicted_sum_us", "roofline_sum_us", "predictor",
/// "roofline"}]}, as stored with a predictor.
nlohmann::json toJson(const PredictorEvaluation& evaluation);

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
