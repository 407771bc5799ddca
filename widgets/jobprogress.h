#pragma once

#include "common/progress.h"

#include <QObject>
#include <QString>

#include <atomic>
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

Q_SIGNALS:
    void progressed(double fraction, const QString& message);

private:
    std::atomic<bool> m_cancelled{false};
};

/// A JobProgress shared by the GUI-thread object that starts a job and the job's worker; it is
/// deleted in the GUI thread once both let go.
std::shared_ptr<JobProgress> makeJobProgress();

/// Lets a superseded job's watcher (may be null) finish on its own: disconnects it from
/// `receiver` and deletes it once finished, so its result goes nowhere.
void retireWatcher(QFutureWatcherBase* watcher, QObject* receiver);

} // namespace paretune
