// SPDX-License-Identifier: GPL-3.0-or-later
// The paretune command line, run as a process: output formats and exit codes.
#include "cliprocess.h"
#include "errorcases.h"
#include "testpaths.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

using Run = CliRun;

Run paretune(const QStringList& args) {
    return runParetune(args, 120000);
}

} // namespace

class TestCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void inspectHuman();
    void inspectJson();
    void inspectInputShapeOverride();
    void badInputExitsWithTwo_data();
    void badInputExitsWithTwo();
    void usageErrorsExitWithTwo_data();
    void usageErrorsExitWithTwo();
    void version();
    void loadsLibTorchOnlyWhenNeeded_data();
    void loadsLibTorchOnlyWhenNeeded();
    void failedStdoutExitsWithOne();

private:
    QTemporaryDir m_dir;
};

void TestCli::inspectHuman() {
    const Run run = paretune({QStringLiteral("inspect"), QStringLiteral(PARETUNE_SAMPLE_MODEL)});
    QCOMPARE(run.exitCode, 0);
    const QString out = QString::fromUtf8(run.out);
    QVERIFY2(out.contains(QStringLiteral("Fingerprint")), qPrintable(out));
    QVERIFY(out.contains(QStringLiteral("Unknown shapes  0")));
    QVERIFY(out.contains(QStringLiteral("Conv")));
}

void TestCli::inspectJson() {
    const Run run = paretune({QStringLiteral("inspect"), QStringLiteral(PARETUNE_SAMPLE_MODEL),
                              QStringLiteral("--json")});
    QCOMPARE(run.exitCode, 0);
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(run.out, &error);
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    const QJsonObject model = doc[QStringLiteral("model")].toObject();
    for (const char* key : {"path", "fingerprint", "opset", "node_count", "compute_node_count",
                            "params", "flops", "unknown_shapes"}) {
        QVERIFY2(model.contains(QLatin1String(key)), key);
    }
    QCOMPARE(model[QStringLiteral("fingerprint")].toString().size(), 64);
    QCOMPARE(model[QStringLiteral("unknown_shapes")].toInt(), 0);
    const QJsonArray nodes = doc[QStringLiteral("nodes")].toArray();
    QCOMPARE(nodes.size(), model[QStringLiteral("node_count")].toInt());
    double flops = 0;
    for (const QJsonValue& n : nodes) {
        const QJsonObject node = n.toObject();
        for (const char* key : {"name", "op_type", "inputs", "outputs", "flops", "bytes_read",
                                "bytes_written", "param_bytes", "signature"}) {
            QVERIFY2(node.contains(QLatin1String(key)), key);
        }
        const QJsonObject firstInput = node[QStringLiteral("inputs")].toArray().first().toObject();
        QVERIFY(firstInput.contains(QStringLiteral("dtype")));
        QVERIFY(firstInput[QStringLiteral("shape")].isArray());
        flops += node[QStringLiteral("flops")].toDouble();
    }
    QCOMPARE(flops, model[QStringLiteral("flops")].toDouble());
}

void TestCli::inspectInputShapeOverride() {
    const Run plain = paretune({QStringLiteral("inspect"), QStringLiteral(PARETUNE_SAMPLE_MODEL),
                                QStringLiteral("--json")});
    const QJsonObject model =
        QJsonDocument::fromJson(plain.out)[QStringLiteral("model")].toObject();
    const QString input =
        model[QStringLiteral("inputs")].toArray().first()[QStringLiteral("name")].toString();
    QJsonArray shape =
        model[QStringLiteral("inputs")].toArray().first()[QStringLiteral("shape")].toArray();
    QStringList dims;
    for (int i = 0; i < shape.size(); ++i) {
        dims << QString::number(i == 0 ? 2 : shape[i].toInt());
    }
    const Run run = paretune({QStringLiteral("inspect"), QStringLiteral(PARETUNE_SAMPLE_MODEL),
                              QStringLiteral("--json"), QStringLiteral("--input-shape"),
                              input + QLatin1Char('=') + dims.join(QLatin1Char('x'))});
    QCOMPARE(run.exitCode, 0);
    const QJsonObject batched =
        QJsonDocument::fromJson(run.out)[QStringLiteral("model")].toObject();
    QCOMPARE(batched[QStringLiteral("flops")].toDouble(),
             2 * model[QStringLiteral("flops")].toDouble());
    QVERIFY(batched[QStringLiteral("fingerprint")] != model[QStringLiteral("fingerprint")]);
}

void TestCli::badInputExitsWithTwo_data() {
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("message");
    for (const ErrorCase& c : errorCases()) {
        if (c.fatal) {
            QTest::newRow(qPrintable(c.name)) << c.input << c.message;
        }
    }
}

