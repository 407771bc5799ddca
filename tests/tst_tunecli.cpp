// SPDX-License-Identifier: GPL-3.0-or-later
// `paretune tune` run as a process on tiny_cnn: rounds of search → validate → learn stored in
// the library, the plans document with measured figures and checked claims, determinism for a
// fixed seed, resuming (also after SIGKILL in the middle of a round) and the refusals with exit
// code 2. Nothing asserts a timing: only counts, structure and consistency of what was measured.
#include "cliprocess.h"
#include "device/device.h"
#include "graph/onnx_importer.h"
#include "store/sample_library.h"
#include "testmodels.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <map>
#include <sqlite3.h>

using namespace paretune;

namespace {

QString model(const char* name) {
    return testModelPath(QLatin1String(name));
}

const QString kCoresCatalog =
    QStringLiteral(PARETUNE_SOURCE_DIR "/resources/catalogs/cpu_cores.json");
const QString kExampleCatalog =
    QStringLiteral(PARETUNE_SOURCE_DIR "/resources/catalogs/example.json");

QString key(const char* text) {
    return QString::fromLatin1(text);
}

/// A small, quick tune: few plans, few runs. `extra` adds options or replaces the defaults.
QStringList tuneArguments(const QString& db, const QStringList& extra = {}) {
    const std::pair<const char*, QString> defaults[] = {{"--devices", key("cpu:0,cpu:1")},
                                                        {"--catalog", kCoresCatalog},
                                                        {"--population", key("16")},
                                                        {"--generations", key("5")},
                                                        {"--validate", key("2")},
                                                        {"--repeats", key("3")},
                                                        {"--window", key("0")},
                                                        {"--warmup", key("1")}};
    QStringList args{key("tune"), model("tiny_cnn"), key("--db"), db, key("--json")};
    for (const auto& [option, value] : defaults) {
        if (!extra.contains(key(option))) {
            args << key(option) << value;
        }
    }
    return args + extra;
}

QJsonObject parse(const CliRun& run) {
    return QJsonDocument::fromJson(run.out).object();
}

} // namespace

class TestTuneCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void roundsAreMeasuredStoredAndReported();
    void sameSeedSameFirstRound();
    void shortPlansRunForTheWindow();
    void rerunResumesAfterTheStoredRounds();
    void killedMidRoundKeepsCommittedRounds();
    void libraryWithoutSamplesOfADevice();
    void badInputExitsWithTwo_data();
    void badInputExitsWithTwo();

private:
    /// A copy of the profiled library, for a test of its own.
    QString freshLibrary(const char* name) const;
    /// Rows of the tune_rounds table, read-only (0 while the library has none); countOf: the
    /// first column of a count query.
    static int storedRounds(const QString& db);
    /// The stored record of `round` (its JSON), empty when there is none.
    static QJsonObject storedRound(const QString& db, int round);
    static int countOf(const QString& db, const char* query);

    QTemporaryDir m_dir;
    QString m_db;
    bool m_twoCores = false;
};

void TestTuneCli::initTestCase() {
    QVERIFY2(QFile::exists(model("tiny_cnn")), "run tools/export_models.py");
    const DeviceInventory inventory = discoverDevices();
    m_twoCores = inventory.find("cpu:0") && inventory.find("cpu:1");
    m_db = m_dir.filePath(key("samples.db"));
    if (!m_twoCores) {
        return;
    }
    for (const char* device : {"cpu:0", "cpu:1"}) {
        const CliRun profile =
            runParetune({key("profile"), model("tiny_cnn"), key("--device"), key(device),
                         key("--db"), m_db, key("--repeats"), key("3"), key("--json")});
        QVERIFY2(profile.exitCode == 0, profile.err.constData());
    }
}

QString TestTuneCli::freshLibrary(const char* name) const {
    const QString path = m_dir.filePath(key(name));
    for (const char* suffix : {"", "-wal", "-shm"}) { // the library as a whole, WAL included
        QFile::remove(path + key(suffix));
        if (QFile::exists(m_db + key(suffix))) {
            std::filesystem::copy_file(QString(m_db + key(suffix)).toStdString(),
                                       QString(path + key(suffix)).toStdString());
        }
    }
    return path;
}

