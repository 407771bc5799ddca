// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The predictor workflows of `paretune train`, `predict` and `adapt`, and of the workbench's
// Train job: values in, values out; the callers print or show them.
#include "predict/accuracy_metrics.h"
#include "predict/performance_predictor.h"
#include "predict/predictor_dataset.h"
#include "predict/predictor_training.h"

#include <cstdint>
#include <string>
#include <vector>

namespace paretune {

struct Device;
struct Graph;
struct Progress;
class SampleLibrary;

/// The library's latest predictor and its id. InputError naming the library when it holds none.
PerformancePredictor latestPredictor(const SampleLibrary& library, std::int64_t* id);

/// One compute node's figure: the library's measured sample where it has one, else predicted.
struct NodePrediction {
    std::size_t row = 0; ///< in ModelPrediction::rows
    LatencyPrediction value;
    bool measured = false;
};

/// Every compute node of a model on a device, as the latest predictor sees it.
struct ModelPrediction {
    std::string deviceFingerprint;
    std::string coldStartFrom; ///< nearest known device when the predictor never saw this one
    std::vector<PredictorRow> rows;
    std::vector<NodePrediction> nodes;
    double sumUs = 0.0;
    int measuredCount() const;
};

/// Predicts every compute node of `graph` on `device` with `predictor`; measured samples of the
/// library win. The device's micro-benchmark figures are measured and stored when the library
/// has none.
ModelPrediction predictModel(SampleLibrary& library, const PerformancePredictor& predictor,
                             const Graph& graph, const Device& device);

/// What an adapt run does: measure the `budget` most uncertain operators of the model on the
/// device (by expected absolute error), then retrain on everything with the same settings.
struct AdaptRequest {
    int budget = 0;  ///< operators to measure, ≥ 1
    int repeats = 0; ///< timed runs per round; 0: adaptive (as profiling)
};

struct AdaptedOperator {
    std::string name, opType;
    double predictedUsBefore = 0.0, uncertaintyBefore = 0.0, measuredUs = 0.0;
};

struct AdaptRun {
    std::string deviceFingerprint;
    std::int64_t predictorBefore = 0;
    std::int64_t predictorAfter = 0;       ///< == predictorBefore when nothing was measured
    std::vector<AdaptedOperator> measured; ///< empty: every operator was already measured
    AccuracyMetrics before;                ///< the old predictor on the new measurements
    AccuracyMetrics afterInSample;         ///< the retrained one on the same (it trained on them)
};

/// Active learning on one model and device (see AdaptRequest); stores the new samples and the
/// retrained predictor. InputError for a budget below 1, negative repeats, a library without a
/// predictor. Needs the LibTorch module (TorchUnavailable otherwise).
AdaptRun adaptPredictor(const Graph& graph, const Device& device, SampleLibrary& library,
                        const AdaptRequest& request, Progress* progress = nullptr);

} // namespace paretune
