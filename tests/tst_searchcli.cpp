// SPDX-License-Identifier: GPL-3.0-or-later
// `paretune search` run as a process: the JSON document, the table, --out, exit codes.
#include "cliprocess.h"
#include "testpaths.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

namespace {

using Run = CliRun;

Run paretune(const QStringList& args) {
    return runParetune(args, 300000);
}

QString catalog() {
    return QStringLiteral(PARETUNE_SOURCE_DIR "/resources/catalogs/example.json");
}

QStringList searchArgs(const QStringList& extra) {
    return QStringList{QStringLiteral("search"),        QStringLiteral(PARETUNE_SAMPLE_MODEL),
                       QStringLiteral("--devices"),     QStringLiteral("cpu,gpu,npu"),
                       QStringLiteral("--catalog"),     catalog(),
                       QStringLiteral("--population"),  QStringLiteral("40"),
                       QStringLiteral("--generations"), QStringLiteral("20")} +
           extra;
}

} // namespace

class TestSearchCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void jsonDocument();
    void tableAndOutFile();
    void sameSeedSameOutput();
    void coarseToFineFlag();
    void outWritesOnlyWhatItMay();
    void badInputExitsWithTwo_data();
    void badInputExitsWithTwo();
};

void TestSearchCli::jsonDocument() {
    const Run run = paretune(searchArgs({QStringLiteral("--json")}));
    QCOMPARE(run.exitCode, 0);
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(run.out, &error);
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    QCOMPARE(doc[QStringLiteral("tool")].toString(), QStringLiteral("paretune"));
    QVERIFY(!doc[QStringLiteral("model_fingerprint")].toString().isEmpty());
    QCOMPARE(doc[QStringLiteral("devices")].toArray().size(), 3);
    QCOMPARE(doc[QStringLiteral("objectives")].toArray(),
             QJsonArray(
                 {QStringLiteral("latency"), QStringLiteral("energy"), QStringLiteral("memory")}));
    QCOMPARE(doc[QStringLiteral("hypervolume_by_generation")].toArray().size(), 21);
    QVERIFY(doc[QStringLiteral("front_size")].toInt() > 0);
    const QJsonArray plans = doc[QStringLiteral("plans")].toArray();
    QVERIFY(!plans.isEmpty());
    QStringList baselines;
    int nodes = -1;
    for (const QJsonValue& value : plans) {
        const QJsonObject plan = value.toObject();
        for (const char* key : {"id", "assignment", "latency_us", "energy_mj", "peak_memory_mb",
                                "feasible", "baseline", "sources"}) {
            QVERIFY2(plan.contains(QLatin1String(key)), key);
        }
        const QJsonObject assignment = plan[QStringLiteral("assignment")].toObject();
        if (nodes < 0) {
            nodes = static_cast<int>(assignment.size());
        }
        QCOMPARE(static_cast<int>(assignment.size()), nodes); // every plan names every node
        const QJsonObject sources = plan[QStringLiteral("sources")].toObject();
        QCOMPARE(sources[QStringLiteral("measured")].toInt(), 0);
        QVERIFY(sources[QStringLiteral("modelled")].toInt() > 0);
        if (!plan[QStringLiteral("baseline")].isNull()) {
            baselines << plan[QStringLiteral("baseline")].toString();
        }
    }
    QVERIFY(nodes > 0);
    baselines.sort();
    QCOMPARE(baselines, QStringList({QStringLiteral("all:cpu"), QStringLiteral("all:gpu"),
                                     QStringLiteral("all:npu"), QStringLiteral("greedy"),
                                     QStringLiteral("heft")}));
}

void TestSearchCli::tableAndOutFile() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString out = dir.filePath(QStringLiteral("plans.json"));
    const Run run = paretune(searchArgs({QStringLiteral("--out"), out}));
    QCOMPARE(run.exitCode, 0);
    const QString text = QString::fromUtf8(run.out);
    QVERIFY2(text.contains(QStringLiteral("Latency ms")), qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("all:cpu")));
    QVERIFY(text.contains(QStringLiteral("front")));
    // --max-plans thins the front; the five baselines are always listed.
    const Run few = paretune(
        searchArgs({QStringLiteral("--json"), QStringLiteral("--max-plans"), QStringLiteral("3")}));
    QCOMPARE(few.exitCode, 0);
    const QJsonArray plans = QJsonDocument::fromJson(few.out)[QStringLiteral("plans")].toArray();
    QVERIFY(plans.size() <= 3 + 5);
    QStringList baselines;
    for (const QJsonValue& plan : plans) {
        if (!plan[QStringLiteral("baseline")].isNull()) {
            baselines << plan[QStringLiteral("baseline")].toString();
        }
    }
    QCOMPARE(baselines.size(), 5);
    QFile file(out);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll());
    QVERIFY(!doc[QStringLiteral("plans")].toArray().isEmpty());
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{QStringLiteral("plans.json")});
}

void TestSearchCli::sameSeedSameOutput() {
    const Run a = paretune(
        searchArgs({QStringLiteral("--json"), QStringLiteral("--seed"), QStringLiteral("7")}));
    const Run b = paretune(
        searchArgs({QStringLiteral("--json"), QStringLiteral("--seed"), QStringLiteral("7")}));
    QCOMPARE(a.exitCode, 0);
    QCOMPARE(a.out, b.out);
}

