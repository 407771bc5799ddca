// SPDX-License-Identifier: GPL-3.0-or-later
// Profiling from the workbench: the job runs on a worker into the sample library, the GUI thread
// keeps processing events meanwhile, Cancel stops it between operators and keeps what was
// measured, and a second run reuses the stored samples; the predictor trains on them from the
// workbench too (loss per epoch, predicted beside measured, metrics beside the roofline).
#include "adaptjob.h"
#include "devicelistmodel.h"
#include "graph/onnx_importer.h"
#include "mainwindow.h"
#include "nodetablemodel.h"
#include "onnx_fixture.h"
#include "predictorpanel.h"
#include "profilejob.h"
#include "samplefixture.h"
#include "store/sample_library.h"
#include "testpaths.h"
#include "trainjob.h"
#include "workbench_fixture.h"

#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <cmath>

using namespace paretune;

class TestProfileJob : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void profilesIntoLibraryThenReuses();
    void cancelKeepsWhatWasMeasured();
    void modelledDeviceIsRefused();
    void trainsThePredictorOnTheProfile();
    void showsEachPrecisionAfterTraining();

private:
    static void openSample(MainWindow& window);
    QTemporaryDir m_dir;
};

void TestProfileJob::openSample(MainWindow& window) {
    QVERIFY(openSampleAndWait(window));
    QTRY_VERIFY_WITH_TIMEOUT(
        window.deviceListModel()->profilableDevices().contains(QStringLiteral("cpu")), 30000);
}

void TestProfileJob::profilesIntoLibraryThenReuses() {
    MainWindow window;
    openSample(window);
    const QString db = m_dir.filePath(QStringLiteral("samples.db"));
    window.setDatabasePath(db);
    QSignalSpy finished(window.profileJob(), &ProfileJob::profileFinished);
    QSignalSpy failed(window.profileJob(), &ProfileJob::profileFailed);
    window.profileOnDevice(QStringLiteral("cpu"), 2);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count() + failed.count(), 1, 120000);
    QCOMPARE(failed.count(), 0);
    const auto first = finished.at(0).at(0).value<ProfileOutcome>();
    QVERIFY(first.measured > 0);
    QVERIFY(!first.cancelled);
    QCOMPARE(first.dbPath, db);
    const std::int64_t stored = SampleLibrary::open(db.toStdString()).sampleCount();
    QCOMPARE(stored, static_cast<std::int64_t>(first.measured + first.fusedMeasured));
    // The node table shows the measured latencies, marked measured.
    const NodeTableModel* table = window.nodeTableModel();
    const int column = table->measuredColumn();
    QVERIFY(column >= NodeTableModel::ColumnCount);
    QCOMPARE(table->headerData(column, Qt::Horizontal).toString(),
             QStringLiteral("Measured on cpu"));
    int shown = 0;
    for (int row = 0; row < table->rowCount(); ++row) {
        const double us = first.nodeLatencyUs[static_cast<std::size_t>(row)];
        const QModelIndex i = table->index(row, column);
        if (std::isnan(us)) {
            QVERIFY(!table->data(i, NodeTableModel::SourceRole).isValid());
            continue;
        }
        QCOMPARE(table->data(i, NodeTableModel::SortRole).toDouble(), us);
        QCOMPARE(table->data(i, NodeTableModel::SourceRole).toString(), QStringLiteral("measured"));
        ++shown;
    }
    QCOMPARE(shown, first.measured + first.reused);

    window.profileOnDevice(QStringLiteral("cpu"), 2);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, 120000);
    const auto second = finished.at(1).at(0).value<ProfileOutcome>();
    QCOMPARE(second.measured, 0);
    QCOMPARE(second.reused, first.measured + first.reused);
    QCOMPARE(SampleLibrary::open(db.toStdString()).sampleCount(), stored);
}

