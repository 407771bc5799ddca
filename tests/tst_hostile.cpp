// SPDX-License-Identifier: GPL-3.0-or-later
// Hostile input never crashes: every file of tests/data/hostile/ (the models of issue 22, the
// hand-made ones of tools/make_hostile_models.py and every input a fuzzer ever crashed on) goes
// through `paretune inspect --json` and must end with exit 0 or 2, never a signal. A file with a
// `<file>.expected` beside it must give that outcome: "ok", or "error: <text>" on stderr, with
// the file's path. The subfolders hold the other fuzz targets' findings (fuzz/CMakeLists.txt),
// replayed through the same core function: it must succeed or throw InputError.
#include "bundle/bundle_export.h"
#include "bundle/bundle_files.h"
#include "bundle/bundle_verify.h"
#include "cliprocess.h"
#include "common/input_error.h"
#include "cost/device_catalog.h"
#include "device/device.h"
#include "graph/onnx_importer.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QtTest>

using namespace paretune;

class TestHostile : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void folderHoldsTheCases();
    void inspectNeverCrashes_data();
    void inspectNeverCrashes();
    void findingsReplay_data();
    void findingsReplay();
};

namespace {

QString hostileFolder() {
    return QStringLiteral(PARETUNE_TEST_DATA_DIR "/hostile");
}

QStringList hostileFiles() {
    QStringList files;
    const QFileInfoList entries =
        QDir(hostileFolder()).entryInfoList(QDir::Files | QDir::NoDotAndDotDot, QDir::Name);
    for (const QFileInfo& info : entries) {
        if (!info.fileName().endsWith(QLatin1String(".expected"))) {
            files << info.absoluteFilePath();
        }
    }
    return files;
}

} // namespace

void TestHostile::folderHoldsTheCases() {
    // The five models of issue 22 and the hand-made ones.
    const QStringList files = hostileFiles();
    QVERIFY2(files.size() >= 40, qPrintable(QString::number(files.size())));
    for (const char* name :
         {"t_concat_mismatch_small.onnx", "t_conv_s0.onnx", "t_div_int64min_by_m1.onnx",
          "t_int64_init_1M_1value.onnx", "t_split_neg_sizes.onnx"}) {
        QVERIFY2(QFileInfo::exists(hostileFolder() + QLatin1Char('/') + QLatin1String(name)), name);
    }
}

void TestHostile::inspectNeverCrashes_data() {
    QTest::addColumn<QString>("path");
    for (const QString& path : hostileFiles()) {
        QTest::newRow(qPrintable(QFileInfo(path).fileName())) << path;
    }
}

void TestHostile::inspectNeverCrashes() {
    QFETCH(QString, path);
    // A generous limit: it only tells a hang from a slow import, it measures nothing.
    const CliRun run =
        runParetune({QStringLiteral("inspect"), QStringLiteral("--json"), path}, 120000);
    const QByteArray report = run.err.left(2000);
    QVERIFY2(run.exitCode == 0 || run.exitCode == 2,
             qPrintable(QStringLiteral("exit %1 (-1: a signal or a hang): ").arg(run.exitCode) +
                        QString::fromUtf8(report)));
    if (run.exitCode == 2) {
        QVERIFY2(run.err.contains(
                     (QStringLiteral("paretune: error: ") + path + QStringLiteral(": ")).toUtf8()),
                 report.constData());
        QVERIFY2(!run.err.contains("internal error"), report.constData());
    } else {
        QJsonParseError error{};
        QJsonDocument::fromJson(run.out, &error);
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    }
    QFile expected(path + QStringLiteral(".expected"));
    if (!expected.open(QIODevice::ReadOnly)) {
        return;
    }
    const QString line = QString::fromUtf8(expected.readLine()).trimmed();
    if (line == QLatin1String("ok")) {
        QVERIFY2(run.exitCode == 0, report.constData());
        return;
    }
    QVERIFY(line.startsWith(QLatin1String("error: ")));
    QCOMPARE(run.exitCode, 2);
    const QString message = line.mid(7);
    QVERIFY2(QString::fromUtf8(run.err).contains(message),
             qPrintable(QStringLiteral("expected: ") + message + QStringLiteral("\ngot: ") +
                        QString::fromUtf8(report)));
}

void TestHostile::findingsReplay_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("path");
    int count = 0;
    for (const char* kind :
         {"onnx_text", "catalog", "plans", "bundle_manifest", "bundle_archive"}) {
        const QString folder = hostileFolder() + QLatin1Char('/') + QLatin1String(kind);
        for (const QFileInfo& info : QDir(folder).entryInfoList(QDir::Files, QDir::Name)) {
            QTest::newRow(qPrintable(QLatin1String(kind) + QLatin1Char('/') + info.fileName()))
                << QString::fromLatin1(kind) << info.absoluteFilePath();
            ++count;
        }
    }
    QVERIFY2(count > 0, "no fuzz findings kept under tests/data/hostile/*/");
}

void TestHostile::findingsReplay() {
    QFETCH(QString, kind);
    QFETCH(QString, path);
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    const std::string text(bytes.constData(), static_cast<std::size_t>(bytes.size()));
    const std::string origin = path.toStdString();
    try {
        if (kind == QLatin1String("onnx_text")) {
            importOnnxText(text, {}, origin);
        } else if (kind == QLatin1String("catalog")) {
            parseDeviceCatalogText(text, origin);
        } else if (kind == QLatin1String("plans")) {
            checkPlansText(text, origin);
        } else if (kind == QLatin1String("bundle_manifest")) {
            BundleFileMap files;
            files["manifest.json"] = text;
            files["plan.json"] = R"({"nodes": [{"name": "n0", "device": "cpu"}]})";
            verifyBundle(files, DeviceInventory{});
            bundleCandidates(files, origin);
        } else {
            verifyBundle(readBundleFiles(origin), DeviceInventory{});
        }
    } catch (const InputError& e) {
        QVERIFY2(QString::fromStdString(e.what()).contains(QLatin1Char(':')), e.what());
    }
}

QTEST_GUILESS_MAIN(TestHostile)
#include "tst_hostile.moc"
