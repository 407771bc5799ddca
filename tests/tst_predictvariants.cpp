// SPDX-License-Identifier: GPL-3.0-or-later
// The predictor and the precision variants, on a checked-in library of real samples
// (tests/data/samples/variant_library.sql, made by tools/make_variant_fixture.sh: tiny_mlp,
// tiny_cnn and resnet18 profiled on cpu:0 with --variants bf16,int8): every variant sample
// reaches the dataset with its precision, a model's lowered graphs are held out with it, the
// held-out evaluation is reported per precision, variant cells without samples are predicted
// from the precision features (but never on a device that cannot run the precision: fp16 on
// this machine's CPU), and a predictor of an older feature set is refused by name.
// Nothing here asserts an accuracy figure: the assertions hold for any training outcome.
#include "cliprocess.h"
#include "onnx_fixture.h"
#include "samplefixture.h"

#include "common/input_error.h"
#include "cost/cost_table.h"
#include "cost/device_catalog.h"
#include "device/device.h"
#include "device/device_fingerprint.h"
#include "graph/onnx_importer.h"
#include "graph/precision.h"
#include "predict/library_costs.h"
#include "predict/performance_predictor.h"
#include "predict/predictor_dataset.h"
#include "profile/output_deviation.h"
#include "profile/precision_support.h"
#include "store/graph_records.h"
#include "store/records.h"
#include "store/sample_library.h"

#include <nlohmann/json.hpp>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

using namespace paretune;

namespace {

constexpr const char* kTinyCnnTag = "113c6306f9b8"; // tiny_cnn's fingerprint, first 12 digits

QString modelPath(const char* name) {
    return testModelsDir() + QLatin1Char('/') + QLatin1String(name) + QStringLiteral(".onnx");
}

/// Runs statements on a library file (closed everywhere else). Empty, or what went wrong.
QString execSql(const QString& db, const char* sql) {
    sqlite3* handle = nullptr;
    if (sqlite3_open_v2(db.toUtf8().constData(), &handle, SQLITE_OPEN_READWRITE, nullptr) !=
        SQLITE_OK) {
        sqlite3_close(handle);
        return db + QStringLiteral(": cannot open");
    }
    char* error = nullptr;
    const int rc = sqlite3_exec(handle, sql, nullptr, nullptr, &error);
    const QString why = error ? QString::fromUtf8(error) : QString();
    sqlite3_free(error);
    sqlite3_close(handle);
    return rc == SQLITE_OK ? QString() : why;
}

PredictorOptions quickOptions() {
    PredictorOptions o;
    o.epochs = 8;
    o.members = 2;
    return o;
}

} // namespace

