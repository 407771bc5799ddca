// MainWindow's docks beyond the node table (timeline, devices, log, predictor), each set up by
// its own helper, and the window's persistence.
#include "mainwindow.h"

#include "nodetablemodel.h"
#include "paretoplot.h"
#include "placementsearch.h"
#include "planschedule.h"
#include "timelineview.h"

#include <QDockWidget>
#include <QScrollArea>

namespace paretune {

void MainWindow::setupTimelineDock() {
    m_timeline = new TimelineView(this);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(m_timeline);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* dock = new QDockWidget(tr("Timeline"), this);
    dock->setObjectName(QStringLiteral("timelineDock"));
    dock->setWidget(scroll);
    addDockWidget(Qt::BottomDockWidgetArea, dock);
    connect(m_timeline, &TimelineView::nodeClicked, this, &MainWindow::selectNode);
    connect(this, &MainWindow::nodeSelected, m_timeline, &TimelineView::setSelectedNode);
}

void MainWindow::setupParetoLive() {
    connect(m_searcher, &PlacementSearch::searchStarted, m_pareto, &ParetoPlot::startHypervolume);
    connect(m_searcher, &PlacementSearch::hypervolumeReported, m_pareto,
            &ParetoPlot::addHypervolume);
}

void MainWindow::clearPlan() {
    m_schedule.reset();
    m_timeline->clear();
    m_nodeModel->setPlan(nullptr, nullptr);
}

} // namespace paretune
