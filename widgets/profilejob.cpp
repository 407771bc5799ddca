// SPDX-License-Identifier: GPL-3.0-or-later
#include "profilejob.h"

#include "graph/onnx_importer.h"
#include "paretune/config.h"
#include "store/sample_library.h"

#if PARETUNE_WITH_TORCH
#include "profile/library_profile.h"
#endif

#include <limits>

namespace paretune {

ProfileJob::ProfileJob(QObject* parent) : JobRunner(parent) {
    connect(this, &JobRunner::progressed, this, &ProfileJob::profileProgressed);
}

bool ProfileJob::available() {
    return PARETUNE_WITH_TORCH != 0;
}

void ProfileJob::start(std::shared_ptr<const ImportResult> model, const Device& device,
                       const QString& dbPath, int repeats, double activeW) {
    Q_EMIT profileStarted();
    run<ProfileOutcome>(
        tr("profiling"),
        [=](JobResult<ProfileOutcome>& r, const std::shared_ptr<JobProgress>& progress) {
            r.outcome.deviceId = QString::fromStdString(device.id);
            r.outcome.dbPath = dbPath;
#if PARETUNE_WITH_TORCH
            SampleLibrary library = SampleLibrary::open(dbPath.toStdString());
            LibraryProfileOptions options;
            options.repeats = repeats;
            if (activeW > 0.0) {
                options.activeW = activeW;
            }
            const LibraryProfileRun run =
                profileIntoLibrary(model->graph, device, library, options, progress.get());
            r.outcome.model = model;
            r.outcome.nodeLatencyUs.assign(model->graph.nodes.size(),
                                           std::numeric_limits<double>::quiet_NaN());
            for (const LibraryProfileRow& row : run.rows) {
                if (row.ok()) {
                    r.outcome.nodeLatencyUs[static_cast<std::size_t>(row.node)] =
                        row.sample.latencyUs;
                }
            }
            r.outcome.notRun = run.cancelledCount();
            r.outcome.failed = run.failedCount();
            r.outcome.measured = run.result.count(ProfileStatus::Ok);
            r.outcome.fusedMeasured = run.fusedMeasuredCount();
            r.outcome.reused = run.reusedCount();
            r.outcome.cancelled = run.result.cancelled;
            r.outcome.sumOfOpsUs = run.sumOfOpsUs();
            if (run.speed && run.speed->drifted) {
                r.outcome.speedChange = QString::fromStdString(run.speed->why);
            }
            r.outcome.endToEndUs = run.result.wholeModel.status == ProfileStatus::Ok
                                       ? run.result.wholeModel.endToEnd.medianUs
                                       : 0.0;
#else
            (void)model;
            (void)repeats;
            (void)activeW;
            (void)progress;
            r.error = tr("Profiling needs LibTorch, which this build does not include.");
#endif
        },
        [this](const ProfileOutcome& outcome) { Q_EMIT profileFinished(outcome); },
        [this](const QString& error) { Q_EMIT profileFailed(error); });
}

} // namespace paretune
