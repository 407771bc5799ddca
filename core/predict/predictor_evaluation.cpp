// SPDX-License-Identifier: GPL-3.0-or-later
#include "predictor_evaluation.h"

#include "common/input_error.h"

#include <nlohmann/json.hpp>

namespace paretune {

namespace {

double numberOr0(const nlohmann::json& o, const char* key) {
    const auto it = o.find(key);
    return it != o.end() && it->is_number() ? it->get<double>() : 0.0;
}

/// The "predictor" and "roofline" objects of a stored evaluation or of one of its parts.
void readScores(const nlohmann::json& o, AccuracyMetrics& predictor, AccuracyMetrics& roofline) {
    if (const auto p = o.find("predictor"); p != o.end()) {
        predictor = accuracyMetricsFromJson(*p);
    }
    if (const auto r = o.find("roofline"); r != o.end()) {
        roofline = accuracyMetricsFromJson(*r);
    }
}

} // namespace

nlohmann::json toJson(const PredictorEvaluation& evaluation) {
    nlohmann::json pairs = nlohmann::json::array();
    for (const PairEvaluation& p : evaluation.pairs) {
        pairs.push_back({{"pair", p.pair},
                         {"measured_sum_us", p.measuredSumUs},
                         {"predicted_sum_us", p.predictedSumUs},
                         {"roofline_sum_us", p.rooflineSumUs},
                         {"predictor", toJson(p.predictor)},
                         {"roofline", toJson(p.roofline)}});
    }
    nlohmann::json precisions = nlohmann::json::array();
    for (const PrecisionEvaluation& p : evaluation.precisions) {
        precisions.push_back({{"precision", precisionName(p.precision)},
                              {"measured_sum_us", p.measuredSumUs},
                              {"predicted_sum_us", p.predictedSumUs},
                              {"roofline_sum_us", p.rooflineSumUs},
                              {"predictor", toJson(p.predictor)},
                              {"roofline", toJson(p.roofline)}});
    }
    nlohmann::json doc = {{"predictor", toJson(evaluation.predictor)},
                          {"roofline", toJson(evaluation.roofline)},
                          {"pairs", pairs},
                          {"precisions", precisions}};
    if (!evaluation.set.empty()) {
        doc["set"] = evaluation.set;
    }
    return doc;
}

PredictorEvaluation evaluationFromJson(const nlohmann::json& json) {
    PredictorEvaluation e;
    if (!json.is_object()) {
        return e;
    }
    if (const auto set = json.find("set"); set != json.end() && set->is_string()) {
        e.set = set->get<std::string>();
    }
    readScores(json, e.predictor, e.roofline);
    if (const auto pairs = json.find("pairs"); pairs != json.end() && pairs->is_array()) {
        for (const nlohmann::json& p : *pairs) {
            if (!p.is_object()) {
                continue;
            }
            PairEvaluation pair;
            if (const auto name = p.find("pair"); name != p.end() && name->is_string()) {
                pair.pair = name->get<std::string>();
            }
            pair.measuredSumUs = numberOr0(p, "measured_sum_us");
            pair.predictedSumUs = numberOr0(p, "predicted_sum_us");
            pair.rooflineSumUs = numberOr0(p, "roofline_sum_us");
            readScores(p, pair.predictor, pair.roofline);
            e.pairs.push_back(std::move(pair));
        }
    }
    if (const auto list = json.find("precisions"); list != json.end() && list->is_array()) {
        for (const nlohmann::json& p : *list) {
            const auto name = p.is_object() ? p.find("precision") : p.end();
            if (name == p.end() || !name->is_string()) {
                continue;
            }
            PrecisionEvaluation precision;
            try {
                precision.precision = parsePrecision(name->get<std::string>());
            } catch (const InputError&) {
                continue; // stored by a build with a precision this one does not run
            }
            precision.measuredSumUs = numberOr0(p, "measured_sum_us");
            precision.predictedSumUs = numberOr0(p, "predicted_sum_us");
            precision.rooflineSumUs = numberOr0(p, "roofline_sum_us");
            readScores(p, precision.predictor, precision.roofline);
            e.precisions.push_back(precision);
        }
    }
    return e;
}

} // namespace paretune
