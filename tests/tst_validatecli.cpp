// SPDX-License-Identifier: GPL-3.0-or-later
// `paretune validate` run as a process: profile on cpu:0 and cpu:1, search with the measured
// samples, validate a plan of the front (measured vs predicted, stored in the library with the
// existing samples kept), and the refusals with exit code 2.
#include "cliprocess.h"
#include "device/device.h"
#include "graph/onnx_importer.h"
#include "store/sample_library.h"
#include "testpaths.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace paretune;

namespace {

QString model(const char* name) {
    return QStringLiteral(PARETUNE_TEST_MODELS_DIR "/") + QLatin1String(name) +
           QStringLiteral(".onnx");
}

const QString kCoresCatalog =
    QStringLiteral(PARETUNE_SOURCE_DIR "/resources/catalogs/cpu_cores.json");
const QString kExampleCatalog =
    QStringLiteral(PARETUNE_SOURCE_DIR "/resources/catalogs/example.json");

void writeText(const QString& path, const std::string& text) {
    std::ofstream(path.toStdString()) << text;
}

} // namespace

class TestValidateCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void searchedPlanIsMeasuredAndStored();
    void loweredPlanIsPredictedAsSearched();
    void searchSaysWhyNoPlanCanRun();
    void badInputExitsWithTwo_data();
    void badInputExitsWithTwo();

private:
    QTemporaryDir m_dir;
    QString m_db;
    QString m_plans;
    QString m_dbCpu0; ///< samples of cpu:0 only
    bool m_twoCores = false;
};

void TestValidateCli::initTestCase() {
    QVERIFY2(QFile::exists(model("tiny_cnn")), "run tools/export_models.py");
    const DeviceInventory inventory = discoverDevices();
    m_twoCores = inventory.find("cpu:0") && inventory.find("cpu:1");
    m_db = m_dir.filePath(QStringLiteral("samples.db"));
    m_plans = m_dir.filePath(QStringLiteral("plans.json"));
    if (!m_twoCores) {
        return;
    }
    m_dbCpu0 = m_dir.filePath(QStringLiteral("cpu0.db"));
    for (const char* device : {"cpu:0", "cpu:1"}) {
        const CliRun profile = runParetune(
            {QStringLiteral("profile"), model("tiny_cnn"), QStringLiteral("--device"),
             QLatin1String(device), QStringLiteral("--db"), m_db, QStringLiteral("--repeats"),
             QStringLiteral("3"), QStringLiteral("--json")});
        QVERIFY2(profile.exitCode == 0, profile.err.constData());
        if (QLatin1String(device) == QLatin1String("cpu:0")) {
            QVERIFY(QFile::copy(m_db, m_dbCpu0));
        }
    }
    const CliRun search =
        runParetune({QStringLiteral("search"), model("tiny_cnn"), QStringLiteral("--devices"),
                     QStringLiteral("cpu:0,cpu:1"), QStringLiteral("--catalog"), kCoresCatalog,
                     QStringLiteral("--db"), m_db, QStringLiteral("--population"),
                     QStringLiteral("16"), QStringLiteral("--generations"), QStringLiteral("5"),
                     QStringLiteral("--out"), m_plans, QStringLiteral("--json")});
    QVERIFY2(search.exitCode == 0, search.err.constData());
    QVERIFY2(search.err.contains("operators measured, 0 without samples"), search.err.constData());
}

