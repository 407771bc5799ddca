// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A predictor's scores on a set of measured rows, overall, per (model, device) pair and per
// precision, as `paretune train` prints them and the sample library stores them.
#include "accuracy_metrics.h"

#include "graph/precision.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace paretune {

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
/// The inverse of toJson, for an evaluation read back from the library: a field that is missing
/// or of another type keeps its default, and a precision this build does not know is left out,
/// so that a predictor stored by an older or newer build still shows what it has.
PredictorEvaluation evaluationFromJson(const nlohmann::json& json);

} // namespace paretune
