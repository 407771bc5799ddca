// SPDX-License-Identifier: GPL-3.0-or-later
// Persistence: the .paretune workspace (round trip, clear errors for bad files, reopening the
// chosen plan), recent files, the window layout in QSettings, and opening by drag-and-drop.
#include "common/input_error.h"
#include "graphview.h"
#include "mainwindow.h"
#include "paretoplot.h"
#include "placementsearch.h"
#include "testpaths.h"
#include "workspace.h"

#include <QDockWidget>
#include <QMenu>
#include <QMimeData>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace paretune;

class TestWorkspace : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void roundTrip();
    void relativePaths();
    void badFiles_data();
    void badFiles();
    void windowReopensChosenPlan();
    void windowKeepsGraphColouring();
    void badWorkspaceShowsError();
    void layoutPersists();
    void dropOpensModel();

private:
    QTemporaryDir m_dir;
};

void TestWorkspace::initTestCase() {
    QVERIFY(m_dir.isValid());
    // Settings of this test stay in its temporary folder.
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope,
                       m_dir.filePath(QStringLiteral("settings")));
}

void TestWorkspace::roundTrip() {
    Workspace w;
    w.modelPath = QStringLiteral("/models/resnet18.onnx");
    w.dbPath = QStringLiteral("/data/samples.db");
    w.catalogPath = QStringLiteral("/etc/paretune/catalog.json");
    w.devices = {QStringLiteral("cpu"), QStringLiteral("npu")};
    w.search.objectives = {Objective::Latency, Objective::PeakMemory};
    w.search.population = 64;
    w.search.generations = 120;
    w.search.seed = 42;
    w.search.coarseToFine = true;
    w.chosenPlan = 3;
    w.graphColouring = GraphColouring::Precision;
    const QString path = m_dir.filePath(QStringLiteral("round.paretune"));
    saveWorkspace(w, path);
    const Workspace r = loadWorkspace(path);
    QCOMPARE(r.modelPath, w.modelPath);
    QCOMPARE(r.dbPath, w.dbPath);
    QCOMPARE(r.catalogPath, w.catalogPath);
    QCOMPARE(r.devices, w.devices);
    QCOMPARE(r.search.objectives, w.search.objectives);
    QCOMPARE(r.search.population, 64);
    QCOMPARE(r.search.generations, 120);
    QCOMPARE(r.search.seed, std::uint64_t(42));
    QCOMPARE(r.search.coarseToFine, true);
    QCOMPARE(r.chosenPlan, 3);
    QCOMPARE(r.graphColouring, GraphColouring::Precision);
    // A workspace saved before views were kept shows the graph by device.
    const QByteArray older = R"({"schema": "paretune.workspace/1", "model": "m.onnx"})";
    QCOMPARE(workspaceFromJson(older, path).graphColouring, GraphColouring::Device);
    // Saving what was loaded gives the same file.
    QCOMPARE(workspaceToJson(r, path), workspaceToJson(w, path));
}

void TestWorkspace::relativePaths() {
    Workspace w;
    w.modelPath = m_dir.filePath(QStringLiteral("models/tiny.onnx"));
    const QString path = m_dir.filePath(QStringLiteral("rel.paretune"));
    const QByteArray json = workspaceToJson(w, path);
    QVERIFY2(json.contains("\"model\": \"models/tiny.onnx\""), json.constData());
    QCOMPARE(workspaceFromJson(json, path).modelPath, w.modelPath);
    w.modelPath = QStringLiteral(":/models/sample.onnx"); // the bundled sample stays as it is
    QCOMPARE(workspaceFromJson(workspaceToJson(w, path), path).modelPath, w.modelPath);
}