void TestTuneCli::roundsAreMeasuredStoredAndReported() {
    if (!m_twoCores) {
        QSKIP("this machine has fewer than two CPU cores (cpu:0 and cpu:1)");
    }
    const QString db = freshLibrary("rounds.db");
    const QString out = m_dir.filePath(key("tuned.json"));
    const CliRun run =
        runParetune(tuneArguments(db, {key("--rounds"), key("2"), key("--out"), out}));
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject doc = parse(run);
    QFile written(out);
    QVERIFY(written.open(QIODevice::ReadOnly));
    QCOMPARE(QJsonDocument::fromJson(written.readAll()).object(), doc);

    const QJsonObject tune = doc[key("tune")].toObject();
    const QJsonArray rounds = tune[key("rounds")].toArray();
    QVERIFY(rounds.size() >= 1 && rounds.size() <= 2);
    // Stopped early only when converged.
    QVERIFY(rounds.size() == 2 || tune[key("converged")].toBool());
    int validatedRows = 0; // every attempt's timed runs, not its rehearsals
    for (int r = 0; r < rounds.size(); ++r) {
        const QJsonObject round = rounds[r].toObject();
        QCOMPARE(round[key("round")].toInt(), r);
        QVERIFY(!round[key("resumed")].toBool());
        const QJsonArray validated = round[key("validated")].toArray();
        QVERIFY(!validated.isEmpty()); // two front plans at most, then the best baselines
        // Every round times its baselines alone just before its runs and just after. The first
        // round predicts the simulated latencies; a later one puts its predictions at the speed
        // those probes measured against the round before's timed runs of the same plans.
        double speed = 1.0;
        bool calibrated = false;
        QVERIFY(!round[key("calibration")].isNull()); // every round validates baselines
        const QJsonObject calibration = round[key("calibration")].toObject();
        QCOMPARE(calibration[key("runs")].toInt(), 10); // at least 10, half of 3 is less
        QVERIFY(!calibration[key("probes")].toArray().isEmpty());
        // Timed again, twice at most, while the speed moved beyond 10 % during it (a baseline's
        // runs or its rehearsal after against its rehearsal before); the steadiest timing is
        // kept.
        const int attempts = calibration[key("attempts")].toInt();
        QVERIFY(attempts >= 1 && attempts <= 3);
        QVERIFY(attempts == 3 || calibration[key("speed_moved")].toDouble() <= 0.10);
        validatedRows += attempts * static_cast<int>(validated.size());
        double moved = 0.0;
        for (const QJsonValue& v : calibration[key("probes")].toArray()) {
            const QJsonObject probe = v.toObject();
            QVERIFY(probe[key("us")].toDouble() > 0.0);
            // runs_us: the same plan's median in the round's timed runs.
            for (const QJsonValue& w : validated) {
                if (w.toObject()[key("genome")] == probe[key("genome")]) {
                    QCOMPARE(probe[key("runs_us")].toDouble(),
                             w.toObject()[key("measured")].toObject()[key("median_us")].toDouble());
                }
            }
            for (const char* later : {"after_us", "runs_us"}) {
                QVERIFY(probe[key(later)].toDouble() > 0.0);
                moved = std::max(
                    moved,
                    std::abs(probe[key(later)].toDouble() / probe[key("us")].toDouble() - 1.0));
            }
        }
        QCOMPARE(calibration[key("speed_moved")].toDouble(), moved);
        if (r == 0) {
            QVERIFY(calibration[key("speed")].isNull());
        } else {
            // The round before's median of each plan, by genome.
            std::map<QString, double> before;
            for (const QJsonValue& v : rounds[r - 1].toObject()[key("validated")].toArray()) {
                const QJsonObject p = v.toObject();
                before[p[key("genome")].toString()] =
                    p[key("measured")].toObject()[key("median_us")].toDouble();
            }
            for (const QJsonValue& v : calibration[key("probes")].toArray()) {
                const QJsonObject probe = v.toObject();
                const QString device = probe[key("device")].toString();
                const auto then = before.find(probe[key("genome")].toString());
                if (!device.isEmpty() && then != before.end()) {
                    // Its rehearsals before and after the runs, their geometric mean.
                    QCOMPARE(
                        calibration[key("devices")].toObject()[device].toDouble(),
                        std::sqrt(probe[key("us")].toDouble() * probe[key("after_us")].toDouble()) /
                            then->second);
                }
            }
            if (!calibration[key("speed")].isNull()) {
                speed = calibration[key("speed")].toDouble();
                calibrated = true;
                QVERIFY(speed > 0.0);
                QVERIFY(calibration[key("compared")].toInt() >= 1);
            }
        }
        // New plans over several devices take the bias of earlier rounds' such plans, the
        // first round left out: none yet in the first two.
        const QJsonObject bias = round[key("new_plan_bias")].toObject();
        QCOMPARE(bias[key("factor")].toDouble(), 1.0);
        QCOMPARE(bias[key("plans")].toInt(), 0);
        double maxError = 0.0;
        for (const QJsonValue& v : validated) {
            const QJsonObject p = v.toObject();
            QCOMPARE(p[key("new_plan_factor")].toDouble(), 1.0);
            // At a speed within those measured (each plan's devices weighted by its busy time).
            const double ratio =
                p[key("predicted_us")].toDouble() / p[key("simulated_us")].toDouble();
            if (calibrated) {
                double lowest = speed, highest = speed;
                for (const QJsonValue& s : calibration[key("devices")].toObject()) {
                    lowest = std::min(lowest, s.toDouble());
                    highest = std::max(highest, s.toDouble());
                }
                QVERIFY(ratio >= lowest * (1 - 1e-12) && ratio <= highest * (1 + 1e-12));
            } else {
                QVERIFY(qFuzzyCompare(ratio, 1.0));
            }
            const QJsonObject m = p[key("measured")].toObject();
            QVERIFY(m[key("median_us")].toDouble() > 0.0);
            QVERIFY(m[key("p10_us")].toDouble() <= m[key("median_us")].toDouble());
            QVERIFY(m[key("p90_us")].toDouble() >= m[key("median_us")].toDouble());
            QCOMPARE(m[key("runs")].toInt(), 3);
            const double error =
                (p[key("predicted_us")].toDouble() - m[key("median_us")].toDouble()) /
                m[key("median_us")].toDouble();
            QVERIFY(qFuzzyCompare(1.0 + error, 1.0 + p[key("error")].toDouble()));
            maxError = std::max(maxError, std::abs(error));
        }
        QVERIFY(qFuzzyCompare(1.0 + maxError, 1.0 + round[key("max_abs_error")].toDouble()));
    }
    // The first round measured every device alone too (its all-on-one baseline).
    // The library keeps what each attempt's runs measured; the rehearsals that only time the
    // plans store nothing.
    QCOMPARE(countOf(db, "SELECT count(*) FROM plans WHERE source = 'validated'"), validatedRows);
    QStringList firstLabels;
    for (const QJsonValue& v : rounds[0].toObject()[key("validated")].toArray()) {
        firstLabels << v.toObject()[key("label")].toString();
    }
    QVERIFY2(firstLabels.contains(key("all:cpu:0")) && firstLabels.contains(key("all:cpu:1")),
             qPrintable(firstLabels.join(key(", "))));
    // The first round searched with the library's costs alone; later ones with what was learned.
    QCOMPARE(rounds[0].toObject()[key("costs")].toObject()[key("nodes_in_context")].toInt(), 0);
    if (rounds.size() == 2) {
        QVERIFY(rounds[1].toObject()[key("costs")].toObject()[key("nodes_in_context")].toInt() > 0);
    }

    // Plans: the final round's front and the baselines; measured where validated, each claim
    // consistent with the measurements it cites.
    const QJsonArray plans = doc[key("plans")].toArray();
    QVERIFY(!plans.isEmpty());
    std::map<QString, double> measuredBaseline;
    QMap<QString, double> baselineMemory;
    int measuredPlans = 0;
    for (const QJsonValue& v : plans) {
        const QJsonObject p = v.toObject();
        QCOMPARE(p[key("round")].toInt(), rounds.size() - 1);
        if (!p[key("measured")].isNull()) {
            ++measuredPlans;
            if (!p[key("baseline")].isNull()) {
                measuredBaseline[p[key("baseline")].toString()] =
                    p[key("measured")].toObject()[key("median_us")].toDouble();
                baselineMemory[p[key("baseline")].toString()] =
                    p[key("measured")].toObject()[key("peak_memory_mb")].toDouble();
            }
        }
    }
    QVERIFY(measuredPlans >= 1);
    // A latency margin is claimed only beyond the final round's largest latency error.
    const double largestError = rounds.last().toObject()[key("max_abs_error")].toDouble();
    std::map<QString, double> predictedBaseline;
    for (const QJsonValue& v : plans) {
        if (!v.toObject()[key("baseline")].isNull()) {
            predictedBaseline[v.toObject()[key("baseline")].toString()] =
                v.toObject()[key("latency_us")].toDouble();
        }
    }
    for (const QJsonValue& v : plans) {
        const QJsonObject p = v.toObject();
        for (const QJsonValue& c : p[key("claims")].toArray()) {
            const QJsonObject claim = c.toObject();
            const QString latency = claim[key("better")].toObject()[key("latency")].toString();
            const auto predicted = predictedBaseline.find(claim[key("baseline")].toString());
            QVERIFY(predicted != predictedBaseline.end());
            const double margin =
                (predicted->second - p[key("latency_us")].toDouble()) / predicted->second;
            if (!latency.isEmpty()) {
                QVERIFY(margin > largestError);
            }
            if (claim[key("within_error")].toArray().contains(key("latency"))) {
                QVERIFY(margin > 0.0 && margin <= largestError);
            }
            const auto baseline = measuredBaseline.find(claim[key("baseline")].toString());
            if (latency == key("confirmed") || latency == key("contradicted")) {
                QVERIFY(!p[key("measured")].isNull() && baseline != measuredBaseline.end());
                const double mine = p[key("measured")].toObject()[key("median_us")].toDouble();
                QCOMPARE(latency == key("confirmed"), mine < baseline->second);
            }
            const QJsonObject better = claim[key("better")].toObject();
            QCOMPARE(claim[key("status")].toString() == key("contradicted"),
                     latency == key("contradicted") ||
                         better[key("energy")].toString() == key("contradicted") ||
                         better[key("memory")].toString() == key("contradicted"));
            // Memory is measured like latency (the allocator's peak per device).
            const QString memory = better[key("memory")].toString();
            if (memory == key("confirmed") || memory == key("contradicted")) {
                const double mine = p[key("measured")].toObject()[key("peak_memory_mb")].toDouble();
                QCOMPARE(memory == key("confirmed"),
                         mine < baselineMemory.value(claim[key("baseline")].toString()));
            }
        }
    }

    // Stored: one row per round, the library sound.
    const Graph g = importOnnxFile(model("tiny_cnn").toStdString()).graph;
    const SampleLibrary library = SampleLibrary::open(db.toStdString());
    const std::vector<TuneRoundRecord> stored =
        library.tuneRounds(tune[key("key")].toString().toStdString());
    QCOMPARE(static_cast<qsizetype>(stored.size()), rounds.size());
    QCOMPARE(stored.front().modelFingerprint, g.fingerprint);
    QVERIFY(library.integrityProblems().empty());

    // Validated plans ran as they were searched: a plan that takes fusion groups ran each as one
    // fused node, whose in-plan time the library now holds ("NAME+fused", context plan).
    bool measuredFused = false;
    for (const QJsonValue& v : plans) {
        const QJsonObject p = v.toObject();
        measuredFused = measuredFused || (!p[key("measured")].isNull() &&
                                          !p[key("fusion_groups")].toArray().isEmpty());
    }
    const int fusedInPlan = countOf(db, "SELECT count(*) FROM perf_samples WHERE config_json "
                                        "LIKE '%\"context\":\"plan\"%' AND op_meta LIKE "
                                        "'%+fused%'");
    QVERIFY2(!measuredFused || fusedInPlan > 0, "a validated plan's fusion groups ran unfused");
}

