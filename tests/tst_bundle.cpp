// SPDX-License-Identifier: GPL-3.0-or-later
// Deployment bundles: `paretune export`, `paretune bundle verify` and `paretune bundle select`
// run as processes on a plan searched for the sample model (and ResNet-18), plus the core
// functions for what a process cannot easily stage (a foreign machine's devices, crafted zips).
#include "bundle/bundle_export.h"
#include "bundle/bundle_files.h"
#include "bundle/bundle_verify.h"
#include "cliprocess.h"
#include "common/input_error.h"
#include "common/sha256.h"
#include "device/device.h"
#include "paretune/config.h"
#include "testmodels.h"
#include "testpaths.h"

#include <nlohmann/json.hpp>
#include <zip.h>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <set>
#include <sys/stat.h>

using namespace paretune;

namespace {

QString catalog() {
    return QStringLiteral(PARETUNE_SOURCE_DIR "/resources/catalogs/example.json");
}

std::string readFile(const QString& path) {
    std::ifstream in(path.toStdString(), std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeFile(const QString& path, const std::string& bytes) {
    std::ofstream out(path.toStdString(), std::ios::binary | std::ios::trunc);
    out << bytes;
}

/// A zip with the given entries, written with libzip exactly as named (no sanitising).
void writeRawZip(const QString& path,
                 const std::vector<std::pair<std::string, std::string>>& entries) {
    int code = 0;
    zip_t* archive = zip_open(path.toLocal8Bit().constData(), ZIP_CREATE | ZIP_TRUNCATE, &code);
    QVERIFY(archive != nullptr);
    for (const auto& [name, bytes] : entries) {
        zip_source_t* source = zip_source_buffer(archive, bytes.data(), bytes.size(), 0);
        QVERIFY(source != nullptr);
        QVERIFY(zip_file_add(archive, name.c_str(), source, ZIP_FL_ENC_RAW) >= 0);
    }
    QCOMPARE(zip_close(archive), 0);
}

BundleCandidate candidate(std::int64_t id, double latencyMs, double energyMj, double memoryMb) {
    BundleCandidate c;
    c.id = id;
    c.latencyMs = latencyMs;
    c.energyMj = energyMj;
    c.peakMemoryMb = memoryMb;
    c.source = "modelled";
    return c;
}

} // namespace

class TestBundle : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void exportWritesEveryPart();
    void exportIsVerified();
    void profileTakesMeasuredSamples();
    void exportUsesTheSearchsLibraryCosts();
    void exportZipIsVerified();
    void candidatePartitionsAreVerified();
    void resnet18BundleIsVerified();
    void verifyCatchesModifiedFile();
    void verifyCatchesAddedFile();
    void verifyRefusesOverlappingMemoryPlan();
    void verifyCatchesBrokenPartition();
    void verifyRefusesZipSlip_data();
    void verifyRefusesZipSlip();
    void verifyRefusesSymbolicLinks();
    void specialFilesAreRefused();
    void archiveLimitsHoldBeforeExtraction_data();
    void archiveLimitsHoldBeforeExtraction();
    void verifyWarnsAboutOtherDevices();
    void selectPicksTheFastestThatFits_data();
    void selectPicksTheFastestThatFits();
    void selectCli();
    void exportNeverClobbers();
    void exportWarnsWhenCostsDiffer();
    void exportRefusesUnknownOperators();
    void badInputExitsWithTwo_data();
    void badInputExitsWithTwo();
    void unsafePaths_data();
    void unsafePaths();

private:
    QString exportBundle(const QString& name, const QStringList& extra = {});
    /// A fresh copy of the bundle exported once in initTestCase, to modify.
    QString copyOfBundle(const QString& name);

    QTemporaryDir m_dir;
    QString m_plans;
    nlohmann::json m_plansJson;
    QString m_bundle; ///< plan 1 of the sample model, exported once
    QString m_zip;    ///< the same as a zip
};

void TestBundle::initTestCase() {
    QVERIFY(m_dir.isValid());
    m_plans = m_dir.filePath(QStringLiteral("plans.json"));
    const CliRun run = runParetune(
        {QStringLiteral("search"), QStringLiteral(PARETUNE_SAMPLE_MODEL),
         QStringLiteral("--devices"), QStringLiteral("cpu,gpu,npu"), QStringLiteral("--catalog"),
         catalog(), QStringLiteral("--population"), QStringLiteral("40"),
         QStringLiteral("--generations"), QStringLiteral("20"), QStringLiteral("--out"), m_plans});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    m_plansJson = nlohmann::json::parse(readFile(m_plans));
    QVERIFY(m_plansJson["plans"].size() > 5);
    m_bundle = exportBundle(QStringLiteral("bundle"));
    QVERIFY(!m_bundle.isEmpty());
    m_zip = exportBundle(QStringLiteral("bundle.zip"), {QStringLiteral("--zip")});
    QVERIFY(!m_zip.isEmpty());
}

QString TestBundle::copyOfBundle(const QString& name) {
    const QString out = m_dir.filePath(name);
    std::filesystem::copy(m_bundle.toStdString(), out.toStdString(),
                          std::filesystem::copy_options::recursive);
    return out;
}

QString TestBundle::exportBundle(const QString& name, const QStringList& extra) {
    const QString out = m_dir.filePath(name);
    const CliRun run =
        runParetune(QStringList{QStringLiteral("export"), QStringLiteral(PARETUNE_SAMPLE_MODEL),
                                QStringLiteral("--plans"), m_plans, QStringLiteral("--plan"),
                                QStringLiteral("1"), QStringLiteral("--out"), out} +
                    extra);
    if (run.exitCode != 0) {
        qWarning("%s", run.err.constData());
        return {};
    }
    return out;
}

void TestBundle::exportWritesEveryPart() {
    const QString out = m_bundle;
    QVERIFY(!out.isEmpty());
    const nlohmann::json manifest =
        nlohmann::json::parse(readFile(out + QStringLiteral("/manifest.json")));
    QCOMPARE(manifest["schema"].get<std::string>(), std::string("paretune.bundle/1"));
    QCOMPARE(manifest["model"]["fingerprint"], m_plansJson["model_fingerprint"]);
    QCOMPARE(manifest["model"]["sha256"].get<std::string>(),
             Sha256::hex(readFile(QStringLiteral(PARETUNE_SAMPLE_MODEL))));
    QCOMPARE(manifest["plan"]["id"].get<int>(), 1);
    for (const char* objective : {"latency_ms", "energy_mj", "peak_memory_mb"}) {
        QCOMPARE(manifest["plan"]["objectives"][objective]["source"].get<std::string>(),
                 std::string("modelled"));
    }
    // The exported plan's objectives are the search's (same simulator, same cost table).
    const nlohmann::json* searched = nullptr;
    for (const nlohmann::json& plan : m_plansJson["plans"]) {
        searched = plan["id"] == 1 ? &plan : searched;
    }
    QVERIFY(searched != nullptr);
    QVERIFY(qFuzzyCompare(manifest["plan"]["objectives"]["latency_ms"]["value"].get<double>(),
                          (*searched)["latency_us"].get<double>() / 1e3));
    QCOMPARE(manifest["devices"].size(), std::size_t{3});
    QCOMPARE(manifest["devices"][0]["tag"].get<std::string>(), std::string("real"));
    QCOMPARE(manifest["devices"][0]["fingerprint"].get<std::string>().size(), std::size_t{64});

    // Every file but the manifest is listed with its hash; every listed file exists.
    std::size_t onDisk = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(out.toStdString())) {
        if (!entry.is_regular_file()) {
            continue;
        }
        const std::string relative =
            entry.path().lexically_relative(out.toStdString()).generic_string();
        if (relative == "manifest.json") {
            continue;
        }
        ++onDisk;
        QVERIFY2(manifest["files"].contains(relative), relative.c_str());
        QCOMPARE(manifest["files"][relative]["sha256"].get<std::string>(),
                 Sha256::hex(readFile(QString::fromStdString(entry.path().string()))));
    }
    QCOMPARE(onDisk, manifest["files"].size());
    for (const char* file : {"plan.json", "memory_plan.json", "profile.csv", "README.md"}) {
        QVERIFY2(manifest["files"].contains(file), file);
    }

