#pragma once

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
    PredictorOptions options;
};

/// A trained and stored predictor with its evaluation.
struct TrainingReport {
    std::int64_t predictorId = 0;
    PredictorDataset dataset;
    std::vector<std::string> notes; ///< devices benchmarked, models or devices left out
    std::vector<std::string> heldOutModels, heldOutDevices;
    DatasetSplit split;
    std::size_t trainingRows = 0; ///< distinct measurements the predictor learned from
    std::vector<double> epochLoss;
    /// Rows scored: the held-out ones, or the training set when nothing is held out.
    std::vector<PredictorRow> evaluatedRows;
    std::vector<double> predictedUs; ///< per evaluated row
    std::vector<double> rooflineUs;  ///< per evaluated row
    /// {"split", "epoch_loss", "evaluation": {"set", "predictor", "roofline", "pairs"}} and, with
    /// a held-out device, "few_shot", "few_shot_device", "cold_start_from"; stored with it.
    nlohmann::json metrics;
};

/// Predictor and roofline against the measured latencies of `rows`: {"predictor": metrics,
/// "roofline": metrics, "pairs": [{"pair", "measured_sum_us", "predicted_sum_us",
/// "roofline_sum_us", "predictor": metrics, "roofline": metrics}]} (a pair's own metrics).
nlohmann::json evaluatePredictor(const PerformancePredictor& predictor,
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
