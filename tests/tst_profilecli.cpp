// SPDX-License-Identifier: GPL-3.0-or-later
// `paretune profile` run as a process: every compute node measured into the sample library,
// reuse on the second run and across models sharing operator signatures, exit codes.
#include "cliprocess.h"
#include "device/device.h"
#include "store/sample_library.h"
#include "testpaths.h"

#include <onnx/defs/parser.h>
#include <onnx/onnx_pb.h>

#include <signal.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

namespace {

QString model(const char* name) {
    return QStringLiteral(PARETUNE_TEST_MODELS_DIR "/") + QLatin1String(name) +
           QStringLiteral(".onnx");
}

// Writes a small model from ONNX text syntax; returns its path.
QString writeModel(const QTemporaryDir& dir, const char* name, const std::string& body) {
    onnx::ModelProto proto;
    const auto status = onnx::OnnxParser::Parse(
        proto, ("<ir_version: 8, opset_import: [\"\" : 13]>\n" + body).c_str());
    if (!status.IsOK()) {
        qFatal("fixture: %s", status.ErrorMessage().c_str());
    }
    const QString path = dir.filePath(QLatin1String(name));
    std::ofstream out(path.toStdString(), std::ios::binary);
    proto.SerializeToOstream(&out);
    return path;
}

QJsonObject profileJson(const QStringList& args, int* exitCode) {
    const CliRun run = runParetune(QStringList{QStringLiteral("profile")} + args +
                                   QStringList{QStringLiteral("--json")});
    *exitCode = run.exitCode;
    return QJsonDocument::fromJson(run.out).object();
}

} // namespace

class TestProfileCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyComputeNodeIsMeasuredThenReused();
    void reuseAcrossModelsSharingSignatures();
    void killedProfileKeepsCommittedBatches_data();
    void killedProfileKeepsCommittedBatches();
    void badDevicesExitWithTwo_data();
    void badDevicesExitWithTwo();
    void cudaDeviceRefusalNamesTheFlavour();
    void openMpThreadsSleepWhenIdle_data();
    void openMpThreadsSleepWhenIdle();
};

