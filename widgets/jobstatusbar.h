// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QPointer>
#include <QString>

#include <map>

class QStatusBar;

namespace paretune {

class JobRunner;
class JobStatusWidget;

/// The status bar's indicators of running jobs: every job runner it follows gets its own
/// JobStatusWidget while one of its jobs runs, added when the job starts and removed when it
/// ends (its result delivered, or the job abandoned), showing the job's progress reports; its
/// Cancel cancels that runner's job only. A job that supersedes a running one of the same
/// runner keeps the indicator.
class JobStatusBar : public QObject {
    Q_OBJECT
public:
    enum class Progress {
        Fractions, ///< a bar filled by the job's reports
        Busy,      ///< the job reports no fractions: a busy bar
    };

    explicit JobStatusBar(QStatusBar* bar);
    ~JobStatusBar() override;

    /// Shows `label` and the progress of each job `runner` runs, from now on.
    void follow(JobRunner* runner, const QString& label, Progress progress = Progress::Fractions);
    /// The indicator of `runner`'s running job; null when none runs.
    JobStatusWidget* indicator(const JobRunner* runner) const;
    /// How many indicators are shown.
    int indicatorCount() const { return static_cast<int>(m_indicators.size()); }

private:
    void remove(const JobRunner* runner);

    QStatusBar* m_bar;
    std::map<const JobRunner*, QPointer<JobStatusWidget>> m_indicators;
};

} // namespace paretune
