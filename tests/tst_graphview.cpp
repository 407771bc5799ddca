// SPDX-License-Identifier: GPL-3.0-or-later
// The graph view in the workbench, offscreen: laid out on a worker, clicks and selections shared
// with the per-layer table, colours that follow the chosen plan (device, latency, precision),
// find, folded groups on a real Swin-T and the properties pane.
#include "graph/onnx_importer.h"
#include "graphcanvas.h"
#include "graphitems.h"
#include "graphlayout.h"
#include "graphoverview.h"
#include "graphpalette.h"
#include "graphview.h"
#include "mainwindow.h"
#include "nodeproperties.h"
#include "nodetablemodel.h"
#include "paretoplot.h"
#include "placementsearch.h"
#include "plan/simulator.h"
#include "planschedule.h"
#include "search_fixture.h"
#include "testpaths.h"

#include <QDockWidget>
#include <QGraphicsScene>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>

using namespace paretune;

namespace {

/// A window with the bundled sample shown and its graph laid out.
struct SampleWindow {
    MainWindow window;
    GraphView* view = nullptr;

    bool open() {
        window.resize(1200, 800);
        window.show();
        view = window.findChild<GraphView*>();
        if (!view) {
            return false;
        }
        QSignalSpy laidOut(view, &GraphView::layoutShown);
        window.openSampleModel();
        return laidOut.wait(30000) || laidOut.count() > 0;
    }
    bool search() {
        QSignalSpy searched(&window, &MainWindow::searchShown);
        SearchOptions options;
        options.population = 40;
        options.generations = 20;
        window.searchPlacements(options);
        return searched.wait(60000) || searched.count() > 0;
    }
    const Graph& graph() const { return window.currentModel()->graph; }
    /// The device index plan `index` gives each node.
    std::vector<std::int32_t> planDevices(int index) const {
        const auto outcome = window.currentSearch();
        const Simulator simulator(graph(), outcome->costs);
        return simulator.planOf(outcome->result.front[static_cast<std::size_t>(index)].genome)
            .device;
    }
    std::vector<QRgb> brushes() const {
        std::vector<QRgb> colours;
        for (NodeId n = 0; n < static_cast<NodeId>(graph().nodes.size()); ++n) {
            colours.push_back(view->nodeItem(n) ? view->nodeItem(n)->brush().color().rgb() : 0);
        }
        return colours;
    }
};

/// An exported test model, or an empty path when tools/export_models.py did not make it.
std::filesystem::path exportedModel(const char* name) {
    const auto file =
        std::filesystem::path(PARETUNE_TEST_MODELS_DIR) / (std::string(name) + ".onnx");
    return std::filesystem::exists(file) ? file : std::filesystem::path();
}

void clickOn(GraphView* view, const QGraphicsItem* item) {
    QWidget* viewport = view->canvas()->viewport();
    const QPoint at = view->canvas()->mapFromScene(item->sceneBoundingRect().center());
    QTest::mouseClick(viewport, Qt::LeftButton, Qt::NoModifier, at);
}

} // namespace

class TestGraphView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void graphIsCentralAndDocksAreNamed();
    void everyDrawnNodeHasABox();
    void clickingANodeSelectsItInTheTable();
    void selectingInTheTableHighlightsInTheGraph();
    void choosingAPlanColoursNodesByDevice();
    void latencyColoursNeedData();
    void precisionColoursFollowThePlan();
    void edgesShowShapesAndTransfers();
    void narrowChainsAndOwnThreadsAreShown();
    void findJumpsToTheNode();
    void findByOpTypeCycles();
    void propertiesShowCostsWithSources();
    void propertiesMarkThePlansPrecision();
    void zoomAndOverview();
    void swinIsGroupedAndFindExpands();
    void latestLayoutWins();
};

