// SPDX-License-Identifier: GPL-3.0-or-later
// End to end, offscreen: open the bundled sample, search on the example catalog's modelled
// devices, click a point of the Pareto plot (a real mouse event at the pixel the mapping gives)
// and check that the graph's node colours, the node table's device column and the timeline
// follow that plan; clicking a timeline bar selects its node everywhere.
#include "graph/onnx_importer.h"
#include "graphitems.h"
#include "graphpalette.h"
#include "graphview.h"
#include "mainwindow.h"
#include "nodetablemodel.h"
#include "paretoplot.h"
#include "placementsearch.h"
#include "planschedule.h"
#include "searchcontroller.h"
#include "timelineview.h"
#include "workbench_fixture.h"

#include <QAction>
#include <QDockWidget>
#include <QSignalSpy>
#include <QtTest>

#include "qcustomplot_fenced.h"

using namespace paretune;

class TestEndToEnd : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void clickOnParetoPointShowsThatPlan();
    void searchOffersPrecisions();
};

namespace {

/// The plan each node's device bar sits on, per graph node (-1: no bar).
std::vector<int> timelineLanes(const TimelineView& view, std::size_t nodes) {
    std::vector<int> lanes(nodes, -1);
    for (const TimelineData::Bar& b : view.data().bars) {
        if (b.node >= 0) {
            lanes[static_cast<std::size_t>(b.node)] = b.lane;
        }
    }
    return lanes;
}

/// A front plan drawn alone at its pixel, placed differently from `other` (-1: any).
int clickablePlan(const ParetoPlot& plot, const SearchOutcome& outcome, int other) {
    for (int i = static_cast<int>(outcome.result.front.size()) - 1; i >= 0; --i) {
        const bool differs =
            other < 0 || outcome.result.front[static_cast<std::size_t>(i)].genome !=
                             outcome.result.front[static_cast<std::size_t>(other)].genome;
        if (differs && plot.planAt(plot.pointPixel(i), 8.0) == i) {
            return i;
        }
    }
    return -1;
}

/// Whether every drawn node of the graph view has its device's colour in `plan`.
bool graphColoursFollow(const GraphView& view, const PlanSchedule& plan) {
    for (std::size_t n = 0; n < plan.plan.device.size(); ++n) {
        const GraphNodeItem* item = view.nodeItem(static_cast<int>(n));
        if (item && item->brush().color() != deviceColour(plan.plan.device[n])) {
            qWarning("node %zu is drawn %s, its device's colour is %s", n,
                     qPrintable(item->brush().color().name()),
                     qPrintable(deviceColour(plan.plan.device[n]).name()));
            return false;
        }
    }
    return true;
}

void clickPlan(ParetoPlot* plot, int index) {
    QTest::mouseClick(plot->plot(), Qt::LeftButton, {}, plot->pointPixel(index).toPoint());
}

} // namespace

