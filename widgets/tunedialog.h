// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "tunejob.h"

#include <QDialog>

class QDoubleSpinBox;
class QLabel;
class QSpinBox;

namespace paretune {

/// Workflow > Tune's settings: rounds, front plans validated per round and timed runs of each,
/// beside the search settings, devices and sample library the tune uses (the workbench's
/// current ones, not edited here).
class TuneDialog : public QDialog {
    Q_OBJECT
public:
    /// `context`: what the tune will use, in words (search settings, devices, library).
    TuneDialog(const TuneSettings& settings, const QString& context, QWidget* parent = nullptr);

    TuneSettings settings() const;

private:
    TuneSettings m_initial;
    QSpinBox* m_rounds = nullptr;
    QSpinBox* m_plans = nullptr;
    QSpinBox* m_repeats = nullptr;
    QDoubleSpinBox* m_window = nullptr;
};

} // namespace paretune