void TestGraphView::graphIsCentralAndDocksAreNamed() {
    MainWindow window;
    QVERIFY(qobject_cast<GraphView*>(window.centralWidget()));
    QStringList names;
    for (const QDockWidget* dock : window.findChildren<QDockWidget*>()) {
        QVERIFY2(!dock->objectName().isEmpty(), qPrintable(dock->windowTitle()));
        names << dock->objectName();
    }
    QVERIFY(names.contains(QStringLiteral("profileDock")));
    QVERIFY(names.contains(QStringLiteral("propertiesDock")));
    auto* profile = window.findChild<QDockWidget*>(QStringLiteral("profileDock"));
    QVERIFY(profile->isAncestorOf(window.findChild<QTableView*>(QStringLiteral("nodeTable"))));
}

void TestGraphView::everyDrawnNodeHasABox() {
    SampleWindow w;
    QVERIFY(w.open());
    const auto layout = w.view->currentLayout();
    QVERIFY(layout);
    QVERIFY(!layout->outline->grouped);
    for (NodeId n = 0; n < static_cast<NodeId>(w.graph().nodes.size()); ++n) {
        GraphNodeItem* item = w.view->nodeItem(n);
        QVERIFY(item);
        QVERIFY(!item->isGroup());
        QCOMPARE(item->rect(), layout->itemRects[static_cast<std::size_t>(item->outlineItem())]);
    }
    QCOMPARE(static_cast<std::size_t>(w.view->scene()->items().size()),
             layout->outline->items.size() + layout->outline->edges.size());
    QVERIFY(w.view->legendText().contains(QStringLiteral("No plan selected")));
}

void TestGraphView::clickingANodeSelectsItInTheTable() {
    SampleWindow w;
    QVERIFY(w.open());
    const NodeId fc = w.graph().findNode("/fc/Gemm");
    QVERIFY(fc != kNone);
    w.view->fit();
    w.view->canvas()->zoomBy(0.25 / w.view->canvas()->zoom()); // small, but all in sight
    w.window.selectNode(-1);
    QSignalSpy selected(&w.window, &MainWindow::nodeSelected);
    const QTransform before = w.view->canvas()->transform();
    const QRectF shown = w.view->canvas()->visibleSceneRect();
    clickOn(w.view, w.view->nodeItem(fc));
    // A click selects without moving the view.
    QCOMPARE(w.view->canvas()->transform(), before);
    QCOMPARE(w.view->canvas()->visibleSceneRect(), shown);
    QCOMPARE(w.window.selectedNode(), fc);
    QCOMPARE(selected.count(), 1);
    auto* table = w.window.findChild<QTableView*>(QStringLiteral("nodeTable"));
    const auto* proxy = qobject_cast<const QSortFilterProxyModel*>(table->model());
    QCOMPARE(proxy->mapToSource(table->currentIndex()).row(), fc);
    QVERIFY(w.view->nodeItem(fc)->isHighlighted());
    // The properties pane follows.
    auto* properties = w.window.findChild<NodeProperties*>();
    QCOMPARE(properties->shownNode(), fc);
    QVERIFY(properties->toPlainText().contains(QStringLiteral("/fc/Gemm")));
}

void TestGraphView::selectingInTheTableHighlightsInTheGraph() {
    SampleWindow w;
    QVERIFY(w.open());
    auto* table = w.window.findChild<QTableView*>(QStringLiteral("nodeTable"));
    const auto* proxy = qobject_cast<const QSortFilterProxyModel*>(table->model());
    for (const NodeId n : {3, 28, 0}) {
        w.view->fit();
        w.view->canvas()->zoomBy(0.2); // too small to read
        table->setCurrentIndex(proxy->mapFromSource(w.window.nodeTableModel()->index(n, 0)));
        QCOMPARE(w.window.selectedNode(), n);
        int highlighted = 0;
        for (NodeId other = 0; other < static_cast<NodeId>(w.graph().nodes.size()); ++other) {
            highlighted += w.view->nodeItem(other)->isHighlighted() ? 1 : 0;
        }
        QCOMPARE(highlighted, 1);
        QVERIFY(w.view->nodeItem(n)->isHighlighted());
        // The view zoomed in and scrolled to it.
        QVERIFY(w.view->canvas()->visibleSceneRect().contains(
            w.view->nodeItem(n)->sceneBoundingRect()));
        QVERIFY(w.view->canvas()->zoom() >= 0.3);
    }
}

