// SPDX-License-Identifier: GPL-3.0-or-later
// `paretune samples` run as a process: table, CSV and JSON output, filters, exit codes.
#include "cliprocess.h"
#include "common/sha256.h"
#include "store/sample_library.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace paretune;

namespace {

std::string fingerprintOf(const std::string& text) {
    return Sha256::hex(text);
}

// JSON whose CSV field needs quoting (comma and quotes). Not a raw string: moc misreads
// backslashes in raw strings.
constexpr const char* kQuotedMeta = "{\"node\":\"conv1, \\\"first\\\"\",\"op_type\":\"Conv\"}";

/// Samples of two models on two devices, with JSON that needs CSV quoting.
struct Library {
    QString path;
    DeviceRecord cpu{fingerprintOf("cpu"), "cpu", "Test CPU", "{}", "{}", ""};
    DeviceRecord gpu{fingerprintOf("gpu"), "gpu", "Test GPU", "{}", "{}", ""};
    ModelRecord resnet{fingerprintOf("resnet"), "resnet", "/m/resnet.onnx", 10, ""};
    ModelRecord bert{fingerprintOf("bert"), "bert", "/m/bert.onnx", 20, ""};
    SignatureRecord conv{Sha256::hex("conv").substr(0, 32), "Conv", "{}", "{}", 1e6, 4096};
    SignatureRecord matmul{Sha256::hex("matmul").substr(0, 32), "MatMul", "{}", "{}", 2e6, 8192};

    explicit Library(const QString& file) : path(file) {
        SampleLibrary library = SampleLibrary::open(path.toStdString());
        for (const DeviceRecord& d : {cpu, gpu}) {
            library.upsertDevice(d);
        }
        for (const ModelRecord& m : {resnet, bert}) {
            library.upsertModel(m);
        }
        library.upsertSignature(conv);
        library.upsertSignature(matmul);
        Sample a;
        a.modelFingerprint = resnet.fingerprint;
        a.deviceFingerprint = cpu.fingerprint;
        a.opSignature = conv.signature;
        a.opMeta = kQuotedMeta;
        a.shapeTuple = "float32[1,3,224,224],float32[64,3,7,7]->float32[1,64,112,112]";
        a.configJson = R"({"threads":4})";
        a.latencyUs = 1234.5678901234;
        a.latencyP10Us = 1200.0;
        a.latencyP90Us = 1300.25;
        a.peakMemoryMb = 3.0625;
        a.energyUj = 5120.5;
        a.energySource = "rapl";
        a.repeats = 50;
        a.sampleTime = "2026-11-29T10:00:00.000Z";
        Sample b = a;
        b.deviceFingerprint = gpu.fingerprint;
        b.latencyUs = 87.25;
        b.energyUj.reset();
        b.energySource.clear();
        Sample c = a;
        c.modelFingerprint = bert.fingerprint;
        c.opSignature = matmul.signature;
        c.opMeta = R"({"node":"matmul","op_type":"MatMul"})";
        c.latencyP10Us.reset();
        c.latencyP90Us.reset();
        c.peakMemoryMb.reset();
        c.latencyUs = 0.1;
        library.addSamples(std::vector<Sample>{a, b, c});
    }
};

constexpr QLatin1Char kQuote(0x22);

/// Splits CSV text (RFC 4180) into rows of fields.
QList<QStringList> parseCsv(const QString& text) {
    QList<QStringList> rows;
    QStringList row;
    QString field;
    bool quoted = false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (quoted) {
            if (c == kQuote && i + 1 < text.size() && text[i + 1] == kQuote) {
                field += c;
                ++i;
            } else if (c == kQuote) {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == kQuote) {
            quoted = true;
        } else if (c == QLatin1Char(',')) {
            row << field;
            field.clear();
        } else if (c == QLatin1Char('\n')) {
            row << field;
            field.clear();
            rows << row;
            row.clear();
        } else {
            field += c;
        }
    }
    return rows;
}

QStringList dbArgs(const QString& path, const QStringList& extra = {}) {
    return QStringList{QStringLiteral("samples"), QStringLiteral("--db"), path} + extra;
}

} // namespace

class TestSamplesCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void emptyLibrary();
    void missingLibraryIsNotCreated();
    void table();
    void csv();
    void json();
    void filters();
    void defaultLocation();
    void badInputExitsWithTwo_data();
    void badInputExitsWithTwo();
};

void TestSamplesCli::emptyLibrary() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("samples.db"));
    { SampleLibrary::open(path.toStdString()); }

    CliRun run = runParetune(dbArgs(path));
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(QString::fromUtf8(run.out).startsWith(QStringLiteral("no samples in ") + path),
             run.out.constData());

    run = runParetune(dbArgs(path, {QStringLiteral("--json")}));
    QCOMPARE(run.exitCode, 0);
    const QJsonDocument doc = QJsonDocument::fromJson(run.out);
    QVERIFY(doc.isObject());
    QVERIFY(doc[QStringLiteral("samples")].toArray().isEmpty());
    QVERIFY(run.err.contains("no samples"));

    run = runParetune(dbArgs(path, {QStringLiteral("--csv")}));
    QCOMPARE(run.exitCode, 0);
    QCOMPARE(parseCsv(QString::fromUtf8(run.out)).size(), 1); // the header alone
    QVERIFY(run.err.contains("no samples"));
}

void TestSamplesCli::missingLibraryIsNotCreated() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("nothing/samples.db"));
    const CliRun run = runParetune(dbArgs(path));
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(QString::fromUtf8(run.out).contains(
                 QStringLiteral("no samples: there is no sample library at ") + path),
             run.out.constData());
    QVERIFY(!QFile::exists(path));
}

void TestSamplesCli::table() {
    QTemporaryDir dir;
    const Library library(dir.filePath(QStringLiteral("samples.db")));
    const CliRun run = runParetune(dbArgs(library.path));
    QCOMPARE(run.exitCode, 0);
    const QString text = QString::fromUtf8(run.out);
    QVERIFY2(text.contains(QStringLiteral("Samples         3")), qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("measured")));
    QVERIFY(text.contains(QStringLiteral("Latency us")));
    QVERIFY(text.contains(QStringLiteral("1234.57")));
    QVERIFY(text.contains(QStringLiteral("5120.5 (rapl)")));
    QVERIFY(text.contains(QStringLiteral("MatMul")));
    QVERIFY(text.contains(QString::fromStdString(library.gpu.fingerprint.substr(0, 12))));
    QCOMPARE(text.count(QStringLiteral("2026-11-29T10:00:00.000Z")), 3);
}

void TestSamplesCli::csv() {
    QTemporaryDir dir;
    const Library library(dir.filePath(QStringLiteral("samples.db")));
    const CliRun run = runParetune(dbArgs(library.path, {QStringLiteral("--csv")}));
    QCOMPARE(run.exitCode, 0);
    QVERIFY(run.err.isEmpty());
    const QList<QStringList> rows = parseCsv(QString::fromUtf8(run.out));
    QCOMPARE(rows.size(), 4);
    const QStringList header = rows[0];
    QCOMPARE(header.join(QLatin1Char(',')),
             QStringLiteral("id,model_fingerprint,device_fingerprint,op_signature,op_type,"
                            "shape_tuple,latency_us,latency_p10_us,latency_p90_us,peak_memory_mb,"
                            "energy_uj,energy_source,repeats,sample_time,tool_version,stale,"
                            "op_meta,config_json"));
    for (const QStringList& row : rows) {
        QCOMPARE(row.size(), header.size());
    }
    auto cell = [&](int row, const char* column) {
        return rows[row][header.indexOf(QLatin1String(column))];
    };
    QCOMPARE(cell(1, "model_fingerprint"), QString::fromStdString(library.resnet.fingerprint));
    QCOMPARE(cell(1, "latency_us").toDouble(), 1234.5678901234); // exact round trip
    QCOMPARE(cell(1, "shape_tuple"),
             QStringLiteral("float32[1,3,224,224],float32[64,3,7,7]->float32[1,64,112,112]"));
    QCOMPARE(cell(1, "op_meta"), QString::fromUtf8(kQuotedMeta));
    QCOMPARE(cell(1, "energy_source"), QStringLiteral("rapl"));
    QCOMPARE(cell(2, "energy_uj"), QString()); // not measured: empty, not 0
    QCOMPARE(cell(3, "latency_p10_us"), QString());
    QCOMPARE(cell(3, "op_type"), QStringLiteral("MatMul"));
    QCOMPARE(cell(3, "latency_us"), QStringLiteral("0.1"));
    QCOMPARE(cell(3, "stale"), QStringLiteral("0"));
}