void TestEndToEnd::clickOnParetoPointShowsThatPlan() {
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(openSampleAndWait(window));
    auto* graph = window.findChild<GraphView*>();
    QVERIFY(graph);
    QTRY_VERIFY_WITH_TIMEOUT(graph->nodeItem(0) != nullptr, 30000); // laid out on a worker
    QSignalSpy searched(&window, &MainWindow::searchShown);
    SearchOptions options;
    options.population = 40;
    options.generations = 30;
    window.searchPlacements(options);
    QTRY_COMPARE_WITH_TIMEOUT(searched.count(), 1, 60000);
    const auto outcome = window.currentSearch();
    QCOMPARE(outcome->deviceIds, (std::vector<std::string>{"cpu", "gpu", "npu"}));
    QVERIFY(outcome->costSource.startsWith(QStringLiteral("modelled")));
    QVERIFY(window.timelineView()->data().bars.empty());
    ParetoPlot* plot = window.paretoPlot();
    QVERIFY(plot->plot()->axisRect()->rect().width() > 100);

    const NodeTableModel& table = *window.nodeTableModel();
    const std::size_t nodes = window.currentModel()->graph.nodes.size();
    QSignalSpy planShown(&window, &MainWindow::planShown);
    const int first = clickablePlan(*plot, *outcome, -1);
    QVERIFY(first >= 0);
    clickPlan(plot, first);
    QCOMPARE(planShown.count(), 1);
    QCOMPARE(planShown.at(0).at(0).toInt(), first);
    const PlanSchedule a = simulateFrontPlan(*outcome, first);
    QStringList expected;
    for (const std::int32_t d : a.plan.device) {
        expected << (d < 0
                         ? QString()
                         : QString::fromStdString(outcome->deviceIds[static_cast<std::size_t>(d)]));
    }
    QCOMPARE(deviceColumn(table), expected);
    QVERIFY(graphColoursFollow(*graph, a));
    const std::vector<int> lanesA = timelineLanes(*window.timelineView(), nodes);
    for (std::size_t n = 0; n < nodes; ++n) {
        if (lanesA[n] >= 0) {
            QCOMPARE(lanesA[n], a.plan.device[n]);
        }
    }
    QCOMPARE(window.timelineView()->data().endUs, a.simulation.objectives.latencyUs);

    // Another plan with a different placement: the table and the timeline follow it.
    const int second = clickablePlan(*plot, *outcome, first);
    QVERIFY2(second >= 0, "the front has a second, differently placed plan");
    clickPlan(plot, second);
    QCOMPARE(planShown.count(), 2);
    QCOMPARE(planShown.at(1).at(0).toInt(), second);
    const QStringList secondColumn = deviceColumn(table);
    QVERIFY(secondColumn != expected);
    const std::vector<int> lanesB = timelineLanes(*window.timelineView(), nodes);
    QVERIFY(lanesB != lanesA);
    const PlanSchedule b = simulateFrontPlan(*outcome, second);
    QVERIFY(graphColoursFollow(*graph, b));
    for (std::size_t n = 0; n < nodes; ++n) {
        if (lanesB[n] >= 0) {
            QCOMPARE(lanesB[n], b.plan.device[n]);
            QCOMPARE(secondColumn[static_cast<int>(n)],
                     QString::fromStdString(
                         outcome->deviceIds[static_cast<std::size_t>(b.plan.device[n])]));
        }
    }
    QCOMPARE(window.currentSchedule()->index, second);

    // A click on a node's bar in the timeline selects that node in every view.
    TimelineView* timeline = window.timelineView();
    int bar = -1;
    for (int i = 0; i < static_cast<int>(timeline->data().bars.size()); ++i) {
        if (timeline->data().bars[static_cast<std::size_t>(i)].node >= 0 &&
            timeline->barAt(timeline->barRect(i).center().toPoint()) == i) {
            bar = i;
            break;
        }
    }
    QVERIFY(bar >= 0);
    const int node = timeline->data().bars[static_cast<std::size_t>(bar)].node;
    QSignalSpy selected(&window, &MainWindow::nodeSelected);
    QTest::mouseClick(timeline, Qt::LeftButton, {}, timeline->barRect(bar).center().toPoint());
    QCOMPARE(window.selectedNode(), node);
    QCOMPARE(selected.last().at(0).toInt(), node);
    window.selectNode(-1);
    QCOMPARE(timeline->selectedNode(), -1);
}

// The Search menu's "lower precisions" choice: the search places each node's precision too
// (the example catalog's modelled bf16 and int8 peaks), and accuracy is an axis of the Pareto
// plot.
void TestEndToEnd::searchOffersPrecisions() {
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(openSampleAndWait(window));
    auto* action = window.findChild<QAction*>(QStringLiteral("variantsAction"));
    QVERIFY(action && action->isCheckable() && !action->isChecked());
    QSignalSpy searched(&window, &MainWindow::searchShown);
    SearchOptions options = withVariants({});
    QCOMPARE(options.variants,
             (std::vector<Variant>{
                 Precision::Bf16, Precision::Int8, {Precision::Fp32, Layout::ChannelsLast}}));
    QCOMPARE(options.objectives.back(), Objective::Accuracy);
    options.population = 40;
    options.generations = 30;
    window.searchPlacements(options);
    QVERIFY(action->isChecked()); // the menu shows what the search offers
    QTRY_COMPARE_WITH_TIMEOUT(searched.count(), 1, 60000);
    const auto outcome = window.currentSearch();
    QCOMPARE(window.searchOptions().variants, options.variants);
    // Every Conv, MatMul and Gemm has variants to be placed in: fp32, bf16, int8 (where the
    // catalog lists their peaks; on this small model the conversions make them slower) and
    // fp32-nhwc (no catalog figure: unsupported on the catalog's modelled devices).
    QCOMPARE(outcome->costs.variantCount(), 4);
    QCOMPARE(outcome->options.objectives.back(), Objective::Accuracy);
    ParetoPlot* plot = window.paretoPlot();
    plot->setAxes(Objective::Latency, Objective::Accuracy);
    QCOMPARE(plot->yObjective(), Objective::Accuracy);
    action->setChecked(false);
    window.setSearchOptions(options);
    QVERIFY(action->isChecked());
}

QTEST_MAIN(TestEndToEnd)
#include "tst_endtoend.moc"