void TestProfileJob::trainsThePredictorOnTheProfile() {
    MainWindow window;
    // From its file: the predictor imports the library's models again by their paths.
    QSignalSpy shown(&window, &MainWindow::modelShown);
    window.openModel(QStringLiteral(PARETUNE_SAMPLE_MODEL));
    QVERIFY(shown.count() > 0 || shown.wait(30000));
    QTRY_VERIFY_WITH_TIMEOUT(
        window.deviceListModel()->profilableDevices().contains(QStringLiteral("cpu")), 30000);
    const QString db = m_dir.filePath(QStringLiteral("train.db"));
    window.setDatabasePath(db);
    QSignalSpy profiled(window.profileJob(), &ProfileJob::profileFinished);
    window.profileOnDevice(QStringLiteral("cpu"), 2);
    QTRY_COMPARE_WITH_TIMEOUT(profiled.count(), 1, 120000);
    window.profileOnDevice(QStringLiteral("cpu:0"), 2);
    QTRY_COMPARE_WITH_TIMEOUT(profiled.count(), 2, 120000);

    QSignalSpy trained(window.trainJob(), &TrainJob::trainingFinished);
    QSignalSpy failed(window.trainJob(), &TrainJob::trainingFailed);
    QSignalSpy epochs(window.trainJob(), &TrainJob::trainingEpoch);
    window.trainPredictor(4, 1);
    QTRY_COMPARE_WITH_TIMEOUT(trained.count() + failed.count(), 1, 120000);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.at(0).at(0).toString()));
    QCOMPARE(epochs.count(), 4);
    const PredictorPanel* panel = window.predictorPanel();
    QCOMPARE(panel->lossPointCount(), 4);
    QVERIFY(panel->heldOutPointCount() > 0);
    QTRY_VERIFY_WITH_TIMEOUT(!panel->summaryPending(), 30000);
    QCOMPARE(panel->storedPredictorCount(), 1);
    // Four metrics over both devices, then four for each (model, device) pair: the model and
    // its fused graph (its fusion groups, profiled as fused nodes) on each device.
    const QStringList metrics = panel->metricNames();
    QCOMPARE(metrics.size(), 20);
    QVERIFY2(metrics[4].startsWith(QStringLiteral("MAPE %, ")), qPrintable(metrics[4]));
    QCOMPARE(metrics.filter(QStringLiteral("(core 0)")).size(), 8);
    QCOMPARE(metrics.filter(QStringLiteral(" (fused ")).size(), 8);
    // The one model in the library cannot be held out: the panel says what it was scored on.
    QVERIFY(window.statusBar()->currentMessage().contains(QStringLiteral("training set")));
    QVERIFY(SampleLibrary::open(db.toStdString()).latestPredictor());

    // Adapt, as `paretune adapt`: on a device whose operators are all measured nothing is;
    // on one the library has not seen, the most uncertain ones are measured and it retrains.
    QSignalSpy adapted(window.adaptJob(), &AdaptJob::adaptFinished);
    QSignalSpy adaptFailed(window.adaptJob(), &AdaptJob::adaptFailed);
    window.adaptOnDevice(QStringLiteral("cpu"), 3);
    QTRY_COMPARE_WITH_TIMEOUT(adapted.count() + adaptFailed.count(), 1, 120000);
    QVERIFY2(adaptFailed.isEmpty(),
             adaptFailed.isEmpty() ? "" : qPrintable(adaptFailed.at(0).at(0).toString()));
    const auto kept = adapted.at(0).at(0).value<AdaptOutcome>();
    QVERIFY(kept.measured.isEmpty());
    QCOMPARE(kept.predictorAfter, kept.predictorBefore);
    if (!window.deviceListModel()->profilableDevices().contains(QStringLiteral("cpu:1"))) {
        QSKIP("one CPU core: no unmeasured device to adapt to");
    }
    window.adaptOnDevice(QStringLiteral("cpu:1"), 2);
    QTRY_COMPARE_WITH_TIMEOUT(adapted.count() + adaptFailed.count(), 2, 120000);
    QVERIFY2(adaptFailed.isEmpty(),
             adaptFailed.isEmpty() ? "" : qPrintable(adaptFailed.at(0).at(0).toString()));
    const auto retrained = adapted.at(1).at(0).value<AdaptOutcome>();
    QCOMPARE(retrained.measured.size(), 2);
    QVERIFY(retrained.predictorAfter > retrained.predictorBefore);
    QCOMPARE(SampleLibrary::open(db.toStdString()).predictorCount(), 2);
}

