// SPDX-License-Identifier: GPL-3.0-or-later
// The validation report as JSON: what `validate --json` prints and the plan measurement stores.
#include "plan_validation.h"

#include "common/json_values.h"

namespace paretune {

nlohmann::json ValidatedDevice::memoryJson() const {
    return {{"measured_peak_mb", optionalJson(measuredPeakMb)},
            {"weights_mb", optionalJson(measuredWeightsMb)},
            {"planned_peak_mb", optionalJson(plannedPeakMb)},
            {"arena_mb", optionalJson(arenaMb)},
            {"predicted_peak_mb", optionalJson(predictedPeakMb)},
            {"error", optionalJson(relativeError(plannedPeakMb ? plannedPeakMb : predictedPeakMb,
                                                 measuredPeakMb))},
            {"simulated_error", optionalJson(relativeError(predictedPeakMb, measuredPeakMb))}};
}

namespace {

nlohmann::json accuracyJson(const std::optional<ValidatedAccuracy>& a) {
    if (!a) {
        return {{"measured", nullptr}, {"note", "every node in fp32: the model's own outputs"}};
    }
    nlohmann::json j = {{"deviation_pct",
                         {{"measured", a->deviationPct},
                          {"measured_source", "relative L2 error of the "
                                              "outputs against fp32, mean over " +
                                                  std::to_string(a->sets) + " input sets"},
                          {"estimated", optionalJson(a->estimatedPct)},
                          {"estimated_source", "the sensitivity table, added as variances"},
                          {"error_points", optionalJson(a->errorPoints)}}},
                        {"cosine_min", a->minCosine},
                        {"cosine_mean", a->meanCosine},
                        {"top1_agreement", optionalJson(a->top1Agreement)},
                        {"top1_misses", a->top1Misses},
                        {"largest_miss_margin", a->largestMissMargin},
                        {"median_top1_margin", a->medianTop1Margin},
                        {"inputs", a->inputs}};
    if (a->randomInputs) {
        j["note"] = "random inputs: accuracy on real data may differ";
    }
    return j;
}

} // namespace

nlohmann::json PlanValidation::objectivesJson() const {
    return {{"latency_us",
             {{"measured",
               {{"median", optionalJson(latencyUs.measured)},
                {"p10", latencyP10Us},
                {"p90", latencyP90Us}}},
              {"predicted", optionalJson(latencyUs.predicted)},
              {"predicted_source", predictionSource},
              {"plan_file", optionalJson(latencyUs.planned)},
              {"error", optionalJson(latencyUs.error)}}},
            {"energy_mj",
             {{"measured", optionalJson(energyMj.measured)},
              {"measured_source", energyMj.measuredSource},
              {"predicted", optionalJson(energyMj.predicted)},
              {"plan_file", optionalJson(energyMj.planned)},
              {"error", optionalJson(energyMj.error)}}},
            {"peak_memory_mb",
             {{"measured", optionalJson(peakMemoryMb.measured)},
              {"measured_source", peakMemoryMb.measuredSource},
              {"predicted", optionalJson(peakMemoryMb.predicted)},
              {"predicted_source", peakMemoryMb.predictedSource},
              {"simulated", optionalJson(simulatedPeakMemoryMb)},
              {"plan_file", optionalJson(peakMemoryMb.planned)},
              {"error", optionalJson(peakMemoryMb.error)},
              {"process_peak_mb", optionalJson(processPeakMb)}}},
            {"accuracy", accuracyJson(accuracy)},
            {"repeats", repeats},
            {"warmup_runs", warmup}};
}

} // namespace paretune