    // plan.json: every node once, with device, order and simulated times for compute nodes.
    const nlohmann::json plan = nlohmann::json::parse(readFile(out + QStringLiteral("/plan.json")));
    QCOMPARE(plan["nodes"].size(), manifest["model"]["node_count"].get<std::size_t>());
    std::set<int> orders;
    for (const nlohmann::json& node : plan["nodes"]) {
        orders.insert(node["order"].get<int>());
        if (node["kind"] == "compute") {
            QVERIFY(node["finish_us"].get<double>() > node["start_us"].get<double>());
            QVERIFY(node["finish_us"].get<double>() <=
                    manifest["plan"]["objectives"]["latency_ms"]["value"].get<double>() * 1e3 +
                        1e-6);
            QCOMPARE(node["device"], (*searched)["assignment"][node["name"].get<std::string>()]);
        }
    }
    QCOMPARE(orders.size(), plan["nodes"].size());

    // profile.csv: one row per compute node and device, with its source.
    const QStringList rows = QString::fromStdString(readFile(out + QStringLiteral("/profile.csv")))
                                 .split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(rows.first(),
             QStringLiteral("node,op_type,device,planned,latency_us,latency_p10_us,latency_p90_us,"
                            "energy_uj,workspace_bytes,source,energy_source,precision"));
    int planned = 0;
    for (const QString& row : rows.mid(1)) {
        const QStringList fields = row.split(QLatin1Char(','));
        QCOMPARE(fields.size(), 12);
        QCOMPARE(fields[11], QStringLiteral("fp32")); // a plan searched without variants
        QVERIFY(fields[9] == QLatin1String("modelled") ||
                fields[9] == QLatin1String("unsupported"));
        planned += fields[3] == QLatin1String("1") ? 1 : 0;
    }
    QCOMPARE(planned, manifest["plan"]["cost_sources"]["modelled"].get<int>());
    QCOMPARE(rows.size() - 1, planned * 3);

    // Candidates: 5 by default, the exported plan first, each a file with its placement.
    QCOMPARE(manifest["candidates"].size(), std::size_t{5});
    QCOMPARE(manifest["candidates"][0]["id"].get<int>(), 1);
    QVERIFY(manifest["candidates"][0]["exported"].get<bool>());
    for (const nlohmann::json& c : manifest["candidates"]) {
        const nlohmann::json file = nlohmann::json::parse(readFile(
            out + QLatin1Char('/') + QString::fromStdString(c["file"].get<std::string>())));
        QCOMPARE(file["id"], c["id"]);
        QVERIFY(!file["assignment"].empty());
    }
}

void TestBundle::exportIsVerified() {
    const QString out = m_bundle;
    QVERIFY(!out.isEmpty());
    const CliRun run = runParetune({QStringLiteral("bundle"), QStringLiteral("verify"), out});
    QVERIFY2(run.exitCode == 0, run.out.constData());
    QVERIFY(run.out.contains("exactly once"));
    QVERIFY(run.out.contains("device cpu: fingerprint matches this machine"));
}