void TestValidateCli::searchedPlanIsMeasuredAndStored() {
    if (!m_twoCores) {
        QSKIP("this machine has fewer than two CPU cores (cpu:0 and cpu:1)");
    }
    // A plan of the front that uses both devices, if there is one; else plan 0.
    const QJsonObject plans = [&] {
        QFile f(m_plans);
        f.open(QIODevice::ReadOnly);
        return QJsonDocument::fromJson(f.readAll()).object();
    }();
    int chosen = 0;
    for (const QJsonValue& v : plans[QStringLiteral("plans")].toArray()) {
        const QJsonObject p = v.toObject();
        QSet<QString> used;
        for (const QJsonValue& d : p[QStringLiteral("assignment")].toObject()) {
            used.insert(d.toString());
        }
        if (used.size() == 2 && p[QStringLiteral("feasible")].toBool()) {
            chosen = p[QStringLiteral("id")].toInt();
            break;
        }
    }
    QCOMPARE(plans[QStringLiteral("plans")]
                 .toArray()[chosen]
                 .toObject()[QStringLiteral("sources")][QStringLiteral("modelled")]
                 .toInt(),
             0);
    // Each profile stored the model's whole-model run, and the search scaled the device's
    // costs by it: end to end over the summed cells.
    const QJsonArray scales =
        plans[QStringLiteral("library")][QStringLiteral("model_run_scales")].toArray();
    QCOMPARE(scales.size(), 2);
    for (const QJsonValue& v : scales) {
        const QJsonObject scale = v.toObject();
        QVERIFY2(scale[QStringLiteral("applied")].toBool(),
                 QJsonDocument(scale).toJson().constData());
        QCOMPARE(scale[QStringLiteral("end_to_end_source")].toString(), QStringLiteral("measured"));
        QVERIFY(qFuzzyCompare(scale[QStringLiteral("scale")].toDouble(),
                              scale[QStringLiteral("end_to_end_us")].toDouble() /
                                  scale[QStringLiteral("summed_cells_us")].toDouble()));
    }

    const Graph g = importOnnxFile(model("tiny_cnn").toStdString()).graph;
    std::vector<Sample> before;
    {
        const SampleLibrary library = SampleLibrary::open(m_db.toStdString());
        before = library.samples();
        QVERIFY(library.plans(g.fingerprint).empty());
    }
    const CliRun run = runParetune(
        {QStringLiteral("validate"), model("tiny_cnn"), QStringLiteral("--plans"), m_plans,
         QStringLiteral("--plan"), QString::number(chosen), QStringLiteral("--db"), m_db,
         QStringLiteral("--repeats"), QStringLiteral("5"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject out = QJsonDocument::fromJson(run.out).object();
    const QJsonObject latency =
        out[QStringLiteral("objectives")].toObject()[QStringLiteral("latency_us")].toObject();
    const QJsonObject measured = latency[QStringLiteral("measured")].toObject();
    QVERIFY(measured[QStringLiteral("median")].toDouble() > 0);
    QVERIFY(measured[QStringLiteral("p10")].toDouble() <=
            measured[QStringLiteral("median")].toDouble());
    QVERIFY(measured[QStringLiteral("p90")].toDouble() >=
            measured[QStringLiteral("median")].toDouble());
    QVERIFY(latency[QStringLiteral("predicted")].toDouble() > 0);
    QCOMPARE(latency[QStringLiteral("predicted_source")].toString(),
             QStringLiteral("simulated from measured samples"));
    // The simulation redone here reproduces the search's figure for the plan.
    QVERIFY(qFuzzyCompare(latency[QStringLiteral("predicted")].toDouble(),
                          latency[QStringLiteral("plan_file")].toDouble()));
    const double error = latency[QStringLiteral("error")].toDouble();
    QVERIFY(qFuzzyCompare(1.0 + error, 1.0 + (latency[QStringLiteral("predicted")].toDouble() -
                                              measured[QStringLiteral("median")].toDouble()) /
                                                 measured[QStringLiteral("median")].toDouble()));

    // Memory, measured per device: the allocator's peak plus the resident tensors, at least the
    // largest tensor the device's nodes write; the objective is the largest device's.
    const QJsonObject memory =
        out[QStringLiteral("objectives")].toObject()[QStringLiteral("peak_memory_mb")].toObject();
    double largestDevice = 0.0;
    for (const QJsonValue& v : out[QStringLiteral("devices")].toArray()) {
        const QJsonObject m = v.toObject()[QStringLiteral("memory")].toObject();
        const double peak = m[QStringLiteral("measured_peak_mb")].toDouble();
        QVERIFY(peak > m[QStringLiteral("weights_mb")].toDouble());
        QVERIFY(m[QStringLiteral("predicted_peak_mb")].toDouble() > 0);
        largestDevice = std::max(largestDevice, peak);
    }
    QCOMPARE(memory[QStringLiteral("measured")].toDouble(), largestDevice);
    QVERIFY(
        memory[QStringLiteral("measured_source")].toString().contains(QStringLiteral("allocator")));
    QVERIFY(memory[QStringLiteral("predicted")].toDouble() > 0);
    QVERIFY(memory[QStringLiteral("error")].isDouble());
    if (!memory[QStringLiteral("process_peak_mb")].isNull()) { // VmHWM could be reset
        QVERIFY(memory[QStringLiteral("process_peak_mb")].toDouble() > largestDevice);
    }

    // One row per compute node, a fusion group the plan takes one row for all its members.
    const QJsonArray nodes = out[QStringLiteral("nodes")].toArray();
    int covered = 0;
    for (const QJsonValue& v : nodes) {
        const int fused = v.toObject()[QStringLiteral("fused_nodes")].toInt();
        covered += fused > 0 ? fused : 1;
    }
    QCOMPARE(covered, g.computeNodeCount());
    for (const QJsonValue& v : nodes) {
        const QJsonObject n = v.toObject();
        QVERIFY(n[QStringLiteral("measured_us")].toDouble() > 0);
        QCOMPARE(n[QStringLiteral("predicted_source")].toString(), QStringLiteral("measured"));
        QVERIFY(n[QStringLiteral("measured_end_us")].toDouble() >=
                n[QStringLiteral("measured_begin_us")].toDouble());
        QVERIFY(n[QStringLiteral("simulated_finish_us")].toDouble() >
                n[QStringLiteral("simulated_start_us")].toDouble());
    }

    // Stored: one plan row, one new sample per compute node, every earlier sample kept.
    const SampleLibrary library = SampleLibrary::open(m_db.toStdString());
    const std::vector<PlanRecord> stored = library.plans(g.fingerprint);
    QCOMPARE(stored.size(), std::size_t{1});
    QCOMPARE(stored[0].source, std::string("validated"));
    QCOMPARE(stored[0].id,
             static_cast<std::int64_t>(out[QStringLiteral("stored_plan_row")].toInt()));
    const std::vector<Sample> after = library.samples();
    QCOMPARE(after.size(), before.size() + static_cast<std::size_t>(nodes.size()));
    for (std::size_t i = 0; i < before.size(); ++i) {
        QCOMPARE(after[i].id, before[i].id);
        QCOMPARE(after[i].latencyUs, before[i].latencyUs);
    }
    QVERIFY(after.back().configJson.find("\"residual_us\"") != std::string::npos);

    // The in-plan samples do not replace the operators' own samples in the cost table: a
    // second validation predicts the same as the search.
    const CliRun again = runParetune(
        {QStringLiteral("validate"), model("tiny_cnn"), QStringLiteral("--plans"), m_plans,
         QStringLiteral("--plan"), QString::number(chosen), QStringLiteral("--db"), m_db,
         QStringLiteral("--repeats"), QStringLiteral("2"), QStringLiteral("--json")});
    QVERIFY2(again.exitCode == 0, again.err.constData());
    const QJsonObject latencyAgain = QJsonDocument::fromJson(again.out)
                                         .object()[QStringLiteral("objectives")]
                                         .toObject()[QStringLiteral("latency_us")]
                                         .toObject();
    QVERIFY(qFuzzyCompare(latencyAgain[QStringLiteral("predicted")].toDouble(),
                          latency[QStringLiteral("predicted")].toDouble()));
    QCOMPARE(SampleLibrary::open(m_db.toStdString()).plans(g.fingerprint).size(), std::size_t{2});
}

// A plan with int8 nodes runs as its lowered graph, whose fingerprint is not the model's: its
// prediction still takes the model's whole-model run, as the search's did.
void TestValidateCli::loweredPlanIsPredictedAsSearched() {
    if (!m_twoCores) {
        QSKIP("this machine has fewer than two CPU cores (cpu:0 and cpu:1)");
    }
    const QString db = m_dir.filePath(QStringLiteral("int8.db"));
    QVERIFY(QFile::copy(m_dbCpu0, db));
    const CliRun profile =
        runParetune({QStringLiteral("profile"), model("tiny_cnn"), QStringLiteral("--device"),
                     QStringLiteral("cpu:0"), QStringLiteral("--db"), db,
                     QStringLiteral("--repeats"), QStringLiteral("3"), QStringLiteral("--variants"),
                     QStringLiteral("int8"), QStringLiteral("--force"), QStringLiteral("--json")});
    QVERIFY2(profile.exitCode == 0, profile.err.constData());
    const QString plansFile = m_dir.filePath(QStringLiteral("int8_plans.json"));
    const CliRun search = runParetune(
        {QStringLiteral("search"), model("tiny_cnn"), QStringLiteral("--devices"),
         QStringLiteral("cpu:0"), QStringLiteral("--catalog"), kCoresCatalog,
         QStringLiteral("--db"), db, QStringLiteral("--variants"), QStringLiteral("int8"),
         QStringLiteral("--objectives"), QStringLiteral("latency,accuracy"),
         QStringLiteral("--population"), QStringLiteral("16"), QStringLiteral("--generations"),
         QStringLiteral("5"), QStringLiteral("--out"), plansFile, QStringLiteral("--json")});
    QVERIFY2(search.exitCode == 0, search.err.constData());
    QFile f(plansFile);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject plans = QJsonDocument::fromJson(f.readAll()).object();
    QVERIFY(plans[QStringLiteral("library")][QStringLiteral("model_run_scales")]
                .toArray()
                .at(0)
                .toObject()[QStringLiteral("applied")]
                .toBool());
    int lowered = -1;
    for (const QJsonValue& v : plans[QStringLiteral("plans")].toArray()) {
        const QJsonObject p = v.toObject();
        if (!p[QStringLiteral("variants")].toObject().isEmpty()) {
            lowered = p[QStringLiteral("id")].toInt();
            break;
        }
    }
    QVERIFY2(lowered >= 0, "no plan of the front lowers a node to int8");
    const CliRun run = runParetune(
        {QStringLiteral("validate"), model("tiny_cnn"), QStringLiteral("--plans"), plansFile,
         QStringLiteral("--plan"), QString::number(lowered), QStringLiteral("--db"), db,
         QStringLiteral("--repeats"), QStringLiteral("3"), QStringLiteral("--accuracy-sets"),
         QStringLiteral("2"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject latency = QJsonDocument::fromJson(run.out)
                                    .object()[QStringLiteral("objectives")]
                                    .toObject()[QStringLiteral("latency_us")]
                                    .toObject();
    QVERIFY2(qFuzzyCompare(latency[QStringLiteral("predicted")].toDouble(),
                           latency[QStringLiteral("plan_file")].toDouble()),
             QJsonDocument(latency).toJson().constData());
}

void TestValidateCli::searchSaysWhyNoPlanCanRun() {
    if (!m_twoCores) {
        QSKIP("this machine has fewer than two CPU cores (cpu:0 and cpu:1)");
    }
    auto search = [](const QString& db, const QString& devices) {
        return runParetune(
            {QStringLiteral("search"), model("tiny_cnn"), QStringLiteral("--devices"), devices,
             QStringLiteral("--catalog"), kCoresCatalog, QStringLiteral("--db"), db,
             QStringLiteral("--population"), QStringLiteral("8"), QStringLiteral("--generations"),
             QStringLiteral("2"), QStringLiteral("--json")});
    };
    // A library without samples of the model: no device can run an operator, so no plan can
    // run; the search says so and how to fix it instead of listing zero plans.
    const QString empty = m_dir.filePath(QStringLiteral("empty.db"));
    { SampleLibrary::open(empty.toStdString()); }
    const CliRun none = search(empty, QStringLiteral("cpu:0,cpu:1"));
    QCOMPARE(none.exitCode, 2);
    QVERIFY2(none.err.contains("no plan can run this model") &&
                 none.err.contains("(cpu:0, cpu:1)") && none.err.contains("has none for them") &&
                 none.err.contains("paretune profile MODEL --device cpu:0"),
             none.err.constData());
    QVERIFY(none.out.isEmpty());

    // cpu:1 without samples beside cpu:0 with them: plans run on cpu:0, and no baseline is
    // called "all:cpu:1" when it would put nothing there.
    const CliRun some = search(m_dbCpu0, QStringLiteral("cpu:0,cpu:1"));
    QVERIFY2(some.exitCode == 0, some.err.constData());
    QVERIFY2(some.err.contains("'cpu:1' is a measured device without samples"),
             some.err.constData());
    QStringList baselines;
    for (const QJsonValue& v :
         QJsonDocument::fromJson(some.out).object().value(QStringLiteral("plans")).toArray()) {
        const QJsonValue baseline = v.toObject().value(QStringLiteral("baseline"));
        if (baseline.isString()) {
            baselines << baseline.toString();
        }
    }
    QVERIFY2(baselines.contains(QStringLiteral("all:cpu:0")),
             qPrintable(baselines.join(QLatin1Char(' '))));
    QVERIFY2(!baselines.contains(QStringLiteral("all:cpu:1")),
             qPrintable(baselines.join(QLatin1Char(' '))));
}

void TestValidateCli::badInputExitsWithTwo_data() {
    QTest::addColumn<QString>("plansText");
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QString>("message");
    const Graph g = importOnnxFile(model("tiny_cnn").toStdString()).graph;
    std::string assignment;
    for (const Node& n : g.nodes) {
        if (n.kind != NodeKind::Constant) {
            assignment += std::string(assignment.empty() ? "" : ",") + "\"" + n.name + "\": \"" +
                          (n.opType == "Conv" ? "npu" : "cpu") + "\"";
        }
    }
    const QString onNpu = QString::fromStdString(
        "{\"tool\": \"paretune\", \"model_fingerprint\": \"" + g.fingerprint +
        "\", \"catalog\": \"" + kExampleCatalog.toStdString() +
        "\", \"devices\": [\"cpu\", \"npu\"], \"plans\": [{\"id\": 0, " + "\"assignment\": {" +
        assignment + "}}]}");
    QTest::newRow("modelled device") << onNpu << QStringList{} << QStringLiteral("npu (");
    QTest::newRow("no such plan") << onNpu
                                  << QStringList{QStringLiteral("--plan"), QStringLiteral("7")}
                                  << QStringLiteral("no plan with id 7");
    QTest::newRow("other model")
        << QStringLiteral("{\"tool\": \"paretune\", \"model_fingerprint\": \"0123456789ab\", "
                          "\"devices\": [\"cpu\"], \"plans\": [{\"id\": 0, \"assignment\": {}}]}")
        << QStringList{}
        << QStringLiteral("searched for another model (model fingerprint 0123456789ab");
    QTest::newRow("unknown node") << QString::fromStdString(
                                         "{\"tool\": \"paretune\", \"model_fingerprint\": \"" +
                                         g.fingerprint +
                                         "\", \"devices\": [\"cpu\"], \"plans\": [{\"id\": 0, "
                                         "\"assignment\": {\"nope\": \"cpu\"}}]}")
                                  << QStringList{} << QStringLiteral("node 'nope'");
    QTest::newRow("not json") << QStringLiteral("[1, 2") << QStringList{}
                              << QStringLiteral("the plans file: not valid JSON: parse error");
    QTest::newRow("not an object") << QStringLiteral("[1, 2]") << QStringList{}
                                   << QStringLiteral("not a plans file of `paretune search --out`");
    QTest::newRow("1e400") << QStringLiteral("{\"plans\": [1e400]}") << QStringList{}
                           << QStringLiteral("not valid JSON: number overflow parsing '1e400'");
    QTest::newRow("repeats") << onNpu
                             << QStringList{QStringLiteral("--repeats"), QStringLiteral("0")}
                             << QStringLiteral("--repeats");
}

void TestValidateCli::badInputExitsWithTwo() {
    QFETCH(QString, plansText);
    QFETCH(QStringList, extra);
    QFETCH(QString, message);
    const QString path = m_dir.filePath(QStringLiteral("bad.json"));
    writeText(path, plansText.toStdString());
    QStringList args = {QStringLiteral("validate"), model("tiny_cnn"),
                        QStringLiteral("--plans"),  path,
                        QStringLiteral("--db"),     m_dir.filePath(QStringLiteral("bad.db"))};
    if (!extra.contains(QStringLiteral("--plan"))) {
        args << QStringLiteral("--plan") << QStringLiteral("0");
    }
    const CliRun run = runParetune(args + extra);
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(message.toUtf8()), run.err.constData());
    QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("bad.db"))) ||
            SampleLibrary::open(m_dir.filePath(QStringLiteral("bad.db")).toStdString())
                .plans()
                .empty());
}

QTEST_GUILESS_MAIN(TestValidateCli)
#include "tst_validatecli.moc"
