// SPDX-License-Identifier: GPL-3.0-or-later
// The workbench's docks and workflow actions: devices (real and modelled), the predictor
// panel's report of the sample library, the log, and the actions whose engine part is missing.
#include "devicelistmodel.h"
#include "mainwindow.h"
#include "placementsearch.h"
#include "predictorpanel.h"
#include "store/sample_library.h"
#include "testpaths.h"
#include "trainjob.h"
#include "workbench_fixture.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QDockWidget>
#include <QListWidget>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace paretune;

namespace {

/// A new sample library at `db` holding one predictor stored with `metricsJson`.
void storePredictor(const QString& db, const char* createdAt, const char* metricsJson) {
    SampleLibrary library = SampleLibrary::open(db.toStdString());
    PredictorRecord record;
    record.createdAt = createdAt;
    record.trainSetJson = "{}";
    record.metricsJson = metricsJson;
    library.addPredictor(record);
}

} // namespace

class TestDocks : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void devicesRealAndModelled();
    void docksExist();
    void planActionsWaitForPlan();
    void predictorWithoutLibrary();
    void predictorWithEmptyLibrary();
    void predictorWithStoredPredictor();
    void predictorCurvesApi();
    void predictorShowsStoredPrecisions();
    void badCatalogIsRefused();
    void searchDevicesAreTicked();
};

void TestDocks::devicesRealAndModelled() {
    MainWindow window;
    DeviceListModel* model = window.deviceListModel();
    QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QTRY_VERIFY_WITH_TIMEOUT(model->rowCount() > 0, 30000);
    bool real = false;
    bool modelled = false;
    for (int row = 0; row < model->rowCount(); ++row) {
        const QString id = model->data(model->index(row, DeviceListModel::Id)).toString();
        const QString tag = model->data(model->index(row, DeviceListModel::Tag)).toString();
        QVERIFY(tag == QStringLiteral("real") || tag == QStringLiteral("modelled"));
        real = real || (tag == QStringLiteral("real") && id == QStringLiteral("cpu"));
        modelled = modelled || (tag == QStringLiteral("modelled") && id == QStringLiteral("npu"));
    }
    QVERIFY(real);     // this machine's CPU
    QVERIFY(modelled); // the example catalog's NPU
    QVERIFY(model->profilableDevices().contains(QStringLiteral("cpu")));
    QVERIFY(!model->profilableDevices().contains(QStringLiteral("npu")));
}

void TestDocks::docksExist() {
    MainWindow window;
    for (const char* name :
         {"paretoDock", "timelineDock", "devicesDock", "diagnosticsDock", "predictorDock"}) {
        QVERIFY2(window.findChild<QDockWidget*>(QLatin1String(name)), name);
    }
    QCOMPARE(window.findChild<QDockWidget*>(QStringLiteral("diagnosticsDock"))->windowTitle(),
             QStringLiteral("Log / Issues"));
    window.logMessage(QStringLiteral("hello"));
    auto* log = window.findChild<QListWidget*>(QStringLiteral("log"));
    QVERIFY(log->item(log->count() - 1)->text().endsWith(QStringLiteral("hello")));
}

void TestDocks::planActionsWaitForPlan() {
    MainWindow window;
    // Validate and Export bundle act on a chosen plan: disabled before there is one.
    for (const char* name : {"validateAction", "exportAction"}) {
        auto* action = window.findChild<QAction*>(QLatin1String(name));
        QVERIFY2(action, name);
        QVERIFY(!action->isEnabled());
    }
    // Training runs in the workbench wherever the build has the predictor.
    QCOMPARE(window.findChild<QAction*>(QStringLiteral("trainAction"))->isEnabled(),
             TrainJob::available());
    QVERIFY(window.findChild<QAction*>(QStringLiteral("openAction"))->isEnabled());
    QVERIFY(!window.findChild<QAction*>(QStringLiteral("searchAction"))->isEnabled()); // no model
}

void TestDocks::predictorWithoutLibrary() {
    QTemporaryDir dir;
    PredictorPanel panel;
    panel.showLibrary(dir.filePath(QStringLiteral("none.db")));
    QVERIFY(panel.statusText().contains(QStringLiteral("No sample library")));
    QVERIFY(panel.statusText().contains(QStringLiteral("No predictor is trained")));
}

void TestDocks::predictorWithEmptyLibrary() {
    QTemporaryDir dir;
    const QString db = dir.filePath(QStringLiteral("samples.db"));
    SampleLibrary::open(db.toStdString());
    PredictorPanel panel;
    panel.showLibrary(db);
    QTRY_VERIFY_WITH_TIMEOUT(!panel.summaryPending(), 30000);
    QCOMPARE(panel.storedPredictorCount(), 0);
    QVERIFY2(panel.statusText().contains(QStringLiteral("No predictor is trained in")),
             qPrintable(panel.statusText()));
}

void TestDocks::predictorWithStoredPredictor() {
    QTemporaryDir dir;
    const QString db = dir.filePath(QStringLiteral("samples.db"));
    storePredictor(db, "2026-11-29T12:00:00Z", R"({"mape": 0.12, "spearman": 0.93})");
    PredictorPanel panel;
    panel.showLibrary(db);
    QTRY_VERIFY_WITH_TIMEOUT(!panel.summaryPending(), 30000);
    QCOMPARE(panel.storedPredictorCount(), 1);
    QVERIFY2(panel.statusText().contains(QStringLiteral("predictor #1")),
             qPrintable(panel.statusText()));
}