void TestWorkspace::badFiles_data() {
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("message");
    const QByteArray schema = R"("schema": "paretune.workspace/1")";
    QTest::newRow("not json") << QByteArray("{ model: ") << QStringLiteral("not valid JSON");
    QTest::newRow("array") << QByteArray("[]") << QStringLiteral("expected a JSON object");
    QTest::newRow("no schema") << QByteArray(R"({"model": "m.onnx"})")
                               << QStringLiteral("schema: missing");
    QTest::newRow("other schema") << QByteArray(
                                         R"({"schema": "paretune.workspace/9", "model": "m.onnx"})")
                                  << QStringLiteral("schema: expected \"paretune.workspace/1\"");
    QTest::newRow("no model") << QByteArray("{" + schema + "}") << QStringLiteral("model: missing");
    QTest::newRow("model number") << QByteArray("{" + schema + R"(, "model": 3})")
                                  << QStringLiteral("model: expected a string");
    QTest::newRow("unknown field") << QByteArray("{" + schema + R"(, "model": "m", "colour": 1})")
                                   << QStringLiteral("colour: unknown field");
    QTest::newRow("devices") << QByteArray("{" + schema +
                                           R"(, "model": "m", "devices": ["cpu", 4]})")
                             << QStringLiteral("devices[1]: expected a device id");
    QTest::newRow("population") << QByteArray("{" + schema +
                                              R"(, "model": "m", "search": {"population": 2}})")
                                << QStringLiteral("search.population: expected an integer from 4");
    QTest::newRow("generations")
        << QByteArray("{" + schema + R"(, "model": "m", "search": {"generations": "many"}})")
        << QStringLiteral("search.generations: expected an integer");
    QTest::newRow("objectives")
        << QByteArray("{" + schema +
                      R"(, "model": "m", "search": {"objectives": ["speed", "energy"]}})")
        << QStringLiteral("search.objectives:");
    QTest::newRow("view") << QByteArray("{" + schema + R"(, "model": "m", "view": "precision"})")
                          << QStringLiteral("view: expected an object");
    QTest::newRow("graph colouring")
        << QByteArray("{" + schema + R"(, "model": "m", "view": {"graph_colouring": "rainbow"}})")
        << QStringLiteral("view.graph_colouring: expected \"device\", \"latency\" or "
                          "\"precision\"");
    QTest::newRow("chosen plan") << QByteArray("{" + schema +
                                               R"(, "model": "m", "chosen_plan": 1.5})")
                                 << QStringLiteral("chosen_plan: expected a plan index");
}

void TestWorkspace::badFiles() {
    QFETCH(QByteArray, json);
    QFETCH(QString, message);
    const QString path = m_dir.filePath(QStringLiteral("bad.paretune"));
    try {
        workspaceFromJson(json, path);
        QFAIL("no error");
    } catch (const InputError& e) {
        const QString text = QString::fromStdString(e.what());
        QVERIFY2(text.startsWith(path + QStringLiteral(": ")), qPrintable(text));
        QVERIFY2(text.contains(message), qPrintable(text));
    }
    QVERIFY_THROWS_EXCEPTION(InputError,
                             loadWorkspace(m_dir.filePath(QStringLiteral("missing.paretune"))));
}

void TestWorkspace::windowReopensChosenPlan() {
    const QString path = m_dir.filePath(QStringLiteral("sample.paretune"));
    SearchOptions options;
    options.population = 24;
    options.generations = 10;
    Objectives chosen;
    int plan = -1;
    {
        MainWindow window;
        QSignalSpy shown(&window, &MainWindow::modelShown);
        window.openModel(QStringLiteral(PARETUNE_SAMPLE_MODEL));
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 30000);
        QSignalSpy searched(&window, &MainWindow::searchShown);
        window.searchPlacements(options);
        QTRY_COMPARE_WITH_TIMEOUT(searched.count(), 1, 60000);
        plan = static_cast<int>(window.currentSearch()->result.front.size()) - 1;
        window.paretoPlot()->selectPlan(plan);
        chosen = window.currentSearch()->result.front[static_cast<std::size_t>(plan)].objectives;
        QVERIFY(window.saveWorkspace(path));
    }
    MainWindow window;
    QSignalSpy planShown(&window, &MainWindow::planShown);
    QVERIFY(window.openWorkspace(path));
    QTRY_COMPARE_WITH_TIMEOUT(planShown.count(), 1, 60000);
    QCOMPARE(planShown.at(0).at(0).toInt(), plan);
    QCOMPARE(window.modelPath(), QStringLiteral(PARETUNE_SAMPLE_MODEL));
    const Objectives& again =
        window.currentSearch()->result.front[static_cast<std::size_t>(plan)].objectives;
    QCOMPARE(again.latencyUs, chosen.latencyUs);
    QCOMPARE(again.energyMj, chosen.energyMj);
    QVERIFY(window.recentFiles().contains(path));
    QVERIFY(window.recentFiles().contains(QStringLiteral(PARETUNE_SAMPLE_MODEL)));
}

