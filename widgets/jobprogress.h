// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/progress.h"

#include <QObject>
#include <QString>

#include <atomic>

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

} // namespace paretune