void TestSamplesCli::json() {
    QTemporaryDir dir;
    const Library library(dir.filePath(QStringLiteral("samples.db")));
    const CliRun run = runParetune(dbArgs(library.path, {QStringLiteral("--json")}));
    QCOMPARE(run.exitCode, 0);
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(run.out, &error);
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    QCOMPARE(doc[QStringLiteral("tool")].toString(), QStringLiteral("paretune"));
    QCOMPARE(doc[QStringLiteral("db")].toString(), library.path);
    QCOMPARE(doc[QStringLiteral("schema_version")].toInt(), SampleLibrary::kSchemaVersion);
    const QJsonArray samples = doc[QStringLiteral("samples")].toArray();
    QCOMPARE(samples.size(), 3);
    const QJsonObject first = samples[0].toObject();
    for (const char* key : {"id", "model_fingerprint", "device_fingerprint", "op_signature",
                            "op_type", "op_meta", "shape_tuple", "config", "source", "latency_us",
                            "latency_p10_us", "latency_p90_us", "peak_memory_mb", "energy_uj",
                            "energy_source", "repeats", "sample_time", "tool_version", "stale"}) {
        QVERIFY2(first.contains(QLatin1String(key)), key);
    }
    QCOMPARE(first[QStringLiteral("source")].toString(), QStringLiteral("measured"));
    QCOMPARE(first[QStringLiteral("latency_us")].toDouble(), 1234.5678901234);
    QCOMPARE(first[QStringLiteral("op_meta")].toObject()[QStringLiteral("node")].toString(),
             QStringLiteral("conv1, \"first\""));
    QCOMPARE(first[QStringLiteral("config")].toObject()[QStringLiteral("threads")].toInt(), 4);
    QVERIFY(samples[1].toObject()[QStringLiteral("energy_uj")].isNull());
    QVERIFY(samples[2].toObject()[QStringLiteral("peak_memory_mb")].isNull());
    QCOMPARE(samples[2].toObject()[QStringLiteral("stale")].toBool(), false);
}

void TestSamplesCli::filters() {
    QTemporaryDir dir;
    const Library library(dir.filePath(QStringLiteral("samples.db")));
    auto ids = [&](const QStringList& extra) {
        const CliRun run =
            runParetune(dbArgs(library.path, extra + QStringList{QStringLiteral("--json")}));
        QList<int> list;
        if (run.exitCode != 0) {
            return QList<int>{-1};
        }
        for (const QJsonValue& s :
             QJsonDocument::fromJson(run.out)[QStringLiteral("samples")].toArray()) {
            list << s[QStringLiteral("id")].toInt();
        }
        return list;
    };
    const QString resnet = QString::fromStdString(library.resnet.fingerprint.substr(0, 8));
    const QString gpu = QString::fromStdString(library.gpu.fingerprint.substr(0, 5));
    QCOMPARE(ids({QStringLiteral("--model"), resnet}), QList<int>({1, 2}));
    QCOMPARE(ids({QStringLiteral("--device"), gpu.toUpper()}), QList<int>({2}));
    QCOMPARE(ids({QStringLiteral("--model"), resnet, QStringLiteral("--device"),
                  QString::fromStdString(library.cpu.fingerprint)}),
             QList<int>({1}));
    QCOMPARE(ids({QStringLiteral("--model"), QString::fromStdString(library.bert.fingerprint),
                  QStringLiteral("--device"), gpu}),
             QList<int>());

    const QString none = QString::fromStdString(fingerprintOf("nobody").substr(0, 10));
    const CliRun run = runParetune(dbArgs(library.path, {QStringLiteral("--model"), none}));
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(
        QString::fromUtf8(run.out).contains(QStringLiteral("no samples match --model ") + none),
        run.out.constData());
}