void TestDocks::predictorShowsStoredPrecisions() {
    // A predictor stored with its evaluation: the dock lists its figures overall and, the rows
    // holding variants, each precision's (as `paretune train` prints "Per precision"); one
    // evaluated on fp32 rows alone lists no precision.
    const char* withVariants = R"json({"split": {}, "evaluation": {"set": "held out",
      "predictor": {"ops": 50, "mape_percent": 21.5, "within_10_percent": 0.4, "spearman": 0.9,
                    "end_to_end_error_percent": 6.5},
      "roofline": {"ops": 50, "mape_percent": 80.0},
      "pairs": [{"pair": "tiny_cnn on cpu:0 (abc)", "predictor": {"ops": 50}}],
      "precisions": [
        {"precision": "fp32", "predictor": {"ops": 30, "mape_percent": 12.5}, "roofline": {}},
        {"precision": "bf16", "predictor": {"ops": 12, "mape_percent": 33.25}, "roofline": {}},
        {"precision": "int8", "predictor": {"ops": 8, "mape_percent": 41.0}, "roofline": {}},
        {"precision": "fp4", "predictor": {"ops": 1}}]}})json";
    const char* fp32Only = R"({"evaluation": {"predictor": {"ops": 9, "mape_percent": 7.0},
      "precisions": [{"precision": "fp32", "predictor": {"ops": 9, "mape_percent": 7.0}}]}})";
    for (const bool variants : {true, false}) {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("samples.db"));
        storePredictor(db, "2026-12-01T12:00:00Z", variants ? withVariants : fp32Only);
        PredictorPanel panel;
        panel.showLibrary(db);
        QTRY_VERIFY_WITH_TIMEOUT(!panel.summaryPending(), 30000);
        const QStringList names = panel.metricNames();
        QVERIFY2(names.size() >= 4, qPrintable(names.join(QStringLiteral("; "))));
        QCOMPARE(names.mid(0, 4),
                 QStringList({QStringLiteral("MAPE %"), QStringLiteral("Share within ±10%"),
                              QStringLiteral("Spearman"), QStringLiteral("End-to-end error %")}));
        if (!variants) {
            QCOMPARE(names.size(), 4);
            QCOMPARE(panel.predictorMetric(QStringLiteral("MAPE %")), 7.0);
            continue;
        }
        QCOMPARE(panel.predictorMetric(QStringLiteral("MAPE %")), 21.5);
        // One pair: no rows of its own. Three precisions this build knows, four rows each.
        QCOMPARE(names.size(), 4 + 3 * 4);
        QCOMPARE(panel.predictorMetric(QStringLiteral("MAPE %, fp32 (30 ops)")), 12.5);
        QCOMPARE(panel.predictorMetric(QStringLiteral("MAPE %, bf16 (12 ops)")), 33.25);
        QCOMPARE(panel.predictorMetric(QStringLiteral("MAPE %, int8 (8 ops)")), 41.0);
        QVERIFY(names.contains(QStringLiteral("End-to-end error %, int8 (8 ops)")));
        QVERIFY(names.filter(QStringLiteral("fp4")).isEmpty());
    }
}

void TestDocks::predictorCurvesApi() {
    PredictorPanel panel;
    panel.startTraining();
    panel.addLoss(1, 0.9, 1.0);
    panel.addLoss(2, 0.5, 0.7);
    QCOMPARE(panel.lossPointCount(), 2);
    panel.setHeldOut({10.0, 20.0, 40.0}, {12.0, 18.0, 44.0});
    QCOMPARE(panel.heldOutPointCount(), 3);
    panel.startTraining();
    QCOMPARE(panel.lossPointCount(), 0);
}

void TestDocks::badCatalogIsRefused() {
    MainWindow window;
    QSignalSpy failed(&window, &MainWindow::errorShown);
    QVERIFY(
        !window.setCatalogPath(QStringLiteral(PARETUNE_TEST_DATA_DIR "/catalogs/not_json.json")));
    QCOMPARE(failed.count(), 1);
    QVERIFY(failed.at(0).at(0).toString().contains(QStringLiteral("not_json.json")));
    QVERIFY(window.catalogPath().isEmpty());
    QVERIFY(window.setCatalogPath(QStringLiteral(PARETUNE_TEST_DATA_DIR "/devices/catalog.json")));
    QCOMPARE(window.catalogPath(), QStringLiteral(PARETUNE_TEST_DATA_DIR "/devices/catalog.json"));
}

void TestDocks::searchDevicesAreTicked() {
    MainWindow window;
    QVERIFY(openSampleAndWait(window));
    auto* list = window.findChild<QListWidget*>(QStringLiteral("searchDevices"));
    QVERIFY(list);
    QCOMPARE(list->count(), 3); // the example catalog: cpu, gpu, npu, all ticked
    for (int i = 0; i < list->count(); ++i) {
        QCOMPARE(list->item(i)->checkState(), Qt::Checked);
    }
    QVERIFY(window.searchDevices().isEmpty());
    list->findItems(QStringLiteral("gpu"), Qt::MatchExactly).first()->setCheckState(Qt::Unchecked);
    QCOMPARE(window.searchDevices(), QStringList({QStringLiteral("cpu"), QStringLiteral("npu")}));
    QSignalSpy searched(&window, &MainWindow::searchShown);
    SearchOptions options;
    options.population = 12;
    options.generations = 3;
    window.searchPlacements(options);
    QTRY_COMPARE_WITH_TIMEOUT(searched.count(), 1, 60000);
    QCOMPARE(window.currentSearch()->deviceIds, (std::vector<std::string>{"cpu", "npu"}));
    window.setSearchDevices({QStringLiteral("npu")});
    QCOMPARE(list->findItems(QStringLiteral("cpu"), Qt::MatchExactly).first()->checkState(),
             Qt::Unchecked);
    QCOMPARE(list->findItems(QStringLiteral("npu"), Qt::MatchExactly).first()->checkState(),
             Qt::Checked);
}

QTEST_MAIN(TestDocks)
#include "tst_docks.moc"