void TestGraphView::choosingAPlanColoursNodesByDevice() {
    SampleWindow w;
    QVERIFY(w.open());
    const std::vector<QRgb> before = w.brushes();
    QVERIFY(w.search());
    const auto outcome = w.window.currentSearch();
    const int last = static_cast<int>(outcome->result.front.size()) - 1;
    std::vector<std::vector<QRgb>> seen;
    for (const int plan : {0, last}) {
        w.window.paretoPlot()->selectPlan(plan);
        const std::vector<std::int32_t> devices = w.planDevices(plan);
        for (NodeId n = 0; n < static_cast<NodeId>(w.graph().nodes.size()); ++n) {
            QCOMPARE(w.view->nodeItem(n)->brush().color(),
                     deviceColour(devices[static_cast<std::size_t>(n)]));
        }
        QVERIFY(w.view->legendText().contains(QStringLiteral("plan %1").arg(plan)));
        const NodeId conv = w.graph().findNode("/stem/stem.0/Conv");
        const QString device = QString::fromStdString(
            outcome->deviceIds[static_cast<std::size_t>(devices[static_cast<std::size_t>(conv)])]);
        QVERIFY(w.view->nodeItem(conv)->toolTip().contains(
            QStringLiteral("Plan %1: %2, ").arg(plan).arg(device)));
        QVERIFY(w.view->nodeItem(conv)->toolTip().contains(QStringLiteral("(modelled)")));
        for (const std::string& id : outcome->deviceIds) {
            QVERIFY(w.view->legendText().contains(QString::fromStdString(id)));
        }
        seen.push_back(w.brushes());
    }
    QVERIFY(seen[0] != before);
    if (w.planDevices(0) != w.planDevices(last)) {
        QVERIFY(seen[0] != seen[1]);
    }
}

void TestGraphView::latencyColoursNeedData() {
    SampleWindow w;
    QVERIFY(w.open());
    w.view->setColouring(GraphView::Colouring::Latency);
    QVERIFY(w.view->legendText().contains(QStringLiteral("No latency data")));
    const std::vector<QRgb> grey = w.brushes();
    QCOMPARE(std::set<QRgb>(grey.begin(), grey.end()).size(), std::size_t{1});

    QVERIFY(w.search());
    w.window.paretoPlot()->selectPlan(0);
    QVERIFY(w.view->legendText().contains(QStringLiteral("modelled")));
    const std::vector<QRgb> heat = w.brushes();
    QVERIFY(std::set<QRgb>(heat.begin(), heat.end()).size() > 3);
    // The slowest compute node gets the darkest colour of the scale.
    const auto outcome = w.window.currentSearch();
    const std::vector<std::int32_t> devices = w.planDevices(0);
    NodeId slowest = kNone;
    double most = 0.0;
    for (NodeId n = 0; n < static_cast<NodeId>(w.graph().nodes.size()); ++n) {
        const std::int32_t d = devices[static_cast<std::size_t>(n)];
        if (d >= 0 && w.graph().nodes[static_cast<std::size_t>(n)].kind == NodeKind::Compute &&
            outcome->costs.cell(n, d).latencyUs > most) {
            most = outcome->costs.cell(n, d).latencyUs;
            slowest = n;
        }
    }
    QVERIFY(slowest != kNone);
    QCOMPARE(w.view->nodeItem(slowest)->brush().color(), HeatScale::colourAt(1.0));
}

