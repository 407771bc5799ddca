// SPDX-License-Identifier: GPL-3.0-or-later
// `paretune devices` run as a process: the table, the JSON document, --bench, exit codes.
#include "cliprocess.h"
#include "paretune/config.h"
#include "store/sample_library.h"
#include "testpaths.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

namespace {

CliRun runCli(const QStringList& args) {
    return runParetune(args, 120000);
}

QString catalog() {
    return QStringLiteral(PARETUNE_TEST_DATA_DIR "/devices/catalog.json");
}

QJsonObject parse(const CliRun& run) {
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(run.out, &error);
    if (error.error != QJsonParseError::NoError) {
        qWarning("%s", qPrintable(error.errorString()));
        return {};
    }
    return doc.object();
}

QJsonObject deviceById(const QJsonObject& doc, const QString& id) {
    for (const QJsonValue& value : doc[QStringLiteral("devices")].toArray()) {
        if (value[QStringLiteral("id")].toString() == id) {
            return value.toObject();
        }
    }
    return {};
}

bool positiveFinite(const QJsonValue& value) {
    return value.isDouble() && std::isfinite(value.toDouble()) && value.toDouble() > 0.0;
}

} // namespace

class TestDevicesCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void jsonDocument();
    void fingerprintsAreStableAcrossRuns();
    void catalogDevicesAreModelled();
    void benchMeasuresRealCpus();
    void table();
    void storedContentionIsListed();
    void badInputExitsWithTwo_data();
    void badInputExitsWithTwo();
};

void TestDevicesCli::jsonDocument() {
    const CliRun run = runCli({QStringLiteral("devices"), QStringLiteral("--json")});
    QCOMPARE(run.exitCode, 0);
    const QJsonObject doc = parse(run);
    QCOMPARE(doc[QStringLiteral("tool")].toString(), QStringLiteral("paretune"));
    QVERIFY(doc[QStringLiteral("software")].toObject().contains(QStringLiteral("blas")));
    const QJsonArray devices = doc[QStringLiteral("devices")].toArray();
    QVERIFY(devices.size() >= 2);
    QCOMPARE(devices[0][QStringLiteral("id")].toString(), QStringLiteral("cpu"));
    // NVML (GPU energy) is loaded at run time: present, or absent with the reason.
    const QJsonObject nvml = doc[QStringLiteral("nvml")].toObject();
    QVERIFY(nvml.contains(QStringLiteral("available")));
    if (nvml[QStringLiteral("available")].toBool()) {
        QVERIFY(nvml[QStringLiteral("gpus")].toInt() >= 0);
    } else {
        QVERIFY2(nvml[QStringLiteral("reason")].toString().contains(
                     QRegularExpression(QStringLiteral("nvidia-ml|nvml"))),
                 qPrintable(nvml[QStringLiteral("reason")].toString()));
    }

    const QJsonObject cpu = devices[0].toObject();
    const int cores = cpu[QStringLiteral("cores")].toInt();
    QVERIFY(cores >= 1);
    QSet<QString> ids;
    QSet<int> coreCpus;
    int cpuDevices = 0;
    for (const QJsonValue& value : devices) {
        const QJsonObject d = value.toObject();
        const QString id = d[QStringLiteral("id")].toString();
        QVERIFY2(!ids.contains(id), qPrintable(id));
        ids.insert(id);
        QCOMPARE(d[QStringLiteral("tag")].toString(), QStringLiteral("real"));
        QVERIFY(QRegularExpression(QStringLiteral("^[0-9a-f]{64}$"))
                    .match(d[QStringLiteral("fingerprint")].toString())
                    .hasMatch());
        QVERIFY(d[QStringLiteral("benchmark")].isNull()); // only with --bench
        if (id.startsWith(QStringLiteral("cpu:"))) {
            ++cpuDevices;
            QCOMPARE(d[QStringLiteral("kind")].toString(), QStringLiteral("cpu"));
            QCOMPARE(d[QStringLiteral("cores")].toInt(), 1);
            for (const QJsonValue& c : d[QStringLiteral("cpus")].toArray()) {
                QVERIFY2(!coreCpus.contains(c.toInt()), "cpu:N core sets overlap");
                coreCpus.insert(c.toInt());
            }
        } else if (id.startsWith(QStringLiteral("cuda:"))) {
            QCOMPARE(d[QStringLiteral("kind")].toString(), QStringLiteral("gpu"));
            QVERIFY(d[QStringLiteral("multiprocessors")].toInt() > 0);
        }
    }
    QCOMPARE(cpuDevices, cores);
    QSet<int> allCpus;
    for (const QJsonValue& c : cpu[QStringLiteral("cpus")].toArray()) {
        allCpus.insert(c.toInt());
    }
    QCOMPARE(coreCpus, allCpus);
}