// Operators profiled on this machine's CPU into a sample library show up in profile.csv as
// measured rows for the plan's real "cpu" device; the modelled rows stay.
void TestBundle::profileTakesMeasuredSamples() {
#if !PARETUNE_WITH_TORCH
    QSKIP("built without LibTorch: no profiling");
#else
    const QString db = m_dir.filePath(QStringLiteral("samples.db"));
    CliRun run =
        runParetune({QStringLiteral("profile"), QStringLiteral(PARETUNE_SAMPLE_MODEL),
                     QStringLiteral("--device"), QStringLiteral("cpu"), QStringLiteral("--db"), db,
                     QStringLiteral("--repeats"), QStringLiteral("3")});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QString out = m_dir.filePath(QStringLiteral("measured"));
    run = runParetune({QStringLiteral("export"), QStringLiteral(PARETUNE_SAMPLE_MODEL),
                       QStringLiteral("--plans"), m_plans, QStringLiteral("--plan"),
                       QStringLiteral("1"), QStringLiteral("--db"), db, QStringLiteral("--out"),
                       out});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const nlohmann::json manifest =
        nlohmann::json::parse(readFile(out + QStringLiteral("/manifest.json")));
    const int measured = manifest["profile"]["measured_rows"].get<int>();
    int measuredCpu = 0;
    int modelled = 0;
    for (const QString& row : QString::fromStdString(readFile(out + QStringLiteral("/profile.csv")))
                                  .split(QLatin1Char('\n'), Qt::SkipEmptyParts)
                                  .mid(1)) {
        const QStringList fields = row.split(QLatin1Char(','));
        if (fields[9] == QLatin1String("measured")) {
            QCOMPARE(fields[2], QStringLiteral("cpu"));
            QVERIFY(fields[4].toDouble() > 0);
            ++measuredCpu;
        } else {
            ++modelled; // modelled or unsupported: one row per compute node and device
        }
    }
    QVERIFY(measured > 0);
    QCOMPARE(measuredCpu, measured);
    QCOMPARE(modelled, manifest["plan"]["cost_sources"]["modelled"].get<int>() * 3);
    // A library that does not exist is an error, never created.
    run = runParetune({QStringLiteral("export"), QStringLiteral(PARETUNE_SAMPLE_MODEL),
                       QStringLiteral("--plans"), m_plans, QStringLiteral("--plan"),
                       QStringLiteral("1"), QStringLiteral("--db"), db + QStringLiteral(".none"),
                       QStringLiteral("--out"), out + QStringLiteral("2")});
    QCOMPARE(run.exitCode, 2);
    QVERIFY(!QFileInfo::exists(db + QStringLiteral(".none")));
    QVERIFY(!QFileInfo::exists(out + QStringLiteral("2")));
#endif
}

// A plan searched with costs from a sample library (--db) is re-simulated with the same costs
// when exported with that library: same figures, no warning; without it the export says the
// search used other costs.
void TestBundle::exportUsesTheSearchsLibraryCosts() {
#if !PARETUNE_WITH_TORCH
    QSKIP("built without LibTorch: no profiling");
#else
    const QString db = m_dir.filePath(QStringLiteral("cores.db"));
    for (const char* device : {"cpu:0", "cpu:1"}) {
        const CliRun run =
            runParetune({QStringLiteral("profile"), QStringLiteral(PARETUNE_SAMPLE_MODEL),
                         QStringLiteral("--device"), QLatin1String(device), QStringLiteral("--db"),
                         db, QStringLiteral("--repeats"), QStringLiteral("3")});
        QVERIFY2(run.exitCode == 0, run.err.constData());
    }
    const QString plans = m_dir.filePath(QStringLiteral("cores_plans.json"));
    CliRun run = runParetune(
        {QStringLiteral("search"), QStringLiteral(PARETUNE_SAMPLE_MODEL),
         QStringLiteral("--devices"), QStringLiteral("cpu:0,cpu:1"), QStringLiteral("--catalog"),
         QStringLiteral(PARETUNE_SOURCE_DIR "/resources/catalogs/cpu_cores.json"),
         QStringLiteral("--db"), db, QStringLiteral("--generations"), QStringLiteral("10"),
         QStringLiteral("--out"), plans});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QStringList exportArgs = {
        QStringLiteral("export"),  QStringLiteral(PARETUNE_SAMPLE_MODEL),
        QStringLiteral("--plans"), plans,
        QStringLiteral("--plan"),  QStringLiteral("0")};
    const QString out = m_dir.filePath(QStringLiteral("cores_bundle"));
    run = runParetune(exportArgs +
                      QStringList{QStringLiteral("--db"), db, QStringLiteral("--out"), out});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY2(!run.err.contains("search used other costs"), run.err.constData());
    const nlohmann::json manifest =
        nlohmann::json::parse(readFile(out + QStringLiteral("/manifest.json")));
    QVERIFY(manifest["plan"]["cost_sources"]["measured"].get<int>() > 0);

    // Without the library the measured devices have no costs: the plan is infeasible with the
    // export's costs, refused (exit 2, saying how to fix it) unless forced.
    const QString noDb = out + QStringLiteral("_nodb");
    run = runParetune(exportArgs + QStringList{QStringLiteral("--out"), noDb});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains("is infeasible with the costs of this export") &&
                 run.err.contains("--db") && run.err.contains("--force"),
             run.err.constData());
    QVERIFY(!QFileInfo::exists(noDb));
    run = runParetune(exportArgs +
                      QStringList{QStringLiteral("--out"), noDb, QStringLiteral("--force")});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY(run.err.contains("search used other costs"));
    QVERIFY(run.err.contains("exported with --force"));
    // bundle verify says so: the bundle is sound, its plan's figures do not hold.
    run = runParetune({QStringLiteral("bundle"), QStringLiteral("verify"), noDb});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY2(run.out.contains("warning  the plan is infeasible") &&
                 run.out.contains("verified with warnings"),
             run.out.constData());
    // bundle select names the figures' true source: simulated, never "measured".
    run = runParetune({QStringLiteral("bundle"), QStringLiteral("select"), out});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY2(run.out.contains("(simulated from measured costs; idle power modelled)"),
             run.out.constData());
#endif
}

