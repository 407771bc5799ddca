// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Helpers of the workbench window tests.
#include "mainwindow.h"
#include "nodetablemodel.h"

#include <QAbstractProxyModel>
#include <QPushButton>
#include <QSignalSpy>
#include <QStringList>
#include <QTableView>

/// Opens the bundled sample model in `window` and waits until it is shown (false after 30 s).
inline bool openSampleAndWait(paretune::MainWindow& window) {
    QSignalSpy shown(&window, &paretune::MainWindow::modelShown);
    window.openSampleModel();
    return shown.count() > 0 || shown.wait(30000);
}

/// The node table's "Device (selected plan)" column, row by row.
inline QStringList deviceColumn(const paretune::NodeTableModel& table) {
    QStringList devices;
    for (int row = 0; row < table.rowCount(); ++row) {
        devices << table.data(table.index(row, paretune::NodeTableModel::Device)).toString();
    }
    return devices;
}

/// The status bar's Cancel button while a job runs (null when none is visible).
inline QPushButton* visibleCancelButton(paretune::MainWindow& window) {
    for (auto* button : window.findChildren<QPushButton*>()) {
        if (button->text() == QStringLiteral("Cancel") && button->isVisible()) {
            return button;
        }
    }
    return nullptr;
}

/// The view that shows the node table (through its sort/filter proxy); null when none.
inline QTableView* nodeTableView(paretune::MainWindow& window) {
    for (auto* view : window.findChildren<QTableView*>()) {
        const auto* proxy = qobject_cast<const QAbstractProxyModel*>(view->model());
        if (proxy && proxy->sourceModel() == window.nodeTableModel()) {
            return view;
        }
    }
    return nullptr;
}