void TestWorkspace::windowKeepsGraphColouring() {
    // The graph's colouring goes with the workspace: chosen in the View menu, saved, reopened.
    const QString path = m_dir.filePath(QStringLiteral("colouring.paretune"));
    {
        MainWindow window;
        QSignalSpy shown(&window, &MainWindow::modelShown);
        window.openModel(QStringLiteral(PARETUNE_SAMPLE_MODEL));
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 30000);
        auto* menu = window.findChild<QMenu*>(QStringLiteral("graphColourMenu"));
        QVERIFY(menu);
        menu->actions().at(2)->trigger();
        QCOMPARE(window.findChild<GraphView*>()->colouring(), GraphColouring::Precision);
        QVERIFY(window.saveWorkspace(path));
    }
    QCOMPARE(loadWorkspace(path).graphColouring, GraphColouring::Precision);
    MainWindow window;
    auto* view = window.findChild<GraphView*>();
    QCOMPARE(view->colouring(), GraphColouring::Device);
    QSignalSpy shown(&window, &MainWindow::modelShown);
    QVERIFY(window.openWorkspace(path));
    QCOMPARE(view->colouring(), GraphColouring::Precision);
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 30000);
    QCOMPARE(view->colouring(), GraphColouring::Precision); // the model shown keeps it
    QVERIFY(
        window.findChild<QMenu*>(QStringLiteral("graphColourMenu"))->actions().at(2)->isChecked());
}

void TestWorkspace::badWorkspaceShowsError() {
    const QString path = m_dir.filePath(QStringLiteral("broken.paretune"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("{\"schema\": \"paretune.workspace/1\"}");
    file.close();
    MainWindow window;
    QSignalSpy failed(&window, &MainWindow::errorShown);
    QVERIFY(!window.openWorkspace(path));
    QCOMPARE(failed.count(), 1);
    QVERIFY(failed.at(0).at(0).toString().contains(QStringLiteral("model: missing")));
    QVERIFY(!window.currentModel());
}

void TestWorkspace::layoutPersists() {
    {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.findChild<QDockWidget*>(QStringLiteral("timelineDock"))->hide();
        QVERIFY(window.findChild<QDockWidget*>(QStringLiteral("predictorDock"))->isVisible());
        window.close();
    }
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(!window.findChild<QDockWidget*>(QStringLiteral("timelineDock"))->isVisible());
    QVERIFY(window.findChild<QDockWidget*>(QStringLiteral("predictorDock"))->isVisible());
    window.findChild<QDockWidget*>(QStringLiteral("timelineDock"))->show();
    window.close();
}

void TestWorkspace::dropOpensModel() {
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QSignalSpy shown(&window, &MainWindow::modelShown);
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(QStringLiteral(PARETUNE_SAMPLE_MODEL))});
    const QPoint at(window.width() / 2, window.height() / 2);
    QDragEnterEvent enter(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &drop);
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 30000);
    // Something else is refused.
    QMimeData text;
    text.setUrls({QUrl::fromLocalFile(QStringLiteral(PARETUNE_SOURCE_DIR "/README.md"))});
    QDragEnterEvent refused(at, Qt::CopyAction, &text, Qt::LeftButton, Qt::NoModifier);
    refused.setAccepted(false);
    QApplication::sendEvent(&window, &refused);
    QVERIFY(!refused.isAccepted());
}

QTEST_MAIN(TestWorkspace)
#include "tst_workspace.moc"
