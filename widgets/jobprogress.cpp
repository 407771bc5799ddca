#include "jobprogress.h"

#include <QFutureWatcherBase>

namespace paretune {

void JobProgress::report(double fraction, const std::string& message) {
    // Emitted from the worker thread: receivers connect with Qt::QueuedConnection.
    Q_EMIT progressed(fraction, QString::fromStdString(message));
}

std::shared_ptr<JobProgress> makeJobProgress() {
    return {new JobProgress, [](JobProgress* p) { p->deleteLater(); }};
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

} // namespace paretune