void TestTuneCli::sameSeedSameFirstRound() {
    if (!m_twoCores) {
        QSKIP("this machine has fewer than two CPU cores (cpu:0 and cpu:1)");
    }
    // Same samples, same seed: the same search, so the same plans validated with the same
    // predictions (the measurements themselves differ from run to run).
    QJsonArray first[2];
    for (int i = 0; i < 2; ++i) {
        const QString db = freshLibrary(i == 0 ? "seed_a.db" : "seed_b.db");
        const CliRun run =
            runParetune(tuneArguments(db, {key("--rounds"), key("1"), key("--seed"), key("7")}));
        QVERIFY2(run.exitCode == 0, run.err.constData());
        first[i] = parse(run)[key("tune")]
                       .toObject()[key("rounds")]
                       .toArray()[0]
                       .toObject()[key("validated")]
                       .toArray();
    }
    QCOMPARE(first[0].size(), first[1].size());
    for (int p = 0; p < first[0].size(); ++p) {
        QCOMPARE(first[0][p].toObject()[key("label")], first[1][p].toObject()[key("label")]);
        QCOMPARE(first[0][p].toObject()[key("simulated_us")].toDouble(),
                 first[1][p].toObject()[key("simulated_us")].toDouble());
    }
}

void TestTuneCli::rerunResumesAfterTheStoredRounds() {
    if (!m_twoCores) {
        QSKIP("this machine has fewer than two CPU cores (cpu:0 and cpu:1)");
    }
    const QString db = freshLibrary("resume.db");
    // A target no measurement meets: every round runs.
    const QStringList strict{key("--target"), key("0.0001")};
    const CliRun one =
        runParetune(tuneArguments(db, strict + QStringList{key("--rounds"), key("1")}));
    QVERIFY2(one.exitCode == 0, one.err.constData());
    const QJsonObject firstRound =
        parse(one)[key("tune")].toObject()[key("rounds")].toArray()[0].toObject();
    const CliRun two =
        runParetune(tuneArguments(db, strict + QStringList{key("--rounds"), key("2")}));
    QVERIFY2(two.exitCode == 0, two.err.constData());
    QVERIFY2(two.err.contains("resumed after round 0"), two.err.constData());
    const QJsonArray rounds = parse(two)[key("tune")].toObject()[key("rounds")].toArray();
    QCOMPARE(rounds.size(), 2);
    QVERIFY(rounds[0].toObject()[key("resumed")].toBool());
    QVERIFY(!rounds[1].toObject()[key("resumed")].toBool());
    // The stored round comes back as it was measured.
    QCOMPARE(rounds[0].toObject()[key("validated")], firstRound[key("validated")]);
    QVERIFY(rounds[1].toObject()[key("costs")].toObject()[key("nodes_in_context")].toInt() > 0);

    // The third round's new plans over several devices take the bias the second round's such
    // plans measured (its stored record names each node's device; the first round is left out).
    const CliRun three =
        runParetune(tuneArguments(db, strict + QStringList{key("--rounds"), key("3")}));
    QVERIFY2(three.exitCode == 0, three.err.constData());
    const QJsonArray all = parse(three)[key("tune")].toObject()[key("rounds")].toArray();
    QCOMPARE(all.size(), 3);
    const auto spans = [](const QJsonObject& plan) {
        QSet<QString> devices;
        for (const QJsonValue& n : plan[key("nodes")].toArray()) {
            devices.insert(n.toArray()[1].toString());
        }
        return devices.size() > 1;
    };
    std::vector<double> logs;
    for (const QJsonValue& v : storedRound(db, 1)[key("plans")].toArray()) {
        const QJsonObject p = v.toObject();
        if (!p[key("seen_before")].toBool() && spans(p)) {
            logs.push_back(std::log(p[key("measured")][key("median_us")].toDouble() *
                                    p[key("new_plan_factor")].toDouble() /
                                    p[key("predicted_us")].toDouble()));
        }
    }
    std::sort(logs.begin(), logs.end());
    const double n = static_cast<double>(logs.size());
    const double median =
        logs.empty() ? 0.0 : (logs[(logs.size() - 1) / 2] + logs[logs.size() / 2]) / 2.0;
    const double factor = std::clamp(std::exp(median * n / (n + 3.0)), 0.9, 1.2);
    const QJsonObject bias = all[2].toObject()[key("new_plan_bias")].toObject();
    QCOMPARE(bias[key("plans")].toInt(), static_cast<int>(logs.size()));
    QCOMPARE(bias[key("factor")].toDouble(), factor);
    const QJsonArray third = storedRound(db, 2)[key("plans")].toArray();
    QCOMPARE(third.size(), all[2].toObject()[key("validated")].toArray().size());
    for (const QJsonValue& v : third) {
        const QJsonObject p = v.toObject();
        QCOMPARE(p[key("new_plan_factor")].toDouble(),
                 !p[key("seen_before")].toBool() && spans(p) ? factor : 1.0);
    }

    // A stored round edited by hand: bad input, named, and the library is left as it is.
    sqlite3* handle = nullptr;
    QCOMPARE(sqlite3_open(QFile::encodeName(db).constData(), &handle), SQLITE_OK);
    QCOMPARE(sqlite3_exec(handle,
                          "UPDATE tune_rounds SET record_json = '{\"plans\": 3}' "
                          "WHERE round = 1",
                          nullptr, nullptr, nullptr),
             SQLITE_OK);
    sqlite3_close(handle);
    const auto bytes = [&db] {
        QFile file(db);
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    };
    const QByteArray before = bytes();
    const CliRun edited =
        runParetune(tuneArguments(db, strict + QStringList{key("--rounds"), key("3")}));
    QCOMPARE(edited.exitCode, 2);
    QVERIFY2(edited.err.contains((db + key(": tune round 1 (row ")).toUtf8()) &&
                 edited.err.contains("it was left as it is"),
             edited.err.constData());
    QCOMPARE(bytes(), before);
}

