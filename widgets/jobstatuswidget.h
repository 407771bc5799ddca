// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QWidget>

class QLabel;
class QProgressBar;
class QPushButton;

namespace paretune {

/// One running job's place in the status bar: what it does, how far it is (a busy bar for a
/// job that reports no fractions) and a Cancel button that stops this job only.
class JobStatusWidget : public QWidget {
    Q_OBJECT
public:
    JobStatusWidget(const QString& label, bool busy, QWidget* parent = nullptr);

    QString label() const;
    /// The bar's fill (0 to 1; ignored while busy) and the text written on it.
    void setProgress(double fraction, const QString& text);
    QString progressText() const;
    QPushButton* cancelButton() const { return m_cancel; }

Q_SIGNALS:
    void cancelClicked();

private:
    QLabel* m_label = nullptr;
    QProgressBar* m_bar = nullptr;
    QPushButton* m_cancel = nullptr;
};

} // namespace paretune