void TestCli::badInputExitsWithTwo() {
    QFETCH(QString, input);
    QFETCH(QString, message);
    const Run run = paretune({QStringLiteral("inspect"), input});
    QCOMPARE(run.exitCode, 2);
    const QString err = QString::fromUtf8(run.err);
    QVERIFY2(err.contains(input), qPrintable(err));
    QVERIFY2(err.contains(message), qPrintable(err));
    QVERIFY(run.out.isEmpty());
}

void TestCli::usageErrorsExitWithTwo_data() {
    QTest::addColumn<QStringList>("args");
    QTest::newRow("no model") << QStringList{QStringLiteral("inspect")};
    QTest::newRow("unknown command") << QStringList{QStringLiteral("frobnicate")};
    QTest::newRow("unknown option")
        << QStringList{QStringLiteral("inspect"), QStringLiteral(PARETUNE_SAMPLE_MODEL),
                       QStringLiteral("--bogus")};
    QTest::newRow("bad shape") << QStringList{
        QStringLiteral("inspect"), QStringLiteral(PARETUNE_SAMPLE_MODEL),
        QStringLiteral("--input-shape"), QStringLiteral("input=1xbad")};
    QTest::newRow("unknown input")
        << QStringList{QStringLiteral("inspect"), QStringLiteral(PARETUNE_SAMPLE_MODEL),
                       QStringLiteral("--input-shape"), QStringLiteral("nope=1x3")};
}

void TestCli::usageErrorsExitWithTwo() {
    QFETCH(QStringList, args);
    const Run run = paretune(args);
    QCOMPARE(run.exitCode, 2);
    QVERIFY(!run.err.isEmpty());
}

void TestCli::version() {
    const Run run = paretune({QStringLiteral("--version")});
    QCOMPARE(run.exitCode, 0);
    QVERIFY(run.out.startsWith("paretune "));
}

// Commands that need no LibTorch never load it (start-up in milliseconds; the module is opened
// on first use, core/runtime/torch_runtime.h); profiling does. Seen from the dynamic loader's
// own trace of the process.
void TestCli::loadsLibTorchOnlyWhenNeeded_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<bool>("loads");
    const QString sample = QStringLiteral(PARETUNE_SAMPLE_MODEL);
    const QString db = m_dir.filePath(QStringLiteral("samples.db"));
    QTest::newRow("version") << QStringList{QStringLiteral("--version")} << false;
    QTest::newRow("help") << QStringList{QStringLiteral("--help")} << false;
    QTest::newRow("inspect") << QStringList{QStringLiteral("inspect"), sample} << false;
    QTest::newRow("devices") << QStringList{QStringLiteral("devices")} << false;
    QTest::newRow("samples") << QStringList{QStringLiteral("samples"), QStringLiteral("--db"), db}
                             << false;
    QTest::newRow("search") << QStringList{QStringLiteral("search"),
                                           sample,
                                           QStringLiteral("--catalog"),
                                           QStringLiteral(PARETUNE_SOURCE_DIR
                                                          "/resources/catalogs/example.json"),
                                           QStringLiteral("--devices"),
                                           QStringLiteral("cpu,npu"),
                                           QStringLiteral("--population"),
                                           QStringLiteral("8"),
                                           QStringLiteral("--generations"),
                                           QStringLiteral("2"),
                                           QStringLiteral("--out"),
                                           m_dir.filePath(QStringLiteral("plans.json"))}
                            << false;
    QTest::newRow("profile") << QStringList{QStringLiteral("profile"),   sample,
                                            QStringLiteral("--device"),  QStringLiteral("cpu:0"),
                                            QStringLiteral("--repeats"), QStringLiteral("1"),
                                            QStringLiteral("--db"),      db}
                             << true;
}

void TestCli::loadsLibTorchOnlyWhenNeeded() {
    QFETCH(QStringList, args);
    QFETCH(bool, loads);
    QVERIFY(m_dir.isValid());
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("LD_DEBUG"), QStringLiteral("libs"));
    const Run run = runParetune(args, 120000, environment);
    QVERIFY2(run.exitCode == 0, run.err.right(2000).constData());
    QCOMPARE(run.err.contains("libtorch_cpu"), loads);
}

// What could not be written to stdout is an error, not a success.
void TestCli::failedStdoutExitsWithOne() {
    QProcess process;
    process.setStandardOutputFile(QStringLiteral("/dev/full"));
    process.start(QStringLiteral(PARETUNE_CLI_PATH),
                  {QStringLiteral("inspect"), QStringLiteral(PARETUNE_SAMPLE_MODEL)});
    QVERIFY(process.waitForFinished(60000));
    QCOMPARE(process.exitCode(), 1);
    QVERIFY(process.readAllStandardError().contains("writing to standard output failed"));
}

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
