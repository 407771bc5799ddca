// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "accuracyrows.h"
#include "jobrunner.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <vector>

namespace paretune {

/// What a training run stored, as the workbench shows it.
struct TrainOutcome {
    QString dbPath;
    std::int64_t predictorId = 0;
    QString evaluatedOn; ///< "held out: MODEL" or "training set (in-sample, nothing held out)"
    std::vector<double> measuredUs, predictedUs; ///< per evaluated operator
    /// The evaluation's figures: overall, per (model, device) pair, per precision.
    AccuracyRows metrics;
    QStringList notes;
};

/// Trains the performance predictor on the sample library's samples on a worker thread (core's
/// trainPredictorInLibrary) and stores it there. When the library holds other models too, the
/// model `holdoutModel` (a fingerprint) is held out and scored; otherwise the evaluation is on
/// the training set and says so. Each epoch's loss arrives as trainingEpoch; cancel() stops
/// after the current epoch and stores nothing. The latest start wins. Without LibTorch in the
/// build, available() is false and start() fails with a message saying so.
class TrainJob : public JobRunner {
    Q_OBJECT
public:
    explicit TrainJob(QObject* parent = nullptr);

    static bool available();
    void start(const QString& dbPath, const QString& holdoutModel, int epochs = 60,
               int members = 5);

Q_SIGNALS:
    void trainingStarted(int epochs);
    void trainingEpoch(int epoch, double loss);
    void trainingFinished(const paretune::TrainOutcome& outcome);
    void trainingFailed(const QString& message);
};

} // namespace paretune
