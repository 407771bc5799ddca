// SPDX-License-Identifier: GPL-3.0-or-later
// The main window's default layout on laptop screens: the window fits the screen, no dock
// covers another, the per-layer profile lists at least eight rows and Node properties its
// whole page; a View menu with every panel; menus in the usual order; constant nodes left out
// of the node table until asked for.
#include "graph/onnx_importer.h"
#include "mainwindow.h"
#include "nodetablefilter.h"
#include "nodetablemodel.h"
#include "paretoplot.h"
#include "windowlayout.h"
#include "workbench_fixture.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QCheckBox>
#include <QDockWidget>
#include <QMenu>
#include <QMenuBar>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTextBrowser>
#include <QToolBar>
#include <QtTest>

#include <set>

using namespace paretune;

class TestLayout : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void defaultGeometryFitsTheScreen_data();
    void defaultGeometryFitsTheScreen();
    void docksFitTheWindow_data();
    void docksFitTheWindow();
    void viewMenuListsEveryPanel();
    void menusEndWithHelp();
    void constantsHiddenByDefault();
};

void TestLayout::defaultGeometryFitsTheScreen_data() {
    QTest::addColumn<QRect>("available");
    QTest::addColumn<QRect>("expected");
    QTest::newRow("1280x800") << QRect(0, 0, 1280, 800) << QRect(0, 0, 1280, 800);
    QTest::newRow("1366x768 with a panel") << QRect(0, 0, 1366, 740) << QRect(0, 0, 1366, 740);
    QTest::newRow("1920x1080") << QRect(0, 0, 1920, 1080) << QRect(144, 81, 1632, 918);
    QTest::newRow("second screen")
        << QRect(1920, 0, 2560, 1440) << QRect(1920 + 192, 108, 2176, 1224);
}

void TestLayout::defaultGeometryFitsTheScreen() {
    QFETCH(QRect, available);
    QFETCH(QRect, expected);
    const QRect g = defaultWindowGeometry(available);
    QCOMPARE(g, expected);
    QVERIFY(available.contains(g));
}

void TestLayout::docksFitTheWindow_data() {
    QTest::addColumn<QSize>("size");
    QTest::addColumn<bool>("withPlan");
    QTest::newRow("1280x800") << QSize(1280, 800) << false;
    QTest::newRow("1366x768") << QSize(1366, 768) << false;
    QTest::newRow("1280x800, plan chosen") << QSize(1280, 800) << true;
    QTest::newRow("1366x768, plan chosen") << QSize(1366, 768) << true;
}

void TestLayout::docksFitTheWindow() {
    QFETCH(QSize, size);
    QFETCH(bool, withPlan);
    MainWindow window;
    QVERIFY(openSampleAndWait(window));
    if (withPlan) {
        SearchOptions quick;
        quick.population = 24;
        quick.generations = 10;
        QSignalSpy searched(&window, &MainWindow::searchShown);
        window.searchPlacements(quick);
        QVERIFY(searched.wait(60000));
        window.paretoPlot()->selectPlan(0);
    }
    // A window the size of the screen, laid out as the workbench starts on it.
    window.resize(size);
    window.findChild<QAction*>(QStringLiteral("defaultLayoutAction"))->trigger();
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.selectNode(0); // the sample's first Conv: attributes, tensors, costs
    if (qEnvironmentVariableIsSet("PARETUNE_LAYOUT_DEBUG")) {
        qDebug() << "window min" << window.minimumSizeHint() << "toolbar"
                 << window.findChild<QToolBar*>()->minimumSizeHint();
        for (QDockWidget* d : window.findChildren<QDockWidget*>()) {
            qDebug() << d->objectName() << d->geometry() << "min" << d->minimumSizeHint()
                     << d->widget()->minimumSizeHint();
        }
        qDebug() << "central" << window.centralWidget()->minimumSizeHint();
    }
    QTRY_COMPARE(window.size(), size); // the docks' minimum sizes fit: the window did not grow

    // No visible dock overlaps another, the graph, or the window's edge. (A dock behind another's
    // tab is moved out of the window, not hidden: it has nothing visible.)
    std::vector<QDockWidget*> docks;
    for (QDockWidget* d : window.findChildren<QDockWidget*>()) {
        if (d->isVisible() && !d->isFloating() && !d->visibleRegion().isEmpty()) {
            docks.push_back(d);
        }
    }
    QStringList shown;
    for (const QDockWidget* d : docks) {
        shown << d->objectName();
    }
    for (const char* name : {"propertiesDock", "paretoDock", "profileDock"}) {
        QVERIFY2(shown.contains(QLatin1String(name)), name);
    }
    const QRect central = window.centralWidget()->geometry();
    for (std::size_t i = 0; i < docks.size(); ++i) {
        const QRect a = docks[i]->geometry();
        QVERIFY2(window.rect().contains(a), qPrintable(docks[i]->objectName()));
        QVERIFY2(!a.intersects(central), qPrintable(docks[i]->objectName()));
        for (std::size_t j = i + 1; j < docks.size(); ++j) {
            QVERIFY2(!a.intersects(docks[j]->geometry()),
                     qPrintable(docks[i]->objectName() + QStringLiteral(" / ") +
                                docks[j]->objectName()));
        }
    }

    // The per-layer profile lists at least eight rows.
    QTableView* table = nodeTableView(window);
    QVERIFY(table && table->isVisible());
    QVERIFY(table->model()->rowCount() >= 8);
    QVERIFY2(table->rowViewportPosition(7) + table->rowHeight(7) <= table->viewport()->height(),
             qPrintable(QStringLiteral("%1 px for rows of %2 px")
                            .arg(table->viewport()->height())
                            .arg(table->rowHeight(0))));

    // Node properties shows its whole page: nothing to scroll to.
    auto* properties = window.findChild<QTextBrowser*>(QStringLiteral("nodeProperties"));
    QVERIFY(properties && properties->isVisible());
    QVERIFY(properties->toPlainText().contains(QStringLiteral("Cost per device")));
    QTRY_COMPARE(properties->verticalScrollBar()->maximum(), 0);
}

