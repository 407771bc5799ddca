// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "jobprogress.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QtConcurrent/QtConcurrentRun>

#include <memory>
#include <utility>

namespace paretune {

/// What a job's worker hands back: its outcome, or, when `error` is not empty, why it failed.
template <typename Outcome> struct JobResult {
    Outcome outcome{};
    QString error;
};

/// Carries one kind of job to a worker thread, the one contract every workbench job shares
/// (hotspot's job tracker): the latest start wins (an older job is cancelled and its result
/// dropped), the worker reports through a JobProgress and polls it for Cancel, nothing escapes
/// the worker (core's InputError fails the job with its message; any other exception with
/// "Internal error while <what>: <message>"), and the outcome or the error is delivered in the
/// runner's (GUI) thread. Destroying the runner abandons its job: it finishes on its own and its
/// result goes nowhere. A job class derives from it and names its work in a few lines.
class JobRunner : public QObject {
    Q_OBJECT
public:
    explicit JobRunner(QObject* parent = nullptr);
    ~JobRunner() override;

    /// Starts `work(JobResult<Outcome>& result, const std::shared_ptr<JobProgress>& progress)` on
    /// a worker thread. It fills `result.outcome`, or sets `result.error` (or throws) to fail.
    /// Once it returns, if no later run() superseded it, `finished(const Outcome&)` or
    /// `failed(const QString&)` is called in this object's thread, then jobEnded() is emitted.
    /// `what` names the work in the message of an internal error ("profiling").
    template <typename Outcome, typename Work, typename Finished, typename Failed>
    void run(const QString& what, Work work, Finished finished, Failed failed);

    /// Asks the running job to stop (it polls its progress); it still delivers what it has.
    void cancel();
    bool isRunning() const;
    /// Drops the current job: cancelled, it finishes on its own and its result goes nowhere
    /// (jobEnded() is emitted when there was one).
    void abandon();

    /// The message of an exception that escaped a job's work, translated: the InputError's own
    /// text, or "Internal error while <what>: <message>" for anything else. Call it only inside
    /// a catch block.
    static QString errorMessage(const QString& what);

Q_SIGNALS:
    /// A job began; the previous one, if still running, no longer reports.
    void jobStarted();
    /// The current job's reports (JobProgress::report and sample), in this object's thread.
    void progressed(double fraction, const QString& message);
    void sampled(int step, double value);
    /// The current job's outcome or error was delivered, or the job was abandoned; no job of this
    /// runner is running now.
    void jobEnded();

private:
    /// Cancels and retires the current job and makes `watcher` the current one; returns its id
    /// and, in `progress`, the progress it shares with its worker.
    int begin(QFutureWatcherBase* watcher, std::shared_ptr<JobProgress>* progress);
    bool isCurrent(int job) const { return job == m_latest; }
    void end(int job);

    QFutureWatcherBase* m_watcher = nullptr;
    std::shared_ptr<JobProgress> m_progress;
    int m_latest = 0;
};

template <typename Outcome, typename Work, typename Finished, typename Failed>
void JobRunner::run(const QString& what, Work work, Finished finished, Failed failed) {
    // Each job gets its own watcher so a superseded job cannot report into the current one.
    auto* watcher = new QFutureWatcher<JobResult<Outcome>>(this);
    std::shared_ptr<JobProgress> progress;
    const int job = begin(watcher, &progress);
    connect(watcher, &QFutureWatcherBase::finished, this,
            [this, watcher, job, onFinished = std::move(finished), onFailed = std::move(failed)] {
                if (!isCurrent(job)) {
                    return;
                }
                const JobResult<Outcome> r = watcher->result();
                if (r.error.isEmpty()) {
                    onFinished(r.outcome);
                } else {
                    onFailed(r.error);
                }
                end(job);
            });
    Q_EMIT jobStarted();
    watcher->setFuture(QtConcurrent::run([what, progress, work = std::move(work)]() {
        JobResult<Outcome> r;
        // Nothing may escape the worker thread.
        try {
            work(r, progress);
        } catch (...) {
            r.error = errorMessage(what);
        }
        return r;
    }));
}

} // namespace paretune
