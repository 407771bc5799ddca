#include "jobprogress.h"

#include <QFutureWatcherBase>

namespace paretune {

void JobProgress::report(double fraction, const std::string& message) {
    // Emitted from the worker thread: receivers connect with Qt::QueuedConnection.
    Q_EMIT progressed(fraction, QString::fromStdString(message));
}

void retireWatcher(QFutureWatcherBase* watcher, QObject* receiver) {
    if (!watcher) {
        return;
    }
    watcher->disconnect(receiver);
    if (watcher->isFinished()) {
        watcher->deleteLater();
    } else {
        QObject::connect(watcher, &QFutureWatcherBase::finished, watcher, &QObject::deleteLater);
    }
}

int LatestJob::begin(QFutureWatcherBase* watcher, QObject* owner,
                     std::function<void(double, const QString&)> onProgress) {
    cancel();
    retireWatcher(m_watcher, owner);
    m_watcher = watcher;
    m_progress.reset(new JobProgress, [](JobProgress* p) { p->deleteLater(); });
    const int job = ++m_latest;
    // Reports come from the worker thread: queued into the owner's (GUI) thread.
    QObject::connect(
        m_progress.get(), &JobProgress::progressed, owner,
        [this, job, onProgress = std::move(onProgress)](double fraction, const QString& message) {
            if (isCurrent(job)) {
                onProgress(fraction, message);
            }
        },
        Qt::QueuedConnection);
    return job;
}

void LatestJob::cancel() {
    if (m_progress) {
        m_progress->cancel();
    }
}

bool LatestJob::isRunning() const {
    return m_watcher && m_watcher->isRunning();
}

void LatestJob::abandon(QObject* owner) {
    cancel();
    if (m_watcher) {
        m_watcher->disconnect(owner);
    }
}

} // namespace paretune