void TestSearchCli::badInputExitsWithTwo_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    const QString model = QStringLiteral(PARETUNE_SAMPLE_MODEL);
    QTest::newRow("unknown device")
        << QStringList{QStringLiteral("search"),    model,
                       QStringLiteral("--devices"), QStringLiteral("cpu,tpu"),
                       QStringLiteral("--catalog"), catalog()}
        << QStringLiteral("no device \"tpu\" in the catalog");
    QTest::newRow("no catalog") << QStringList{QStringLiteral("search"), model,
                                               QStringLiteral("--devices"), QStringLiteral("cpu")}
                                << QStringLiteral("--catalog is required");
    QTest::newRow("one objective")
        << QStringList{QStringLiteral("search"),       model,
                       QStringLiteral("--devices"),    QStringLiteral("cpu,gpu"),
                       QStringLiteral("--catalog"),    catalog(),
                       QStringLiteral("--objectives"), QStringLiteral("latency")}
        << QStringLiteral("expected two or three objectives");
    QTest::newRow("broken catalog")
        << QStringList{QStringLiteral("search"),
                       model,
                       QStringLiteral("--devices"),
                       QStringLiteral("cpu"),
                       QStringLiteral("--catalog"),
                       QStringLiteral(PARETUNE_TEST_DATA_DIR "/catalogs/bad_schema.json")}
        << QStringLiteral("bad_schema.json: schema:");
    QTest::newRow("missing model")
        << QStringList{QStringLiteral("search"),    QStringLiteral("/nonexistent/model.onnx"),
                       QStringLiteral("--devices"), QStringLiteral("cpu"),
                       QStringLiteral("--catalog"), catalog()}
        << QStringLiteral("/nonexistent/model.onnx");
    QTest::newRow("tiny population")
        << QStringList{QStringLiteral("search"),       model,
                       QStringLiteral("--devices"),    QStringLiteral("cpu"),
                       QStringLiteral("--catalog"),    catalog(),
                       QStringLiteral("--population"), QStringLiteral("2")}
        << QStringLiteral("--population");
}

void TestSearchCli::badInputExitsWithTwo() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const Run run = paretune(args);
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(QString::fromUtf8(run.err).contains(message), run.err.constData());
}

void TestSearchCli::coarseToFineFlag() {
    const Run run =
        paretune(searchArgs({QStringLiteral("--json"), QStringLiteral("--coarse-to-fine")}));
    QCOMPARE(run.exitCode, 0);
    const QJsonDocument doc = QJsonDocument::fromJson(run.out);
    QVERIFY(doc[QStringLiteral("coarse_to_fine")].toBool());
    QCOMPARE(doc[QStringLiteral("generations")].toInt(), 20);
    QCOMPARE(doc[QStringLiteral("hypervolume_by_generation")].toArray().size(), 21);
    QVERIFY(!doc[QStringLiteral("plans")].toArray().isEmpty());
    const Run flat = paretune(searchArgs({QStringLiteral("--json")}));
    QCOMPARE(flat.exitCode, 0);
    QVERIFY(!QJsonDocument::fromJson(flat.out)[QStringLiteral("coarse_to_fine")].toBool());
}

// --out: "-" is stdout (and nothing else goes there); a FIFO is written through, never
// replaced; a symbolic link or a folder is refused, untouched.
void TestSearchCli::outWritesOnlyWhatItMay() {
    const Run toStdout = paretune(searchArgs({QStringLiteral("--out"), QStringLiteral("-")}));
    QCOMPARE(toStdout.exitCode, 0);
    QVERIFY(!QJsonDocument::fromJson(toStdout.out)[QStringLiteral("plans")].toArray().isEmpty());

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString target = dir.filePath(QStringLiteral("target.json"));
    const QString link = dir.filePath(QStringLiteral("link.json"));
    QVERIFY(QFile::link(target, link));
    const Run viaLink = paretune(searchArgs({QStringLiteral("--out"), link}));
    QCOMPARE(viaLink.exitCode, 2);
    QVERIFY2(viaLink.err.contains("symbolic link"), viaLink.err.constData());
    QVERIFY(QFileInfo(link).isSymLink());
    QVERIFY(!QFile::exists(target));
    const Run toFolder = paretune(searchArgs({QStringLiteral("--out"), dir.path()}));
    QCOMPARE(toFolder.exitCode, 2);
    QVERIFY2(toFolder.err.contains("a folder"), toFolder.err.constData());

    const QString fifo = dir.filePath(QStringLiteral("plans.fifo"));
    QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
    QProcess reader;
    reader.start(QStringLiteral("cat"), {fifo});
    QVERIFY(reader.waitForStarted());
    const Run toFifo = paretune(searchArgs({QStringLiteral("--out"), fifo}));
    QCOMPARE(toFifo.exitCode, 0);
    QVERIFY(reader.waitForFinished(60000));
    QVERIFY(!QJsonDocument::fromJson(reader.readAllStandardOutput())[QStringLiteral("plans")]
                 .toArray()
                 .isEmpty());
    QFileInfo info(fifo);
    QVERIFY(!info.isFile()); // still the FIFO
}

QTEST_GUILESS_MAIN(TestSearchCli)
#include "tst_searchcli.moc"
