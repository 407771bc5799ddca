// SPDX-License-Identifier: GPL-3.0-or-later
#include "jobrunner.h"

#include "common/input_error.h"

#include <exception>

namespace paretune {

namespace {

/// Lets a superseded job's watcher (may be null) finish on its own: disconnects it from
/// `receiver` and deletes it once finished, so its result goes nowhere.
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

} // namespace

JobRunner::JobRunner(QObject* parent) : QObject(parent) {}

JobRunner::~JobRunner() {
    // The running job finishes on its own (cancelled); its result goes nowhere once we are gone.
    cancel();
    if (m_watcher) {
        m_watcher->disconnect(this);
    }
}

int JobRunner::begin(QFutureWatcherBase* watcher, std::shared_ptr<JobProgress>* progress) {
    cancel();
    retireWatcher(m_watcher, this);
    m_watcher = watcher;
    // Deleted in this (the GUI) thread once both the runner and the worker let go.
    m_progress.reset(new JobProgress, [](JobProgress* p) { p->deleteLater(); });
    *progress = m_progress;
    const int job = ++m_latest;
    // Reports come from the worker thread: queued into this object's thread.
    connect(
        m_progress.get(), &JobProgress::progressed, this,
        [this, job](double fraction, const QString& message) {
            if (isCurrent(job)) {
                Q_EMIT progressed(fraction, message);
            }
        },
        Qt::QueuedConnection);
    connect(
        m_progress.get(), &JobProgress::sampled, this,
        [this, job](int step, double value) {
            if (isCurrent(job)) {
                Q_EMIT sampled(step, value);
            }
        },
        Qt::QueuedConnection);
    return job;
}

void JobRunner::end(int job) {
    // A delivery that started the next job leaves that one running.
    if (isCurrent(job)) {
        m_watcher->deleteLater();
        m_watcher = nullptr;
        Q_EMIT jobEnded();
    }
}

void JobRunner::abandon() {
    if (!m_watcher) {
        return;
    }
    cancel();
    retireWatcher(m_watcher, this);
    m_watcher = nullptr;
    ++m_latest;
    Q_EMIT jobEnded();
}

void JobRunner::cancel() {
    if (m_progress) {
        m_progress->cancel();
    }
}

bool JobRunner::isRunning() const {
    return m_watcher && m_watcher->isRunning();
}

QString JobRunner::errorMessage(const QString& what) {
    try {
        throw;
    } catch (const InputError& e) {
        return QString::fromStdString(e.what());
    } catch (const std::exception& e) {
        return tr("Internal error while %1: %2").arg(what, QString::fromStdString(e.what()));
    } catch (...) {
        return tr("Internal error while %1: %2").arg(what, tr("an unknown exception"));
    }
}

} // namespace paretune