void TestTuneCli::shortPlansRunForTheWindow() {
    if (!m_twoCores) {
        QSKIP("this machine has fewer than two CPU cores (cpu:0 and cpu:1)");
    }
    // tiny_cnn's plans take well under a millisecond: a 0.2 s window needs far more than 3 runs
    // of each. Each plan runs ceil(window / the plans' simulated latencies summed) times, in the
    // rehearsals half as many; the figures are the search's, not a timing.
    const QString db = freshLibrary("window.db");
    const CliRun run =
        runParetune(tuneArguments(db, {key("--rounds"), key("1"), key("--window"), key("0.2")}));
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject tune = parse(run)[key("tune")].toObject();
    QCOMPARE(tune[key("window_s")].toDouble(), 0.2);
    const QJsonObject round = tune[key("rounds")].toArray().first().toObject();
    const QJsonArray validated = round[key("validated")].toArray();
    double cycleUs = 0.0;
    for (const QJsonValue& v : validated) {
        cycleUs += v[key("simulated_us")].toDouble();
    }
    const int runs = static_cast<int>(std::ceil(0.2e6 / cycleUs));
    QVERIFY2(runs > 3, qPrintable(QString::number(cycleUs)));
    for (const QJsonValue& v : validated) {
        QCOMPARE(v[key("measured")][key("runs")].toInt(), runs);
    }
    QCOMPARE(round[key("calibration")][key("runs")].toInt(), std::max(10, runs / 2));
}

