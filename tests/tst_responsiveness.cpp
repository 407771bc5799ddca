// SPDX-License-Identifier: GPL-3.0-or-later
// The GUI thread stays responsive while a search job runs: a GUI-thread timer keeps ticking
// and Cancel stops the job. (How long the timer's gaps are is measured by
// bench/bench_gui_responsiveness, never asserted here.)
#include "mainwindow.h"
#include "placementsearch.h"
#include "workbench_fixture.h"

#include <QPushButton>
#include <QSignalSpy>
#include <QTimer>
#include <QtTest>

using namespace paretune;

class TestResponsiveness : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void timerTicksDuringSearchAndCancelWorks();
};

void TestResponsiveness::timerTicksDuringSearchAndCancelWorks() {
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(openSampleAndWait(window));

    QSignalSpy searched(&window, &MainWindow::searchShown);
    QSignalSpy progressed(window.placementSearch(), &PlacementSearch::searchProgressed);
    SearchOptions options;
    options.generations = 1000000; // runs until cancelled
    window.searchPlacements(options);
    QVERIFY(window.placementSearch()->isRunning());

    int ticksWhileRunning = 0;
    QTimer timer;
    timer.setInterval(5);
    connect(&timer, &QTimer::timeout, &window, [&] {
        if (window.placementSearch()->isRunning()) {
            ++ticksWhileRunning;
        }
    });
    timer.start();
    // The event loop delivers both the job's progress and the timer's ticks.
    QTRY_VERIFY_WITH_TIMEOUT(ticksWhileRunning >= 50 && progressed.count() >= 5, 60000);
    QVERIFY(window.placementSearch()->isRunning());
    QCOMPARE(searched.count(), 0);

    // Cancel through the status bar's button, as a user does.
    QPushButton* cancel = visibleCancelButton(window);
    QVERIFY(cancel);
    QTest::mouseClick(cancel, Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(searched.count(), 1, 30000);
    QVERIFY(window.currentSearch()->result.cancelled);
    QVERIFY(window.currentSearch()->result.generationsRun < options.generations);
    QVERIFY(!window.currentSearch()->result.front.empty());
    QVERIFY(!window.placementSearch()->isRunning());
}

QTEST_MAIN(TestResponsiveness)
#include "tst_responsiveness.moc"
