#pragma once

#include "common/progress.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>

class QFutureWatcherBase;

namespace paretune {

/// Adapter from core's Progress contract to Qt: the worker calls report() and cancelled();
/// progressed() reaches receivers in the GUI thread through a queued connection, and cancel()
/// may be called from any thread.
class JobProgress : public QObject, public Progress {
    Q_OBJECT
public:
    explicit JobProgress(QObject* parent = nullptr) : QObject(parent) {}

    void report(double fraction, const std::string& message) override;
    bool cancelled() const override { return m_cancelled.load(); }
    void cancel() { m_cancelled.store(true); }
    /// A figure of the job at one step (a training epoch's loss, a generation's hypervolume),
    /// for plots; any thread.
    void sample(int step, double value) override { Q_EMIT sampled(step, value); }

Q_SIGNALS:
    void progressed(double fraction, const QString& message);
    void sampled(int step, double value);

private:
    std::atomic<bool> m_cancelled{false};
};

/// Lets a superseded job's watcher (may be null) finish on its own: disconnects it from
/// `receiver` and deletes it once finished, so its result goes nowhere.
void retireWatcher(QFutureWatcherBase* watcher, QObject* receiver);

/// Bookkeeping of a kind of job whose latest start wins (hotspot's job tracker): the current
/// job's id, watcher and progress. Lives in the GUI thread, inside the object that runs the jobs.
class LatestJob {
public:
    /// Cancels the current job, retires its watcher and makes `watcher` (owned by `owner`) the
    /// current one, with a new progress() whose reports reach `onProgress` in the GUI thread
    /// while the job is current; returns the new job's id.
    int begin(QFutureWatcherBase* watcher, QObject* owner,
              std::function<void(double, const QString&)> onProgress);
    /// Whether job `job`, delivered by `watcher`, is the current one (else its result is stale).
    bool isCurrent(const QFutureWatcherBase* watcher, int job) const {
        return watcher == m_watcher && job == m_latest;
    }
    bool isCurrent(int job) const { return job == m_latest; }
    /// The current job's progress, shared with its worker (deleted in the GUI thread once both
    /// let go).
    const std::shared_ptr<JobProgress>& progress() const { return m_progress; }
    void cancel();
    bool isRunning() const;
    /// For the owner's destructor: the running job finishes on its own (cancelled) and its
    /// result goes nowhere.
    void abandon(QObject* owner);

private:
    QFutureWatcherBase* m_watcher = nullptr;
    std::shared_ptr<JobProgress> m_progress;
    int m_latest = 0;
};

/// Delivers the result of a finished job of `jobs` (a Result with `job`, `outcome` and `error`):
/// `finished(outcome)` when its error is empty, else `failed(error)`; nothing when a later job
/// superseded it.
template <typename Result, typename Finished, typename Failed>
void deliverLatest(const LatestJob& jobs, QFutureWatcher<Result>* watcher, Finished finished,
                   Failed failed) {
    const Result r = watcher->result();
    if (!jobs.isCurrent(watcher, r.job)) {
        return;
    }
    if (r.error.isEmpty()) {
        finished(r.outcome);
    } else {
        failed(r.error);
    }
}

} // namespace paretune