void TestProfileCli::everyComputeNodeIsMeasuredThenReused() {
    QVERIFY2(QFile::exists(model("tiny_cnn")), "run tools/export_models.py");
    QTemporaryDir dir;
    const QString db = dir.filePath(QStringLiteral("samples.db"));
    const QStringList args = {model("tiny_cnn"),
                              QStringLiteral("--device"),
                              QStringLiteral("cpu:0"),
                              QStringLiteral("--db"),
                              db,
                              QStringLiteral("--repeats"),
                              QStringLiteral("5")};
    int code = -1;
    const QJsonObject first = profileJson(args, &code);
    QCOMPARE(code, 0);
    const QJsonArray nodes = first[QStringLiteral("nodes")].toArray();
    QVERIFY(nodes.size() > 5);
    for (const QJsonValue& v : nodes) {
        const QJsonObject n = v.toObject();
        QCOMPARE(n[QStringLiteral("status")].toString(), QStringLiteral("ok"));
        QVERIFY2(n[QStringLiteral("latency_us")].toDouble() > 0,
                 qPrintable(n[QStringLiteral("name")].toString()));
        QVERIFY(n[QStringLiteral("p10_us")].toDouble() <=
                n[QStringLiteral("latency_us")].toDouble());
        QVERIFY(n[QStringLiteral("p90_us")].toDouble() >=
                n[QStringLiteral("latency_us")].toDouble());
    }
    QVERIFY(first[QStringLiteral("measured_nodes")].toInt() > 0);
    // The machine's speed before and after the measurements (the quick micro-benchmark).
    const QJsonObject speed = first[QStringLiteral("machine_speed")].toObject();
    for (const char* when : {"before", "after"}) {
        const QJsonObject figures = speed[QLatin1String(when)].toObject();
        QVERIFY2(figures[QStringLiteral("gemm_gflops")].toDouble() > 0, when);
        QVERIFY2(figures[QStringLiteral("memory_bw_gbs")].toDouble() > 0, when);
    }
    QCOMPARE(speed[QStringLiteral("drifted")].toBool(),
             !speed[QStringLiteral("why")].toString().isEmpty());
    QVERIFY(first[QStringLiteral("end_to_end_us")].toDouble() > 0);
    QCOMPARE(first[QStringLiteral("device_fingerprint")].toString().size(), 64);
    // The device's first figures are its reference (what the predictor knows it by).
    const auto reference =
        paretune::SampleLibrary::open(db.toStdString())
            .referenceBenchmark(
                first[QStringLiteral("device_fingerprint")].toString().toStdString());
    QVERIFY(reference);
    const QJsonObject before = speed[QStringLiteral("before")].toObject();
    QCOMPARE(reference->gemmGflops, before[QStringLiteral("gemm_gflops")].toDouble());
    QCOMPARE(reference->memoryBwGbs, before[QStringLiteral("memory_bw_gbs")].toDouble());

    const QJsonObject second = profileJson(args, &code);
    QCOMPARE(code, 0);
    QCOMPARE(second[QStringLiteral("measured_nodes")].toInt(), 0);
    QVERIFY(second[QStringLiteral("machine_speed")].isNull()); // nothing measured, no check
    QCOMPARE(second[QStringLiteral("reused_nodes")].toInt(), nodes.size());
    QCOMPARE(second[QStringLiteral("nodes")].toArray().first()[QStringLiteral("latency_us")],
             nodes.first()[QStringLiteral("latency_us")]);

    // The library holds one sample per distinct signature measured.
    const CliRun samples = runParetune(
        {QStringLiteral("samples"), QStringLiteral("--db"), db, QStringLiteral("--json")});
    QCOMPARE(samples.exitCode, 0);
    const QJsonArray stored =
        QJsonDocument::fromJson(samples.out)[QStringLiteral("samples")].toArray();
    QCOMPARE(stored.size(), first[QStringLiteral("measured_nodes")].toInt() +
                                first[QStringLiteral("measured_fusion_groups")].toInt());
}

void TestProfileCli::reuseAcrossModelsSharingSignatures() {
    QTemporaryDir dir;
    const QString a = writeModel(dir, "a.onnx", R"(
a (float[1,64] x) => (float[1,64] y) { h = Relu(x)
  y = Sigmoid(h) }
)");
    const QString b = writeModel(dir, "b.onnx", R"(
b (float[1,64] x) => (float[1,64] y) { h = Tanh(x)
  y = Relu(h) }
)");
    const QString db = dir.filePath(QStringLiteral("samples.db"));
    int code = -1;
    const QJsonObject first =
        profileJson({a, QStringLiteral("--device"), QStringLiteral("cpu:0"), QStringLiteral("--db"),
                     db, QStringLiteral("--repeats"), QStringLiteral("5")},
                    &code);
    QCOMPARE(code, 0);
    QCOMPARE(first[QStringLiteral("measured_nodes")].toInt(), 2);
    const QJsonObject second =
        profileJson({b, QStringLiteral("--device"), QStringLiteral("cpu:0"), QStringLiteral("--db"),
                     db, QStringLiteral("--repeats"), QStringLiteral("5")},
                    &code);
    QCOMPARE(code, 0);
    QCOMPARE(second[QStringLiteral("measured_nodes")].toInt(), 1); // Tanh
    // The contention of cpu:0 beside each other core (and the reverse) is measured by the first
    // profile only: once per pair and library.
    const qsizetype pairs = paretune::cpuTopology().physicalCores - 1;
    const QJsonArray contention = first[QStringLiteral("contention_measured")].toArray();
    QCOMPARE(contention.size(), 2 * pairs);
    for (const QJsonValue& c : contention) {
        QVERIFY(c[QStringLiteral("factor")].toDouble() >= 1.0);
        QCOMPARE(c[QStringLiteral("source")].toString(), QStringLiteral("measured"));
    }
    QCOMPARE(second[QStringLiteral("contention_measured")].toArray().size(), 0);
    QCOMPARE(second[QStringLiteral("reused_nodes")].toInt(), 1); // Relu [1,64] from model a
    const QJsonArray nodes = second[QStringLiteral("nodes")].toArray();
    QCOMPARE(nodes[1][QStringLiteral("op_type")].toString(), QStringLiteral("Relu"));
    QVERIFY(nodes[1][QStringLiteral("reused")].toBool());
    QVERIFY(first[QStringLiteral("model_fingerprint")] !=
            second[QStringLiteral("model_fingerprint")]);
}