void TestTuneCli::killedMidRoundKeepsCommittedRounds() {
    if (!m_twoCores) {
        QSKIP("this machine has fewer than two CPU cores (cpu:0 and cpu:1)");
    }
    const QString db = freshLibrary("killed.db");
    const QStringList strict{key("--target"), key("0.0001"), key("--repeats"), key("40")};
    QProcess process;
    process.start(QStringLiteral(PARETUNE_CLI_PATH),
                  tuneArguments(db, strict + QStringList{key("--rounds"), key("4")}));
    QVERIFY(process.waitForStarted());
    // SIGKILL as soon as the first round is committed: in the middle of the second one (or,
    // on a machine fast enough to finish first, after the last: the checks hold either way).
    int committed = 0;
    QElapsedTimer clock;
    clock.start();
    while (committed == 0 && process.state() == QProcess::Running && clock.elapsed() < 240000) {
        process.waitForFinished(20);
        committed = storedRounds(db);
    }
    const qint64 pid = process.processId(); // 0 once it has finished: kill(0) would hit us
    if (process.state() == QProcess::Running && pid > 0) {
        ::kill(static_cast<pid_t>(pid), SIGKILL);
    }
    process.waitForFinished(10000);
    committed = storedRounds(db);
    QVERIFY2(committed >= 1, process.readAllStandardError().constData());
    QVERIFY(SampleLibrary::open(db.toStdString()).integrityProblems().empty());

    // A rerun resumes: the committed rounds come back, the next one runs.
    const CliRun rerun = runParetune(
        tuneArguments(db, strict + QStringList{key("--rounds"), QString::number(committed + 1)}));
    QVERIFY2(rerun.exitCode == 0, rerun.err.constData());
    const QJsonArray rounds = parse(rerun)[key("tune")].toObject()[key("rounds")].toArray();
    QCOMPARE(rounds.size(), committed + 1);
    for (int r = 0; r < committed; ++r) {
        QVERIFY(rounds[r].toObject()[key("resumed")].toBool());
    }
    QVERIFY(!rounds[committed].toObject()[key("resumed")].toBool());
    QCOMPARE(storedRounds(db), committed + 1);
}

