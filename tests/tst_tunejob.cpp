// SPDX-License-Identifier: GPL-3.0-or-later
// The workbench's Tune (Workflow > Tune), offscreen, on tiny_cnn over two CPU cores profiled
// first: the job runs core's tune loop on a worker, the last round's front is shown as a search
// with the plans measured in that round beside their simulated points (p10–p90 error bars), the
// Tune panel has one row per round, a claim the measurements contradict is marked; Cancel right
// after the start ends the job cancelled with nothing shown; refusals (modelled devices, a
// library without the model's samples, no library) reach the log as errors. Nothing asserts a
// timing or a measured value: only counts, structure and consistency.
#include "devicelistmodel.h"
#include "mainwindow.h"
#include "paretoplot.h"
#include "placementsearch.h"
#include "profilejob.h"
#include "store/sample_library.h"
#include "testmodels.h"
#include "testpaths.h"
#include "tunedialog.h"
#include "tunejob.h"
#include "tunepanel.h"
#include "tuneroundsmodel.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QMenuBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <array>
#include <filesystem>

#include "qcustomplot_fenced.h"

using namespace paretune;

namespace {

const QString kCoresCatalog =
    QStringLiteral(PARETUNE_SOURCE_DIR "/resources/catalogs/cpu_cores.json");

SearchOptions quickSearch() {
    SearchOptions options;
    options.population = 16;
    options.generations = 5;
    return options;
}

TuneSettings quickTune(int rounds) {
    TuneSettings settings;
    settings.rounds = rounds;
    settings.plansPerRound = 2;
    settings.repeats = 3;
    settings.windowS = 0.0; // exactly 3 runs: a quick test
    settings.warmup = 1;
    return settings;
}

bool openTinyCnn(MainWindow& window) {
    QSignalSpy shown(&window, &MainWindow::modelShown);
    window.openModel(testModelPath(QStringLiteral("tiny_cnn")));
    return shown.count() > 0 || shown.wait(30000);
}

/// The window set up to tune on cpu:0 and cpu:1 with the library `db`, quickly.
void prepareCores(MainWindow& window, const QString& db) {
    window.setDatabasePath(db);
    QVERIFY(window.setCatalogPath(kCoresCatalog));
    window.setSearchDevices({QStringLiteral("cpu:0"), QStringLiteral("cpu:1")});
    window.setSearchOptions(quickSearch());
}

} // namespace

class TestTuneJob : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void actionAndDialog();
    void tuneShowsMeasuredPointsAndRounds();
    void cancelRightAfterStart();
    void roundsSayWhatWasLearnedAndTheMachinesDrift();
    void refusalsAreShown_data();
    void refusalsAreShown();

private:
    /// A copy of the profiled library, for a test of its own (a tune stores its rounds there).
    QString freshLibrary(const QString& name) const;

    QTemporaryDir m_dir;
    QString m_db;
    bool m_twoCores = false;
};

void TestTuneJob::initTestCase() {
    QVERIFY2(QFile::exists(testModelPath(QStringLiteral("tiny_cnn"))),
             "run tools/export_models.py");
    if (!TuneJob::available()) {
        QSKIP("this build has no LibTorch: nothing can be validated");
    }
    MainWindow window;
    QVERIFY(openTinyCnn(window));
    QTRY_VERIFY_WITH_TIMEOUT(
        window.deviceListModel()->profilableDevices().contains(QStringLiteral("cpu:0")), 30000);
    m_twoCores = window.deviceListModel()->profilableDevices().contains(QStringLiteral("cpu:1"));
    m_db = m_dir.filePath(QStringLiteral("cores.db"));
    if (!m_twoCores) {
        return;
    }
    window.setDatabasePath(m_db);
    QSignalSpy profiled(window.profileJob(), &ProfileJob::profileFinished);
    QSignalSpy failed(window.profileJob(), &ProfileJob::profileFailed);
    int expected = 0;
    for (const QString& device : {QStringLiteral("cpu:0"), QStringLiteral("cpu:1")}) {
        window.profileOnDevice(device, 3);
        ++expected;
        QTRY_COMPARE_WITH_TIMEOUT(profiled.count() + failed.count(), expected, 120000);
    }
    QCOMPARE(failed.count(), 0);
}