// With --candidate-partitions every candidate's partitions are in the bundle and verified; a
// broken one (hash updated to match) is a failure that names the candidate.
void TestBundle::candidatePartitionsAreVerified() {
    const QString out =
        exportBundle(QStringLiteral("with_candidates"), {QStringLiteral("--candidate-partitions")});
    QVERIFY(!out.isEmpty());
    CliRun run = runParetune({QStringLiteral("bundle"), QStringLiteral("verify"), out});
    QVERIFY2(run.exitCode == 0, run.out.constData());
    BundleFileMap files = readBundleFiles(out.toStdString());
    nlohmann::json manifest = nlohmann::json::parse(files.at("manifest.json"));
    const nlohmann::json& other = manifest["candidates"][1];
    QVERIFY(!other["exported"].get<bool>());
    const std::string folder = other["partitions_folder"].get<std::string>();
    QCOMPARE(folder, "candidates/plan-" + other["id"].dump() + "/");
    const std::string covered =
        "candidate plan " + other["id"].dump() + ": the partitions cover each of the";
    QVERIFY2(run.out.contains(covered.c_str()), run.out.constData());
    const std::string partition = other["partitions"][0]["file"].get<std::string>();
    QCOMPARE(partition.rfind(folder, 0), std::size_t{0});
    QVERIFY(files.count(partition));

    files[partition] = "not an onnx model";
    manifest["files"][partition]["sha256"] = Sha256::hex(files[partition]);
    files["manifest.json"] = manifest.dump();
    const BundleVerification result = verifyBundle(files, discoverDevices());
    QVERIFY(!result.ok());
    QVERIFY2(result.failures()[0].rfind("candidate plan " + other["id"].dump() + ": partition 0",
                                        0) == 0,
             result.failures()[0].c_str());
}

void TestBundle::exportZipIsVerified() {
    const QString out = m_zip;
    QVERIFY(!out.isEmpty());
    QVERIFY(QFileInfo(out).isFile());
    const BundleFileMap files = readBundleFiles(out.toStdString());
    QVERIFY(files.count("manifest.json"));
    QVERIFY(files.count("partitions/00_" +
                        nlohmann::json::parse(files.at("manifest.json"))["partitions"][0]["device"]
                            .get<std::string>() +
                        ".onnx"));
    const CliRun run = runParetune({QStringLiteral("bundle"), QStringLiteral("verify"), out});
    QVERIFY2(run.exitCode == 0, run.out.constData());
}

void TestBundle::resnet18BundleIsVerified() {
    const QString model = testModelPath(QStringLiteral("resnet18"));
    if (!QFileInfo::exists(model)) {
        QSKIP("resnet18.onnx is missing; run tools/export_models.py");
    }
    const QString plans = m_dir.filePath(QStringLiteral("r18.json"));
    CliRun run = runParetune({QStringLiteral("search"), model, QStringLiteral("--devices"),
                              QStringLiteral("cpu,gpu"), QStringLiteral("--catalog"), catalog(),
                              QStringLiteral("--population"), QStringLiteral("20"),
                              QStringLiteral("--generations"), QStringLiteral("10"),
                              QStringLiteral("--out"), plans});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QString out = m_dir.filePath(QStringLiteral("r18"));
    run =
        runParetune({QStringLiteral("export"), model, QStringLiteral("--plans"), plans,
                     QStringLiteral("--plan"), QStringLiteral("0"), QStringLiteral("--candidates"),
                     QStringLiteral("3"), QStringLiteral("--out"), out});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    run = runParetune({QStringLiteral("bundle"), QStringLiteral("verify"), out});
    QVERIFY2(run.exitCode == 0, run.out.constData());
    const nlohmann::json manifest =
        nlohmann::json::parse(readFile(out + QStringLiteral("/manifest.json")));
    QVERIFY(manifest["candidates"].size() <= 3);
    std::size_t nodes = 0;
    for (const nlohmann::json& part : manifest["partitions"]) {
        nodes += part["nodes"].size();
    }
    QCOMPARE(nodes, manifest["model"]["node_count"].get<std::size_t>());
}

void TestBundle::verifyCatchesModifiedFile() {
    const QString out = copyOfBundle(QStringLiteral("modified"));
    QVERIFY(!out.isEmpty());
    const QString csv = out + QStringLiteral("/profile.csv");
    std::string text = readFile(csv);
    text[text.size() / 2] = text[text.size() / 2] == '1' ? '2' : '1';
    writeFile(csv, text);
    const CliRun run = runParetune({QStringLiteral("bundle"), QStringLiteral("verify"), out});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.out.contains("FAILED   profile.csv: SHA-256"), run.out.constData());
    QVERIFY(run.err.contains("verification failed (1 problem)"));
    // bundle select runs the same checks: no plan is chosen from a bundle verify rejects.
    const CliRun select = runParetune({QStringLiteral("bundle"), QStringLiteral("select"), out});
    QCOMPARE(select.exitCode, 2);
    QVERIFY2(select.err.contains("bundle verify rejects it (1 problem)") &&
                 select.err.contains("profile.csv: SHA-256"),
             select.err.constData());
    QVERIFY(select.out.isEmpty());
}

void TestBundle::verifyRefusesOverlappingMemoryPlan() {
    const QString out = copyOfBundle(QStringLiteral("overlapping"));
    QVERIFY(!out.isEmpty());
    const QString file = out + QStringLiteral("/memory_plan.json");
    nlohmann::ordered_json plan = nlohmann::ordered_json::parse(readFile(file));
    QCOMPARE(plan["schema"].get<std::string>(), std::string("paretune.memory_plan/1"));
    // Two tensors of one device live at the same step, in different places: put the second at
    // the first's offset (the file re-hashed in the manifest, so that only the plan is wrong).
    bool moved = false;
    for (auto& device : plan["devices"]) {
        auto& tensors = device["tensors"];
        for (std::size_t a = 0; a < tensors.size() && !moved; ++a) {
            for (std::size_t b = a + 1; b < tensors.size() && !moved; ++b) {
                auto& x = tensors[a];
                auto& y = tensors[b];
                if (x["bytes"] > 0 && y["bytes"] > 0 && x["offset"] != y["offset"] &&
                    x["first_step"] <= y["last_step"] && y["first_step"] <= x["last_step"] &&
                    x["offset"].get<std::int64_t>() + y["bytes"].get<std::int64_t>() <=
                        device["arena_bytes"].get<std::int64_t>()) {
                    y["offset"] = x["offset"];
                    y["in_place_of"] = nullptr;
                    moved = true;
                }
            }
        }
    }
    QVERIFY(moved);
    const std::string text = plan.dump(2) + "\n";
    writeFile(file, text);
    const QString manifestFile = out + QStringLiteral("/manifest.json");
    nlohmann::ordered_json manifest = nlohmann::ordered_json::parse(readFile(manifestFile));
    manifest["files"]["memory_plan.json"] = {{"sha256", Sha256::hex(text)}, {"bytes", text.size()}};
    writeFile(manifestFile, manifest.dump(2) + "\n");
    const CliRun run = runParetune({QStringLiteral("bundle"), QStringLiteral("verify"), out});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.out.contains("are live at the same step and overlap in the arena"),
             run.out.constData());
    QVERIFY2(run.err.contains("verification failed (1 problem)"), run.err.constData());
    // The bundle as exported passes the same check.
    const CliRun good = runParetune({QStringLiteral("bundle"), QStringLiteral("verify"), m_bundle});
    QCOMPARE(good.exitCode, 0);
    QVERIFY2(good.out.contains("memory_plan.json: every tensor fits"), good.out.constData());
}