// Samples are committed in batches while the profile runs: a `kill -9` in the middle leaves a
// sound library holding every committed batch, and the next run reuses them. SIGINT or SIGTERM
// stop it after the operator in progress, commit what was measured and exit with 128 + signal.
void TestProfileCli::killedProfileKeepsCommittedBatches_data() {
    QTest::addColumn<int>("signal");
    QTest::newRow("SIGKILL") << int{SIGKILL};
    QTest::newRow("SIGINT") << int{SIGINT};
    QTest::newRow("SIGTERM") << int{SIGTERM};
}

void TestProfileCli::killedProfileKeepsCommittedBatches() {
    QFETCH(int, signal);
    QVERIFY2(QFile::exists(model("efficientnet_b0")), "run tools/export_models.py");
    QTemporaryDir dir;
    const QString db = dir.filePath(QStringLiteral("samples.db"));
    // A batch commits after 32 samples or 2 s, whichever comes first. EfficientNet-B0 has 118
    // distinct operators: its first batch is full long before the last operator is measured,
    // however fast the machine (ResNet-18's 20-odd operators once fitted in one 2 s batch, so
    // that the first commit was also the last and the kill came after a normal exit).
    const QStringList args = {model("efficientnet_b0"),
                              QStringLiteral("--device"),
                              QStringLiteral("cpu:0"),
                              QStringLiteral("--db"),
                              db,
                              QStringLiteral("--repeats"),
                              QStringLiteral("30"),
                              QStringLiteral("--json")};
    QProcess profile;
    profile.start(QStringLiteral(PARETUNE_CLI_PATH), QStringList{QStringLiteral("profile")} + args);
    QVERIFY(profile.waitForStarted());
    qint64 seen = 0;
    QElapsedTimer timer;
    timer.start();
    while (seen == 0 && profile.state() == QProcess::Running && timer.elapsed() < 240000) {
        QTest::qWait(100);
        if (QFile::exists(db)) {
            seen = paretune::SampleLibrary::open(db.toStdString()).sampleCount();
        }
    }
    QVERIFY2(profile.state() == QProcess::Running,
             "the profile finished before its first batch could be seen; nothing to kill");
    QVERIFY(seen > 0);
    const qint64 pid = profile.processId();
    QVERIFY(pid > 0);
    ::kill(static_cast<pid_t>(pid), signal);
    QVERIFY(profile.waitForFinished(60000));
    if (signal == SIGKILL) {
        QCOMPARE(profile.exitStatus(), QProcess::CrashExit);
    } else {
        // Stopped cleanly: the operators measured so far are stored, the message counts them.
        QCOMPARE(profile.exitStatus(), QProcess::NormalExit);
        QCOMPARE(profile.exitCode(), 128 + signal);
        const QString err = QString::fromUtf8(profile.readAllStandardError());
        const QRegularExpression said(
            QStringLiteral("interrupted \\((SIGINT|SIGTERM)\\): (\\d+) operators measured and "
                           "stored in .*, (\\d+) not measured"));
        const QRegularExpressionMatch match = said.match(err);
        QVERIFY2(match.hasMatch(), qPrintable(err));
        QCOMPARE(match.captured(1), QLatin1String(signal == SIGINT ? "SIGINT" : "SIGTERM"));
        QCOMPARE(paretune::SampleLibrary::open(db.toStdString()).sampleCount(),
                 match.captured(2).toLongLong());
        // However far it got (the signal may come after the last operator, during the
        // end-to-end run), the counts add up to the model's distinct operators.
        QVERIFY(match.captured(2).toInt() + match.captured(3).toInt() > 0);
        QVERIFY(profile.readAllStandardOutput().isEmpty());
    }

    const auto library = paretune::SampleLibrary::open(db.toStdString());
    QCOMPARE(library.integrityProblems(), std::vector<std::string>{});
    const qint64 kept = library.sampleCount();
    QVERIFY(kept >= seen);
    if (signal != SIGKILL) {
        return; // the resumed run is the same as after SIGKILL
    }

    // The run finished afterwards measures only what the killed one did not commit.
    int code = -1;
    const QJsonObject resumed = profileJson(args.mid(0, args.size() - 1), &code);
    QCOMPARE(code, 0);
    QVERIFY(resumed[QStringLiteral("reused_nodes")].toInt() >= kept);
    QCOMPARE(paretune::SampleLibrary::open(db.toStdString()).sampleCount(),
             kept + resumed[QStringLiteral("measured_nodes")].toInt() +
                 resumed[QStringLiteral("measured_fusion_groups")].toInt());

    // The table (everything reused now) shows every node's whole name, however long: names
    // cut to one width made many rows look alike.
    const CliRun table =
        runParetune(QStringList{QStringLiteral("profile")} + args.mid(0, args.size() - 1));
    QCOMPARE(table.exitCode, 0);
    qsizetype longest = 0;
    for (const QJsonValue& v : resumed[QStringLiteral("nodes")].toArray()) {
        const QString name = v.toObject().value(QStringLiteral("name")).toString();
        longest = std::max(longest, name.size());
        QVERIFY2(table.out.contains(QByteArray(name.toUtf8() + ' ')), qPrintable(name));
    }
    QVERIFY(longest > 40);
}

