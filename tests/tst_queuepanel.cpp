// SPDX-License-Identifier: GPL-3.0-or-later
// The Queue dock: a library's profiling jobs as workers claim and finish them (an SQLite library
// here; tst_pgstore covers the queue on a server), and a library that cannot be read says why.
#include "common/sha256.h"
#include "mainwindow.h"
#include "queuepanel.h"
#include "store/sample_library.h"

#include <QDockWidget>
#include <QLabel>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace paretune;

class TestQueuePanel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void showsJobsAsWorkersTakeThem();
    void unreadableLibrarySaysWhy();
    void windowHasQueueDock();

private:
    QString cell(QTableWidget* table, int row, int column) const {
        return table->item(row, column) ? table->item(row, column)->text() : QString();
    }
    bool read(QueuePanel& panel, const QString& library) {
        QSignalSpy shown(&panel, &QueuePanel::queueShown);
        panel.showLibrary(library);
        return !shown.isEmpty() || shown.wait(10000); // a missing library is said at once
    }
    QTemporaryDir m_dir;
};

void TestQueuePanel::initTestCase() {
    QVERIFY(m_dir.isValid());
}

void TestQueuePanel::showsJobsAsWorkersTakeThem() {
    const QString db = m_dir.filePath(QStringLiteral("queue.db"));
    const std::string device = Sha256::hex("device cpu");
    {
        SampleLibrary library = SampleLibrary::open(db.toStdString());
        DeviceRecord d;
        d.fingerprint = device;
        d.kind = "cpu";
        d.name = "Test CPU";
        library.upsertDevice(d);
        ModelRecord m;
        m.fingerprint = Sha256::hex("model");
        m.name = "tiny";
        m.sourcePath = "/models/tiny.onnx";
        library.upsertModel(m);
        ProfileJobRecord job;
        job.modelFingerprint = m.fingerprint;
        job.modelName = "/models/tiny.onnx";
        job.modelOnnx = "model bytes";
        job.deviceFingerprint = device;
        job.optionsJson = R"({"repeats":1})";
        library.queueProfileJob(job);
        library.queueProfileJob(job);
    }
    QueuePanel panel;
    auto* table = panel.findChild<QTableWidget*>(QStringLiteral("queueTable"));
    auto* status = panel.findChild<QLabel*>(QStringLiteral("queueStatus"));
    QVERIFY(read(panel, db));
    QCOMPARE(table->rowCount(), 2);
    QCOMPARE(cell(table, 0, 1), QStringLiteral("tiny.onnx"));
    QCOMPARE(cell(table, 0, 2), QString::fromStdString(device.substr(0, 12)));
    QCOMPARE(cell(table, 0, 3), QStringLiteral("queued"));
    QVERIFY2(status->text().contains(QStringLiteral("2 queued, 0 running")),
             qPrintable(status->text()));

    // A worker claims the first job, then finishes it; another fails the second.
    std::int64_t first = 0;
    {
        SampleLibrary library = SampleLibrary::open(db.toStdString());
        const auto claimed = library.claimProfileJob(device, "lab-3:4242", 60);
        QVERIFY(claimed);
        first = claimed->id;
    }
    QVERIFY(read(panel, db));
    QCOMPARE(cell(table, 0, 3), QStringLiteral("running"));
    QCOMPARE(cell(table, 0, 4), QStringLiteral("lab-3:4242"));
    QCOMPARE(cell(table, 0, 5), QStringLiteral("1"));
    QVERIFY(!cell(table, 0, 7).isEmpty()); // its lease
    QVERIFY(status->text().contains(QStringLiteral("1 queued, 1 running")));
    {
        SampleLibrary library = SampleLibrary::open(db.toStdString());
        QVERIFY(library.finishProfileJob(first, "lab-3:4242", true,
                                         R"({"measured":5,"reused":2,"failed":0,"cancelled":0})"));
        const auto second = library.claimProfileJob(device, "lab-4:7", 60);
        QVERIFY(second);
        QVERIFY(library.finishProfileJob(second->id, "lab-4:7", false,
                                         R"({"error":"tiny.onnx: not an ONNX model"})"));
    }
    QVERIFY(read(panel, db));
    QCOMPARE(cell(table, 0, 3), QStringLiteral("done"));
    QCOMPARE(cell(table, 0, 8), QStringLiteral("5 measured, 2 reused, 0 failed, 0 not run"));
    QCOMPARE(cell(table, 1, 3), QStringLiteral("failed"));
    QCOMPARE(cell(table, 1, 4), QStringLiteral("lab-4:7"));
    QCOMPARE(cell(table, 1, 8), QStringLiteral("tiny.onnx: not an ONNX model"));
    QVERIFY(status->text().contains(QStringLiteral("0 queued, 0 running")));
}

void TestQueuePanel::unreadableLibrarySaysWhy() {
    QueuePanel panel;
    auto* table = panel.findChild<QTableWidget*>(QStringLiteral("queueTable"));
    auto* status = panel.findChild<QLabel*>(QStringLiteral("queueStatus"));
    // Not a library: refused by name, nothing shown, nothing written.
    const QString notLibrary = m_dir.filePath(QStringLiteral("notes.db"));
    QFile file(notLibrary);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("these are notes, not a database\n");
    file.close();
    QVERIFY(read(panel, notLibrary));
    QCOMPARE(table->rowCount(), 0);
    QVERIFY2(status->text().startsWith(QStringLiteral("Cannot read the queue of")),
             qPrintable(status->text()));
    QCOMPARE(QFileInfo(notLibrary).size(), qint64(32));
    // A server nobody listens on (port 1 on loopback), named without a password.
    QVERIFY(read(panel, QStringLiteral("postgresql://team@127.0.0.1:1/paretune")));
    QVERIFY2(status->text().contains(QStringLiteral("postgresql://team@127.0.0.1:1/paretune")),
             qPrintable(status->text()));
    QVERIFY(status->text().startsWith(QStringLiteral("Cannot read the queue of")));
    // No library yet: nothing to show, and no file made.
    const QString missing = m_dir.filePath(QStringLiteral("missing.db"));
    QVERIFY(read(panel, missing));
    QVERIFY(status->text().contains(QStringLiteral("No sample library")));
    QVERIFY(!QFileInfo::exists(missing));
}

void TestQueuePanel::windowHasQueueDock() {
    MainWindow window;
    auto* dock = window.findChild<QDockWidget*>(QStringLiteral("queueDock"));
    QVERIFY(dock);
    QVERIFY(dock->widget()->findChild<QTableWidget*>(QStringLiteral("queueTable")));
}

QTEST_MAIN(TestQueuePanel)
#include "tst_queuepanel.moc"