void TestBundle::verifyCatchesAddedFile() {
    const QString out = copyOfBundle(QStringLiteral("added"));
    QVERIFY(!out.isEmpty());
    writeFile(out + QStringLiteral("/partitions/extra.onnx"), "x");
    const CliRun run = runParetune({QStringLiteral("bundle"), QStringLiteral("verify"), out});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.out.contains("partitions/extra.onnx: not listed in manifest.json"),
             run.out.constData());
}

// A partition replaced by one that fails the checker, with the manifest's hash updated to
// match: the hashes pass, the checker and the coverage check do not.
void TestBundle::verifyCatchesBrokenPartition() {
    const QString out = copyOfBundle(QStringLiteral("broken"));
    QVERIFY(!out.isEmpty());
    BundleFileMap files = readBundleFiles(out.toStdString());
    nlohmann::json manifest = nlohmann::json::parse(files.at("manifest.json"));
    const std::string partition = manifest["partitions"][0]["file"].get<std::string>();
    files[partition] = "not an onnx model";
    manifest["files"][partition]["sha256"] = Sha256::hex(files[partition]);
    files["manifest.json"] = manifest.dump();
    const BundleVerification result = verifyBundle(files, discoverDevices());
    QVERIFY(!result.ok());
    bool checker = false;
    bool coverage = false;
    for (const std::string& line : result.failures()) {
        checker = checker || (line.find(partition) != std::string::npos &&
                              line.find("ONNX checker") != std::string::npos);
        coverage = coverage || line.find("in 0 partitions") != std::string::npos;
    }
    QVERIFY(checker);
    QVERIFY(coverage);
    QVERIFY(result.passed.front().find("files match") != std::string::npos);
}

void TestBundle::verifyRefusesZipSlip_data() {
    QTest::addColumn<QString>("entry");
    QTest::addColumn<QString>("expected");
    QTest::newRow("parent") << QStringLiteral("../zipslip_evil.txt") << QStringLiteral("'..'");
    QTest::newRow("nested parent")
        << QStringLiteral("partitions/../../zipslip_evil.txt") << QStringLiteral("'..'");
    QTest::newRow("absolute") << QStringLiteral("/tmp/zipslip_evil.txt")
                              << QStringLiteral("absolute path");
    QTest::newRow("backslash") << QStringLiteral("..\\zipslip_evil.txt")
                               << QStringLiteral("backslash");
}

void TestBundle::verifyRefusesZipSlip() {
    QFETCH(QString, entry);
    QFETCH(QString, expected);
    const QString out = m_zip;
    QVERIFY(!out.isEmpty());
    // A copy of the genuine bundle with one hostile entry added.
    std::vector<std::pair<std::string, std::string>> entries;
    for (const auto& [name, bytes] : readBundleFiles(out.toStdString())) {
        entries.emplace_back(name, bytes);
    }
    entries.emplace_back(entry.toStdString(), "owned");
    const QString hostile = m_dir.filePath(
        QStringLiteral("hostile_%1.zip").arg(QString::fromUtf8(QTest::currentDataTag())));
    writeRawZip(hostile, entries);
    const QFileInfo escaped(m_dir.path() + QStringLiteral("/../zipslip_evil.txt"));
    QVERIFY(!escaped.exists());

    const CliRun run = runParetune({QStringLiteral("bundle"), QStringLiteral("verify"), hostile});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains("is refused") && run.err.contains(expected.toUtf8()),
             run.err.constData());
    QVERIFY2(run.err.contains(entry.toUtf8()), run.err.constData());
    QVERIFY(!escaped.exists());
    QVERIFY(!QFileInfo::exists(QStringLiteral("/tmp/zipslip_evil.txt")));
    const CliRun select =
        runParetune({QStringLiteral("bundle"), QStringLiteral("select"), hostile});
    QCOMPARE(select.exitCode, 2);
    QVERIFY(select.err.contains("is refused"));
}

// Issue 22: a bundle is checked whole before a byte is extracted, so a zip bomb, an archive of
// many entries or a sparse or oversized file is refused at once with the limit it breaks.
void TestBundle::archiveLimitsHoldBeforeExtraction_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("expected");
    QTest::newRow("zip bomb") << QStringLiteral("bomb")
                              << QStringLiteral("a compression ratio over the limit of 100:1");
    QTest::newRow("entries") << QStringLiteral("entries")
                             << QStringLiteral("4097 entries, over the limit of 4096");
    QTest::newRow("sparse file") << QStringLiteral("sparse")
                                 << QStringLiteral("is refused: a sparse file");
    QTest::newRow("oversized file")
        << QStringLiteral("oversized") << QStringLiteral("over the limit of 2 GiB per file");
}

