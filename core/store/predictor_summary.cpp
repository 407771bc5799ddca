// SPDX-License-Identifier: GPL-3.0-or-later
#include "store/predictor_summary.h"

#include "store/sample_library.h"

#include <nlohmann/json.hpp>

namespace paretune {

PredictorSummary summarizePredictors(const std::filesystem::path& path) {
    const SampleLibrary library = SampleLibrary::open(path, SampleLibrary::OpenMode::ExistingOnly);
    PredictorSummary summary;
    summary.count = library.predictorCount();
    const auto latest = library.latestPredictor();
    if (!latest) {
        return summary;
    }
    summary.latestId = latest->id;
    summary.latestCreatedAt = latest->createdAt;
    const nlohmann::json metrics = nlohmann::json::parse(latest->metricsJson, nullptr, false);
    if (metrics.is_object()) {
        for (const auto& [name, value] : metrics.items()) {
            if (value.is_number()) {
                summary.latestMetrics.emplace_back(name, value.get<double>());
            }
        }
        if (const auto evaluation = metrics.find("evaluation");
            evaluation != metrics.end() && evaluation->is_object()) {
            summary.latestEvaluation = evaluationFromJson(*evaluation);
        }
    }
    return summary;
}

} // namespace paretune
