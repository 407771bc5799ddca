// SPDX-License-Identifier: GPL-3.0-or-later
#include "graphdock.h"

#include "graphview.h"
#include "mainwindow.h"
#include "nodeproperties.h"

#include <QDockWidget>

namespace paretune {

GraphView* addGraphView(MainWindow& window) {
    auto* view = new GraphView(&window);
    view->setObjectName(QStringLiteral("graphView"));
    window.setCentralWidget(view);
    auto* properties = new NodeProperties(&window);
    auto* dock = new QDockWidget(NodeProperties::tr("Node properties"), &window);
    dock->setObjectName(QStringLiteral("propertiesDock"));
    dock->setWidget(properties);
    window.addDockWidget(Qt::LeftDockWidgetArea, dock);

    MainWindow* w = &window;
    QObject::connect(w, &MainWindow::modelShown, view, [w, view, properties] {
        view->setModel(w->currentModel());
        properties->setModel(w->currentModel());
    });
    QObject::connect(w, &MainWindow::searchShown, view, [w, view, properties] {
        view->setSearch(w->currentSearch());
        properties->setSearch(w->currentSearch());
    });
    QObject::connect(w, &MainWindow::planShown, view, [view, properties](int index) {
        view->setPlan(index);
        properties->setPlan(index);
    });
    QObject::connect(w, &MainWindow::nodeSelected, view, [view, properties](int nodeId) {
        view->showNode(nodeId);
        properties->showNode(nodeId);
    });
    QObject::connect(view, &GraphView::nodeClicked, w, &MainWindow::selectNode);
    return view;
}

} // namespace paretune