void TestGraphView::precisionColoursFollowThePlan() {
    SampleWindow w;
    QVERIFY(w.open());
    // View > Colour graph by, and the choice above the graph, are one setting.
    auto* menu = w.window.findChild<QMenu*>(QStringLiteral("graphColourMenu"));
    QVERIFY(menu);
    QVERIFY(w.window.findChild<QMenu*>(QStringLiteral("viewMenu"))
                ->actions()
                .contains(menu->menuAction()));
    QCOMPARE(menu->actions().size(), 3);
    QVERIFY(menu->actions().at(0)->isChecked());
    menu->actions().at(2)->trigger();
    QCOMPARE(w.view->colouring(), GraphView::Colouring::Precision);
    // Without a plan every node is in fp32.
    const QColor fp32 = precisionColour(Precision::Fp32);
    for (const QRgb colour : w.brushes()) {
        QCOMPARE(QColor(colour), fp32);
    }
    QVERIFY(w.view->legendText().contains(QStringLiteral("No plan selected")));
    QVERIFY(w.view->legendText().contains(fp32.name()));

    // A plan with nodes in bf16 and int8: each node takes its precision's colour.
    const auto lowered = sampleLoweredOutcome(w.window.currentModel());
    w.view->setSearch(lowered);
    w.view->setPlan(0);
    const std::vector<std::int32_t> variants = frontPlanVariants(*lowered, 0);
    std::map<Precision, int> computing;
    for (NodeId n = 0; n < static_cast<NodeId>(w.graph().nodes.size()); ++n) {
        const Precision p = lowered->costs.variant(variants[static_cast<std::size_t>(n)]).precision;
        QCOMPARE(w.view->nodeItem(n)->brush().color(), precisionColour(p));
        if (w.graph().nodes[static_cast<std::size_t>(n)].kind == NodeKind::Compute) {
            ++computing[p];
        }
        // The plan's line in the tooltip names a lowered node's precision beside its device.
        const QString tip = w.view->nodeItem(n)->toolTip();
        const QString where = QStringLiteral("Plan 0: cpu · %1")
                                  .arg(QString::fromStdString(std::string(precisionName(p))));
        QVERIFY2(p == Precision::Fp32 ? tip.contains(QStringLiteral("Plan 0: cpu")) &&
                                            !tip.contains(QStringLiteral("Plan 0: cpu ·"))
                                      : tip.contains(where),
                 qPrintable(tip));
    }
    QVERIFY(computing[Precision::Bf16] > 0);
    QVERIFY(computing[Precision::Int8] > 0);
    // The legend lists each precision the search offered, its colour and its nodes.
    const QString legend = w.view->legendText();
    QVERIFY2(legend.contains(QStringLiteral("Variant in plan 0")), qPrintable(legend));
    for (const Precision p : {Precision::Fp32, Precision::Bf16, Precision::Int8}) {
        const QString name = QString::fromStdString(std::string(precisionName(p)));
        QVERIFY2(legend.contains(QStringLiteral("%1</span> %2 (%3 compute nodes)")
                                     .arg(QStringLiteral("&#9632;"), name)
                                     .arg(computing[p])),
                 qPrintable(legend));
        QVERIFY2(legend.contains(precisionColour(p).name()), qPrintable(legend));
    }
    // Back to devices: the plan runs everything on the host.
    menu->actions().at(0)->trigger();
    QCOMPARE(w.view->colouring(), GraphView::Colouring::Device);
    const std::vector<std::int32_t> devices = frontPlanDevices(*lowered, 0);
    for (NodeId n = 0; n < static_cast<NodeId>(w.graph().nodes.size()); ++n) {
        QCOMPARE(w.view->nodeItem(n)->brush().color(),
                 deviceColour(devices[static_cast<std::size_t>(n)]));
    }
}

