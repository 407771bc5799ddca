// SPDX-License-Identifier: GPL-3.0-or-later
#include "accuracyrows.h"

#include "predict/predictor_evaluation.h"

#include <QCoreApplication>

#include <algorithm>
#include <string>
#include <utility>

namespace paretune {

void AccuracyRows::add(const AccuracyMetrics& p, const AccuracyMetrics& r, const QString& scope) {
    const std::pair<double AccuracyMetrics::*, QString> figures[] = {
        {&AccuracyMetrics::mapePercent,
         QCoreApplication::translate("paretune::PredictorPanel", "MAPE %")},
        {&AccuracyMetrics::within10,
         QCoreApplication::translate("paretune::PredictorPanel", "Share within ±10%")},
        {&AccuracyMetrics::spearman,
         QCoreApplication::translate("paretune::PredictorPanel", "Spearman")},
        {&AccuracyMetrics::endToEndPercent,
         QCoreApplication::translate("paretune::PredictorPanel", "End-to-end error %")}};
    for (const auto& [field, name] : figures) {
        names << (scope.isEmpty()
                      ? name
                      : QCoreApplication::translate("paretune::PredictorPanel", "%1, %2")
                            .arg(name, scope));
        predictor.push_back(p.*field);
        roofline.push_back(r.*field);
    }
}

AccuracyRows accuracyRows(const PredictorEvaluation& evaluation) {
    AccuracyRows rows;
    rows.add(evaluation.predictor, evaluation.roofline);
    // With several (model, device) pairs, each one's own figures follow: a noisy device must
    // not hide how well another is predicted.
    if (evaluation.pairs.size() > 1) {
        for (const PairEvaluation& pair : evaluation.pairs) {
            rows.add(pair.predictor, pair.roofline, QString::fromStdString(pair.pair));
        }
    }
    // Each precision on its own once a variant is among the rows: a lowered node's cost is
    // predicted from fewer samples than an fp32 one's.
    const bool variants =
        std::any_of(evaluation.precisions.begin(), evaluation.precisions.end(),
                    [](const PrecisionEvaluation& p) { return p.precision != Precision::Fp32; });
    if (variants) {
        for (const PrecisionEvaluation& p : evaluation.precisions) {
            rows.add(p.predictor, p.roofline,
                     QCoreApplication::translate("paretune::PredictorPanel", "%1 (%2 ops)")
                         .arg(QString::fromStdString(std::string(precisionName(p.precision))))
                         .arg(p.predictor.ops));
        }
    }
    return rows;
}

} // namespace paretune