void TestTuneJob::actionAndDialog() {
    MainWindow window;
    auto* action = window.findChild<QAction*>(QStringLiteral("tuneAction"));
    QVERIFY(action);
    QVERIFY(!action->isEnabled()); // no model yet
    QVERIFY(openTinyCnn(window));
    QVERIFY(action->isEnabled());
    // In the Workflow menu, beside Validate.
    bool inWorkflow = false;
    for (QAction* menu : window.menuBar()->actions()) {
        if (menu->menu() && menu->text() == QStringLiteral("&Workflow")) {
            inWorkflow = menu->menu()->actions().contains(action);
        }
    }
    QVERIFY(inWorkflow);

    // The dialog starts from the settings given (the defaults: 3 / 3 / 20) and hands back what
    // was entered; the context names what the tune uses.
    TuneDialog dialog(TuneSettings{}, QStringLiteral("Search: population 200"));
    QCOMPARE(dialog.settings().rounds, 3);
    QCOMPARE(dialog.settings().plansPerRound, 3);
    QCOMPARE(dialog.settings().repeats, 20);
    dialog.findChild<QSpinBox*>(QStringLiteral("rounds"))->setValue(2);
    dialog.findChild<QSpinBox*>(QStringLiteral("repeats"))->setValue(5);
    QCOMPARE(dialog.settings().windowS, 3.0);
    dialog.findChild<QDoubleSpinBox*>(QStringLiteral("window"))->setValue(0.5);
    QCOMPARE(dialog.settings().rounds, 2);
    QCOMPARE(dialog.settings().repeats, 5);
    QCOMPARE(dialog.settings().windowS, 0.5);
    QCOMPARE(dialog.settings().plansPerRound, 3);
    QCOMPARE(dialog.findChild<QLabel*>(QStringLiteral("tuneContext"))->text(),
             QStringLiteral("Search: population 200"));
}

QString TestTuneJob::freshLibrary(const QString& name) const {
    const QString path = m_dir.filePath(name);
    for (const char* suffix : {"", "-wal", "-shm"}) { // the library as a whole, WAL included
        const QString from = m_db + QLatin1String(suffix);
        if (QFile::exists(from)) {
            std::filesystem::copy_file(from.toStdString(),
                                       QString(path + QLatin1String(suffix)).toStdString());
        }
    }
    return path;
}