void TestGraphView::edgesShowShapesAndTransfers() {
    SampleWindow w;
    QVERIFY(w.open());
    const auto layout = w.view->currentLayout();
    const auto& edges = w.view->edgeItems();
    QCOMPARE(edges.size(), layout->outline->edges.size());
    for (const GraphEdgeItem* edge : edges) {
        const TensorLink& link =
            layout->outline->edges[static_cast<std::size_t>(edge->outlineEdge())].links[0];
        const Tensor& t = w.graph().tensors[static_cast<std::size_t>(link.tensor)];
        QVERIFY(edge->toolTip().contains(QString::fromStdString(t.typeString())));
        QVERIFY(!edge->isTransfer());
    }
    QVERIFY(w.search());
    const auto outcome = w.window.currentSearch();
    for (int plan = 0; plan < static_cast<int>(outcome->result.front.size()); ++plan) {
        w.window.paretoPlot()->selectPlan(plan);
        const std::vector<std::int32_t> devices = w.planDevices(plan);
        for (const GraphEdgeItem* edge : edges) {
            const TensorLink& link =
                layout->outline->edges[static_cast<std::size_t>(edge->outlineEdge())].links[0];
            const std::int32_t from = devices[static_cast<std::size_t>(link.producer)];
            const std::int32_t to = devices[static_cast<std::size_t>(link.consumer)];
            const bool crosses = from >= 0 && to >= 0 && from != to;
            QCOMPARE(edge->isTransfer(), crosses);
            QCOMPARE(edge->toolTip().contains(QStringLiteral("transfer")), crosses);
            QCOMPARE(edge->pen().style(), crosses ? Qt::DashLine : Qt::SolidLine);
        }
    }
}

void TestGraphView::narrowChainsAndOwnThreadsAreShown() {
    // The lowerable nodes in bf16, in turn on the cpu and the gpu where they have a cell there;
    // the others in fp32 on one thread of the host (cells set by hand: the catalog has none).
    SampleWindow w;
    QVERIFY(w.open());
    auto outcome = std::make_shared<SearchOutcome>();
    outcome->model = w.window.currentModel();
    const Variant t1{Precision::Fp32, Layout::Nchw, 1};
    outcome->options.variants = {Precision::Bf16, t1};
    CostTableOptions costOptions;
    costOptions.variants = outcome->options.variants;
    outcome->costs = buildCostTable(
        w.graph(), loadDeviceCatalog(PARETUNE_SOURCE_DIR "/resources/catalogs/example.json"),
        {"cpu", "gpu", "npu"}, costOptions);
    outcome->deviceIds = {"cpu", "gpu", "npu"};
    CostTable& costs = outcome->costs;
    const std::int32_t host = costs.host();
    for (NodeId n = 0; n < static_cast<NodeId>(w.graph().nodes.size()); ++n) {
        costs.setCell(n, host, 2, costs.cell(n, host, 0));
    }
    Simulator simulator(w.graph(), costs);
    Solution plan;
    int turn = 0;
    for (std::int32_t ci = 0; ci < simulator.computeCount(); ++ci) {
        const std::int32_t d = turn % 2 == 0 ? host : costs.findDevice("gpu");
        const bool bf16 = simulator.columnSupported(ci, simulator.column(d, 1));
        turn += bf16 ? 1 : 0;
        plan.genome.push_back(
            static_cast<std::uint8_t>(bf16 ? simulator.column(d, 1) : simulator.column(host, 2)));
    }
    const SimulationResult simulated = simulator.simulate(simulator.planOf(plan.genome));
    plan.objectives = simulated.objectives;
    outcome->result.front = {plan};
    outcome->priority.assign(simulator.priority().begin(), simulator.priority().end());
    w.view->setSearch(outcome);
    w.view->setPlan(0);
    const QString legend = w.view->legendText();
    QVERIFY2(legend.contains(QStringLiteral("of them on their own threads (%1)")
                                 .arg(simulator.computeCount() - turn)),
             qPrintable(legend));
    // A crossing edge says "kept in bf16" exactly where the simulator holds its tensor narrow.
    std::set<TensorId> narrow;
    for (const auto& [tensor, bytes] : simulated.narrowed) {
        narrow.insert(tensor);
    }
    int kept = 0;
    const auto layout = w.view->currentLayout();
    for (const GraphEdgeItem* edge : w.view->edgeItems()) {
        const auto& links = layout->outline->edges[static_cast<std::size_t>(edge->outlineEdge())];
        if (links.links.size() == 1 && edge->isTransfer()) {
            const bool says = edge->toolTip().contains(QStringLiteral("(kept in bf16)"));
            QVERIFY2(says == (narrow.count(links.links[0].tensor) == 1),
                     qPrintable(edge->toolTip()));
            kept += says ? 1 : 0;
        }
    }
    QVERIFY(kept > 0);
}

