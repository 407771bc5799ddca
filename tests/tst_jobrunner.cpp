// SPDX-License-Identifier: GPL-3.0-or-later
// The job runner every workbench job goes through: the latest start wins (an older job's result
// is dropped), a failure arrives as one message (an InputError's own, or an internal error that
// names the work), progress reaches the GUI thread and Cancel the worker, and a job abandoned or
// left running by a destroyed runner delivers nothing.
#include "graph/onnx_importer.h"
#include "jobrunner.h"
#include "testpaths.h"

#include <QSemaphore>
#include <QSignalSpy>
#include <QThread>
#include <QThreadPool>
#include <QtTest>

#include <atomic>
#include <memory>
#include <stdexcept>

using namespace paretune;

namespace {

using SharedProgress = std::shared_ptr<JobProgress>;

/// Lets every finished worker's delivery reach this thread (no waiting on a clock).
void deliverAll() {
    QThreadPool::globalInstance()->waitForDone();
    QCoreApplication::processEvents();
}

} // namespace

class TestJobRunner : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void latestStartWins();
    void failureIsOneMessage_data();
    void failureIsOneMessage();
    void progressAndCancelReachTheWorker();
    void abandonedJobDeliversNothing();
    void destroyedRunnerDeliversNothing();
};

void TestJobRunner::initTestCase() {
    // Jobs here wait for one another: enough pool threads for all of them at once.
    QThreadPool::globalInstance()->setMaxThreadCount(
        std::max(4, QThreadPool::globalInstance()->maxThreadCount()));
}

void TestJobRunner::latestStartWins() {
    JobRunner runner;
    QSignalSpy started(&runner, &JobRunner::jobStarted);
    QSignalSpy ended(&runner, &JobRunner::jobEnded);
    QSemaphore release;
    std::atomic<bool> firstCancelled{false};
    QList<int> finished;
    QStringList failed;
    const auto onFinished = [&finished](int value) { finished << value; };
    const auto onFailed = [&failed](const QString& message) { failed << message; };
    runner.run<int>(
        QStringLiteral("testing"),
        [&](JobResult<int>& r, const SharedProgress& progress) {
            release.acquire();
            firstCancelled = progress->cancelled();
            r.outcome = 1;
        },
        onFinished, onFailed);
    QVERIFY(runner.isRunning());
    runner.run<int>(
        QStringLiteral("testing"), [](JobResult<int>& r, const SharedProgress&) { r.outcome = 2; },
        onFinished, onFailed);
    QCOMPARE(started.count(), 2);
    release.release();
    deliverAll();
    QCOMPARE(finished, QList<int>{2});
    QVERIFY(failed.isEmpty());
    QVERIFY(firstCancelled); // the superseded job was asked to stop
    QCOMPARE(ended.count(), 1);
    QVERIFY(!runner.isRunning());
}

void TestJobRunner::failureIsOneMessage_data() {
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("message");
    QTest::newRow("input error: its own message")
        << 0 << QStringLiteral(PARETUNE_TEST_DATA_DIR "/errors/truncated.onnx");
    QTest::newRow("other exception: an internal error naming the work")
        << 1 << QStringLiteral("Internal error while testing: boom");
    QTest::newRow("error set by the work: as it is") << 2 << QStringLiteral("nothing to do");
}

void TestJobRunner::failureIsOneMessage() {
    QFETCH(int, kind);
    QFETCH(QString, message);
    JobRunner runner;
    QSignalSpy ended(&runner, &JobRunner::jobEnded);
    QStringList failed;
    bool finished = false;
    runner.run<int>(
        QStringLiteral("testing"),
        [kind](JobResult<int>& r, const SharedProgress&) {
            if (kind == 0) {
                (void)importOnnxFile(PARETUNE_TEST_DATA_DIR "/errors/truncated.onnx"); // throws
            } else if (kind == 1) {
                throw std::runtime_error("boom");
            } else {
                r.error = QStringLiteral("nothing to do");
            }
        },
        [&finished](int) { finished = true; },
        [&failed](const QString& error) { failed << error; });
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 30000);
    QVERIFY(!finished);
    QCOMPARE(failed.size(), 1);
    QVERIFY2(kind == 0 ? failed.front().contains(message) : failed.front() == message,
             qPrintable(failed.front()));
}

void TestJobRunner::progressAndCancelReachTheWorker() {
    JobRunner runner;
    QSignalSpy progressed(&runner, &JobRunner::progressed);
    QSignalSpy sampled(&runner, &JobRunner::sampled);
    QSignalSpy ended(&runner, &JobRunner::jobEnded);
    int rounds = -1;
    runner.run<int>(
        QStringLiteral("testing"),
        [](JobResult<int>& r, const SharedProgress& progress) {
            progress->report(0.5, "half way");
            progress->sample(1, 0.25);
            while (!progress->cancelled()) {
                ++r.outcome;
                QThread::yieldCurrentThread();
            }
        },
        [&rounds](int value) { rounds = value; }, [](const QString&) {});
    QTRY_VERIFY_WITH_TIMEOUT(progressed.count() == 1 && sampled.count() == 1, 30000);
    QCOMPARE(progressed.at(0).at(0).toDouble(), 0.5);
    QCOMPARE(progressed.at(0).at(1).toString(), QStringLiteral("half way"));
    QCOMPARE(sampled.at(0).at(1).toDouble(), 0.25);
    QVERIFY(runner.isRunning()); // until cancelled
    runner.cancel();
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 30000);
    QVERIFY(rounds >= 0); // it delivered what it had
}

void TestJobRunner::abandonedJobDeliversNothing() {
    JobRunner runner;
    QSignalSpy ended(&runner, &JobRunner::jobEnded);
    QSemaphore release;
    bool delivered = false;
    runner.run<int>(
        QStringLiteral("testing"),
        [&release](JobResult<int>&, const SharedProgress&) { release.acquire(); },
        [&delivered](int) { delivered = true; },
        [&delivered](const QString&) { delivered = true; });
    runner.abandon();
    QCOMPARE(ended.count(), 1);
    QVERIFY(!runner.isRunning());
    release.release();
    deliverAll();
    QVERIFY(!delivered);
    QCOMPARE(ended.count(), 1);
}

void TestJobRunner::destroyedRunnerDeliversNothing() {
    auto runner = std::make_unique<JobRunner>();
    QSemaphore release;
    std::atomic<bool> cancelled{false};
    bool delivered = false;
    runner->run<int>(
        QStringLiteral("testing"),
        [&](JobResult<int>&, const SharedProgress& progress) {
            release.acquire();
            cancelled = progress->cancelled();
        },
        [&delivered](int) { delivered = true; },
        [&delivered](const QString&) { delivered = true; });
    runner.reset(); // the job still runs; it finishes on its own
    release.release();
    deliverAll();
    QVERIFY(cancelled);
    QVERIFY(!delivered);
}

QTEST_GUILESS_MAIN(TestJobRunner)
#include "tst_jobrunner.moc"