void TestTuneJob::tuneShowsMeasuredPointsAndRounds() {
    if (!m_twoCores) {
        QSKIP("needs two CPU cores (cpu:0 and cpu:1)");
    }
    MainWindow window;
    QVERIFY(openTinyCnn(window));
    prepareCores(window, freshLibrary(QStringLiteral("tune.db")));
    QSignalSpy finished(window.tuneJob(), &TuneJob::tuneFinished);
    QSignalSpy failed(window.tuneJob(), &TuneJob::tuneFailed);
    QSignalSpy shown(&window, &MainWindow::tuneShown);
    QSignalSpy progressed(window.tuneJob(), &TuneJob::tuneProgressed);
    window.tune(quickTune(2));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count() + failed.count(), 1, 300000);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.at(0).at(0).toString()));
    QCOMPARE(shown.count(), 1);
    const auto outcome = finished.at(0).at(0).value<TuneOutcome>();
    QVERIFY(!outcome.cancelled);
    QVERIFY(outcome.rounds.size() >= 1 && outcome.rounds.size() <= 2);
    QVERIFY(outcome.rounds.size() == 2 || outcome.converged); // stopped early only if converged
    // Progress came per round, through the job runner.
    bool searchReported = false;
    bool validateReported = false;
    for (const QList<QVariant>& report : progressed) {
        const QString message = report.at(1).toString();
        searchReported = searchReported || message.startsWith(QStringLiteral("round 1: search"));
        validateReported =
            validateReported || message.startsWith(QStringLiteral("round 1: validate"));
    }
    QVERIFY(searchReported && validateReported);

    // The final front is shown as a search.
    QVERIFY(outcome.search);
    QCOMPARE(window.currentSearch(), outcome.search);
    const ParetoPlot* plot = window.paretoPlot();
    QCOMPARE(plot->pointCount(), static_cast<int>(outcome.search->result.front.size()));
    QVERIFY(outcome.search->costSource.contains(QStringLiteral("measured")));

    // Beside it, every plan validated in the last round, at its measured median latency
    // (X: latency, the default) with its p10–p90 spread as horizontal error bars.
    const std::vector<TunedPlan>& validated = outcome.rounds.back().plans;
    QVERIFY(!validated.empty());
    QCOMPARE(outcome.measured.size(), validated.size());
    QCOMPARE(plot->xObjective(), Objective::Latency);
    QCPGraph* measured = plot->measuredGraph();
    QCPErrorBars* bars = plot->measuredErrorBars();
    QVERIFY(measured && bars);
    QCOMPARE(measured->name(), QStringLiteral("measured (p10–p90)"));
    QVERIFY(plot->plot()->legend->hasItemWithPlottable(measured));
    QCOMPARE(measured->dataCount(), static_cast<int>(validated.size()));
    QCOMPARE(bars->dataCount(), static_cast<int>(validated.size()));
    QCOMPARE(bars->errorType(), QCPErrorBars::etKeyError);
    std::vector<std::array<double, 3>> expected; // p10, median, p90 in ms, by median
    for (const TunedPlan& p : validated) {
        expected.push_back(
            {p.measured.p10Us / 1000.0, p.measured.medianUs / 1000.0, p.measured.p90Us / 1000.0});
    }
    std::sort(expected.begin(), expected.end(),
              [](const auto& a, const auto& b) { return a[1] < b[1]; });
    for (int i = 0; i < measured->dataCount(); ++i) {
        const double median = measured->data()->at(i)->key;
        const QCPErrorBarsData& e = bars->data()->at(i);
        const double lower = median - e.errorMinus;
        const double upper = median + e.errorPlus;
        QVERIFY2(lower <= median && median <= upper, qPrintable(QString::number(i)));
        const auto& want = expected[static_cast<std::size_t>(i)];
        QVERIFY(qAbs(median - want[1]) <= 1e-9 * std::max(1.0, want[1]));
        QVERIFY(qAbs(lower - want[0]) <= 1e-9 * std::max(1.0, want[0]));
        QVERIFY(qAbs(upper - want[2]) <= 1e-9 * std::max(1.0, want[2]));
    }

    // One row per round in the Tune panel, with the round's plan count and errors.
    TuneRoundsModel* rounds = window.tunePanel()->roundsModel();
    QAbstractItemModelTester tester(rounds, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(rounds->rowCount(), static_cast<int>(outcome.rounds.size()));
    for (int r = 0; r < rounds->rowCount(); ++r) {
        const TuneRound& round = outcome.rounds[static_cast<std::size_t>(r)];
        QCOMPARE(rounds->data(rounds->index(r, TuneRoundsModel::Round), TuneRoundsModel::ValueRole)
                     .toInt(),
                 r + 1);
        QCOMPARE(rounds->data(rounds->index(r, TuneRoundsModel::Plans)).toInt(),
                 static_cast<int>(round.plans.size()));
        QCOMPARE(
            rounds->data(rounds->index(r, TuneRoundsModel::MaxError), TuneRoundsModel::ValueRole)
                .toDouble(),
            round.maxAbsError);
        QVERIFY(!rounds->data(rounds->index(r, TuneRoundsModel::Costs)).toString().isEmpty());
    }
    // The first round searched with the library's costs alone.
    QCOMPARE(rounds->data(rounds->index(0, TuneRoundsModel::Costs)).toString(),
             QStringLiteral("library costs only"));

    // The claims: counted in the status bar and the panel; each contradicted one named.
    QVERIFY(window.statusBar()->currentMessage().contains(QStringLiteral("contradicted")));
    QVERIFY(!window.tunePanel()->claimsText().isEmpty());
    for (std::size_t i = 0; i < outcome.claims.size(); ++i) {
        for (const PlanClaim& c : outcome.claims[i]) {
            if (c.contradicted()) {
                QVERIFY(window.tunePanel()->claimsText().contains(
                    QStringLiteral("Plan %1: ").arg(i) + claimText(c).toHtmlEscaped()));
            }
        }
    }
    // Choosing a plan whose claim is contradicted says so in the status bar.
    for (std::size_t i = 0; i < outcome.claims.size(); ++i) {
        const auto& claims = outcome.claims[i];
        if (std::any_of(claims.begin(), claims.end(),
                        [](const PlanClaim& c) { return c.contradicted(); })) {
            window.paretoPlot()->selectPlan(static_cast<int>(i));
            QVERIFY2(window.statusBar()->currentMessage().contains(
                         QStringLiteral("claim contradicted by the measurements")),
                     qPrintable(window.statusBar()->currentMessage()));
            break;
        }
    }
    // A normal search afterwards shows no measured points.
    QSignalSpy searched(&window, &MainWindow::searchShown);
    window.searchPlacements(quickSearch());
    QVERIFY(searched.wait(120000));
    QCOMPARE(plot->measuredGraph()->dataCount(), 0);
    QVERIFY(!plot->plot()->legend->hasItemWithPlottable(plot->measuredGraph()));
}