void TestProfileCli::badDevicesExitWithTwo_data() {
    QTest::addColumn<QStringList>("extra");
    QTest::newRow("unknown device")
        << QStringList{QStringLiteral("--device"), QStringLiteral("nope")};
    QTest::newRow("modelled device") << QStringList{
        QStringLiteral("--device"), QStringLiteral("npu"), QStringLiteral("--catalog"),
        QStringLiteral(PARETUNE_SOURCE_DIR "/resources/catalogs/example.json")};
    QTest::newRow("missing device option") << QStringList{};
}

void TestProfileCli::badDevicesExitWithTwo() {
    QFETCH(QStringList, extra);
    QTemporaryDir dir;
    const CliRun run =
        runParetune(QStringList{QStringLiteral("profile"), QStringLiteral(PARETUNE_SAMPLE_MODEL),
                                QStringLiteral("--db"), dir.filePath(QStringLiteral("s.db"))} +
                    extra);
    QCOMPARE(run.exitCode, 2);
    QVERIFY(!run.err.isEmpty());
}

// `--device cuda:K` that cannot be profiled (no such GPU here, or the CPU flavour's module): exit
// 2, the message says which flavour this build is and, for the CPU one, how to get CUDA. On a
// machine with a GPU, cuda:7 is past what it has (gpu-check runs the real profile on cuda:0).
void TestProfileCli::cudaDeviceRefusalNamesTheFlavour() {
    QTemporaryDir dir;
    const CliRun run =
        runParetune(QStringList{QStringLiteral("profile"), QStringLiteral(PARETUNE_SAMPLE_MODEL),
                                QStringLiteral("--db"), dir.filePath(QStringLiteral("s.db")),
                                QStringLiteral("--device"), QStringLiteral("cuda:7")});
    QCOMPARE(run.exitCode, 2);
    const QString err = QString::fromUtf8(run.err);
    QVERIFY2(err.contains(QStringLiteral("cuda:7")), run.err.constData());
    QVERIFY2(err.contains(QStringLiteral("CUDA device")), run.err.constData());
    if (err.contains(QStringLiteral("CPU flavour"))) {
        QVERIFY2(err.contains(QStringLiteral("scripts/install-deps --cuda")), run.err.constData());
        QVERIFY2(err.contains(QStringLiteral("scripts/dev build-cuda")), run.err.constData());
    } else {
        QVERIFY2(err.contains(QStringLiteral("the CUDA flavour")), run.err.constData());
    }
}