void TestLayout::viewMenuListsEveryPanel() {
    MainWindow window;
    auto* view = window.findChild<QMenu*>(QStringLiteral("viewMenu"));
    QVERIFY(view);
    std::set<QAction*> checkable;
    for (QAction* a : view->actions()) {
        if (a->isCheckable()) {
            checkable.insert(a);
        }
    }
    const QList<QDockWidget*> docks = window.findChildren<QDockWidget*>();
    QVERIFY(docks.size() >= 8);
    for (QDockWidget* d : docks) {
        QVERIFY2(checkable.count(d->toggleViewAction()), qPrintable(d->objectName()));
    }
    for (QToolBar* bar : window.findChildren<QToolBar*>()) {
        QVERIFY2(checkable.count(bar->toggleViewAction()), qPrintable(bar->objectName()));
    }
    // One entry per panel and tool bar, nothing twice.
    QCOMPARE(checkable.size(),
             static_cast<std::size_t>(docks.size() + window.findChildren<QToolBar*>().size()));

    // A closed panel comes back from its entry, and "Default layout" brings back all of them.
    QDockWidget* pareto = window.findChild<QDockWidget*>(QStringLiteral("paretoDock"));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    pareto->close();
    QVERIFY(!pareto->toggleViewAction()->isChecked());
    pareto->toggleViewAction()->trigger();
    QVERIFY(pareto->isVisible());
    pareto->close();
    window.findChild<QAction*>(QStringLiteral("defaultLayoutAction"))->trigger();
    QVERIFY(pareto->isVisible());
    QVERIFY(!pareto->isFloating());
}

void TestLayout::menusEndWithHelp() {
    MainWindow window;
    QStringList titles;
    for (QAction* a : window.menuBar()->actions()) {
        if (a->menu()) {
            titles << a->text().remove(QLatin1Char('&'));
        }
    }
    QCOMPARE(titles.first(), QStringLiteral("File"));
    QCOMPARE(titles.at(1), QStringLiteral("View"));
    QCOMPARE(titles.last(), QStringLiteral("Help"));
    QVERIFY(titles.indexOf(QStringLiteral("Settings")) == titles.size() - 2);
}

void TestLayout::constantsHiddenByDefault() {
    // Two constants feeding an Add and a Mul: the table lists those two only, until constants are
    // asked for.
    auto model =
        std::make_shared<ImportResult>(importOnnxText("<ir_version: 8, opset_import: [\"\" : 13]>\n"
                                                      "g (float[2] x) => (float[2] y) {\n"
                                                      "  a = Constant<value = float[2] {1, 2}>()\n"
                                                      "  b = Constant<value = float[2] {3, 4}>()\n"
                                                      "  s = Add(x, a)\n"
                                                      "  y = Mul(s, b)\n"
                                                      "}",
                                                      {}, "constants"));
    NodeTableModel nodes;
    nodes.setModel(model);
    int constants = 0;
    for (int row = 0; row < nodes.rowCount(); ++row) {
        constants += nodes.isConstant(row) ? 1 : 0;
    }
    QVERIFY2(constants >= 2, qPrintable(QString::number(constants)));
    NodeTableFilter filter;
    filter.setSourceModel(&nodes);
    QAbstractItemModelTester tester(&filter,
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(!filter.showsConstants());
    QCOMPARE(filter.rowCount(), nodes.rowCount() - constants);
    for (int row = 0; row < filter.rowCount(); ++row) {
        QVERIFY(!nodes.isConstant(filter.mapToSource(filter.index(row, 0)).row()));
    }
    filter.setShowConstants(true);
    QCOMPARE(filter.rowCount(), nodes.rowCount());
    // The text filter still applies to what is listed.
    filter.setFilterFixedString(QStringLiteral("Constant"));
    QCOMPARE(filter.rowCount(), constants);

    // In the window: a visible toggle, off.
    MainWindow window;
    auto* toggle = window.findChild<QCheckBox*>(QStringLiteral("showConstants"));
    QVERIFY(toggle);
    QVERIFY(!toggle->isChecked());
    QVERIFY(!toggle->isHidden());
}

QTEST_MAIN(TestLayout)
#include "tst_layout.moc"
