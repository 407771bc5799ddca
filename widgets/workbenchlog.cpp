// SPDX-License-Identifier: GPL-3.0-or-later
#include "workbenchlog.h"

#include <QApplication>
#include <QListWidget>
#include <QMainWindow>
#include <QMessageBox>
#include <QStatusBar>
#include <QTime>

namespace paretune {

WorkbenchLog::WorkbenchLog(QMainWindow* window)
    : QObject(window), m_window(window), m_list(new QListWidget(window)) {
    m_list->setObjectName(QStringLiteral("log"));
}

void WorkbenchLog::log(const QString& text) {
    m_list->addItem(QTime::currentTime().toString(QStringLiteral("HH:mm:ss  ")) + text);
    m_list->scrollToBottom();
}

void WorkbenchLog::addIssue(const QString& text) {
    m_list->addItem(text);
}

void WorkbenchLog::showError(const QString& message) {
    m_window->statusBar()->showMessage(
        tr("Failed: %1").arg(message.section(QLatin1Char('\n'), 0, 0)));
    m_list->addItem(message);
    Q_EMIT errorShown(message);
    if (m_window->isVisible() &&
        !QApplication::platformName().startsWith(QLatin1String("offscreen"))) {
        QMessageBox::warning(m_window, tr("Paretune"), message);
    }
}

} // namespace paretune