void TestBundle::archiveLimitsHoldBeforeExtraction() {
    QFETCH(QString, kind);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QString path = dir.filePath(QStringLiteral("bundle.zip"));
    std::vector<std::pair<std::string, std::string>> entries;
    if (kind == QLatin1String("bomb")) {
        // 16 MiB of zeros deflate to about 16 KiB.
        entries.emplace_back("manifest.json", std::string(std::size_t{16} << 20, '\0'));
        writeRawZip(path, entries);
    } else if (kind == QLatin1String("entries")) {
        for (int i = 0; i < 4097; ++i) {
            entries.emplace_back("f" + std::to_string(i), "x");
        }
        writeRawZip(path, entries);
    } else {
        // A folder bundle with a file whose size is all holes.
        path = dir.filePath(QStringLiteral("bundle"));
        QVERIFY(QDir().mkpath(path));
        QFile file(path + QStringLiteral("/manifest.json"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        QVERIFY(file.resize(kind == QLatin1String("sparse") ? qint64(64) << 20 : qint64(3) << 30));
    }
    try {
        readBundleFiles(path.toStdString());
        QFAIL("the bundle was read");
    } catch (const InputError& e) {
        const QString what = QString::fromStdString(e.what());
        QVERIFY2(what.startsWith(path + QStringLiteral(": ")), qPrintable(what));
        QVERIFY2(what.contains(expected), qPrintable(what));
    }
    const CliRun run = runParetune({QStringLiteral("bundle"), QStringLiteral("verify"), path});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(expected.toUtf8()), run.err.constData());
}

// A symbolic link is refused both as a zip entry (Unix attributes) and inside a folder.
// A FIFO given as a bundle would block the first read (a hang found by bench/hostile_inputs.py);
// a device never ends. Both are refused before anything reads them, by verify and select alike.
void TestBundle::specialFilesAreRefused() {
    const QString fifo = m_dir.filePath(QStringLiteral("bundle-fifo"));
    QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    const QList<QPair<QString, QString>> cases{
        {fifo, QStringLiteral("a FIFO (named pipe)")},
        {QStringLiteral("/dev/zero"), QStringLiteral("a character device")}};
    for (const auto& [path, kind] : cases) {
        for (const QString& command : {QStringLiteral("verify"), QStringLiteral("select")}) {
            const CliRun run = runParetune({QStringLiteral("bundle"), command, path}, 60000);
            QVERIFY2(run.exitCode == 2,
                     qPrintable(command + QStringLiteral(" ") + path + QStringLiteral(": ") +
                                QString::fromUtf8(run.err)));
            QVERIFY2(run.err.contains((path + QStringLiteral(": not a bundle: ") + kind).toUtf8()),
                     run.err.constData());
        }
    }
}

void TestBundle::verifyRefusesSymbolicLinks() {
    const QString zipPath = m_dir.filePath(QStringLiteral("symlink.zip"));
    {
        const std::string target = "/etc/passwd";
        int code = 0;
        zip_t* archive =
            zip_open(zipPath.toLocal8Bit().constData(), ZIP_CREATE | ZIP_TRUNCATE, &code);
        QVERIFY(archive != nullptr);
        zip_source_t* source = zip_source_buffer(archive, target.data(), target.size(), 0);
        const zip_int64_t index = zip_file_add(archive, "manifest.json", source, ZIP_FL_ENC_RAW);
        QVERIFY(index >= 0);
        QCOMPARE(zip_file_set_external_attributes(archive, static_cast<zip_uint64_t>(index), 0,
                                                  ZIP_OPSYS_UNIX, (S_IFLNK | 0777U) << 16),
                 0);
        QCOMPARE(zip_close(archive), 0);
    }
    CliRun run = runParetune({QStringLiteral("bundle"), QStringLiteral("verify"), zipPath});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains("'manifest.json' is refused: it is a symbolic link"),
             run.err.constData());

    const QString folder = copyOfBundle(QStringLiteral("symlinked"));
    QVERIFY(QFile::link(QStringLiteral("/etc/passwd"), folder + QStringLiteral("/passwd")));
    run = runParetune({QStringLiteral("bundle"), QStringLiteral("verify"), folder});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains("'passwd' is a symbolic link"), run.err.constData());
}

// The bundle made here, checked against a machine whose CPU has another L3 size and BLAS:
// a warning naming both fields, not a failure.
void TestBundle::verifyWarnsAboutOtherDevices() {
    const QString out = m_bundle;
    QVERIFY(!out.isEmpty());
    const BundleFileMap files = readBundleFiles(out.toStdString());
    DeviceInventory machine = discoverDevices();
    for (Device& d : machine.devices) {
        if (d.id == "cpu") {
            d.l3Bytes += 1024 * 1024;
        }
    }
    BundleVerification result = verifyBundle(files, machine);
    QVERIFY(result.ok());
    QCOMPARE(result.warnings().size(), std::size_t{1});
    QVERIFY2(result.warnings()[0].find("device cpu: fingerprint differs") != std::string::npos &&
                 result.warnings()[0].find("hardware.l3_bytes") != std::string::npos,
             result.warnings()[0].c_str());

    machine.devices.erase(std::remove_if(machine.devices.begin(), machine.devices.end(),
                                         [](const Device& d) { return d.id == "cpu"; }),
                          machine.devices.end());
    result = verifyBundle(files, machine);
    QVERIFY(result.ok());
    QCOMPARE(result.warnings().size(), std::size_t{1});
    QVERIFY(result.warnings()[0].find("is not on this machine") != std::string::npos);
}

void TestBundle::selectPicksTheFastestThatFits_data() {
    QTest::addColumn<double>("latency");
    QTest::addColumn<double>("energy");
    QTest::addColumn<double>("memory");
    QTest::addColumn<int>("expected"); // index; -1: none fits
    // Candidates: 0 (2 ms, 50 mJ, 100 MB), 1 (4 ms, 20 mJ, 80 MB), 2 (8 ms, 5 mJ, 30 MB),
    // 3 (4 ms, 20 mJ, 60 MB). 0 means "no limit".
    QTest::newRow("no budget: fastest") << 0.0 << 0.0 << 0.0 << 0;
    QTest::newRow("energy 30: fastest of 1,2,3, tie on energy, less memory")
        << 0.0 << 30.0 << 0.0 << 3;
    QTest::newRow("energy 10") << 0.0 << 10.0 << 0.0 << 2;
    QTest::newRow("latency 5 and memory 70") << 5.0 << 0.0 << 70.0 << 3;
    QTest::newRow("limit equal to a figure fits") << 2.0 << 50.0 << 100.0 << 0;
    QTest::newRow("latency 1: none") << 1.0 << 0.0 << 0.0 << -1;
    QTest::newRow("latency 5 and energy 10: none") << 5.0 << 10.0 << 0.0 << -1;
}