// The Tune panel's rounds: the fused groups learned in context, earlier rounds put at the latest
// speed, and a round's error at the machine's drifted speed beside its plain error.
void TestTuneJob::roundsSayWhatWasLearnedAndTheMachinesDrift() {
    InContextFit fit;
    QCOMPARE(TuneRoundsModel::costsText(fit), QStringLiteral("library costs only"));
    fit.fusedInContext = 4;
    fit.fusedScaled = 2;
    QCOMPARE(TuneRoundsModel::costsText(fit),
             QStringLiteral("0 nodes in context, 0 scaled; 4 fused groups in context, 2 scaled"));
    fit.nodesInContext = 30;
    fit.nodesScaled = 5;
    fit.deviceScale["cpu:0"] = 1.25;
    fit.roundSpeedScales = {0.93, 1.0};
    QCOMPARE(TuneRoundsModel::costsText(fit),
             QStringLiteral("30 nodes in context, 5 scaled; 4 fused groups in context, 2 scaled; "
                            "cpu:0 ×1.25; earlier rounds' times at the latest speed: ×0.93, "
                            "×1.00"));
    fit.roundSpeedScales.clear();
    fit.gaps.dispatchUs["cpu:1"] = 6.4;
    fit.gaps.handoffs.push_back({"cpu:0", "cpu", 41.5, 4.0, 12});
    fit.turns.push_back({"cpu", 12.5, 7});
    fit.receives.push_back({"cpu:1", 1.0641, 9});
    QCOMPARE(TuneRoundsModel::costsText(fit),
             QStringLiteral("30 nodes in context, 5 scaled; 4 fused groups in context, 2 scaled; "
                            "cpu:0 ×1.25; cpu:1 +6.4 µs a node (measured); cpu +12.5 µs a turn "
                            "on shared cores (measured); cpu:1 ×1.064 reading a tensor from "
                            "another device (measured); cpu:0 → cpu handoff 41.5 µs "
                            "(catalog 4.0 µs)"));

    TuneRound drifted;
    drifted.index = 2;
    drifted.maxAbsError = 0.144;
    drifted.medianAbsError = 0.126;
    drifted.speedChange = 0.87;
    drifted.maxAbsErrorAtSpeed = 0.069;
    TuneRound steady = drifted;
    steady.index = 1;
    steady.speedChange.reset();
    steady.maxAbsErrorAtSpeed.reset();
    TuneRoundsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRounds({steady, drifted});
    QCOMPARE(model.data(model.index(0, TuneRoundsModel::MaxError)).toString(),
             QStringLiteral("14.4 %"));
    QCOMPARE(model.data(model.index(1, TuneRoundsModel::MaxError)).toString(),
             QStringLiteral("14.4 % (6.9 % at ×0.87 speed)"));
    QCOMPARE(model.data(model.index(1, TuneRoundsModel::MaxError), TuneRoundsModel::ValueRole)
                 .toDouble(),
             0.144);
    QVERIFY(model.data(model.index(1, TuneRoundsModel::Round), Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("took ×0.87 as long")));
}

