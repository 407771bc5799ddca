// SPDX-License-Identifier: GPL-3.0-or-later
// Bundles keep a plan's variants (issue 17, item 4): a plan with nodes in bf16, int8 or fp32-nhwc
// exports partitions holding their Cast, QuantizeLinear / QLinearConv / DequantizeLinear, or
// Transpose / ai.paretune::NhwcConv nodes, which pass the ONNX checker (export and verify both run
// it); the manifest records the deviation of the partitions' outputs from the fp32 model, measured
// on seeded inputs at export, and `bundle verify --model` runs the partitions again and checks
// their outputs against it. Every check is an invariant of the bundle, not a timing.
#include "cliprocess.h"
#include "testmodels.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <set>

using nlohmann::json;

namespace {

json readJson(const QString& path) {
    std::ifstream in(path.toStdString());
    return json::parse(in);
}

void writeJson(const QString& path, const json& value) {
    std::ofstream(path.toStdString()) << value.dump(2);
}

QString arg(const char* text) {
    return QString::fromUtf8(text);
}

} // namespace

class TestVariantBundle : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_model;
    QString m_db;
    QString m_plans;
    std::map<std::string, std::int64_t> m_baselines; ///< baseline name → plan id

    /// Exports plan `id` into a new folder; returns the run.
    CliRun exportPlan(std::int64_t id, const QString& out, const QStringList& extra = {}) {
        QStringList args{arg("export"), m_model,       arg("--plans"),
                         m_plans,       arg("--plan"), QString::number(id),
                         arg("--out"),  out,           arg("--accuracy-sets"),
                         arg("3")};
        return runParetune(args + extra);
    }

