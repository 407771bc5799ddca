#include "profilejob.h"

#include "common/input_error.h"
#include "graph/onnx_importer.h"
#include "jobprogress.h"
#include "paretune/config.h"
#include "store/sample_library.h"

#if PARETUNE_WITH_TORCH
#include "profile/library_profile.h"
#endif

#include <QtConcurrent/QtConcurrentRun>

#include <limits>

namespace paretune {

ProfileJob::ProfileJob(QObject* parent) : QObject(parent) {}

ProfileJob::~ProfileJob() {
    m_jobs.abandon(this);
}

bool ProfileJob::available() {
    return PARETUNE_WITH_TORCH != 0;
}

bool ProfileJob::isRunning() const {
    return m_jobs.isRunning();
}

void ProfileJob::cancel() {
    m_jobs.cancel();
}

void ProfileJob::start(std::shared_ptr<const ImportResult> model, const Device& device,
                       const QString& dbPath, int repeats, double activeW) {
    auto* watcher = new QFutureWatcher<Result>(this);
    // The latest job wins.
    const int job = m_jobs.begin(watcher, this, [this](double fraction, const QString& message) {
        Q_EMIT profileProgressed(fraction, message);
    });
    const std::shared_ptr<JobProgress> progress = m_jobs.progress();
    connect(watcher, &QFutureWatcher<Result>::finished, this,
            [this, watcher] { deliver(watcher); });
    Q_EMIT profileStarted();
    watcher->setFuture(QtConcurrent::run([=]() {
        Result r;
        r.job = job;
        r.outcome.deviceId = QString::fromStdString(device.id);
        r.outcome.dbPath = dbPath;
#if PARETUNE_WITH_TORCH
        try {
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
            r.outcome.reused = run.reusedCount();
            r.outcome.cancelled = run.result.cancelled;
            r.outcome.sumOfOpsUs = run.sumOfOpsUs();
            if (run.speed && run.speed->drifted) {
                r.outcome.speedChange = QString::fromStdString(run.speed->why);
            }
            r.outcome.endToEndUs = run.result.wholeModel.status == ProfileStatus::Ok
                                       ? run.result.wholeModel.endToEnd.medianUs
                                       : 0.0;
        } catch (const InputError& e) {
            r.error = QString::fromStdString(e.what());
        } catch (const std::exception& e) {
            r.error =
                tr("Internal error while profiling: %1").arg(QString::fromStdString(e.what()));
        }
#else
        (void)model;
        (void)repeats;
        (void)activeW;
        r.error = tr("Profiling needs LibTorch, which this build does not include.");
#endif
        return r;
    }));
}

void ProfileJob::deliver(QFutureWatcher<Result>* watcher) {
    deliverLatest(
        m_jobs, watcher, [this](const auto& outcome) { Q_EMIT profileFinished(outcome); },
        [this](const QString& error) { Q_EMIT profileFailed(error); });
}

} // namespace paretune