// The all-core device runs LibTorch's OpenMP threads: the loader bounds their spinning
// (GOMP_SPINCOUNT=5000) when neither OMP_WAIT_POLICY nor GOMP_SPINCOUNT is set, and OpenBLAS's
// (OPENBLAS_THREAD_TIMEOUT=4) when neither it nor GOTO_THREAD_TIMEOUT is (common/openmp_wait.h),
// keeps what the user chose, and stores both with every sample.
void TestProfileCli::openMpThreadsSleepWhenIdle_data() {
    QTest::addColumn<QString>("given");
    QTest::addColumn<QString>("stored");
    QTest::addColumn<QString>("givenBlas");
    QTest::addColumn<QString>("storedBlas");
    QTest::newRow("unset") << QString() << QStringLiteral("spin 5000") << QString()
                           << QStringLiteral("4");
    QTest::newRow("chosen") << QStringLiteral("active") << QStringLiteral("active")
                            << QStringLiteral("20") << QStringLiteral("20");
    QTest::newRow("passive") << QStringLiteral("passive") << QStringLiteral("passive") << QString()
                             << QStringLiteral("4");
}

void TestProfileCli::openMpThreadsSleepWhenIdle() {
    QFETCH(QString, given);
    QFETCH(QString, stored);
    QFETCH(QString, givenBlas);
    QFETCH(QString, storedBlas);
    QVERIFY2(QFile::exists(model("tiny_mlp")), "run tools/export_models.py");
    QTemporaryDir dir;
    const QString db = dir.filePath(QStringLiteral("samples.db"));
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const char* name :
         {"OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "OPENBLAS_THREAD_TIMEOUT", "GOTO_THREAD_TIMEOUT"}) {
        environment.remove(QString::fromLatin1(name));
    }
    if (!given.isEmpty()) {
        environment.insert(QStringLiteral("OMP_WAIT_POLICY"), given);
    }
    if (!givenBlas.isEmpty()) {
        environment.insert(QStringLiteral("OPENBLAS_THREAD_TIMEOUT"), givenBlas);
    }
    const CliRun run =
        runParetune({QStringLiteral("profile"), model("tiny_mlp"), QStringLiteral("--device"),
                     QStringLiteral("cpu"), QStringLiteral("--db"), db, QStringLiteral("--repeats"),
                     QStringLiteral("5")},
                    300000, environment);
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const CliRun samples = runParetune(
        {QStringLiteral("samples"), QStringLiteral("--db"), db, QStringLiteral("--json")});
    QCOMPARE(samples.exitCode, 0);
    const QJsonArray samplesStored =
        QJsonDocument::fromJson(samples.out)[QStringLiteral("samples")].toArray();
    QVERIFY(!samplesStored.isEmpty());
    for (const QJsonValue& v : samplesStored) {
        const QJsonValue config = v[QStringLiteral("config")];
        QCOMPARE(config[QStringLiteral("openmp_wait_policy")].toString(), stored);
        QCOMPARE(config[QStringLiteral("blas_thread_timeout")].toString(), storedBlas);
    }
}

QTEST_GUILESS_MAIN(TestProfileCli)
#include "tst_profilecli.moc"