QJsonObject TestTuneCli::storedRound(const QString& db, int round) {
    sqlite3* handle = nullptr;
    sqlite3_stmt* statement = nullptr;
    QByteArray json;
    if (sqlite3_open_v2(db.toUtf8().constData(), &handle, SQLITE_OPEN_READONLY, nullptr) ==
            SQLITE_OK &&
        sqlite3_prepare_v2(handle, "SELECT record_json FROM tune_rounds WHERE round = ?", -1,
                           &statement, nullptr) == SQLITE_OK &&
        sqlite3_bind_int(statement, 1, round) == SQLITE_OK &&
        sqlite3_step(statement) == SQLITE_ROW) {
        json = QByteArray(reinterpret_cast<const char*>(sqlite3_column_text(statement, 0)));
    }
    sqlite3_finalize(statement);
    sqlite3_close(handle);
    return QJsonDocument::fromJson(json).object();
}

int TestTuneCli::storedRounds(const QString& db) {
    return countOf(db, "SELECT count(*) FROM tune_rounds");
}

int TestTuneCli::countOf(const QString& db, const char* query) {
    sqlite3* handle = nullptr;
    int count = 0;
    if (sqlite3_open_v2(db.toUtf8().constData(), &handle, SQLITE_OPEN_READONLY, nullptr) ==
        SQLITE_OK) {
        sqlite3_stmt* statement = nullptr;
        if (sqlite3_prepare_v2(handle, query, -1, &statement, nullptr) == SQLITE_OK &&
            sqlite3_step(statement) == SQLITE_ROW) {
            count = sqlite3_column_int(statement, 0);
        }
        sqlite3_finalize(statement);
    }
    sqlite3_close(handle);
    return count;
}

