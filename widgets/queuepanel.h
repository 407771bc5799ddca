// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "store/records.h"

#include <QWidget>

#include <vector>

class QLabel;
class QTableWidget;
class QTimer;

namespace paretune {

class JobRunner;

/// The Queue dock: the sample library's profiling jobs (`paretune profile --queue`), their
/// state, which worker (host:pid) holds or held each, its lease and attempts, and what it
/// reported. Read off the GUI thread, again on Refresh and every few seconds while jobs are
/// queued or running; a library that cannot be read says why.
class QueuePanel : public QWidget {
    Q_OBJECT
public:
    explicit QueuePanel(QWidget* parent = nullptr);

    /// Shows the queue of `library` (a file or a server location), reading it now.
    void showLibrary(const QString& library);
    /// Reads the queue again.
    void refresh();

    const std::vector<ProfileJobRecord>& jobs() const { return m_jobs; }

Q_SIGNALS:
    /// A read finished (shown, or its error shown).
    void queueShown();

private:
    void showJobs(const std::vector<ProfileJobRecord>& jobs);
    void showError(const QString& error);

    QString m_library;
    QLabel* m_status = nullptr;
    QTableWidget* m_table = nullptr;
    QTimer* m_poll = nullptr;
    JobRunner* m_reader = nullptr;
    std::vector<ProfileJobRecord> m_jobs;
};

/// A job's state and what it reported, in words: "done: 48 measured, 0 reused" or the error.
QString jobResultText(const ProfileJobRecord& job);

} // namespace paretune
