// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QString>

class QListWidget;
class QMainWindow;

namespace paretune {

/// The workbench's one channel for what happened (Tiled's logging interface): the list of the
/// "Log / Issues" dock (timestamped log lines, the opened model's import diagnostics, errors),
/// the status bar's "Failed: ..." line and, on a real display, a message box for an error.
class WorkbenchLog : public QObject {
    Q_OBJECT
public:
    explicit WorkbenchLog(QMainWindow* window);

    /// The list the dock shows.
    QListWidget* view() const { return m_list; }
    /// Adds a line, stamped with the time.
    void log(const QString& text);
    /// Adds a line as it is (an import diagnostic).
    void addIssue(const QString& text);
    /// Reports a failure everywhere it must be seen; emits errorShown.
    void showError(const QString& message);

Q_SIGNALS:
    void errorShown(const QString& message);

private:
    QMainWindow* m_window;
    QListWidget* m_list;
};

} // namespace paretune
