// SPDX-License-Identifier: GPL-3.0-or-later
// Every command that takes --db, given a file that is not a healthy Paretune library (another
// application's database, one in write-ahead-log mode with its log not checkpointed, a damaged
// library, one of a newer schema, a FIFO, /dev/null): exit 2 naming the file, and the file is
// byte-identical afterwards with nothing created beside it (issue 22).
#include "cliprocess.h"
#include "library_files.h"
#include "samplefixture.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>
#include <sys/stat.h>

namespace {

bool execute(const QString& path, const char* sql) {
    sqlite3* db = nullptr;
    const bool ok = sqlite3_open(QFile::encodeName(path).constData(), &db) == SQLITE_OK &&
                    sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK;
    sqlite3_close(db);
    return ok;
}

/// What the folder holds: names, sizes and the sha256 of each regular file.
QStringList folderState(const QString& folder) {
    QStringList state;
    const QDir dir(folder);
    for (const QFileInfo& info :
         dir.entryInfoList(QDir::NoDotAndDotDot | QDir::AllEntries | QDir::System, QDir::Name)) {
        QString line = info.fileName();
        if (info.isFile()) {
            line += QStringLiteral(" ") +
                    QString::fromLatin1(QCryptographicHash::hash(readAll(info.filePath()),
                                                                 QCryptographicHash::Sha256)
                                            .toHex());
        } else {
            line += QStringLiteral(" (not a regular file)");
        }
        state << line;
    }
    return state;
}

const QStringList kKinds{QStringLiteral("foreign"),        QStringLiteral("foreign-wal"),
                         QStringLiteral("damaged-schema"), QStringLiteral("damaged-data"),
                         QStringLiteral("newer"),          QStringLiteral("fifo"),
                         QStringLiteral("dev-null")};

} // namespace

class TestLibrarySafety : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void everyCommandLeavesTheFileAlone_data();
    void everyCommandLeavesTheFileAlone();

private:
    QTemporaryDir m_work;
    QString m_library; ///< a healthy library made from the checked-in samples
    QString m_plans;   ///< plans of the sample model on the example catalog's devices
};

void TestLibrarySafety::initTestCase() {
    QVERIFY(m_work.isValid());
    m_library = m_work.filePath(QStringLiteral("good.db"));
    const QString restored = restoreSampleFixture(QStringLiteral("predictor_library"), m_library);
    QVERIFY2(restored.isEmpty(), qPrintable(restored));
    QVERIFY(QFileInfo(m_library).size() >= 8 * 4096);
    m_plans = m_work.filePath(QStringLiteral("plans.json"));
    const CliRun search = runParetune(
        {QStringLiteral("search"), QStringLiteral(PARETUNE_SAMPLE_MODEL),
         QStringLiteral("--devices"), QStringLiteral("gpu,npu"), QStringLiteral("--catalog"),
         QStringLiteral("example"), QStringLiteral("--population"), QStringLiteral("16"),
         QStringLiteral("--generations"), QStringLiteral("4"), QStringLiteral("--db"), m_library,
         QStringLiteral("--out"), m_plans});
    QVERIFY2(search.exitCode == 0, search.err.constData());
}

