// SPDX-License-Identifier: GPL-3.0-or-later
// Every broken input in tests/data/errors/ produces its own message, naming the file; none
// crashes. Non-fatal problems (an unknown operator) import with a warning.
#include "bundle/bundle_export.h"
#include "bundle/bundle_verify.h"
#include "common/input_error.h"
#include "device/device.h"
#include "errorcases.h"
#include "graph/onnx_importer.h"

#include <QtTest>

using namespace paretune;

class TestErrors : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void casesExist();
    void importReportsProblem_data();
    void importReportsProblem();
    void plansFileReportsField_data();
    void plansFileReportsField();
    void manifestReportsField_data();
    void manifestReportsField();
    void externalDataInsideFolderLoads();
    void externalDataOverBudgetIsRefused();
    void symlinkedExternalDataIsRejected();
};

void TestErrors::casesExist() {
    // The folder must hold at least the cases the foundation issue lists.
    QVERIFY2(errorCases().size() >= 10, "tests/data/errors/ lost cases");
}

void TestErrors::importReportsProblem_data() {
    QTest::addColumn<QString>("input");
    QTest::addColumn<bool>("fatal");
    QTest::addColumn<QString>("message");
    for (const ErrorCase& c : errorCases()) {
        QTest::newRow(qPrintable(c.name)) << c.input << c.fatal << c.message;
    }
}

void TestErrors::importReportsProblem() {
    QFETCH(QString, input);
    QFETCH(bool, fatal);
    QFETCH(QString, message);
    const std::string path = input.toStdString();
    if (fatal) {
        try {
            importOnnxFile(path);
            QFAIL("import succeeded; expected an error");
        } catch (const InputError& e) {
            const QString what = QString::fromStdString(e.what());
            QVERIFY2(what.startsWith(input + QLatin1Char(':')), qPrintable(what));
            QVERIFY2(what.contains(message), qPrintable(what));
        }
        return;
    }
    const ImportResult r = importOnnxFile(path);
    bool found = false;
    for (const Diagnostic& d : r.diagnostics) {
        found = found || QString::fromStdString(d.message).contains(message);
    }
    QVERIFY2(found, qPrintable(QStringLiteral("no warning containing: ") + message));
}

namespace {

std::string readText(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll().toStdString() : std::string();
}

void addJsonCases(const QString& folder) {
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("message");
    const QVector<ErrorCase> cases = errorCases(QStringLiteral(".json"), folder);
    QVERIFY2(cases.size() >= 10, qPrintable(folder));
    for (const ErrorCase& c : cases) {
        QTest::newRow(qPrintable(c.name)) << c.input << c.message;
    }
}

} // namespace

// Plans files as `paretune export` reads them: every wrong type, range or byte is an
// InputError (exit 2) naming the file and the field, never a nlohmann exception (exit 1).
void TestErrors::plansFileReportsField_data() {
    addJsonCases(QStringLiteral("plans"));
}

void TestErrors::plansFileReportsField() {
    QFETCH(QString, input);
    QFETCH(QString, message);
    try {
        checkPlansText(readText(input), input.toStdString());
        QFAIL("the plans file was accepted");
    } catch (const InputError& e) {
        const QString what = QString::fromStdString(e.what());
        QVERIFY2(what.startsWith(input + QStringLiteral(": ")), qPrintable(what));
        QVERIFY2(what.contains(message), qPrintable(what));
        QVERIFY2(!what.contains(QLatin1String("json.exception")), qPrintable(what));
    }
}

// Bundle manifests as `bundle select` (an InputError) and `bundle verify` (a failure) read them.
void TestErrors::manifestReportsField_data() {
    addJsonCases(QStringLiteral("manifests"));
}

void TestErrors::manifestReportsField() {
    QFETCH(QString, input);
    QFETCH(QString, message);
    BundleFileMap files;
    files["manifest.json"] = readText(input);
    files["plan.json"] = R"({"nodes": [{"name": "n0", "device": "cpu"}]})";
    QStringList reported;
    try {
        bundleCandidates(files, input.toStdString());
        reported << QStringLiteral("(select accepted it)");
    } catch (const InputError& e) {
        reported << QString::fromStdString(e.what());
    }
    for (const std::string& failure : verifyBundle(files, DeviceInventory{}).failures()) {
        reported << QString::fromStdString(failure);
    }
    const QString all = reported.join(QLatin1Char('\n'));
    QVERIFY2(all.contains(message), qPrintable(all));
    QVERIFY2(!all.contains(QLatin1String("json.exception")), qPrintable(all));
}

void TestErrors::externalDataInsideFolderLoads() {
    const ImportResult r = importOnnxFile(PARETUNE_TEST_DATA_DIR "/errors/external_ok/model.onnx");
    QCOMPARE(r.graph.unknownShapeCount(), 0);
    QVERIFY(r.graph.parameterCount() > 0);
}

void TestErrors::externalDataOverBudgetIsRefused() {
    // 16 GiB + 256 KiB of weights in a sparse file: refused before a byte is read or allocated.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(QFile::copy(QStringLiteral(PARETUNE_TEST_DATA_DIR "/errors/external_budget/model.onnx"),
                        dir.filePath(QStringLiteral("model.onnx"))));
    QFile weights(dir.filePath(QStringLiteral("weights.bin")));
    QVERIFY(weights.open(QIODevice::WriteOnly));
    if (!weights.resize(qint64{65536} * 65537 * 4)) {
        QSKIP("this file system cannot hold a sparse file of 16 GiB");
    }
    weights.close();
    try {
        importOnnxFile(dir.filePath(QStringLiteral("model.onnx")).toStdString());
        QFAIL("16 GiB of external data were read");
    } catch (const InputError& e) {
        QVERIFY2(QString::fromStdString(e.what()).contains(
                     QStringLiteral("over the importer's budget of 16 GiB")),
                 e.what());
    }
}

void TestErrors::symlinkedExternalDataIsRejected() {
    // Symbolic links are made here, not committed: copy the valid case and swap its data file
    // for a link to it.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString source = QStringLiteral(PARETUNE_TEST_DATA_DIR "/errors/external_ok/");
    QVERIFY(QFile::copy(source + QStringLiteral("model.onnx"),
                        dir.filePath(QStringLiteral("model.onnx"))));
    const QStringList data = QDir(source).entryList({QStringLiteral("*.bin")}, QDir::Files);
    QCOMPARE(data.size(), 1);
    QVERIFY(QFile::copy(source + data.first(), dir.filePath(QStringLiteral("real.bin"))));
    QVERIFY(QFile::link(dir.filePath(QStringLiteral("real.bin")), dir.filePath(data.first())));
    try {
        importOnnxFile(dir.filePath(QStringLiteral("model.onnx")).toStdString());
        QFAIL("a symbolic link was followed");
    } catch (const InputError& e) {
        QVERIFY2(QString::fromStdString(e.what()).contains(QStringLiteral("symbolic link")),
                 e.what());
    }
}

QTEST_GUILESS_MAIN(TestErrors)
#include "tst_errors.moc"
