// SPDX-License-Identifier: GPL-3.0-or-later
// The workbench window, offscreen: loads on a worker, shows the model, the latest load wins,
// failures are reported, and the node table is a well-behaved item model.
#include "errorcases.h"
#include "graph/onnx_importer.h"
#include "mainwindow.h"
#include "modelloader.h"
#include "nodetablemodel.h"
#include "paretoplot.h"
#include "placementsearch.h"
#include "testpaths.h"
#include "workbench_fixture.h"

#include <QAbstractItemModelTester>
#include <QLabel>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QtTest>

using namespace paretune;

class TestWorkbench : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void opensBundledSample();
    void opensFileAndFillsTable();
    void nodeTableModelIsConsistent();
    void failureIsReported();
    void latestLoadWins();
    void selectNodeSyncsTable();
    void searchSelectPlanUpdatesTable();
    void searchCanBeCancelled();
    void searchWithoutModelIsRefused();
    void formatCount_data();
    void formatCount();
    void formatBytes();
};

void TestWorkbench::opensBundledSample() {
    MainWindow window;
    window.show();
    QSignalSpy shown(&window, &MainWindow::modelShown);
    window.openSampleModel();
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 30000);
    QVERIFY(window.currentModel());
    QCOMPARE(window.currentModel()->graph.unknownShapeCount(), 0);
    QCOMPARE(window.nodeTableModel()->rowCount(),
             static_cast<int>(window.currentModel()->graph.nodes.size()));
    const auto* summary = window.findChild<QLabel*>(QStringLiteral("summary"));
    QVERIFY(summary->text().contains(QStringLiteral("computed from shapes")));
    QVERIFY(window.windowTitle().startsWith(QStringLiteral("sample.onnx")));
}

void TestWorkbench::selectNodeSyncsTable() {
    MainWindow window;
    QSignalSpy shown(&window, &MainWindow::modelShown);
    window.openSampleModel();
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 30000);
    QSignalSpy selected(&window, &MainWindow::nodeSelected);
    window.selectNode(3);
    QCOMPARE(selected.count(), 1);
    QCOMPARE(selected.at(0).at(0).toInt(), 3);
    auto* table = nodeTableView(window);
    QVERIFY(table);
    const auto* proxy = qobject_cast<const QSortFilterProxyModel*>(table->model());
    QCOMPARE(proxy->mapToSource(table->currentIndex()).row(), 3);
    // Clicking another row in the table selects that node everywhere.
    table->setCurrentIndex(proxy->mapFromSource(window.nodeTableModel()->index(5, 0)));
    QCOMPARE(window.selectedNode(), 5);
    QCOMPARE(selected.last().at(0).toInt(), 5);
    window.selectNode(-1);
    QCOMPARE(window.selectedNode(), -1);
}

void TestWorkbench::opensFileAndFillsTable() {
    MainWindow window;
    QSignalSpy shown(&window, &MainWindow::modelShown);
    window.openModel(QStringLiteral(PARETUNE_SAMPLE_MODEL));
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 30000);
    const NodeTableModel* model = window.nodeTableModel();
    const Graph& g = window.currentModel()->graph;
    QVERIFY(model->rowCount() > 0);
    QCOMPARE(model->data(model->index(0, NodeTableModel::Name)).toString(),
             QString::fromStdString(g.nodes[0].name));
    QCOMPARE(
        model->data(model->index(0, NodeTableModel::Flops), NodeTableModel::SortRole).toDouble(),
        g.metrics[0].flops);
}

void TestWorkbench::nodeTableModelIsConsistent() {
    NodeTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setModel(std::make_shared<const ImportResult>(importOnnxFile(PARETUNE_SAMPLE_MODEL)));
    QVERIFY(model.rowCount() > 0);
    model.setModel(nullptr);
    QCOMPARE(model.rowCount(), 0);
}

void TestWorkbench::failureIsReported() {
    MainWindow window;
    QSignalSpy failed(&window, &MainWindow::errorShown);
    const QString broken = QStringLiteral(PARETUNE_TEST_DATA_DIR "/errors/truncated.onnx");
    window.openModel(broken);
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 30000);
    QVERIFY(failed.first().first().toString().contains(broken));
    QVERIFY(!window.currentModel());
}