private Q_SLOTS:
    void initTestCase() {
        m_model = testModelPath(QStringLiteral("tiny_cnn"));
        if (!QFile::exists(m_model)) {
            QSKIP("tiny_cnn.onnx not exported (tools/export_models.py)");
        }
        QVERIFY(m_dir.isValid());
        m_db = m_dir.path() + arg("/s.db");
        m_plans = m_dir.path() + arg("/plans.json");
        const CliRun profile = runParetune({arg("profile"), m_model, arg("--device"), arg("cpu:0"),
                                            arg("--db"), m_db, arg("--repeats"), arg("2"),
                                            arg("--variants"), arg("bf16,int8,fp32-nhwc")});
        QVERIFY2(profile.exitCode == 0, profile.err.constData());
        const CliRun search = runParetune(
            {arg("search"), m_model, arg("--devices"), arg("cpu:0"), arg("--catalog"),
             arg("cpu_cores"), arg("--db"), m_db, arg("--variants"), arg("bf16,int8,fp32-nhwc"),
             arg("--objectives"), arg("latency,accuracy"), arg("--population"), arg("16"),
             arg("--generations"), arg("5"), arg("--out"), m_plans});
        QVERIFY2(search.exitCode == 0, search.err.constData());
        const json plans = readJson(m_plans);
        for (const json& plan : plans["plans"]) {
            if (plan.contains("baseline") && plan["baseline"].is_string()) {
                m_baselines[plan["baseline"].get<std::string>()] = plan["id"].get<std::int64_t>();
            }
        }
        for (const char* name :
             {"all:cpu:0", "all:cpu:0:bf16", "all:cpu:0:int8", "all:cpu:0:fp32-nhwc"}) {
            QVERIFY2(m_baselines.count(name), name);
        }
    }

    void loweredPlansExportTheirConversions_data() {
        QTest::addColumn<QString>("baseline");
        QTest::addColumn<QString>("precision");
        QTest::addColumn<QStringList>("operators");
        QTest::addColumn<double>("largestDeviation"); // %
        QTest::newRow("bf16") << arg("all:cpu:0:bf16") << arg("bf16") << QStringList{arg("Cast")}
                              << 20.0;
        QTest::newRow("int8") << arg("all:cpu:0:int8") << arg("int8")
                              << QStringList{arg("QuantizeLinear"), arg("QLinearConv"),
                                             arg("DequantizeLinear")}
                              << 20.0;
        // A layout: the same arithmetic, summed in another order.
        QTest::newRow("fp32-nhwc") << arg("all:cpu:0:fp32-nhwc") << arg("fp32-nhwc")
                                   << QStringList{arg("Transpose"), arg("NhwcConv")} << 0.01;
    }

    void loweredPlansExportTheirConversions() {
        QFETCH(QString, baseline);
        QFETCH(QString, precision);
        QFETCH(QStringList, operators);
        QFETCH(double, largestDeviation);
        const std::int64_t id = m_baselines.at(baseline.toStdString());
        const QString out = m_dir.path() + arg("/bundle-") + precision;
        const CliRun run = exportPlan(id, out, {arg("--db"), m_db});
        QVERIFY2(run.exitCode == 0, run.err.constData());

        const json manifest = readJson(out + arg("/manifest.json"));
        const json& accuracy = manifest["plan"]["accuracy"];
        QVERIFY2(accuracy.is_object(), manifest["plan"].dump().c_str());
        QCOMPARE(accuracy["source"], json("measured"));
        QCOMPARE(accuracy["sets"], json(3));
        QCOMPARE(accuracy["random_inputs"], json(true));
        QVERIFY(accuracy["note"].get<std::string>().find("random inputs") != std::string::npos);
        QVERIFY(accuracy["inputs"].get<std::string>().rfind("random:", 0) == 0);
        // Lowering changes the arithmetic (a layout only its order), and not beyond a few per
        // cent on this model.
        const double deviation = accuracy["deviation_pct"].get<double>();
        QVERIFY2(deviation >= 0.0 && deviation < largestDeviation, accuracy.dump().c_str());
        QVERIFY(accuracy["min_cosine"].get<double>() > 0.98);
        QVERIFY(manifest["plan"]["variants"][precision.toStdString()].get<int>() >= 1);

        // plan.json: each compute node's precision, and the conversions the partitions hold.
        const json plan = readJson(out + arg("/plan.json"));
        int lowered = 0;
        std::set<std::string> modelNodes;
        for (const json& node : plan["nodes"]) {
            modelNodes.insert(node["name"].get<std::string>());
            if (node.contains("variant") && node["variant"] == precision.toStdString()) {
                ++lowered;
            }
        }
        QCOMPARE(lowered, manifest["plan"]["variants"][precision.toStdString()].get<int>());
        std::set<std::string> conversionOps;
        for (const json& c : plan["conversions"]) {
            QVERIFY2(modelNodes.count(c["node"].get<std::string>()), c.dump().c_str());
            conversionOps.insert(c["op_type"].get<std::string>());
        }
        // The lowered node itself keeps its model name; QLinearConv replaces the Conv.
        for (const QString& op : operators) {
            const bool listed = conversionOps.count(op.toStdString()) > 0;
            bool inPartition = false;
            for (const json& part : manifest["partitions"]) {
                const QString file = out + arg("/") + QString::fromStdString(part["file"]);
                QFile f(file);
                QVERIFY(f.open(QIODevice::ReadOnly));
                inPartition = inPartition || f.readAll().contains(op.toUtf8());
            }
            QVERIFY2(listed || inPartition, qPrintable(op));
        }

        // verify: without the model it says the outputs were not run; with it, they pass.
        const CliRun plain = runParetune({arg("bundle"), arg("verify"), out});
        QVERIFY2(plain.exitCode == 0, plain.out.constData());
        QVERIFY2(plain.out.contains("partitions pass the ONNX checker"), plain.out.constData());
        QVERIFY2(plain.out.contains("the outputs were not run"), plain.out.constData());
        const CliRun checked =
            runParetune({arg("bundle"), arg("verify"), out, arg("--model"), m_model});
        QVERIFY2(checked.exitCode == 0, checked.out.constData());
        QVERIFY2(checked.out.contains("outputs deviate from the model's by"),
                 checked.out.constData());
        QVERIFY2(checked.out.contains("nodes exactly once"), checked.out.constData());

        if (largestDeviation < 1.0) {
            return; // within any tolerance: a tampered record would still hold
        }
        // A manifest that claims less deviation than the partitions have fails.
        json tampered = manifest;
        tampered["plan"]["accuracy"]["deviation_pct"] = 0.0;
        writeJson(out + arg("/manifest.json"), tampered);
        const CliRun failed =
            runParetune({arg("bundle"), arg("verify"), out, arg("--model"), m_model});
        QCOMPARE(failed.exitCode, 2);
        QVERIFY2(failed.out.contains("more than manifest.json records"), failed.out.constData());
        writeJson(out + arg("/manifest.json"), manifest);

        // Another model is not the exported one.
        const QString other = testModelPath(QStringLiteral("tiny_mlp"));
        if (QFile::exists(other)) {
            const CliRun wrong =
                runParetune({arg("bundle"), arg("verify"), out, arg("--model"), other});
            QCOMPARE(wrong.exitCode, 2);
            QVERIFY2(wrong.out.contains("is not the exported model"), wrong.out.constData());
        }
    }

    void anFp32PlanRecordsNoDeviation() {
        const QString out = m_dir.path() + arg("/bundle-fp32");
        const CliRun run = exportPlan(m_baselines.at("all:cpu:0"), out, {arg("--db"), m_db});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const json manifest = readJson(out + arg("/manifest.json"));
        QVERIFY(manifest["plan"]["accuracy"].is_null());
        const json plan = readJson(out + arg("/plan.json"));
        QVERIFY(plan["conversions"].empty());
        const CliRun verify =
            runParetune({arg("bundle"), arg("verify"), out, arg("--model"), m_model});
        QVERIFY2(verify.exitCode == 0, verify.out.constData());
        QVERIFY(!verify.out.contains("outputs"));
    }

    void badInputIsRefused() {
        // int8 scales come from the library's ranges: without --db the export says so.
        const CliRun noLibrary =
            exportPlan(m_baselines.at("all:cpu:0:int8"), m_dir.path() + arg("/no-db"));
        QCOMPARE(noLibrary.exitCode, 2);
        QVERIFY2(noLibrary.err.contains("--db"), noLibrary.err.constData());
        QVERIFY(!QFile::exists(m_dir.path() + arg("/no-db")));
        const CliRun sets = runParetune(
            {arg("export"), m_model, arg("--plans"), m_plans, arg("--plan"), arg("0"), arg("--out"),
             m_dir.path() + arg("/zero"), arg("--accuracy-sets"), arg("0")});
        QCOMPARE(sets.exitCode, 2);
        QVERIFY2(sets.err.contains("accuracy-sets"), sets.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestVariantBundle)
#include "tst_variantbundle.moc"