void TestLibrarySafety::everyCommandLeavesTheFileAlone_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QStringList>("command");
    const QString model = QStringLiteral(PARETUNE_SAMPLE_MODEL);
    const QList<QPair<const char*, QStringList>> commands{
        {"samples", {QStringLiteral("samples")}},
        {"profile",
         {QStringLiteral("profile"), model, QStringLiteral("--device"), QStringLiteral("cpu:0")}},
        {"devices --bench", {QStringLiteral("devices"), QStringLiteral("--bench")}},
        {"search",
         {QStringLiteral("search"), model, QStringLiteral("--devices"), QStringLiteral("cpu:0"),
          QStringLiteral("--catalog"), QStringLiteral("cpu_cores"), QStringLiteral("--population"),
          QStringLiteral("8"), QStringLiteral("--generations"), QStringLiteral("2")}},
        {"train", {QStringLiteral("train")}},
        {"predict",
         {QStringLiteral("predict"), model, QStringLiteral("--device"), QStringLiteral("cpu:0")}},
        {"validate",
         {QStringLiteral("validate"), model, QStringLiteral("--plans"), m_plans,
          QStringLiteral("--plan"), QStringLiteral("0")}},
        {"export",
         {QStringLiteral("export"), model, QStringLiteral("--plans"), m_plans,
          QStringLiteral("--plan"), QStringLiteral("0"), QStringLiteral("--out"),
          m_work.filePath(QStringLiteral("bundle-never-written"))}},
        {"tune",
         {QStringLiteral("tune"), model, QStringLiteral("--devices"), QStringLiteral("cpu:0"),
          QStringLiteral("--catalog"), QStringLiteral("cpu_cores"), QStringLiteral("--rounds"),
          QStringLiteral("1"), QStringLiteral("--population"), QStringLiteral("8"),
          QStringLiteral("--generations"), QStringLiteral("2"), QStringLiteral("--repeats"),
          QStringLiteral("2")}},
    };
    for (const QString& kind : kKinds) {
        for (const auto& [name, command] : commands) {
            QTest::newRow(qPrintable(kind + QStringLiteral(": ") + QLatin1String(name)))
                << kind << command;
        }
    }
}

void TestLibrarySafety::everyCommandLeavesTheFileAlone() {
    QFETCH(QString, kind);
    QFETCH(QStringList, command);
    QTemporaryDir dir;
    QString path = dir.filePath(QStringLiteral("samples.db"));
    if (kind == QLatin1String("foreign")) {
        QVERIFY(execute(path, "CREATE TABLE moz_places(id INTEGER PRIMARY KEY, url TEXT);"
                              "INSERT INTO moz_places(url) VALUES('https://example.org');"));
    } else if (kind == QLatin1String("foreign-wal")) {
        const QString failure = writeUncheckpointedWalDatabase(path, QDir(dir.path()));
        QVERIFY2(failure.isEmpty(), qPrintable(failure));
    } else if (kind.startsWith(QLatin1String("damaged"))) {
        QByteArray bytes = readAll(m_library);
        const qsizetype from = kind == QLatin1String("damaged-schema") ? 100 : 5 * 4096;
        const qsizetype to = kind == QLatin1String("damaged-schema") ? 4096 : bytes.size();
        for (qsizetype i = from; i < to; ++i) {
            bytes[i] = static_cast<char>((i * 7919) & 0xff);
        }
        writeAll(path, bytes);
    } else if (kind == QLatin1String("newer")) {
        QVERIFY(QFile::copy(m_library, path));
        QVERIFY(execute(path, "PRAGMA user_version = 99"));
    } else if (kind == QLatin1String("fifo")) {
        QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
    } else {
        path = QStringLiteral("/dev/null");
        for (const char* suffix : {"-journal", "-wal", "-shm"}) {
            if (QFileInfo::exists(path + QLatin1String(suffix))) {
                QSKIP("/dev/null-journal (or -wal, -shm) exists already on this machine");
            }
        }
    }
    const QStringList before = folderState(dir.path());

    // A FIFO must be refused before anything reads it: a read would block, and the run would
    // end only at the timeout (exit code -1).
    const CliRun run = runParetune(command + QStringList{QStringLiteral("--db"), path}, 120000);
    const QString err = QString::fromUtf8(run.err);
    QVERIFY2(run.exitCode == 2,
             qPrintable(QStringLiteral("exit %1: %2").arg(run.exitCode).arg(err)));
    QVERIFY2(err.contains(path), qPrintable(err));
    QCOMPARE(folderState(dir.path()), before);
    QVERIFY(!QFileInfo::exists(m_work.filePath(QStringLiteral("bundle-never-written"))));
    if (kind == QLatin1String("dev-null")) {
        for (const char* suffix : {"-journal", "-wal", "-shm"}) {
            QVERIFY(!QFileInfo::exists(path + QLatin1String(suffix)));
        }
    }
}

QTEST_GUILESS_MAIN(TestLibrarySafety)
#include "tst_librarysafety.moc"
