// SPDX-License-Identifier: GPL-3.0-or-later
#include "adaptjob.h"

#include "graph/onnx_importer.h"
#include "paretune/config.h"
#include "store/sample_library.h"
#include "workflow/predictor_workflow.h"

namespace paretune {

AdaptJob::AdaptJob(QObject* parent) : JobRunner(parent) {}

bool AdaptJob::available() {
    return PARETUNE_WITH_TORCH != 0;
}

void AdaptJob::start(std::shared_ptr<const ImportResult> model, const Device& device,
                     const QString& dbPath, int budget) {
    run<AdaptOutcome>(
        tr("adapting the predictor"),
        [=](JobResult<AdaptOutcome>& r, const std::shared_ptr<JobProgress>& progress) {
            r.outcome.deviceId = QString::fromStdString(device.id);
            r.outcome.dbPath = dbPath;
#if PARETUNE_WITH_TORCH
            SampleLibrary library = SampleLibrary::open(dbPath.toStdString());
            AdaptRequest request;
            request.budget = budget;
            const AdaptRun run =
                adaptPredictor(model->graph, device, library, request, progress.get());
            r.outcome.predictorBefore = run.predictorBefore;
            r.outcome.predictorAfter = run.predictorAfter;
            for (const AdaptedOperator& m : run.measured) {
                r.outcome.measured
                    << tr("%1 (%2): predicted %3 µs, measured %4 µs")
                           .arg(QString::fromStdString(m.name), QString::fromStdString(m.opType))
                           .arg(m.predictedUsBefore, 0, 'f', 1)
                           .arg(m.measuredUs, 0, 'f', 1);
            }
            r.outcome.mapeBefore = run.before.mapePercent;
            r.outcome.mapeAfterInSample = run.afterInSample.mapePercent;
#else
            (void)model;
            (void)budget;
            (void)progress;
            r.error = tr("Adapting the predictor needs LibTorch, which this build does not "
                         "include.");
#endif
        },
        [this](const AdaptOutcome& outcome) { Q_EMIT adaptFinished(outcome); },
        [this](const QString& error) { Q_EMIT adaptFailed(error); });
}

} // namespace paretune
