// SPDX-License-Identifier: GPL-3.0-or-later
#include "jobstatuswidget.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>

namespace paretune {

JobStatusWidget::JobStatusWidget(const QString& label, bool busy, QWidget* parent)
    : QWidget(parent), m_label(new QLabel(label, this)), m_bar(new QProgressBar(this)),
      m_cancel(new QPushButton(tr("Cancel"), this)) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_label);
    layout->addWidget(m_bar);
    layout->addWidget(m_cancel);
    m_bar->setMaximumWidth(220);
    if (busy) {
        m_bar->setRange(0, 0);
    } else {
        m_bar->setRange(0, 1000);
        m_bar->setValue(0);
    }
    m_bar->setFormat(QString());
    connect(m_cancel, &QPushButton::clicked, this, &JobStatusWidget::cancelClicked);
}

QString JobStatusWidget::label() const {
    return m_label->text();
}

void JobStatusWidget::setProgress(double fraction, const QString& text) {
    if (m_bar->maximum() > 0) {
        m_bar->setValue(static_cast<int>(fraction * 1000.0));
    }
    m_bar->setFormat(text);
}

QString JobStatusWidget::progressText() const {
    return m_bar->format();
}

} // namespace paretune
