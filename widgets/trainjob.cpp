// SPDX-License-Identifier: GPL-3.0-or-later
#include "trainjob.h"

#include "common/input_error.h"
#include "paretune/config.h"
#include "store/sample_library.h"

#if PARETUNE_WITH_TORCH
#include "predict/predictor_training.h"
#endif

namespace paretune {

namespace {

/// Thrown from the epoch callback when the job is cancelled: nothing is stored.
struct TrainingCancelled {};

} // namespace

TrainJob::TrainJob(QObject* parent) : JobRunner(parent) {
    connect(this, &JobRunner::sampled, this, &TrainJob::trainingEpoch);
}

bool TrainJob::available() {
    return PARETUNE_WITH_TORCH != 0;
}

void TrainJob::start(const QString& dbPath, const QString& holdoutModel, int epochs, int members) {
    Q_EMIT trainingStarted(epochs);
    run<TrainOutcome>(
        tr("training"),
        [=](JobResult<TrainOutcome>& r, const std::shared_ptr<JobProgress>& progress) {
            r.outcome.dbPath = dbPath;
#if PARETUNE_WITH_TORCH
            try {
                SampleLibrary library = SampleLibrary::open(dbPath.toStdString());
                TrainingSettings settings;
                settings.options.epochs = epochs;
                settings.options.members = members;
                const auto onEpoch = [&progress](int epoch, double loss) {
                    if (progress->cancelled()) {
                        throw TrainingCancelled{};
                    }
                    progress->sample(epoch, loss);
                };
                // Hold the open model out when the library has others to learn from; a library
                // with this model alone is scored on its training set (and says so).
                settings.holdoutModel = holdoutModel.toStdString();
                settings.holdoutModelIfPossible = true;
                const TrainingReport report = trainPredictorInLibrary(library, settings, onEpoch);
                TrainOutcome& o = r.outcome;
                o.predictorId = report.predictorId;
                const PredictorEvaluation& evaluation = report.evaluation;
                o.evaluatedOn = report.heldOutModels.empty()
                                    ? tr("training set (in-sample, nothing held out)")
                                    : tr("held out: %1")
                                          .arg(QString::fromStdString(report.dataset.modelNames.at(
                                              report.heldOutModels.front())));
                for (std::size_t i = 0; i < report.evaluatedRows.size(); ++i) {
                    o.measuredUs.push_back(report.evaluatedRows[i].latencyUs);
                    o.predictedUs.push_back(report.predictedUs[i]);
                }
                o.metrics = accuracyRows(evaluation);
                for (const Diagnostic& d : report.diagnostics) {
                    o.notes << QString::fromStdString(d.message);
                }
            } catch (const TrainingCancelled&) {
                r.error = tr("Training cancelled; nothing was stored.");
            }
#else
            (void)holdoutModel;
            (void)epochs;
            (void)members;
            (void)progress;
            r.error = tr("Training needs LibTorch, which this build does not include.");
#endif
        },
        [this](const TrainOutcome& outcome) { Q_EMIT trainingFinished(outcome); },
        [this](const QString& error) { Q_EMIT trainingFailed(error); });
}

} // namespace paretune