void TestDevicesCli::fingerprintsAreStableAcrossRuns() {
    const QJsonObject first = parse(runCli({QStringLiteral("devices"), QStringLiteral("--json")}));
    const QJsonObject second = parse(runCli({QStringLiteral("devices"), QStringLiteral("--json")}));
    QVERIFY(!first.isEmpty());
    QCOMPARE(first[QStringLiteral("devices")].toArray(),
             second[QStringLiteral("devices")].toArray());
    QVERIFY(deviceById(first, QStringLiteral("cpu"))[QStringLiteral("fingerprint")] !=
            deviceById(first, QStringLiteral("cpu:0"))[QStringLiteral("fingerprint")]);
}

void TestDevicesCli::catalogDevicesAreModelled() {
    const CliRun run = runCli({QStringLiteral("devices"), QStringLiteral("--json"),
                               QStringLiteral("--catalog"), catalog()});
    QCOMPARE(run.exitCode, 0);
    const QJsonObject doc = parse(run);
    const QJsonObject npu = deviceById(doc, QStringLiteral("npu"));
    QCOMPARE(npu[QStringLiteral("tag")].toString(), QStringLiteral("modelled"));
    QCOMPARE(npu[QStringLiteral("kind")].toString(), QStringLiteral("npu"));
    QCOMPARE(npu[QStringLiteral("peak_gflops")].toDouble(), 4000.0);
    QCOMPARE(deviceById(doc, QStringLiteral("dsp"))[QStringLiteral("tag")].toString(),
             QStringLiteral("modelled"));
    // The catalog's "cpu" (a cpu too) is left out in favour of the real one, quietly.
    QCOMPARE(deviceById(doc, QStringLiteral("cpu"))[QStringLiteral("tag")].toString(),
             QStringLiteral("real"));
    for (const QJsonValue& note : doc[QStringLiteral("notes")].toArray()) {
        QVERIFY2(!note.toString().contains(QStringLiteral("'cpu'")), qPrintable(note.toString()));
    }
}

void TestDevicesCli::benchMeasuresRealCpus() {
    QTemporaryDir dir;
    const QString db = dir.filePath(QStringLiteral("samples.db"));
    const QStringList args = {QStringLiteral("devices"),
                              QStringLiteral("--json"),
                              QStringLiteral("--bench"),
                              QStringLiteral("--catalog"),
                              catalog(),
                              QStringLiteral("--db"),
                              db};
    const CliRun run = runCli(args);
    QCOMPARE(run.exitCode, 0);
    const QJsonObject doc = parse(run);
    // A second run compares with the vectors the first one stored as references (a huge
    // threshold: this checks the bookkeeping, not the machine's steadiness).
    const CliRun again =
        runCli(args + QStringList{QStringLiteral("--drift-threshold"), QStringLiteral("900")});
    QCOMPARE(again.exitCode, 0);
    const QJsonArray againDevices = parse(again)[QStringLiteral("devices")].toArray();
    int realCpus = 0;
    const QJsonArray devices = doc[QStringLiteral("devices")].toArray();
    QCOMPARE(againDevices.size(), devices.size());
    for (qsizetype i = 0; i < devices.size(); ++i) {
        const QJsonObject d = devices.at(i).toObject();
        const QJsonValue bench = d[QStringLiteral("benchmark")];
        const bool realCpu = d[QStringLiteral("kind")].toString() == QStringLiteral("cpu") &&
                             d[QStringLiteral("tag")].toString() == QStringLiteral("real");
        const bool modelled = d[QStringLiteral("tag")].toString() == QStringLiteral("modelled");
        if (realCpu) {
            QCOMPARE(bench[QStringLiteral("source")].toString(), QStringLiteral("measured"));
            QVERIFY(positiveFinite(bench[QStringLiteral("gemm_gflops")]));
            QVERIFY(positiveFinite(bench[QStringLiteral("memory_bw_gbs")]));
#if PARETUNE_WITH_TORCH
            QVERIFY(positiveFinite(bench[QStringLiteral("dispatch_us")]));
#endif
            QCOMPARE(bench[QStringLiteral("drift")][QStringLiteral("first_benchmark")].toBool(),
                     true);
            const QJsonObject later =
                againDevices.at(i).toObject()[QStringLiteral("benchmark")].toObject();
            const QJsonObject drift = later[QStringLiteral("drift")].toObject();
            QCOMPARE(drift[QStringLiteral("first_benchmark")].toBool(), false);
            // Drifted exactly when a figure moved by more than 900 % of the first run's (the
            // reference it was compared with): a loaded machine can move dispatch_us that far.
            bool moved = false;
            for (const char* figure : {"gemm_gflops", "memory_bw_gbs", "dispatch_us"}) {
                const double first = bench[QLatin1String(figure)].toDouble();
                const double now = later[QLatin1String(figure)].toDouble();
                moved = moved || (first > 0.0 && now > 0.0 && std::abs(now - first) / first > 9.0);
            }
            QCOMPARE(drift[QStringLiteral("drifted")].toBool(), moved);
            ++realCpus;
        } else if (modelled) {
            // Modelled devices show the catalog's figures, never as measured ones.
            QCOMPARE(bench[QStringLiteral("source")].toString(), QStringLiteral("modelled"));
            QCOMPARE(bench[QStringLiteral("gemm_gflops")].toDouble(),
                     d[QStringLiteral("peak_gflops")].toDouble());
            QCOMPARE(bench[QStringLiteral("memory_bw_gbs")].toDouble(),
                     d[QStringLiteral("mem_bw_gbs")].toDouble());
        } else {
            QVERIFY(bench.isNull()); // a GPU has no CPU micro-benchmark
        }
    }
    QVERIFY(realCpus >= 2); // cpu and cpu:0 at least

    const CliRun bad =
        runCli(args + QStringList{QStringLiteral("--drift-threshold"), QStringLiteral("-5")});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY(bad.err.contains("--drift-threshold"));
}

