// SPDX-License-Identifier: GPL-3.0-or-later
#include "screenshot.h"

#include "mainwindow.h"
#include "nodetablemodel.h"

#include <QAbstractProxyModel>
#include <QDockWidget>
#include <QTableView>

namespace paretune {

namespace {

/// The widget a state shows: its dock (or, for the profile before the table has a dock of its
/// own, the central widget).
QWidget* stateWidget(MainWindow& window, const QString& state) {
    if (state == QLatin1String("graph") || state == QLatin1String("window") ||
        state == QLatin1String("tune")) {
        return &window;
    }
    const QString dock = state + QStringLiteral("Dock");
    if (auto* d = window.findChild<QDockWidget*>(dock)) {
        return d;
    }
    return window.centralWidget();
}

} // namespace

QStringList screenshotStates() {
    return {QStringLiteral("graph"),   QStringLiteral("pareto"), QStringLiteral("timeline"),
            QStringLiteral("profile"), QStringLiteral("tune"),   QStringLiteral("window")};
}

bool screenshotNeedsPlan(const QString& state) {
    return state != QLatin1String("graph");
}

void prepareScreenshot(MainWindow& window, const QString& state) {
    // The window keeps the size it chose for the screen (see defaultWindowGeometry).
    if (state == QLatin1String("window")) {
        // The default layout with a plan chosen and its first node's properties shown.
        window.selectNode(0);
        return;
    }
    if (state == QLatin1String("tune")) {
        // The whole window, the Tune panel raised in the bottom row.
        auto* tune = window.findChild<QDockWidget*>(QStringLiteral("tuneDock"));
        auto* pareto = window.findChild<QDockWidget*>(QStringLiteral("paretoDock"));
        auto* properties = window.findChild<QDockWidget*>(QStringLiteral("propertiesDock"));
        if (tune && pareto) {
            tune->show();
            tune->raise();
            // The front and its measured points at a readable size.
            if (properties) {
                properties->hide();
            }
            window.resizeDocks({pareto}, {560}, Qt::Vertical);
            window.resizeDocks({pareto}, {640}, Qt::Horizontal);
            window.resizeDocks({tune}, {210}, Qt::Vertical);
        }
        return;
    }
    if (auto* dock = qobject_cast<QDockWidget*>(stateWidget(window, state))) {
        dock->show();
        dock->setFloating(true);
        dock->resize(state == QLatin1String("timeline")  ? QSize(1200, 300)
                     : state == QLatin1String("profile") ? QSize(1400, 720)
                                                         : QSize(1000, 720));
    }
    if (state == QLatin1String("profile")) {
        // The profile's columns next to the node names; the graph's static figures aside.
        for (auto* table : stateWidget(window, state)->findChildren<QTableView*>()) {
            auto* proxy = qobject_cast<QAbstractProxyModel*>(table->model());
            if (!proxy || proxy->sourceModel() != window.nodeTableModel()) {
                continue;
            }
            for (const int c : {NodeTableModel::Kind, NodeTableModel::Output, NodeTableModel::Flops,
                                NodeTableModel::BytesRead, NodeTableModel::BytesWritten,
                                NodeTableModel::Params, NodeTableModel::Signature}) {
                table->setColumnHidden(c, true);
            }
            table->resizeColumnsToContents();
        }
    }
}

QPixmap grabScreenshot(MainWindow& window, const QString& state) {
    QWidget* w = stateWidget(window, state);
    if (auto* dock = qobject_cast<QDockWidget*>(w)) {
        return dock->widget()->grab();
    }
    return w->grab();
}

} // namespace paretune
