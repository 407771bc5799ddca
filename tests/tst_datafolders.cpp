// SPDX-License-Identifier: GPL-3.0-or-later
// Installed data: catalogs found by name in DATADIR/paretune/catalogs beside the executable (a
// pretend installation in a temporary folder) and in the source tree from the build folder; an
// explicit path wins; a name found nowhere lists where it was looked for. The sample model is
// found where the package installs it.
#include "cliprocess.h"
#include "common/data_folders.h"
#include "common/input_error.h"
#include "cost/device_catalog.h"
#include "testpaths.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <memory>
#include <string>

using namespace paretune;
namespace fs = std::filesystem;

class TestDataFolders : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void installedFolderIsBesideTheExecutable();
    void catalogFoundByName_data();
    void catalogFoundByName();
    void explicitPathWins();
    void unknownNameListsWhereItLooked();
    void buildFolderLooksInTheSourceTree();
    void hintsNameTheFoundCatalog();
    void sampleModelWhenInstalled();
    void cliFindsCatalogsByName();
    void cliNamesWhereItLooked();

private:
    /// Writes `file` under the pretend installation (parents made).
    void put(const QString& file, const QByteArray& text = "{}");

    std::unique_ptr<QTemporaryDir> m_dir; ///< a fresh one for each test function
    QDir m_root;
    fs::path m_exe; ///< ROOT/usr/bin/paretune (need not exist)
};

void TestDataFolders::put(const QString& file, const QByteArray& text) {
    const QString path = m_root.filePath(file);
    QVERIFY(QDir().mkpath(QFileInfo(path).absolutePath()));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text);
}

void TestDataFolders::init() {
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_root = QDir(m_dir->path());
    m_exe = fs::path(m_root.path().toStdString()) / "usr/bin/paretune";
}

void TestDataFolders::installedFolderIsBesideTheExecutable() {
    const std::vector<fs::path> folders = dataFolders("catalogs", m_exe);
    QCOMPARE(folders.size(), std::size_t{1}); // not in the build folder: no source tree
    QCOMPARE(QString::fromStdString(folders.front().string()),
             m_root.filePath(QStringLiteral("usr/share/paretune/catalogs")));
    QVERIFY(dataFolders("catalogs", fs::path()).empty());
}

void TestDataFolders::catalogFoundByName_data() {
    QTest::addColumn<QString>("argument");
    QTest::addColumn<QString>("found"); // relative to the pretend root
    QTest::newRow("name") << "cpu_cores"
                          << "usr/share/paretune/catalogs/cpu_cores.json";
    QTest::newRow("file name") << "cpu_cores.json"
                               << "usr/share/paretune/catalogs/cpu_cores.json";
    QTest::newRow("name without .json") << "plain"
                                        << "usr/share/paretune/catalogs/plain";
}

void TestDataFolders::catalogFoundByName() {
    QFETCH(QString, argument);
    QFETCH(QString, found);
    put(QStringLiteral("usr/share/paretune/catalogs/cpu_cores.json"));
    put(QStringLiteral("usr/share/paretune/catalogs/plain"));
    QCOMPARE(QString::fromStdString(findDeviceCatalog(argument.toStdString(), m_exe)),
             m_root.filePath(found));
}

void TestDataFolders::explicitPathWins() {
    put(QStringLiteral("usr/share/paretune/catalogs/cpu_cores.json"));
    // A path with a folder is taken as it is, even when it does not exist.
    QCOMPARE(findDeviceCatalog("./cpu_cores.json", m_exe), std::string("./cpu_cores.json"));
    QCOMPARE(findDeviceCatalog("/nonexistent/cpu_cores.json", m_exe),
             std::string("/nonexistent/cpu_cores.json"));
    // A file of that name in the working folder wins over the installed one.
    put(QStringLiteral("work/cpu_cores.json"));
    const QString previous = QDir::currentPath();
    QVERIFY(QDir::setCurrent(m_root.filePath(QStringLiteral("work"))));
    const std::string found = findDeviceCatalog("cpu_cores.json", m_exe);
    QVERIFY(QDir::setCurrent(previous));
    QCOMPARE(found, std::string("cpu_cores.json"));
}

void TestDataFolders::unknownNameListsWhereItLooked() {
    try {
        findDeviceCatalog("nosuch", m_exe);
        QFAIL("a catalog name found nowhere was accepted");
    } catch (const InputError& e) {
        QCOMPARE(QString::fromUtf8(e.what()),
                 QStringLiteral("nosuch: no such device catalog (looked for nosuch or "
                                "nosuch.json in the working folder, ") +
                     m_root.filePath(QStringLiteral("usr/share/paretune/catalogs")) +
                     QStringLiteral(")"));
    }
}

void TestDataFolders::buildFolderLooksInTheSourceTree() {
    // This test runs from the build folder: the installed folder beside it, then the sources.
    const std::vector<fs::path> folders = dataFolders("catalogs");
    QCOMPARE(folders.size(), std::size_t{2});
    QCOMPARE(QString::fromStdString(folders.back().string()),
             QStringLiteral(PARETUNE_SOURCE_DIR "/resources/catalogs"));
    const std::string path = findDeviceCatalog("cpu_cores");
    QCOMPARE(QString::fromStdString(path),
             QStringLiteral(PARETUNE_SOURCE_DIR "/resources/catalogs/cpu_cores.json"));
    QCOMPARE(loadDeviceCatalog("example").origin,
             std::string(PARETUNE_SOURCE_DIR "/resources/catalogs/example.json"));
}

void TestDataFolders::hintsNameTheFoundCatalog() {
    QCOMPARE(bundledCatalogText("cpu_cores.json", m_exe), std::string("cpu_cores.json"));
    put(QStringLiteral("usr/share/paretune/catalogs/cpu_cores.json"));
    QCOMPARE(QString::fromStdString(bundledCatalogText("cpu_cores.json", m_exe)),
             m_root.filePath(QStringLiteral("usr/share/paretune/catalogs/cpu_cores.json")));
}

void TestDataFolders::sampleModelWhenInstalled() {
    QVERIFY(!installedSampleModel(m_exe));
    put(QStringLiteral("usr/share/paretune/models/sample.onnx"));
    const auto sample = installedSampleModel(m_exe);
    QVERIFY(sample);
    QCOMPARE(QString::fromStdString(sample->string()),
             m_root.filePath(QStringLiteral("usr/share/paretune/models/sample.onnx")));
}

void TestDataFolders::cliFindsCatalogsByName() {
    const CliRun run = runParetune({QStringLiteral("devices"), QStringLiteral("--catalog"),
                                    QStringLiteral("example"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY2(run.out.contains("\"npu\""), run.out.constData()); // the example's modelled NPU
}

void TestDataFolders::cliNamesWhereItLooked() {
    const CliRun run = runParetune(
        {QStringLiteral("devices"), QStringLiteral("--catalog"), QStringLiteral("nosuch")});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains("nosuch: no such device catalog (looked for nosuch or nosuch.json"),
             run.err.constData());
    QVERIFY2(run.err.contains(PARETUNE_SOURCE_DIR "/resources/catalogs)"), run.err.constData());
}

QTEST_GUILESS_MAIN(TestDataFolders)
#include "tst_datafolders.moc"
