// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "device/device.h"

#include "jobrunner.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <memory>

namespace paretune {

struct ImportResult;

/// What an adapt run measured and stored, as the workbench reports it.
struct AdaptOutcome {
    QString deviceId;
    QString dbPath;
    std::int64_t predictorBefore = 0;
    std::int64_t predictorAfter = 0; ///< == predictorBefore when nothing was measured
    QStringList measured;            ///< per operator: name, predicted before, measured
    double mapeBefore = 0.0;         ///< old predictor on the new measurements, %
    double mapeAfterInSample = 0.0;  ///< retrained one on the same (it trained on them), %
};

/// Active learning on a worker thread (core's adaptPredictor, as `paretune adapt`): measures
/// the `budget` most uncertain operators of the model on a real device into the sample library
/// and retrains the predictor on everything. The latest start wins; cancel() stops between
/// operators (what was measured is stored, then it retrains). Needs LibTorch (available()).
class AdaptJob : public JobRunner {
    Q_OBJECT
public:
    explicit AdaptJob(QObject* parent = nullptr);

    static bool available();
    void start(std::shared_ptr<const ImportResult> model, const Device& device,
               const QString& dbPath, int budget);

Q_SIGNALS:
    void adaptFinished(const paretune::AdaptOutcome& outcome);
    void adaptFailed(const QString& message);
};

} // namespace paretune