void TestSamplesCli::defaultLocation() {
    QTemporaryDir dir;
    const QByteArray saved = qgetenv("XDG_DATA_HOME");
    qputenv("XDG_DATA_HOME", dir.path().toUtf8());
    const QString path = dir.filePath(QStringLiteral("paretune/samples.db"));
    CliRun run = runParetune({QStringLiteral("samples")});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(QString::fromUtf8(run.out).contains(QStringLiteral("no sample library at ") + path),
             run.out.constData());
    const Library library(path);
    run = runParetune({QStringLiteral("samples"), QStringLiteral("--csv")});
    QCOMPARE(run.exitCode, 0);
    QCOMPARE(parseCsv(QString::fromUtf8(run.out)).size(), 4);
    saved.isNull() ? qunsetenv("XDG_DATA_HOME") : qputenv("XDG_DATA_HOME", saved);
}

void TestSamplesCli::badInputExitsWithTwo_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QString>("message");
    QTest::newRow("damaged library")
        << QStringLiteral("corrupt") << QStringList() << QStringLiteral("damaged");
    QTest::newRow("not SQLite") << QStringLiteral("text") << QStringList()
                                << QStringLiteral("not an SQLite database");
    QTest::newRow("foreign SQLite") << QStringLiteral("foreign") << QStringList()
                                    << QStringLiteral("not a Paretune sample library");
    QTest::newRow("a folder") << QStringLiteral("folder") << QStringList()
                              << QStringLiteral("is a folder");
    QTest::newRow("prefix not hex")
        << QStringLiteral("library")
        << QStringList{QStringLiteral("--model"), QStringLiteral("resnet")}
        << QStringLiteral("model fingerprint prefix \"resnet\"");
    QTest::newRow("csv and json") << QStringLiteral("library")
                                  << QStringList{QStringLiteral("--csv"), QStringLiteral("--json")}
                                  << QStringLiteral("excludes");
}

void TestSamplesCli::badInputExitsWithTwo() {
    QFETCH(QString, kind);
    QFETCH(QStringList, extra);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("samples.db"));
    if (kind == QLatin1String("folder")) {
        QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("samples.db")));
    } else if (kind == QLatin1String("text")) {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("id,latency\n1,2\n");
    } else if (kind == QLatin1String("foreign")) {
        QFile::copy(QStringLiteral(PARETUNE_TEST_DATA_DIR "/store/foreign.sqlite"), path);
        QVERIFY(QFile::exists(path));
    } else {
        const Library library(path);
        if (kind == QLatin1String("corrupt")) {
            QFile file(path);
            QVERIFY(file.open(QIODevice::ReadWrite));
            file.seek(100); // the schema page, past the file header
            file.write(QByteArray(4000, '\x5a'));
        }
    }
    const CliRun run = runParetune(dbArgs(path, extra));
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(message.toUtf8()), run.err.constData());
    if (kind != QLatin1String("library")) {
        QVERIFY2(run.err.contains(path.toUtf8()), run.err.constData());
    }
}

QTEST_GUILESS_MAIN(TestSamplesCli)
#include "tst_samplescli.moc"