void TestWorkbench::latestLoadWins() {
    MainWindow window;
    QSignalSpy shown(&window, &MainWindow::modelShown);
    QSignalSpy failed(&window, &MainWindow::errorShown);
    window.openModel(QStringLiteral(PARETUNE_TEST_DATA_DIR "/errors/truncated.onnx"));
    window.openModel(QStringLiteral(PARETUNE_SAMPLE_MODEL));
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 30000);
    QTest::qWait(200); // give a stale result the chance to arrive
    QCOMPARE(failed.count(), 0);
    QCOMPARE(shown.count(), 1);
}

void TestWorkbench::searchSelectPlanUpdatesTable() {
    MainWindow window;
    window.show();
    QSignalSpy shown(&window, &MainWindow::modelShown);
    window.openSampleModel();
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 30000);

    QSignalSpy searched(&window, &MainWindow::searchShown);
    SearchOptions options;
    options.population = 40;
    options.generations = 20;
    window.searchPlacements(options);
    QTRY_COMPARE_WITH_TIMEOUT(searched.count(), 1, 60000);
    const auto outcome = window.currentSearch();
    QVERIFY(outcome);
    QVERIFY(!outcome->result.front.empty());
    QCOMPARE(window.paretoPlot()->pointCount(), static_cast<int>(outcome->result.front.size()));
    QCOMPARE(outcome->deviceIds, (std::vector<std::string>{"cpu", "gpu", "npu"}));

    // Choosing two different plans changes the table's device column accordingly.
    const NodeTableModel* table = window.nodeTableModel();
    auto deviceColumn = [table] { return ::deviceColumn(*table); };
    QVERIFY(deviceColumn().join(QString()).isEmpty());
    QSignalSpy planShown(&window, &MainWindow::planShown);
    const int last = static_cast<int>(outcome->result.front.size()) - 1;
    window.paretoPlot()->selectPlan(0);
    QCOMPARE(planShown.count(), 1);
    const QStringList first = deviceColumn();
    QVERIFY(!first.join(QString()).isEmpty());
    window.paretoPlot()->selectPlan(last);
    QCOMPARE(window.paretoPlot()->selectedPlan(), last);
    if (last > 0 && outcome->result.front[0].genome !=
                        outcome->result.front[static_cast<std::size_t>(last)].genome) {
        QVERIFY(deviceColumn() != first);
    }
    // Every compute node got one of the searched devices.
    const Graph& g = window.currentModel()->graph;
    for (int row = 0; row < table->rowCount(); ++row) {
        if (g.nodes[static_cast<std::size_t>(row)].kind == NodeKind::Compute) {
            QVERIFY(
                QStringList({QStringLiteral("cpu"), QStringLiteral("gpu"), QStringLiteral("npu")})
                    .contains(deviceColumn()[row]));
        }
    }
}

void TestWorkbench::searchCanBeCancelled() {
    MainWindow window;
    QSignalSpy shown(&window, &MainWindow::modelShown);
    window.openSampleModel();
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 30000);
    QSignalSpy searched(&window, &MainWindow::searchShown);
    SearchOptions options;
    options.generations = 100000; // far longer than the test waits
    window.searchPlacements(options);
    QTest::qWait(300);
    window.cancelSearch();
    QTRY_COMPARE_WITH_TIMEOUT(searched.count(), 1, 30000);
    QVERIFY(window.currentSearch()->result.cancelled);
    QVERIFY(window.currentSearch()->result.generationsRun < 100000);
}

void TestWorkbench::searchWithoutModelIsRefused() {
    MainWindow window;
    QSignalSpy failed(&window, &MainWindow::errorShown);
    window.searchPlacements(SearchOptions{});
    QCOMPARE(failed.count(), 1);
    QVERIFY(!window.currentSearch());
}

void TestWorkbench::formatCount_data() {
    QTest::addColumn<double>("value");
    QTest::addColumn<QString>("text");
    QTest::newRow("small") << 12.0 << QStringLiteral("12");
    QTest::newRow("kilo") << 1500.0 << QStringLiteral("1.50 K");
    QTest::newRow("giga") << 8.21e9 << QStringLiteral("8.21 G");
}

void TestWorkbench::formatBytes() {
    QCOMPARE(NodeTableModel::formatBytes(0), QStringLiteral("0 B"));
    QCOMPARE(NodeTableModel::formatBytes(1730), QStringLiteral("1.73 KB"));
}

void TestWorkbench::formatCount() {
    QFETCH(double, value);
    QFETCH(QString, text);
    QCOMPARE(NodeTableModel::formatCount(value), text);
}

QTEST_MAIN(TestWorkbench)
#include "tst_workbench.moc"