void TestTuneJob::cancelRightAfterStart() {
    if (!m_twoCores) {
        QSKIP("needs two CPU cores (cpu:0 and cpu:1)");
    }
    MainWindow window;
    QVERIFY(openTinyCnn(window));
    const QString db = freshLibrary(QStringLiteral("cancel.db"));
    prepareCores(window, db);
    QSignalSpy finished(window.tuneJob(), &TuneJob::tuneFinished);
    QSignalSpy failed(window.tuneJob(), &TuneJob::tuneFailed);
    window.tune(quickTune(3));
    window.tuneJob()->cancel();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count() + failed.count(), 1, 120000);
    QCOMPARE(failed.count(), 0);
    const auto outcome = finished.at(0).at(0).value<TuneOutcome>();
    QVERIFY(outcome.cancelled);
    QVERIFY(outcome.rounds.empty()); // stopped in the first round's search: nothing stored
    QVERIFY(!outcome.search);
    QVERIFY(!window.currentSearch());
    QCOMPARE(window.tunePanel()->roundsModel()->rowCount(), 0);
    QTRY_VERIFY_WITH_TIMEOUT(!window.tuneJob()->isRunning(), 10000);
}

void TestTuneJob::refusalsAreShown_data() {
    QTest::addColumn<QString>("catalog");
    QTest::addColumn<QString>("library"); ///< "profiled", "empty" or "missing"
    QTest::addColumn<bool>("needsCores");
    QTest::addColumn<QString>("message");
    QTest::newRow("modelled devices") << QString() << QStringLiteral("empty") << false
                                      << QStringLiteral("modelled devices cannot be validated");
    QTest::newRow("no samples of the model")
        << kCoresCatalog << QStringLiteral("empty") << true
        << QStringLiteral("has none for them: profile the model on them first");
    QTest::newRow("no library") << kCoresCatalog << QStringLiteral("missing") << false
                                << QStringLiteral("does not exist");
}

void TestTuneJob::refusalsAreShown() {
    QFETCH(QString, catalog);
    QFETCH(QString, library);
    QFETCH(bool, needsCores);
    QFETCH(QString, message);
    if (needsCores && !m_twoCores) {
        QSKIP("needs two CPU cores (cpu:0 and cpu:1)");
    }
    MainWindow window;
    QVERIFY(openTinyCnn(window));
    const QString db = m_dir.filePath(QStringLiteral("%1-%2.db")
                                          .arg(library, QString::fromUtf8(QTest::currentDataTag()))
                                          .replace(QLatin1Char(' '), QLatin1Char('_')));
    if (library == QLatin1String("empty")) {
        SampleLibrary::open(db.toStdString()); // created, without a sample
    }
    window.setDatabasePath(db);
    if (!catalog.isEmpty()) {
        QVERIFY(window.setCatalogPath(catalog));
        window.setSearchDevices({QStringLiteral("cpu:0"), QStringLiteral("cpu:1")});
    }
    window.setSearchOptions(quickSearch());
    QSignalSpy errors(&window, &MainWindow::errorShown);
    QSignalSpy finished(window.tuneJob(), &TuneJob::tuneFinished);
    window.tune(quickTune(1));
    QTRY_COMPARE_WITH_TIMEOUT(errors.count(), 1, 120000);
    QVERIFY2(errors.at(0).at(0).toString().contains(message),
             qPrintable(errors.at(0).at(0).toString()));
    QCOMPARE(finished.count(), 0);
    QVERIFY(!window.currentSearch());
}

QTEST_MAIN(TestTuneJob)
#include "tst_tunejob.moc"