void TestGraphView::findJumpsToTheNode() {
    SampleWindow w;
    QVERIFY(w.open());
    w.view->canvas()->zoomBy(4.0); // the whole graph no longer fits
    auto* find = w.view->findChild<QLineEdit*>(QStringLiteral("graphFind"));
    QVERIFY(find);
    QTest::keyClick(&w.window, Qt::Key_F, Qt::ControlModifier);
    QVERIFY(find->hasFocus());
    QTest::keyClicks(find, QStringLiteral("blocks.2/add"));
    QTest::keyClick(find, Qt::Key_Return);
    const NodeId add = w.graph().findNode("/blocks/blocks.2/Add");
    QCOMPARE(w.window.selectedNode(), add);
    QVERIFY(w.view->nodeItem(add)->isHighlighted());
    const QPointF centre = w.view->canvas()->visibleSceneRect().center();
    const QRectF box = w.view->nodeItem(add)->sceneBoundingRect();
    QVERIFY(QLineF(centre, box.center()).length() < 5.0);
    QTest::keyClick(find, Qt::Key_Escape);
    QVERIFY(w.view->canvas()->hasFocus());
    QVERIFY(!w.view->find(QStringLiteral("no such node")));
    QCOMPARE(w.window.selectedNode(), add);
}

void TestGraphView::findByOpTypeCycles() {
    SampleWindow w;
    QVERIFY(w.open());
    std::vector<NodeId> found;
    for (int i = 0; i < 4; ++i) {
        QVERIFY(w.view->find(QStringLiteral("add")));
        found.push_back(w.window.selectedNode());
    }
    // Three Add nodes, then the first again.
    for (const NodeId n : found) {
        QCOMPARE(QString::fromStdString(w.graph().nodes[static_cast<std::size_t>(n)].opType),
                 QStringLiteral("Add"));
    }
    QCOMPARE(std::set<NodeId>(found.begin(), found.end()).size(), std::size_t{3});
    QCOMPARE(found[3], found[0]);
}

void TestGraphView::propertiesShowCostsWithSources() {
    SampleWindow w;
    QVERIFY(w.open());
    auto* properties = w.window.findChild<NodeProperties*>();
    const NodeId conv = w.graph().findNode("/stem/stem.0/Conv");
    w.window.selectNode(conv);
    QString text = properties->toPlainText();
    QVERIFY(text.contains(QStringLiteral("Conv")));
    QVERIFY(text.contains(QStringLiteral("attribute kernel_shape")));
    QVERIFY(text.contains(QStringLiteral("[3,3]")));
    QVERIFY(!text.contains(QStringLiteral("kernel_shape=")));
    QVERIFY(text.contains(QString::fromStdString(
        w.graph()
            .tensors[static_cast<std::size_t>(w.graph().nodeOutputs.row(conv)[0])]
            .typeString())));
    QVERIFY(text.contains(QStringLiteral("No costs available")));
    QVERIFY(!text.contains(QStringLiteral("Workspace")));

    QVERIFY(w.search());
    w.window.paretoPlot()->selectPlan(0);
    text = properties->toPlainText();
    QVERIFY(!text.contains(QStringLiteral("No costs available")));
    const auto outcome = w.window.currentSearch();
    for (std::int32_t d = 0; d < outcome->costs.deviceCount(); ++d) {
        const CostCell& cell = outcome->costs.cell(conv, d);
        QVERIFY(text.contains(QString::fromStdString(outcome->costs.device(d).id)));
        if (cell.supported()) {
            QVERIFY(text.contains(paretune::formatMicroseconds(cell.latencyUs)));
        }
    }
    QVERIFY(text.contains(QStringLiteral("modelled")));
    QVERIFY(text.contains(QStringLiteral("(plan)")));
}