void TestDevicesCli::table() {
    const QJsonObject doc = parse(runCli({QStringLiteral("devices"), QStringLiteral("--json")}));
    const QString cpuFingerprint =
        deviceById(doc, QStringLiteral("cpu"))[QStringLiteral("fingerprint")].toString();
    QCOMPARE(cpuFingerprint.size(), 64);

    QTemporaryDir dir;
    const CliRun run = runCli({QStringLiteral("devices"), QStringLiteral("--catalog"), catalog(),
                               QStringLiteral("--bench"), QStringLiteral("--db"),
                               dir.filePath(QStringLiteral("samples.db"))});
    QCOMPARE(run.exitCode, 0);
    const QString out = QString::fromUtf8(run.out);
    QVERIFY2(out.startsWith(QStringLiteral("ID ")), qPrintable(out));
    const QStringList lines = out.split(QLatin1Char('\n'));
    bool cpuRow = false;
    bool npuRow = false;
    bool measuredRow = false;
    bool modelledRow = false;
    for (const QString& line : lines) {
        const QStringList cells = line.split(QLatin1Char(' '), Qt::SkipEmptyParts);
        if (cells.size() >= 4 && cells[0] == QStringLiteral("cpu") &&
            cells[2] == QStringLiteral("real")) {
            cpuRow = cpuRow || cells[3] == cpuFingerprint.left(12);
        }
        if (cells.size() >= 4 && cells[0] == QStringLiteral("npu") &&
            cells[2] == QStringLiteral("modelled")) { // device table
            npuRow = line.contains(QStringLiteral("peak 4000 GFLOP/s"));
        }
        // Benchmark table: ID, GEMM, memory, dispatch, source, drift.
        if (cells.size() >= 6 && cells[0] == QStringLiteral("cpu:0") &&
            cells[4] == QStringLiteral("measured")) {
            measuredRow = cells[1].toDouble() > 0.0 && cells[2].toDouble() > 0.0 &&
                          line.contains(QStringLiteral("first benchmark"));
        }
        if (cells.size() == 6 && cells[0] == QStringLiteral("npu") &&
            cells[4] == QStringLiteral("modelled")) {
            modelledRow = cells[1] == QStringLiteral("4000.0") && cells[3] == QStringLiteral("-");
        }
    }
    QVERIFY2(cpuRow, qPrintable(out));
    QVERIFY2(npuRow, qPrintable(out));
    QVERIFY2(measuredRow, qPrintable(out));
    QVERIFY2(modelledRow, qPrintable(out));
}