void TestBundle::selectPicksTheFastestThatFits() {
    QFETCH(double, latency);
    QFETCH(double, energy);
    QFETCH(double, memory);
    QFETCH(int, expected);
    const std::vector<BundleCandidate> candidates = {
        candidate(10, 2, 50, 100), candidate(11, 4, 20, 80), candidate(12, 8, 5, 30),
        candidate(13, 4, 20, 60)};
    Budget budget;
    if (latency > 0) {
        budget.maxLatencyMs = latency;
    }
    if (energy > 0) {
        budget.maxEnergyMj = energy;
    }
    if (memory > 0) {
        budget.maxMemoryMb = memory;
    }
    const std::optional<std::size_t> chosen = selectCandidate(candidates, budget);
    QCOMPARE(chosen ? static_cast<int>(*chosen) : -1, expected);
}

// The CLI on an exported bundle: the budget sits between the candidates' own figures, and the
// expected choice is worked out here from the manifest.
void TestBundle::selectCli() {
    const QString out = copyOfBundle(QStringLiteral("select"));
    QVERIFY(!out.isEmpty());
    const nlohmann::json manifest =
        nlohmann::json::parse(readFile(out + QStringLiteral("/manifest.json")));
    std::vector<nlohmann::json> list(manifest["candidates"].begin(), manifest["candidates"].end());
    QVERIFY(list.size() >= 3);
    std::sort(list.begin(), list.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
        return a["energy_mj"].get<double>() < b["energy_mj"].get<double>();
    });
    // Energy budget just above the second-lowest energy: the faster of the two lowest.
    const double budget = list[1]["energy_mj"].get<double>() * 1.0001;
    const nlohmann::json& expected =
        list[0]["latency_ms"].get<double>() < list[1]["latency_ms"].get<double>() ? list[0]
                                                                                  : list[1];
    CliRun run = runParetune({QStringLiteral("bundle"), QStringLiteral("select"), out,
                              QStringLiteral("--max-energy-mj"), QString::number(budget, 'g', 12),
                              QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const nlohmann::json chosen = nlohmann::json::parse(run.out.toStdString());
    QCOMPARE(chosen["id"], expected["id"]);
    QCOMPARE(chosen["source"].get<std::string>(), std::string("modelled"));

    const double fastest =
        std::min_element(list.begin(), list.end(),
                         [](const nlohmann::json& a, const nlohmann::json& b) {
                             return a["latency_ms"].get<double>() < b["latency_ms"].get<double>();
                         })
            ->at("latency_ms")
            .get<double>();
    run = runParetune({QStringLiteral("bundle"), QStringLiteral("select"), out,
                       QStringLiteral("--max-latency-ms"), QString::number(fastest / 2, 'g', 12)});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains("none of the") && run.err.contains("fits the budget"),
             run.err.constData());
}

void TestBundle::exportNeverClobbers() {
    const QString out = m_dir.filePath(QStringLiteral("existing"));
    QVERIFY(QDir().mkpath(out));
    writeFile(out + QStringLiteral("/keep.txt"), "precious");
    const CliRun run = runParetune({QStringLiteral("export"), QStringLiteral(PARETUNE_SAMPLE_MODEL),
                                    QStringLiteral("--plans"), m_plans, QStringLiteral("--plan"),
                                    QStringLiteral("1"), QStringLiteral("--out"), out});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains("already exists"), run.err.constData());
    QCOMPARE(readFile(out + QStringLiteral("/keep.txt")), std::string("precious"));
    QCOMPARE(QDir(out).entryList(QDir::NoDotAndDotDot | QDir::AllEntries).size(), 1);
    // Nothing temporary left next to it.
    for (const QString& name : QDir(m_dir.path()).entryList(QDir::Hidden | QDir::AllEntries)) {
        QVERIFY2(!name.contains(QLatin1String(".tmp-")), qPrintable(name));
    }
}

// The importer accepts an operator ONNX does not know (and search places it); a partition
// holding it would fail the checker, so export refuses it naming the operator.
// A plans file whose figures the export's simulation does not reproduce (here: edited; in
// practice a search with other costs) is exported with a warning naming the objective.
void TestBundle::exportWarnsWhenCostsDiffer() {
    nlohmann::json doc = m_plansJson;
    for (nlohmann::json& plan : doc["plans"]) {
        if (plan["id"] == 1) {
            plan["latency_us"] = plan["latency_us"].get<double>() * 2;
        }
    }
    const QString plans = m_dir.filePath(QStringLiteral("edited.json"));
    writeFile(plans, doc.dump());
    const QString out = m_dir.filePath(QStringLiteral("edited"));
    const CliRun run = runParetune({QStringLiteral("export"), QStringLiteral(PARETUNE_SAMPLE_MODEL),
                                    QStringLiteral("--plans"), plans, QStringLiteral("--plan"),
                                    QStringLiteral("1"), QStringLiteral("--out"), out});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.err.contains("plan 1: latency_us is") &&
                 run.err.contains("the search used other costs"),
             run.err.constData());
    QVERIFY(!run.err.contains("energy_mj is"));
    // The genuine plans file gives no such warning, also for the baselines (greedy and HEFT
    // overlap devices, so their figures depend on the search's priority order).
    for (const nlohmann::json& plan : m_plansJson["plans"]) {
        if (plan["baseline"] != "greedy" && plan["baseline"] != "heft") {
            continue;
        }
        const QString name = QStringLiteral("genuine_") + QString::number(plan["id"].get<int>());
        const CliRun genuine =
            runParetune({QStringLiteral("export"), QStringLiteral(PARETUNE_SAMPLE_MODEL),
                         QStringLiteral("--plans"), m_plans, QStringLiteral("--plan"),
                         QString::number(plan["id"].get<int>()), QStringLiteral("--out"),
                         m_dir.filePath(name)});
        QCOMPARE(genuine.exitCode, 0);
        QVERIFY2(!genuine.err.contains("the search used other costs"), genuine.err.constData());
    }
}

