// SPDX-License-Identifier: GPL-3.0-or-later
// paretune train / predict / adapt and search --db on real profiles of small exported models
// (a checked-in library, tests/data/samples/predictor_library.sql): the held-out model is
// predicted better than by the roofline, the split does not leak, the JSON has the documented
// shape, the active loop measures and retrains, and the search counts predicted cells.
#include "cliprocess.h"
#include "samplefixture.h"
#include "testpaths.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

namespace {

QString modelPath(const char* name) {
    return QStringLiteral(PARETUNE_TEST_MODELS_DIR "/") + QLatin1String(name) +
           QStringLiteral(".onnx");
}

QJsonObject jsonOf(const CliRun& run) {
    return QJsonDocument::fromJson(run.out).object();
}

} // namespace

class TestPredictCli : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        for (const char* name :
             {"tiny_mlp", "tiny_cnn", "resnet18", "shufflenet_v2_x1_0", "mobilenet_v2"}) {
            if (!QFile::exists(modelPath(name))) {
                QSKIP("exported test models missing (scripts/dev export-models)");
            }
        }
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath(QStringLiteral("samples.db"));
        // Real profiles of tiny_mlp, tiny_cnn, resnet18 and shufflenet_v2_x1_0 on cpu:0, measured
        // once (ShuffleNet's small convolutions give held-out tiny_cnn neighbours to learn
        // from): what the predictor learns is the same on every run and every machine.
        const QString restored = restoreSampleFixture(QStringLiteral("predictor_library"), m_db);
        QVERIFY2(restored.isEmpty(), qPrintable(restored));
    }

    void trainBeatsRooflineOnHeldOutModel() {
        const CliRun run = runParetune({QStringLiteral("train"), QStringLiteral("--db"), m_db,
                                        QStringLiteral("--holdout-model"),
                                        QStringLiteral("tiny_cnn"), QStringLiteral("--epochs"),
                                        QStringLiteral("30"), QStringLiteral("--members"),
                                        QStringLiteral("3"), QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject doc = jsonOf(run);
        const QJsonObject split = doc[QStringLiteral("split")].toObject();
        QCOMPARE(split[QStringLiteral("leaks")].toInt(), 0);
        QVERIFY(split[QStringLiteral("test_rows")].toInt() > 0);
        QCOMPARE(doc[QStringLiteral("epoch_loss")].toArray().size(), 30);
        const QJsonObject eval = doc[QStringLiteral("evaluation")].toObject();
        QCOMPARE(eval[QStringLiteral("set")].toString(), QStringLiteral("held out"));
        const QJsonObject ours = eval[QStringLiteral("predictor")].toObject();
        const QJsonObject roofline = eval[QStringLiteral("roofline")].toObject();
        const double ourMape = ours[QStringLiteral("mape_percent")].toDouble();
        const double rooflineMape = roofline[QStringLiteral("mape_percent")].toDouble();
        const double ourE2e = ours[QStringLiteral("end_to_end_error_percent")].toDouble();
        const double rooflineE2e = roofline[QStringLiteral("end_to_end_error_percent")].toDouble();
        qInfo("held-out tiny_cnn on cpu:0: predictor MAPE %.1f%% e2e %.1f%%; roofline MAPE "
              "%.1f%% e2e %.1f%%",
              ourMape, ourE2e, rooflineMape, rooflineE2e);
        // Per operator the predictor must beat the roofline. The end-to-end sum of a model this
        // small is dominated by a few operators, and the share within ±10% of its handful of
        // operators is one or two lucky operators either way on a loaded machine: both are
        // only reported (see the issue's report).
        qInfo("within ±10%%: predictor %.2f, roofline %.2f",
              ours[QStringLiteral("within_10_percent")].toDouble(),
              roofline[QStringLiteral("within_10_percent")].toDouble());
        QVERIFY(ourMape < rooflineMape);
        // Each held-out pair is scored on its own too; with one pair that is the whole set.
        const QJsonArray pairs = eval[QStringLiteral("pairs")].toArray();
        QCOMPARE(pairs.size(), 1);
        const QJsonObject pair = pairs[0].toObject();
        QCOMPARE(pair[QStringLiteral("predictor")].toObject(), ours);
        QCOMPARE(pair[QStringLiteral("roofline")].toObject(), roofline);
        QVERIFY(doc[QStringLiteral("predictor_id")].toInt() >= 1);
    }

    void predictReportsEveryNode() {
        const CliRun run = runParetune({QStringLiteral("predict"), modelPath("mobilenet_v2"),
                                        QStringLiteral("--device"), QStringLiteral("cpu:0"),
                                        QStringLiteral("--db"), m_db, QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject doc = jsonOf(run);
        QCOMPARE(doc[QStringLiteral("device")].toString(), QStringLiteral("cpu:0"));
        QVERIFY(doc[QStringLiteral("predictor_id")].toInt() >= 1);
        const QJsonArray nodes = doc[QStringLiteral("nodes")].toArray();
        QVERIFY(nodes.size() > 50);
        double sum = 0.0;
        int predicted = 0;
        for (const QJsonValue& v : nodes) {
            const QJsonObject n = v.toObject();
            for (const char* key :
                 {"name", "op_type", "latency_us", "peak_memory_mb", "uncertainty", "source"}) {
                QVERIFY2(n.contains(QLatin1String(key)), key);
            }
            const QString source = n[QStringLiteral("source")].toString();
            QVERIFY(source == QStringLiteral("predicted") || source == QStringLiteral("measured"));
            predicted += source == QStringLiteral("predicted") ? 1 : 0;
            QVERIFY(n[QStringLiteral("latency_us")].toDouble() > 0.0);
            sum += n[QStringLiteral("latency_us")].toDouble();
        }
        QVERIFY(predicted > 0);
        QVERIFY(std::abs(sum - doc[QStringLiteral("sum_of_ops_us")].toDouble()) < 1e-6 * sum);
    }

    void adaptMeasuresAndRetrains() {
        const CliRun run = runParetune({QStringLiteral("adapt"), modelPath("mobilenet_v2"),
                                        QStringLiteral("--device"), QStringLiteral("cpu:0"),
                                        QStringLiteral("--budget"), QStringLiteral("3"),
                                        QStringLiteral("--db"), m_db, QStringLiteral("--repeats"),
                                        QStringLiteral("3"), QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject doc = jsonOf(run);
        QCOMPARE(doc[QStringLiteral("measured")].toArray().size(), 3);
        QVERIFY(doc[QStringLiteral("predictor_id")].toInt() >
                doc[QStringLiteral("predictor_id_before")].toInt());
        // the measured operators now come from the library
        const CliRun after = runParetune({QStringLiteral("predict"), modelPath("mobilenet_v2"),
                                          QStringLiteral("--device"), QStringLiteral("cpu:0"),
                                          QStringLiteral("--db"), m_db, QStringLiteral("--json")});
        QVERIFY2(after.exitCode == 0, after.err.constData());
        const QString first = doc[QStringLiteral("measured")][0][QStringLiteral("name")].toString();
        for (const QJsonValue& v : jsonOf(after)[QStringLiteral("nodes")].toArray()) {
            if (v[QStringLiteral("name")].toString() == first) {
                QCOMPARE(v[QStringLiteral("source")].toString(), QStringLiteral("measured"));
            }
        }
    }

    void searchUsesPredictedCells() {
        const QString catalog = m_dir.filePath(QStringLiteral("catalog.json"));
        QFile file(catalog);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"schema": "paretune.devices/1", "host": "cpu:0",
  "devices": [
    {"id": "cpu:0", "kind": "cpu", "cost": "measured", "active_w": 15, "idle_w": 2,
     "memory_mb": 4096},
    {"id": "npu", "kind": "npu", "peak_gflops": 2000, "mem_bw_gbs": 30, "launch_us": 20,
     "active_w": 3, "idle_w": 0.5, "memory_mb": 512}],
  "links": [{"a": "cpu:0", "b": "npu", "bandwidth_gbs": 4, "latency_us": 30}]})");
        file.close();
        const CliRun run = runParetune(
            {QStringLiteral("search"), modelPath("mobilenet_v2"), QStringLiteral("--devices"),
             QStringLiteral("cpu:0,npu"), QStringLiteral("--catalog"), catalog,
             QStringLiteral("--db"), m_db, QStringLiteral("--population"), QStringLiteral("8"),
             QStringLiteral("--generations"), QStringLiteral("3"), QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject doc = jsonOf(run);
        const QJsonObject library = doc[QStringLiteral("library")].toObject();
        QVERIFY(library[QStringLiteral("predicted_cells")].toInt() > 0);
        QVERIFY(library[QStringLiteral("measured_cells")].toInt() > 0);
        int predicted = 0;
        for (const QJsonValue& plan : doc[QStringLiteral("plans")].toArray()) {
            predicted += plan[QStringLiteral("sources")][QStringLiteral("predicted")].toInt();
        }
        QVERIFY(predicted > 0);
    }

    void badInput_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown held-out model")
            << QStringList{QStringLiteral("train"), QStringLiteral("--holdout-model"),
                           QStringLiteral("no_such_model")}
            << QStringLiteral("no such model");
        QTest::newRow("bad target")
            << QStringList{QStringLiteral("train"), QStringLiteral("--target"),
                           QStringLiteral("fast")}
            << QStringLiteral("--target");
        QTest::newRow("zero budget")
            << QStringList{QStringLiteral("adapt"),    modelPath("tiny_mlp"),
                           QStringLiteral("--device"), QStringLiteral("cpu:0"),
                           QStringLiteral("--budget"), QStringLiteral("0")}
            << QStringLiteral("--budget");
        QTest::newRow("modelled device")
            << QStringList{QStringLiteral("predict"), modelPath("tiny_mlp"),
                           QStringLiteral("--device"), QStringLiteral("gpu9")}
            << QStringLiteral("no such device");
    }
    void badInput() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const CliRun run = runParetune(args + QStringList{QStringLiteral("--db"), m_db});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(QString::fromUtf8(run.err).contains(message), run.err.constData());
    }

    void noPredictorYet() {
        const QString empty = m_dir.filePath(QStringLiteral("empty.db"));
        const CliRun predict = runParetune({QStringLiteral("predict"), modelPath("tiny_mlp"),
                                            QStringLiteral("--device"), QStringLiteral("cpu:0"),
                                            QStringLiteral("--db"), empty});
        QCOMPARE(predict.exitCode, 2);
        QVERIFY(predict.err.contains("paretune train"));
        const CliRun train = runParetune({QStringLiteral("train"), QStringLiteral("--db"), empty});
        QCOMPARE(train.exitCode, 2);
        QVERIFY(train.err.contains("no samples"));
    }

private:
    QTemporaryDir m_dir;
    QString m_db;
};

QTEST_GUILESS_MAIN(TestPredictCli)
#include "tst_predictcli.moc"
