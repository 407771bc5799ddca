// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>

#include <vector>

namespace paretune {

struct AccuracyMetrics;
struct PredictorEvaluation;

/// The accuracy table of the Predictor dock, a row per figure: its name, the predictor's value
/// and the roofline baseline's.
struct AccuracyRows {
    QStringList names;
    std::vector<double> predictor, roofline; ///< per name

    /// Appends MAPE, the share within ±10 %, Spearman and the end-to-end error of `predictor`
    /// beside `roofline`, each name followed by ", scope" when `scope` is not empty.
    void add(const AccuracyMetrics& predictor, const AccuracyMetrics& roofline,
             const QString& scope = QString());
};

/// The rows of an evaluation as `paretune train` prints it: overall; each (model, device) pair
/// when there are several; each precision ("MAPE %, bf16 (120 ops)") when the rows hold one
/// besides fp32.
AccuracyRows accuracyRows(const PredictorEvaluation& evaluation);

} // namespace paretune
