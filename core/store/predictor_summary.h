// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a sample library holds about its trained predictors, for a status line and a metrics
// table (the workbench's Predictor dock).
#include "predict/predictor_evaluation.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace paretune {

struct PredictorSummary {
    int count = 0;               ///< predictors stored
    std::int64_t latestId = 0;   ///< 0 when none
    std::string latestCreatedAt; ///< as stored (UTC, ISO 8601)
    /// The newest predictor's top-level numeric metrics (name, value), by name.
    std::vector<std::pair<std::string, double>> latestMetrics;
    /// The newest predictor's stored evaluation (its metrics' "evaluation"): overall, per
    /// (model, device) pair and per precision; none for a predictor stored without one.
    std::optional<PredictorEvaluation> latestEvaluation;
};

/// Reads the summary of the library at `path` (which must exist). Throws InputError when the
/// file is not a Paretune sample library or cannot be read.
PredictorSummary summarizePredictors(const std::filesystem::path& path);

} // namespace paretune