class TestPredictVariants : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        for (const char* name : {"tiny_mlp", "tiny_cnn", "resnet18"}) {
            if (!QFile::exists(modelPath(name))) {
                QSKIP("exported test models missing (scripts/dev export-models)");
            }
        }
        QVERIFY(m_dir.isValid());
        m_db = restored(QStringLiteral("samples.db"));
    }

    void datasetHoldsEveryVariantSample() {
        SampleLibrary library = SampleLibrary::open(m_db.toStdString());
        const PredictorDataset d = assembleDataset(library);
        for (const Diagnostic& note : d.diagnostics) {
            // Every lowered and fused graph is built again from its model and recognised.
            QVERIFY2(note.code != "model-changed" && note.code != "derived-graph-left-out",
                     note.message.c_str());
        }
        // Each model's derived graphs are models of their own, named after it, tied to it.
        std::map<std::string, std::string> fingerprintOf;
        for (const auto& [fingerprint, name] : d.modelNames) {
            fingerprintOf[name] = fingerprint;
        }
        const std::string cnn = fingerprintOf.at("tiny_cnn");
        for (const char* tag : {"bf16", "int8", "fused"}) {
            const std::string name = std::string("tiny_cnn (") + tag + " " + kTinyCnnTag + ")";
            QVERIFY2(fingerprintOf.contains(name), name.c_str());
            QCOMPARE(d.derivedFrom.at(fingerprintOf.at(name)), cnn);
        }
        QVERIFY(!d.derivedFrom.contains(cnn));
        // A row's precision is its features' one-hot; a lowered graph gives rows of its
        // precision (its lowered nodes and their conversions, not its fp32 nodes again).
        std::map<Precision, int> rowsOf;
        std::set<std::pair<std::string, Precision>> rowSignatures;
        for (const PredictorRow& row : d.rows) {
            QCOMPARE(row.precision, precisionOfFeatures(row.features));
            const auto derived = d.derivedFrom.find(row.modelFingerprint);
            const std::optional<Variant> lowered =
                derived == d.derivedFrom.end()
                    ? std::nullopt
                    : loweredGraphVariant(d.modelNames.at(row.modelFingerprint), derived->second);
            // An int8 Gemm adds its C in float after the DequantizeLinear (NAME/bias): a part
            // of the lowered node that computes in fp32.
            const bool floatBias = lowered == Precision::Int8 && row.opType == "Add" &&
                                   row.nodeName.ends_with("/bias");
            QCOMPARE(row.precision,
                     floatBias ? Precision::Fp32 : lowered.value_or(Precision::Fp32).precision);
            ++rowsOf[row.precision];
            rowSignatures.emplace(row.signature, floatBias ? Precision::Int8 : row.precision);
        }
        QVERIFY(rowsOf[Precision::Fp32] > 0);
        QVERIFY(rowsOf[Precision::Bf16] > 0);
        QVERIFY(rowsOf[Precision::Int8] > 0);
        // Every sample profiled in a variant is a row of that precision.
        int variantSamples = 0;
        for (const Sample& s : library.samples()) {
            const nlohmann::json config = nlohmann::json::parse(s.configJson);
            if (!config.contains("precision")) {
                continue;
            }
            ++variantSamples;
            const Precision p = parsePrecision(config.at("precision").get<std::string>());
            QVERIFY2(rowSignatures.contains({s.opSignature, p}), s.opSignature.c_str());
        }
        QVERIFY(variantSamples > 0);
    }

    void trainHoldsOutLoweredGraphsAndScoresEachPrecision() {
        const CliRun run = runParetune({QStringLiteral("train"), QStringLiteral("--db"), m_db,
                                        QStringLiteral("--holdout-model"),
                                        QStringLiteral("tiny_cnn"), QStringLiteral("--epochs"),
                                        QStringLiteral("10"), QStringLiteral("--members"),
                                        QStringLiteral("2"), QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject doc = QJsonDocument::fromJson(run.out).object();
        const QJsonObject split = doc[QStringLiteral("split")].toObject();
        QCOMPARE(split[QStringLiteral("leaks")].toInt(), 0);
        QStringList held;
        for (const QJsonValue& m : split[QStringLiteral("held_out_models")].toArray()) {
            held << m[QStringLiteral("name")].toString();
        }
        const QString tag = QString::fromLatin1(kTinyCnnTag);
        for (const QString& name :
             {QStringLiteral("tiny_cnn"), QStringLiteral("tiny_cnn (bf16 %1)").arg(tag),
              QStringLiteral("tiny_cnn (int8 %1)").arg(tag),
              QStringLiteral("tiny_cnn (fused %1)").arg(tag)}) {
            QVERIFY2(held.contains(name), qPrintable(held.join(QStringLiteral("; "))));
        }
        for (const QString& name : held) { // nothing of another model
            QVERIFY2(name == QStringLiteral("tiny_cnn") || name.endsWith(tag + QLatin1Char(')')),
                     qPrintable(name));
        }
        const QJsonObject eval = doc[QStringLiteral("evaluation")].toObject();
        QCOMPARE(eval[QStringLiteral("set")].toString(), QStringLiteral("held out"));
        // The held-out rows per precision: fp32, bf16, int8 in order, together all of them.
        const QJsonArray precisions = eval[QStringLiteral("precisions")].toArray();
        QCOMPARE(precisions.size(), 3);
        const char* expected[] = {"fp32", "bf16", "int8"};
        int ops = 0;
        for (int i = 0; i < 3; ++i) {
            const QJsonObject p = precisions[i].toObject();
            QCOMPARE(p[QStringLiteral("precision")].toString(), QLatin1String(expected[i]));
            const QJsonObject ours = p[QStringLiteral("predictor")].toObject();
            const int n = ours[QStringLiteral("ops")].toInt();
            QVERIFY2(n > 0, expected[i]);
            QCOMPARE(p[QStringLiteral("roofline")].toObject()[QStringLiteral("ops")].toInt(), n);
            QVERIFY(p[QStringLiteral("measured_sum_us")].toDouble() > 0.0);
            QVERIFY(p[QStringLiteral("predicted_sum_us")].toDouble() > 0.0);
            QVERIFY(std::isfinite(ours[QStringLiteral("mape_percent")].toDouble()));
            ops += n;
        }
        QCOMPARE(ops, eval[QStringLiteral("predictor")].toObject()[QStringLiteral("ops")].toInt());
        QCOMPARE(ops, split[QStringLiteral("test_rows")].toInt());
        // The lowered graphs are pairs of their own among the held-out ones.
        QStringList pairs;
        for (const QJsonValue& p : eval[QStringLiteral("pairs")].toArray()) {
            pairs << p[QStringLiteral("pair")].toString();
        }
        QVERIFY2(!pairs.filter(QStringLiteral("tiny_cnn (int8 %1) on ").arg(tag)).isEmpty(),
                 qPrintable(pairs.join(QStringLiteral("; "))));
        // The text report lists them too.
        const CliRun text =
            runParetune({QStringLiteral("train"), QStringLiteral("--db"), m_db,
                         QStringLiteral("--holdout-model"), QStringLiteral("tiny_cnn"),
                         QStringLiteral("--epochs"), QStringLiteral("2"),
                         QStringLiteral("--members"), QStringLiteral("1")});
        QVERIFY2(text.exitCode == 0, text.err.constData());
        const QString out = QString::fromUtf8(text.out);
        QVERIFY2(out.contains(QStringLiteral("Per precision")), text.out.constData());
        for (const char* p : expected) {
            QVERIFY2(out.contains(QStringLiteral("\n  %1 ").arg(QLatin1String(p))),
                     text.out.constData());
        }
        QVERIFY2(!text.err.contains("changed since it was profiled"), text.err.constData());
    }

    void variantOfUntrainedPrecisionIsOutOfRange() {
        // One network predicts every precision from its one-hot: the lowered rows of the
        // held-out model are predicted with their precision; a predictor that never saw a
        // precision says so instead of predicting it as fp32 silently.
        SampleLibrary library = SampleLibrary::open(m_db.toStdString());
        const PredictorDataset d = assembleDataset(library);
        const std::string cnn = resolveModel(d, "tiny_cnn");
        const DatasetSplit split = splitDataset(d, {cnn}, {});
        std::vector<std::size_t> fp32Only;
        for (const std::size_t i : split.train) {
            if (d.rows[i].precision == Precision::Fp32) {
                fp32Only.push_back(i);
            }
        }
        QVERIFY(fp32Only.size() < split.train.size());
        const PerformancePredictor all =
            PerformancePredictor::train(d, split.train, quickOptions());
        const PerformancePredictor plain = PerformancePredictor::train(d, fp32Only, quickOptions());
        std::vector<PredictorRow> variants;
        for (const std::size_t i : split.test) {
            if (d.rows[i].precision != Precision::Fp32) {
                variants.push_back(d.rows[i]);
            }
        }
        QVERIFY(!variants.empty());
        const auto fromAll = all.predict(variants, d.devices);
        const auto fromPlain = plain.predict(variants, d.devices);
        // The same rows with the fp32 one-hot: the precision features are used.
        std::vector<PredictorRow> asFp32 = variants;
        for (PredictorRow& row : asFp32) {
            std::fill_n(row.features.begin() + kPrecisionFeature, kPrecisionCount, 0.0f);
            row.features[kPrecisionFeature] = 1.0f;
        }
        const auto fromAllAsFp32 = all.predict(asFp32, d.devices);
        int differ = 0;
        for (std::size_t i = 0; i < variants.size(); ++i) {
            QVERIFY(std::isfinite(fromAll[i].latencyUs) && fromAll[i].latencyUs > 0.0);
            QVERIFY2(fromPlain[i].outOfRange, variants[i].nodeName.c_str());
            differ += fromAll[i].latencyUs != fromAllAsFp32[i].latencyUs ? 1 : 0;
        }
        QCOMPARE(differ, static_cast<int>(variants.size()));
    }

    void variantCellsWithoutSamplesArePredicted() {
        // A library whose variant samples are gone (as on a device that never ran them) but
        // whose predictor learned them: the variant cells come from the predictor.
        const QString db = restored(QStringLiteral("novariants.db"));
        const DeviceInventory inventory = discoverDevices();
        const Device* cpu0 = inventory.find("cpu:0");
        QVERIFY(cpu0 != nullptr);
        {
            SampleLibrary library = SampleLibrary::open(db.toStdString());
            const PredictorDataset d = assembleDataset(library);
            std::vector<std::size_t> rows(d.rows.size());
            std::iota(rows.begin(), rows.end(), std::size_t{0});
            const PerformancePredictor p = PerformancePredictor::train(d, rows, quickOptions());
            library.addPredictor(p.toRecord(nlohmann::json::object()));
            // This machine's cpu:0 with the fixture device's figures (none measured here).
            const std::string here = deviceFingerprint(*cpu0);
            if (!library.device(here)) {
                library.upsertDevice(deviceRecordOf(*cpu0));
                const DeviceFigures fixture = d.devices.begin()->second;
                BenchmarkRecord bench;
                bench.deviceFingerprint = here;
                bench.gemmGflops = fixture.gemmGflops;
                bench.memoryBwGbs = fixture.memoryBwGbs;
                bench.reference = true;
                library.addBenchmark(bench);
            }
        }
        const QString removed =
            execSql(db, "DELETE FROM perf_samples WHERE json_extract(config_json, '$.precision') "
                        "IS NOT NULL");
        QVERIFY2(removed.isEmpty(), qPrintable(removed));

        SampleLibrary library = SampleLibrary::open(db.toStdString());
        const Graph graph = importOnnxFile(modelPath("tiny_cnn").toStdString()).graph;
        // A variant cell needs the node's sensitivity. The fixture's were stored by a schema-7
        // library, which schema 8 sets apart (measured before accuracy runs read a model's
        // large weights): measured again here, on tiny_cnn's own weights, in milliseconds.
        {
            const CalibrationInputs inputs =
                randomCalibrationInputs(graph, kDefaultSensitivitySets, kDefaultSensitivitySeed);
            const ActivationRanges ranges =
                measureActivationRanges(graph, int8RangeTensors(graph), inputs, {});
            for (const Precision precision : {Precision::Bf16, Precision::Int8}) {
                library.addSensitivities(
                    measureSensitivity(graph, precision, inputs, {}, nullptr, &ranges));
            }
        }
        const DeviceCatalog catalog = parseDeviceCatalogText(
            R"({"schema": "paretune.devices/1", "host": "cpu:0", "devices": [
                {"id": "cpu:0", "kind": "cpu", "cost": "measured", "active_w": 15, "idle_w": 2,
                 "memory_mb": 4096}], "links": []})",
            "test catalog");
        // fp16 as the search would see it had its sensitivity been measured somewhere: a
        // device that cannot run fp16 (precisionRefusal) still gets no fp16 cell, predicted
        // or not.
        std::vector<SensitivityRecord> fp16;
        for (std::size_t n = 0; n < graph.nodes.size(); ++n) {
            if (lowerable(graph, static_cast<NodeId>(n), Precision::Fp16)) {
                fp16.push_back(
                    {graph.fingerprint, graph.nodes[n].name, "fp16", "random:1:4", 0.1, {}});
            }
        }
        QVERIFY(!fp16.empty());
        library.addSensitivities(fp16);
        const std::string fp16Refusal = precisionRefusal(*cpu0, Precision::Fp16);
        CostTableOptions options;
        options.variants = {Precision::Bf16, Precision::Int8, Precision::Fp16};
        CostTable table = buildCostTable(graph, catalog, {"cpu:0"}, options);
        const LibraryCosts costs = fillCostsFromLibrary(table, graph, catalog, library);
        QVERIFY(costs.predictorId > 0);
        QCOMPARE(costs.variantMeasuredCells, 0);
        QVERIFY(costs.variantPredictedCells > 0);
        const bool noted = std::any_of(
            costs.diagnostics.begin(), costs.diagnostics.end(), [&](const Diagnostic& note) {
                return note.code == "variant-not-on-device" &&
                       note.message.find("fp16 is not offered on cpu:0") != std::string::npos &&
                       note.message.find(fp16Refusal) != std::string::npos;
            });
        QCOMPARE(noted, !fp16Refusal.empty());
        const std::int32_t d = table.findDevice("cpu:0");
        for (std::int32_t v = 1; v < table.variantCount(); ++v) {
            if (table.variant(v) == Precision::Fp16 && !fp16Refusal.empty()) {
                for (std::size_t n = 0; n < graph.nodes.size(); ++n) {
                    QVERIFY(!table.cell(static_cast<NodeId>(n), d, v).supported());
                }
                continue;
            }
            int predicted = 0;
            for (std::size_t n = 0; n < graph.nodes.size(); ++n) {
                const CostCell& cell = table.cell(static_cast<NodeId>(n), d, v);
                if (!cell.supported()) {
                    continue;
                }
                QVERIFY(lowerable(graph, static_cast<NodeId>(n), table.variant(v)));
                QCOMPARE(cell.source, CostSource::Predicted);
                QVERIFY(cell.latencyUs > 0.0);
                ++predicted;
            }
            QVERIFY2(predicted > 0, variantName(table.variant(v)).data());
        }
    }

    void refusesPredictorOfOlderFeatureSet_data() {
        QTest::addColumn<int>("first");     // the first op feature the older predictor lacks
        QTest::addColumn<QString>("added"); // what the message says is new
        QTest::newRow("before the precision features")
            << static_cast<int>(kPrecisionFeature)
            << QStringLiteral("adding precision_fp32, precision_bf16, precision_int8, "
                              "precision_fp16");
        QTest::newRow("before fp16") << static_cast<int>(kOpFeatureCount - 1)
                                     << QStringLiteral("; this version has %1, adding "
                                                       "precision_fp16)")
                                            .arg(kOpFeatureCount + kDeviceFeatureCount);
    }

    void refusesPredictorOfOlderFeatureSet() {
        // A predictor stored before the precision features, or before fp16 joined them: refused
        // by name, saying what is new and what to do, by the core and by the command line.
        QFETCH(int, first);
        QFETCH(QString, added);
        const QString db = restored(QStringLiteral("old%1.db").arg(first));
        {
            SampleLibrary library = SampleLibrary::open(db.toStdString());
            const PredictorDataset d = assembleDataset(library);
            std::vector<std::size_t> rows(d.rows.size());
            std::iota(rows.begin(), rows.end(), std::size_t{0});
            PredictorRecord record = PerformancePredictor::train(d, rows, quickOptions())
                                         .toRecord(nlohmann::json::object());
            nlohmann::json set = nlohmann::json::parse(record.trainSetJson);
            auto& names = set["feature_names"];
            names.erase(names.begin() + first,
                        names.begin() + static_cast<std::ptrdiff_t>(kOpFeatureCount));
            record.trainSetJson = set.dump();
            try {
                PerformancePredictor::fromRecord(record);
                QFAIL("a predictor of an older feature set was loaded");
            } catch (const InputError& e) {
                const std::string what = e.what();
                QVERIFY2(what.find("another feature set") != std::string::npos &&
                             what.find(added.toStdString()) != std::string::npos &&
                             what.find("no longer") == std::string::npos &&
                             what.find("paretune train") != std::string::npos,
                         e.what());
            }
            library.addPredictor(record);
        }
        const CliRun run = runParetune({QStringLiteral("predict"), modelPath("tiny_cnn"),
                                        QStringLiteral("--device"), QStringLiteral("cpu:0"),
                                        QStringLiteral("--db"), db});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(added.toUtf8()) &&
                     run.err.contains("train again with paretune train"),
                 run.err.constData());
    }

private:
    /// The fixture restored into a new file of the temporary folder, its models pointed at the
    /// test models.
    QString restored(const QString& file) {
        const QString db = m_dir.filePath(file);
        const QString restoredError = restoreSampleFixture(QStringLiteral("variant_library"), db);
        if (!restoredError.isEmpty()) {
            qFatal("%s", qPrintable(restoredError));
        }
        const QString relocated = relocateFixtureModels(db, testModelsDir());
        if (!relocated.isEmpty()) {
            qFatal("%s", qPrintable(relocated));
        }
        return db;
    }

    QTemporaryDir m_dir;
    QString m_db;
};

QTEST_GUILESS_MAIN(TestPredictVariants)
#include "tst_predictvariants.moc"
