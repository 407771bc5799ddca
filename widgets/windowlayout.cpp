// SPDX-License-Identifier: GPL-3.0-or-later
#include "windowlayout.h"

#include <QAction>
#include <QCoreApplication>
#include <QDockWidget>
#include <QMainWindow>
#include <QMenu>
#include <QToolBar>

#include <algorithm>
#include <array>

namespace paretune {

namespace {

/// The docks in the View menu's order: left column, right column, bottom row.
constexpr std::array kDocks = {"propertiesDock", "paretoDock",     "profileDock", "timelineDock",
                               "memoryDock",     "tuneDock",       "devicesDock", "predictorDock",
                               "queueDock",      "diagnosticsDock"};

QDockWidget* dock(QMainWindow& window, const char* name) {
    return window.findChild<QDockWidget*>(QLatin1String(name));
}

int clampedShare(int total, double share, int lo, int hi) {
    return std::clamp(static_cast<int>(total * share), lo, std::max(lo, hi));
}

} // namespace

QRect defaultWindowGeometry(const QRect& available) {
    if (available.width() <= 1440 || available.height() <= 900) {
        return available;
    }
    const QSize size(available.width() * 85 / 100, available.height() * 85 / 100);
    return {available.topLeft() + QPoint((available.width() - size.width()) / 2,
                                         (available.height() - size.height()) / 2),
            size};
}

void arrangeDefaultLayout(QMainWindow& window) {
    for (const char* name : kDocks) {
        if (QDockWidget* d = dock(window, name)) {
            d->setFloating(false);
            d->show();
        }
    }
    QDockWidget* properties = dock(window, "propertiesDock");
    QDockWidget* pareto = dock(window, "paretoDock");
    QDockWidget* devices = dock(window, "devicesDock");
    QDockWidget* predictor = dock(window, "predictorDock");
    QDockWidget* profile = dock(window, "profileDock");
    if (!properties || !pareto || !devices || !predictor || !profile) {
        return;
    }
    // The side columns take the corners, so that they run the window's full height and the
    // bottom row stays under the graph.
    window.setCorner(Qt::TopLeftCorner, Qt::LeftDockWidgetArea);
    window.setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
    window.setCorner(Qt::TopRightCorner, Qt::RightDockWidgetArea);
    window.setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    window.addDockWidget(Qt::LeftDockWidgetArea, properties);
    window.addDockWidget(Qt::RightDockWidgetArea, pareto);
    window.addDockWidget(Qt::BottomDockWidgetArea, profile);
    for (QDockWidget* d :
         {dock(window, "timelineDock"), dock(window, "memoryDock"), dock(window, "tuneDock"),
          devices, predictor, dock(window, "queueDock"), dock(window, "diagnosticsDock")}) {
        if (d) {
            window.tabifyDockWidget(profile, d);
        }
    }
    profile->raise();

    const QSize size = window.size();
    const int left = clampedShare(size.width(), 0.26, 260, 420);
    const int right = clampedShare(size.width(), 0.32, 400, 640);
    window.resizeDocks({properties, pareto}, {left, right}, Qt::Horizontal);
    const int bottom = clampedShare(size.height(), 0.5, 330, 520);
    window.resizeDocks({profile}, {bottom}, Qt::Vertical);
}

void fillViewMenu(QMainWindow& window, QMenu& menu) {
    for (QToolBar* bar : window.findChildren<QToolBar*>(Qt::FindDirectChildrenOnly)) {
        menu.addAction(bar->toggleViewAction());
    }
    menu.addSeparator();
    QList<QDockWidget*> docks = window.findChildren<QDockWidget*>(Qt::FindDirectChildrenOnly);
    const auto rank = [](const QDockWidget* d) {
        const auto known = std::find_if(kDocks.begin(), kDocks.end(), [d](const char* name) {
            return d->objectName() == QLatin1String(name);
        });
        return known - kDocks.begin(); // a dock not named above comes last
    };
    std::stable_sort(
        docks.begin(), docks.end(),
        [&rank](const QDockWidget* a, const QDockWidget* b) { return rank(a) < rank(b); });
    for (QDockWidget* d : docks) {
        menu.addAction(d->toggleViewAction());
    }
    menu.addSeparator();
    QAction* reset =
        menu.addAction(QCoreApplication::translate("paretune::WindowLayout", "&Default layout"),
                       &window, [&window] { arrangeDefaultLayout(window); });
    reset->setObjectName(QStringLiteral("defaultLayoutAction"));
    reset->setStatusTip(QCoreApplication::translate(
        "paretune::WindowLayout", "Show every panel, docked where it starts out"));
}

} // namespace paretune