void TestTuneCli::libraryWithoutSamplesOfADevice() {
    if (!m_twoCores) {
        QSKIP("this machine has fewer than two CPU cores (cpu:0 and cpu:1)");
    }
    const QString db = m_dir.filePath(key("half.db"));
    const CliRun profile =
        runParetune({key("profile"), model("tiny_cnn"), key("--device"), key("cpu:0"), key("--db"),
                     db, key("--repeats"), key("3"), key("--json")});
    QVERIFY2(profile.exitCode == 0, profile.err.constData());
    const CliRun run = runParetune(tuneArguments(db));
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains("holds no samples of this model on cpu:1"), run.err.constData());
    QVERIFY2(run.err.contains("paretune profile"), run.err.constData());
    QCOMPARE(storedRounds(db), 0);
}

void TestTuneCli::badInputExitsWithTwo_data() {
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QString>("message");
    QTest::newRow("no rounds") << QStringList{key("--rounds"), key("0")} << key("--rounds");
    QTest::newRow("no plans") << QStringList{key("--validate"), key("0")} << key("--validate");
    QTest::newRow("negative window")
        << QStringList{key("--window"), key("-1")} << key("--window: expected 0 to 600 seconds");
    QTest::newRow("modelled device")
        << QStringList{key("--devices"), key("cpu,npu"), key("--catalog"), kExampleCatalog}
        << key("modelled devices cannot be validated, so they cannot be tuned: cpu, npu");
    QTest::newRow("device not here") << QStringList{key("--devices"), key("cpu:0,cpu:7")}
                                     << key("not devices of this machine: cpu:7");
}

void TestTuneCli::badInputExitsWithTwo() {
    QFETCH(QStringList, extra);
    QFETCH(QString, message);
    const DeviceInventory inventory = discoverDevices();
    if (inventory.find("cpu:7") && message.contains(key("cpu:7"))) {
        QSKIP("this machine has a cpu:7");
    }
    const QString db = m_twoCores ? freshLibrary("bad.db") : m_db;
    const CliRun run = runParetune(tuneArguments(db, extra));
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(message.toUtf8()), run.err.constData());
}

QTEST_GUILESS_MAIN(TestTuneCli)
#include "tst_tunecli.moc"