// The contention a library stores between two devices that can run at the same time is
// listed per ordered pair, labelled measured; a pair without one says it is not measured yet.
void TestDevicesCli::storedContentionIsListed() {
    const QJsonObject listed = parse(runCli({QStringLiteral("devices"), QStringLiteral("--json")}));
    const QString core0 =
        deviceById(listed, QStringLiteral("cpu:0"))[QStringLiteral("fingerprint")].toString();
    const QString core1 =
        deviceById(listed, QStringLiteral("cpu:1"))[QStringLiteral("fingerprint")].toString();
    if (core1.isEmpty()) {
        QSKIP("one physical core: no two devices of this machine can run at the same time");
    }
    QTemporaryDir dir;
    const QString db = dir.filePath(QStringLiteral("samples.db"));
    {
        paretune::SampleLibrary library = paretune::SampleLibrary::open(db.toStdString());
        for (const QString& fingerprint : {core0, core1}) {
            paretune::DeviceRecord device;
            device.fingerprint = fingerprint.toStdString();
            device.kind = "cpu";
            device.name = "test";
            library.upsertDevice(device);
        }
        paretune::ContentionRecord c;
        c.deviceFingerprint = core0.toStdString();
        c.besideFingerprint = core1.toStdString();
        c.measuredAt = "2026-12-01T12:00:00.000Z";
        c.factor = 1.25;
        library.addContention(c);
    }
    const CliRun run =
        runCli({QStringLiteral("devices"), QStringLiteral("--json"), QStringLiteral("--db"), db});
    QCOMPARE(run.exitCode, 0);
    bool measured = false;
    bool missing = false;
    for (const QJsonValue& c : parse(run)[QStringLiteral("contention")].toArray()) {
        const QString device = c[QStringLiteral("device")].toString();
        const QString beside = c[QStringLiteral("beside")].toString();
        QVERIFY(device != QStringLiteral("cpu") && beside != QStringLiteral("cpu"));
        if (device == QStringLiteral("cpu:0") && beside == QStringLiteral("cpu:1")) {
            QCOMPARE(c[QStringLiteral("factor")].toDouble(), 1.25);
            QCOMPARE(c[QStringLiteral("source")].toString(), QStringLiteral("measured"));
            QCOMPARE(c[QStringLiteral("measured_at")].toString(),
                     QStringLiteral("2026-12-01T12:00:00.000Z"));
            measured = true;
        }
        if (device == QStringLiteral("cpu:1") && beside == QStringLiteral("cpu:0")) {
            QVERIFY(c[QStringLiteral("factor")].isNull());
            missing = true;
        }
    }
    QVERIFY(measured && missing);

    const CliRun text = runCli({QStringLiteral("devices"), QStringLiteral("--db"), db});
    QCOMPARE(text.exitCode, 0);
    const QString out = QString::fromUtf8(text.out);
    QVERIFY2(out.contains(QRegularExpression(QStringLiteral("\\ncpu:0 +cpu:1 +1\\.25 +measured "))),
             qPrintable(out));
    QVERIFY2(
        out.contains(QRegularExpression(QStringLiteral("\\ncpu:1 +cpu:0 +- .*not measured yet"))),
        qPrintable(out));
    // A library named by --db must exist (it is only read without --bench).
    QCOMPARE(runCli({QStringLiteral("devices"), QStringLiteral("--db"),
                     dir.filePath(QStringLiteral("none.db"))})
                 .exitCode,
             2);
    QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("none.db"))));
}

void TestDevicesCli::badInputExitsWithTwo_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    const QString catalogs = QStringLiteral(PARETUNE_TEST_DATA_DIR "/catalogs/");
    QTest::newRow("catalog not JSON")
        << QStringList{QStringLiteral("--catalog"), catalogs + QStringLiteral("not_json.json")}
        << QStringLiteral("not_json.json");
    QTest::newRow("catalog bad field")
        << QStringList{QStringLiteral("--catalog"),
                       catalogs + QStringLiteral("negative_bandwidth.json")}
        << QStringLiteral("negative_bandwidth.json");
    QTest::newRow("catalog missing")
        << QStringList{QStringLiteral("--catalog"), catalogs + QStringLiteral("absent.json")}
        << QStringLiteral("absent.json");
    QTest::newRow("unknown option")
        << QStringList{QStringLiteral("--gpu")} << QStringLiteral("--gpu");
}

void TestDevicesCli::badInputExitsWithTwo() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const CliRun run = runCli(QStringList{QStringLiteral("devices")} + args);
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(QString::fromUtf8(run.err).contains(message), run.err.constData());
    QVERIFY(run.out.isEmpty() || !run.out.startsWith("ID "));
}

QTEST_APPLESS_MAIN(TestDevicesCli)
#include "tst_devicescli.moc"
