// SPDX-License-Identifier: GPL-3.0-or-later
// The status bar shows one indicator (label, progress, Cancel) per running job: with a search
// and a second job running, each has its own; a job that ends removes only its own indicator,
// and its Cancel stops only its own job, while the other keeps running and stays visible.
#include "devicelistmodel.h"
#include "jobstatusbar.h"
#include "jobstatuswidget.h"
#include "mainwindow.h"
#include "paretoplot.h"
#include "placementsearch.h"
#include "planjobs.h"
#include "profilejob.h"
#include "workbench_fixture.h"

#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QtTest>

using namespace paretune;

class TestJobStatus : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void endedJobRemovesOnlyItsIndicator();
    void cancelStopsOnlyItsJob();

private:
    /// Starts a search that runs until cancelled; its indicator (null when it has none).
    static JobStatusWidget* startEndlessSearch(MainWindow& window);
    QTemporaryDir m_dir;
};

void TestJobStatus::initTestCase() {
    // The jobs run together: enough pool threads for all of them (and discovery) at once.
    QThreadPool::globalInstance()->setMaxThreadCount(
        std::max(4, QThreadPool::globalInstance()->maxThreadCount()));
}

JobStatusWidget* TestJobStatus::startEndlessSearch(MainWindow& window) {
    SearchOptions options;
    options.generations = 1000000; // runs until cancelled
    window.searchPlacements(options);
    return window.jobStatusBar()->indicator(window.placementSearch());
}

void TestJobStatus::endedJobRemovesOnlyItsIndicator() {
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(openSampleAndWait(window));
    window.setDatabasePath(m_dir.filePath(QStringLiteral("export.db")));
    JobStatusBar* jobs = window.jobStatusBar();
    QCOMPARE(jobs->indicatorCount(), 0);
    // A quick search to choose a plan to export.
    QSignalSpy searched(&window, &MainWindow::searchShown);
    SearchOptions quick;
    quick.population = 16;
    quick.generations = 8;
    window.searchPlacements(quick);
    QTRY_COMPARE_WITH_TIMEOUT(searched.count(), 1, 120000);
    QCOMPARE(jobs->indicatorCount(), 0); // the search ended: its indicator went
    window.paretoPlot()->selectPlan(0);
    QVERIFY(window.currentSchedule());

    JobStatusWidget* search = startEndlessSearch(window);
    QVERIFY(search && search->isVisible());
    QCOMPARE(search->label(), QStringLiteral("Searching placements..."));
    QSignalSpy exported(window.bundleExportJob(), &BundleExportJob::exportFinished);
    QSignalSpy failed(window.bundleExportJob(), &BundleExportJob::exportFailed);
    window.exportShownPlan(m_dir.filePath(QStringLiteral("bundle")), 2);
    JobStatusWidget* exporting = jobs->indicator(window.bundleExportJob());
    QVERIFY(exporting && exporting != search);
    QCOMPARE(exporting->label(), QStringLiteral("Exporting the bundle..."));
    QVERIFY(exporting->isVisible());
    QCOMPARE(jobs->indicatorCount(), 2);

    // The export ends on its own: its indicator goes, the search's stays.
    QTRY_COMPARE_WITH_TIMEOUT(exported.count() + failed.count(), 1, 120000);
    QCOMPARE(failed.count(), 0);
    QVERIFY(!jobs->indicator(window.bundleExportJob()));
    QCOMPARE(jobs->indicatorCount(), 1);
    QVERIFY(window.placementSearch()->isRunning());
    QCOMPARE(jobs->indicator(window.placementSearch()), search);
    QVERIFY(search->isVisible());
    QCOMPARE(visibleCancelButton(window), search->cancelButton());

    QTest::mouseClick(search->cancelButton(), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(searched.count(), 2, 30000);
    QVERIFY(window.currentSearch()->result.cancelled);
    QCOMPARE(jobs->indicatorCount(), 0);
    QVERIFY(!visibleCancelButton(window));
}

void TestJobStatus::cancelStopsOnlyItsJob() {
    if (!ProfileJob::available()) {
        QSKIP("profiling needs LibTorch, which this build does not include");
    }
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(openSampleAndWait(window));
    QTRY_VERIFY_WITH_TIMEOUT(
        window.deviceListModel()->profilableDevices().contains(QStringLiteral("cpu")), 30000);
    window.setDatabasePath(m_dir.filePath(QStringLiteral("profile.db")));
    JobStatusBar* jobs = window.jobStatusBar();

    QSignalSpy searched(&window, &MainWindow::searchShown);
    QSignalSpy searchProgress(window.placementSearch(), &PlacementSearch::searchProgressed);
    JobStatusWidget* search = startEndlessSearch(window);
    QSignalSpy profiled(window.profileJob(), &ProfileJob::profileFinished);
    QSignalSpy profileFailed(window.profileJob(), &ProfileJob::profileFailed);
    window.profileOnDevice(QStringLiteral("cpu")); // adaptive repeats: seconds per operator set
    JobStatusWidget* profile = jobs->indicator(window.profileJob());
    QVERIFY(search && profile && search != profile);
    QCOMPARE(jobs->indicatorCount(), 2);
    QVERIFY(search->isVisible() && profile->isVisible());
    QCOMPARE(profile->label(), QStringLiteral("Profiling..."));
    // Each indicator shows its own job's progress.
    QTRY_VERIFY_WITH_TIMEOUT(search->progressText().contains(QStringLiteral("generation")) &&
                                 !searchProgress.isEmpty(),
                             60000);
    QVERIFY(!profile->progressText().contains(QStringLiteral("generation")));

    // Cancel of the profile: the profile stops and its indicator goes; the search runs on.
    const bool profileWasRunning = window.profileJob()->isRunning();
    QTest::mouseClick(profile->cancelButton(), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(profiled.count() + profileFailed.count(), 1, 120000);
    QCOMPARE(profileFailed.count(), 0);
    if (profileWasRunning) {
        QVERIFY(profiled.at(0).at(0).value<ProfileOutcome>().cancelled);
    }
    QVERIFY(!jobs->indicator(window.profileJob()));
    QCOMPARE(jobs->indicatorCount(), 1);
    QVERIFY(window.placementSearch()->isRunning());
    QCOMPARE(searched.count(), 0);
    QCOMPARE(jobs->indicator(window.placementSearch()), search);
    QVERIFY(search->isVisible());
    QCOMPARE(visibleCancelButton(window), search->cancelButton());
    const qsizetype reports = searchProgress.count();
    QTRY_VERIFY_WITH_TIMEOUT(searchProgress.count() > reports, 60000); // still reporting

    // The search's own Cancel stops it; no indicator is left.
    QTest::mouseClick(search->cancelButton(), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(searched.count(), 1, 30000);
    QVERIFY(window.currentSearch()->result.cancelled);
    QCOMPARE(jobs->indicatorCount(), 0);
    QVERIFY(!visibleCancelButton(window));
}

QTEST_MAIN(TestJobStatus)
#include "tst_jobstatus.moc"