void TestGraphView::propertiesMarkThePlansPrecision() {
    // The plan's cell is marked where the node runs: in the variants' table for a lowered node
    // (its device and precision), in the per-device table for an fp32 one.
    const auto lowered = sampleLoweredOutcome();
    const std::vector<std::int32_t> variants = frontPlanVariants(*lowered, 0);
    NodeProperties properties;
    properties.setModel(lowered->model);
    properties.setSearch(lowered);
    properties.setPlan(0);
    const Graph& g = lowered->model->graph;
    std::set<Precision> seen;
    for (NodeId n = 0; n < static_cast<NodeId>(g.nodes.size()); ++n) {
        if (g.nodes[static_cast<std::size_t>(n)].kind != NodeKind::Compute) {
            continue;
        }
        const Precision p = lowered->costs.variant(variants[static_cast<std::size_t>(n)]).precision;
        properties.showNode(n);
        const QString text = properties.toPlainText();
        QCOMPARE(text.count(QStringLiteral("(plan)")), 1);
        const QString cell = text.mid(text.indexOf(QStringLiteral("(plan)")), 40);
        if (p == Precision::Fp32) {
            QVERIFY2(!cell.contains(QStringLiteral("bf16")) &&
                         !cell.contains(QStringLiteral("int8")),
                     qPrintable(cell));
        } else {
            QVERIFY2(cell.contains(QString::fromStdString(std::string(precisionName(p)))),
                     qPrintable(cell));
        }
        seen.insert(p);
    }
    QCOMPARE(seen.size(), std::size_t{3});
}

void TestGraphView::zoomAndOverview() {
    SampleWindow w;
    QVERIFY(w.open());
    GraphCanvas* canvas = w.view->canvas();
    w.view->fit();
    const double fitted = canvas->zoom();
    QTest::keyClick(canvas, Qt::Key_Plus);
    QVERIFY(canvas->zoom() > fitted);
    QTest::keyClick(canvas, Qt::Key_0);
    QVERIFY(std::abs(canvas->zoom() - fitted) < 1e-9);
    QVERIFY(!w.view->overview()->isVisible()); // everything is in sight
    canvas->zoomBy(1e-6);
    QVERIFY(canvas->zoom() > 0.0);
    canvas->zoomBy(1e9);
    QCOMPARE(canvas->zoom(), 4.0);
    // The overview outlines what the canvas shows; a click there moves the canvas.
    GraphOverview* overview = w.view->overview();
    QVERIFY(overview->isVisible());
    QCOMPARE(overview->visibleRect(), canvas->visibleSceneRect());
    const QPointF target = w.view->scene()->sceneRect().bottomLeft() + QPointF(60.0, -60.0);
    QTest::mouseClick(overview, Qt::LeftButton, Qt::NoModifier,
                      overview->toWidget(target).toPoint());
    QVERIFY(QLineF(canvas->visibleSceneRect().center(), target).length() <
            w.view->scene()->sceneRect().height() / 10.0 + 60.0);
}

