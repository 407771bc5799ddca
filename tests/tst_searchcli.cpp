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
    void variantsInTableAndDocument();
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
    QTest::newRow("unknown precision")
        << searchArgs({QStringLiteral("--variants"), QStringLiteral("bf17"),
                       QStringLiteral("--objectives"), QStringLiteral("latency,accuracy")})
        << QStringLiteral("--variants: unknown variant 'bf17': 'bf17' is not a precision");
    QTest::newRow("precision listed twice")
        << searchArgs({QStringLiteral("--variants"), QStringLiteral("fp16,fp16"),
                       QStringLiteral("--objectives"), QStringLiteral("latency,accuracy")})
        << QStringLiteral("--variants: variant 'fp16' is listed twice");
    QTest::newRow("variants without accuracy")
        << searchArgs({QStringLiteral("--variants"), QStringLiteral("bf16")})
        << QStringLiteral("--variants needs accuracy among --objectives or --max-accuracy-loss");
    QTest::newRow("negative accuracy loss")
        << searchArgs({QStringLiteral("--variants"), QStringLiteral("bf16"),
                       QStringLiteral("--max-accuracy-loss"), QStringLiteral("-1")})
        << QStringLiteral("--max-accuracy-loss: expected a percentage of 0 or more");
    QTest::newRow("accuracy loss not a number")
        << searchArgs({QStringLiteral("--variants"), QStringLiteral("bf16"),
                       QStringLiteral("--max-accuracy-loss"), QStringLiteral("1%")})
        << QStringLiteral("--max-accuracy-loss: expected a percentage of 0 or more");
    QTest::newRow("bad catalog precision")
        << QStringList{QStringLiteral("search"),
                       model,
                       QStringLiteral("--devices"),
                       QStringLiteral("cpu,npu"),
                       QStringLiteral("--catalog"),
                       QStringLiteral(PARETUNE_TEST_DATA_DIR "/catalogs/bad_precision_name.json")}
        << QStringLiteral("bad_precision_name.json: devices[1].precisions.bf17: unknown precision");
}

void TestSearchCli::badInputExitsWithTwo() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const Run run = paretune(args);
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(QString::fromUtf8(run.err).contains(message), run.err.constData());
}

// --variants bf16 on the example catalog (bf16 peaks on its three devices, modelled cells):
// the table shows the lowered nodes and the deviation, the document the offered variants and
// each plan's variants with its deviation and where that comes from (modelled cells carry none).
void TestSearchCli::variantsInTableAndDocument() {
    const QStringList variants{QStringLiteral("--variants"), QStringLiteral("bf16"),
                               QStringLiteral("--objectives"),
                               QStringLiteral("latency,energy,accuracy")};
    const Run table = paretune(searchArgs(variants));
    QCOMPARE(table.exitCode, 0);
    QVERIFY2(table.out.contains("Deviation %"), table.out.constData());
    QVERIFY2(table.out.contains("all:npu:bf16"), table.out.constData());
    const Run json = paretune(searchArgs(variants + QStringList{QStringLiteral("--json")}));
    QCOMPARE(json.exitCode, 0);
    const QJsonDocument doc = QJsonDocument::fromJson(json.out);
    QCOMPARE(doc[QStringLiteral("variants")].toArray(), QJsonArray({QStringLiteral("bf16")}));
    QCOMPARE(doc[QStringLiteral("objectives")].toArray().last().toString(),
             QStringLiteral("accuracy"));
    int lowered = 0;
    for (const QJsonValue& value : doc[QStringLiteral("plans")].toArray()) {
        const QJsonObject plan = value.toObject();
        const QJsonObject nodes = plan[QStringLiteral("variants")].toObject();
        for (auto it = nodes.begin(); it != nodes.end(); ++it) {
            QCOMPARE(it.value().toString(), QStringLiteral("bf16"));
        }
        lowered += nodes.isEmpty() ? 0 : 1;
        QCOMPARE(plan[QStringLiteral("deviation_pct")].toDouble(), 0.0); // modelled: none
        QVERIFY(
            plan[QStringLiteral("deviation_source")].toString().startsWith(QStringLiteral("none")));
    }
    QVERIFY(lowered > 0);
    // With a limit instead of the objective, the default objectives stay.
    const Run limited = paretune(searchArgs({QStringLiteral("--variants"), QStringLiteral("bf16"),
                                             QStringLiteral("--max-accuracy-loss"),
                                             QStringLiteral("0.5"), QStringLiteral("--json")}));
    QCOMPARE(limited.exitCode, 0);
    QCOMPARE(
        QJsonDocument::fromJson(limited.out)[QStringLiteral("max_accuracy_loss_pct")].toDouble(),
        0.5);
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