void TestBundle::exportRefusesUnknownOperators() {
    const QString model = QStringLiteral(PARETUNE_TEST_DATA_DIR "/errors/unknown_op.onnx");
    const QString plans = m_dir.filePath(QStringLiteral("unknown.json"));
    CliRun run = runParetune({QStringLiteral("search"), model, QStringLiteral("--devices"),
                              QStringLiteral("cpu,gpu"), QStringLiteral("--catalog"), catalog(),
                              QStringLiteral("--population"), QStringLiteral("8"),
                              QStringLiteral("--generations"), QStringLiteral("2"),
                              QStringLiteral("--out"), plans});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QString out = m_dir.filePath(QStringLiteral("unknown"));
    run =
        runParetune({QStringLiteral("export"), model, QStringLiteral("--plans"), plans,
                     QStringLiteral("--plan"), QStringLiteral("0"), QStringLiteral("--out"), out});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains("unknown at the model's opset ('FancyOp')"), run.err.constData());
    QVERIFY(!QFileInfo::exists(out));
}

void TestBundle::badInputExitsWithTwo_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    const QString sample = QStringLiteral(PARETUNE_SAMPLE_MODEL);
    const QString out = QDir::tempPath() + QStringLiteral("/paretune_never_written");
    QTest::newRow("unknown plan id")
        << QStringList{QStringLiteral("export"),  sample,
                       QStringLiteral("--plans"), QStringLiteral("@plans"),
                       QStringLiteral("--plan"),  QStringLiteral("999"),
                       QStringLiteral("--out"),   out}
        << QStringLiteral("holds no plan with id 999");
    QTest::newRow("plans of another model")
        << QStringList{QStringLiteral("export"),  testModelPath(QStringLiteral("tiny_mlp")),
                       QStringLiteral("--plans"), QStringLiteral("@plans"),
                       QStringLiteral("--plan"),  QStringLiteral("0"),
                       QStringLiteral("--out"),   out}
        << QStringLiteral("searched for another model");
    QTest::newRow("plans file is not JSON")
        << QStringList{QStringLiteral("export"),  sample,
                       QStringLiteral("--plans"), sample,
                       QStringLiteral("--plan"),  QStringLiteral("0"),
                       QStringLiteral("--out"),   out}
        << QStringLiteral("not valid JSON");
    QTest::newRow("candidates 0")
        << QStringList{QStringLiteral("export"),       sample,
                       QStringLiteral("--plans"),      QStringLiteral("@plans"),
                       QStringLiteral("--plan"),       QStringLiteral("0"),
                       QStringLiteral("--candidates"), QStringLiteral("0"),
                       QStringLiteral("--out"),        out}
        << QStringLiteral("--candidates: expected 1 to 64");
    QTest::newRow("out in a missing folder")
        << QStringList{QStringLiteral("export"),  sample,
                       QStringLiteral("--plans"), QStringLiteral("@plans"),
                       QStringLiteral("--plan"),  QStringLiteral("0"),
                       QStringLiteral("--out"),   out + QStringLiteral("/missing/b")}
        << QStringLiteral("does not exist");
    QTest::newRow("verify a missing bundle")
        << QStringList{QStringLiteral("bundle"), QStringLiteral("verify"), out}
        << QStringLiteral("no such bundle");
    QTest::newRow("verify a model file")
        << QStringList{QStringLiteral("bundle"), QStringLiteral("verify"), sample}
        << QStringLiteral("neither a folder nor a zip archive");
    QTest::newRow("verify a folder without manifest")
        << QStringList{QStringLiteral("bundle"), QStringLiteral("verify"),
                       QStringLiteral(PARETUNE_TEST_DATA_DIR "/catalogs")}
        << QStringLiteral("verification failed");
    QTest::newRow("select without manifest")
        << QStringList{QStringLiteral("bundle"), QStringLiteral("select"),
                       QStringLiteral(PARETUNE_TEST_DATA_DIR "/catalogs")}
        << QStringLiteral("manifest.json is missing: not a Paretune bundle");
    QTest::newRow("select negative budget")
        << QStringList{QStringLiteral("bundle"), QStringLiteral("select"), out,
                       QStringLiteral("--max-latency-ms"), QStringLiteral("-1")}
        << QStringLiteral("--max-latency-ms: expected a positive number");
}

void TestBundle::badInputExitsWithTwo() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    args.replaceInStrings(QStringLiteral("@plans"), m_plans);
    const CliRun run = runParetune(args);
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(message.toUtf8()), run.err.constData());
    QVERIFY(!QFileInfo::exists(QDir::tempPath() + QStringLiteral("/paretune_never_written")));
}

void TestBundle::unsafePaths_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<bool>("safe");
    QTest::newRow("plain") << QStringLiteral("manifest.json") << true;
    QTest::newRow("nested") << QStringLiteral("partitions/00_cpu.onnx") << true;
    QTest::newRow("dots in a name") << QStringLiteral("a..b/c...onnx") << true;
    QTest::newRow("empty") << QString() << false;
    QTest::newRow("parent") << QStringLiteral("..") << false;
    QTest::newRow("parent inside") << QStringLiteral("a/../../b") << false;
    QTest::newRow("absolute") << QStringLiteral("/etc/passwd") << false;
    QTest::newRow("dot") << QStringLiteral("./a") << false;
    QTest::newRow("double slash") << QStringLiteral("a//b") << false;
    QTest::newRow("backslash") << QStringLiteral("a\\b") << false;
    QTest::newRow("newline") << QStringLiteral("a\nb") << false;
}

void TestBundle::unsafePaths() {
    QFETCH(QString, path);
    QFETCH(bool, safe);
    QCOMPARE(unsafeBundlePath(path.toStdString()).empty(), safe);
}

QTEST_GUILESS_MAIN(TestBundle)
#include "tst_bundle.moc"
