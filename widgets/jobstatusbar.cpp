// SPDX-License-Identifier: GPL-3.0-or-later
#include "jobstatusbar.h"

#include "jobrunner.h"
#include "jobstatuswidget.h"

#include <QStatusBar>

namespace paretune {

JobStatusBar::JobStatusBar(QStatusBar* bar) : QObject(bar), m_bar(bar) {}

JobStatusBar::~JobStatusBar() = default;

void JobStatusBar::follow(JobRunner* runner, const QString& label, Progress progress) {
    connect(runner, &JobRunner::jobStarted, this, [this, runner, label, progress] {
        // A job that supersedes a running one of this runner keeps its indicator, reset.
        if (JobStatusWidget* old = indicator(runner)) {
            old->setProgress(0.0, QString());
            return;
        }
        auto* widget = new JobStatusWidget(label, progress == Progress::Busy, m_bar);
        connect(widget, &JobStatusWidget::cancelClicked, runner, &JobRunner::cancel);
        m_indicators[runner] = widget;
        m_bar->addPermanentWidget(widget);
        widget->show();
    });
    connect(runner, &JobRunner::progressed, this,
            [this, runner](double fraction, const QString& message) {
                if (JobStatusWidget* widget = indicator(runner)) {
                    widget->setProgress(fraction, message);
                }
            });
    connect(runner, &JobRunner::jobEnded, this, [this, runner] { remove(runner); });
    connect(runner, &QObject::destroyed, this, [this, runner] { remove(runner); });
}

JobStatusWidget* JobStatusBar::indicator(const JobRunner* runner) const {
    const auto found = m_indicators.find(runner);
    return found == m_indicators.end() ? nullptr : found->second.data();
}

void JobStatusBar::remove(const JobRunner* runner) {
    const auto found = m_indicators.find(runner);
    if (found == m_indicators.end()) {
        return;
    }
    if (JobStatusWidget* widget = found->second) {
        m_bar->removeWidget(widget);
        widget->deleteLater();
    }
    m_indicators.erase(found);
}

} // namespace paretune