void TestProfileJob::showsEachPrecisionAfterTraining() {
    // Trained in the workbench on the checked-in library of variant samples with tiny_cnn open
    // (held out with its lowered graphs): the Predictor dock lists each precision's figures, as
    // `paretune train` prints them under "Per precision", and shows them again for the stored
    // predictor. Nothing here depends on how well the predictor learned.
    if (!TrainJob::available()) {
        QSKIP("this build has no LibTorch: nothing to train");
    }
    const QString db = m_dir.filePath(QStringLiteral("variants.db"));
    QCOMPARE(restoreSampleFixture(QStringLiteral("variant_library"), db), QString());
    QCOMPARE(relocateFixtureModels(db, testModelsDir()), QString());
    MainWindow window;
    QSignalSpy shown(&window, &MainWindow::modelShown);
    window.openModel(testModelsDir() + QStringLiteral("/tiny_cnn.onnx"));
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 30000);
    window.setDatabasePath(db);
    QSignalSpy trained(window.trainJob(), &TrainJob::trainingFinished);
    QSignalSpy failed(window.trainJob(), &TrainJob::trainingFailed);
    window.trainPredictor(2, 1);
    QTRY_COMPARE_WITH_TIMEOUT(trained.count() + failed.count(), 1, 300000);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.at(0).at(0).toString()));
    const auto outcome = trained.at(0).at(0).value<TrainOutcome>();
    QVERIFY2(outcome.evaluatedOn.contains(QStringLiteral("tiny_cnn")),
             qPrintable(outcome.evaluatedOn));
    const QStringList names = window.predictorPanel()->metricNames();
    QCOMPARE(names, outcome.metrics.names);
    for (const char* precision : {"fp32", "bf16", "int8"}) {
        const QStringList rows = names.filter(QRegularExpression(
            QStringLiteral("^MAPE %, %1 \\(\\d+ ops\\)$").arg(QLatin1String(precision))));
        QVERIFY2(rows.size() == 1, qPrintable(names.join(QStringLiteral("; "))));
        QVERIFY(
            names.filter(QStringLiteral("Spearman, %1 (").arg(QLatin1String(precision))).size() ==
            1);
    }
    // The stored predictor, read back by a dock that did not train it, shows the same rows.
    PredictorPanel stored;
    stored.showLibrary(db);
    QTRY_VERIFY_WITH_TIMEOUT(!stored.summaryPending(), 30000);
    QCOMPARE(stored.metricNames(), names);
}

void TestProfileJob::cancelKeepsWhatWasMeasured() {
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    openSample(window);
    const QString db = m_dir.filePath(QStringLiteral("cancel.db"));
    window.setDatabasePath(db);
    QSignalSpy finished(window.profileJob(), &ProfileJob::profileFinished);
    QSignalSpy progressed(window.profileJob(), &ProfileJob::profileProgressed);
    window.profileOnDevice(QStringLiteral("cpu")); // adaptive repeats: seconds per operator set
    int ticksWhileRunning = 0;
    QTimer timer;
    timer.setInterval(5);
    connect(&timer, &QTimer::timeout, &window,
            [&] { ticksWhileRunning += window.profileJob()->isRunning() ? 1 : 0; });
    timer.start();
    QTRY_VERIFY_WITH_TIMEOUT(ticksWhileRunning >= 20 && progressed.count() >= 1, 60000);
    QPushButton* cancel = visibleCancelButton(window);
    QVERIFY(cancel);
    const bool wasRunning = window.profileJob()->isRunning();
    QTest::mouseClick(cancel, Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
    const auto outcome = finished.at(0).at(0).value<ProfileOutcome>();
    if (wasRunning) {
        QVERIFY(outcome.cancelled);
        QVERIFY(outcome.notRun > 0);
    }
    QCOMPARE(SampleLibrary::open(db.toStdString()).sampleCount(),
             static_cast<std::int64_t>(outcome.measured + outcome.fusedMeasured));
}

void TestProfileJob::modelledDeviceIsRefused() {
    MainWindow window;
    openSample(window);
    QSignalSpy errors(&window, &MainWindow::errorShown);
    window.profileOnDevice(QStringLiteral("npu"));
    QCOMPARE(errors.count(), 1);
    QVERIFY(errors.at(0).at(0).toString().contains(QStringLiteral("modelled device")));
    window.profileOnDevice(QStringLiteral("tpu:7"));
    QCOMPARE(errors.count(), 2);
    QVERIFY(!window.profileJob()->isRunning());
}

QTEST_MAIN(TestProfileJob)
#include "tst_profilejob.moc"