void TestGraphView::swinIsGroupedAndFindExpands() {
    const std::filesystem::path file = exportedModel("swin_t");
    if (file.empty()) {
        QSKIP("swin_t.onnx is not exported (tools/export_models.py)");
    }
    auto model = std::make_shared<const ImportResult>(importOnnxFile(file.string()));
    GraphView view;
    view.resize(1000, 700);
    view.show();
    QSignalSpy laidOut(&view, &GraphView::layoutShown);
    view.setModel(model);
    QVERIFY(laidOut.wait(120000));
    const auto layout = view.currentLayout();
    QVERIFY(layout->outline->grouped);
    QVERIFY(layout->outline->items.size() <= 600);
    QVERIFY(layout->outline->drawnNodeCount > 3000);
    // A node deep inside a folded block: find expands what hides it.
    const NodeId softmax = model->graph.findNode("/features/features.5/features.5.3/attn/Softmax");
    QVERIFY(softmax != kNone);
    QVERIFY(view.nodeItem(softmax)->isGroup());
    QVERIFY(view.find(QStringLiteral("features.5.3/attn/Softmax")));
    QVERIFY(laidOut.wait(120000));
    QVERIFY(!view.nodeItem(softmax)->isGroup());
    QVERIFY(view.nodeItem(softmax)->isHighlighted());
    QVERIFY(view.canvas()->visibleSceneRect().contains(
        view.nodeItem(softmax)->sceneBoundingRect().center()));
    // Double-clicking a revealed node folds its scope again.
    QTest::mouseDClick(
        view.canvas()->viewport(), Qt::LeftButton, Qt::NoModifier,
        view.canvas()->mapFromScene(view.nodeItem(softmax)->sceneBoundingRect().center()));
    QVERIFY(laidOut.wait(120000));
    QVERIFY(view.nodeItem(softmax)->isGroup());
    QVERIFY(view.find(QStringLiteral("features.5.3/attn/Softmax")));
    QVERIFY(laidOut.wait(120000));
    QVERIFY(!view.nodeItem(softmax)->isGroup());
    // Double-clicking a folded group expands it.
    GraphNodeItem* group = nullptr;
    for (QGraphicsItem* item : view.scene()->items()) {
        if (item->type() == GraphNodeItem::Type && static_cast<GraphNodeItem*>(item)->isGroup()) {
            group = static_cast<GraphNodeItem*>(item);
            break;
        }
    }
    QVERIFY(group);
    const OutlineItem folded =
        view.currentLayout()->outline->items[static_cast<std::size_t>(group->outlineItem())];
    const std::size_t itemsBefore = view.currentLayout()->outline->items.size();
    QTest::mouseDClick(view.canvas()->viewport(), Qt::LeftButton, Qt::NoModifier,
                       view.canvas()->mapFromScene(group->sceneBoundingRect().center()));
    QVERIFY(laidOut.wait(120000));
    const auto expanded = view.currentLayout();
    QVERIFY(expanded->outline->items.size() > itemsBefore);
    for (const OutlineItem& item : expanded->outline->items) {
        QVERIFY(item.key != folded.key);
    }
}

void TestGraphView::latestLayoutWins() {
    const std::filesystem::path file = exportedModel("bert_base");
    if (file.empty()) {
        QSKIP("bert_base.onnx is not exported (tools/export_models.py)");
    }
    auto big = std::make_shared<const ImportResult>(importOnnxFile(file.string()));
    auto small = std::make_shared<const ImportResult>(importOnnxFile(PARETUNE_SAMPLE_MODEL));
    GraphView view;
    QSignalSpy laidOut(&view, &GraphView::layoutShown);
    view.setModel(big);
    // The layout runs on the worker: setModel returned before it was done.
    QVERIFY(view.isLayingOut());
    QVERIFY(view.scene()->items().isEmpty());
    view.setModel(small);
    QVERIFY(laidOut.wait(120000));
    QTRY_VERIFY_WITH_TIMEOUT(!view.isLayingOut(), 120000);
    QTest::qWait(100); // a stale result would arrive now
    QCOMPARE(laidOut.count(), 1);
    QCOMPARE(view.currentLayout()->outline->drawnNodeCount,
             static_cast<std::int32_t>(small->graph.nodes.size()));
}

QTEST_MAIN(TestGraphView)
#include "tst_graphview.moc"
