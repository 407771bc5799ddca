// SPDX-License-Identifier: GPL-3.0-or-later
// The sample library on PostgreSQL: the operations of tst_store on a throw-away server
// (postgres_server.h), the refusals (a foreign database, a newer schema, a password in the
// connection string), bad connections through the command line (exit 2, no password printed)
// and two writer processes storing the same samples into a new database at once.
//
// The concurrency case runs this executable again as a writer process:
//   tst_pgstore --writer CONNINFO BATCHES   (prints "done" once every batch is committed)
#include "cliprocess.h"
#include "common/input_error.h"
#include "common/sha256.h"
#include "paretune/config.h"
#include "postgres_server.h"
#include "samplefixture.h"
#include "store/sample_library.h"
#include "testmodels.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <limits>
#include <set>
#include <thread>

using namespace paretune;

namespace {

PostgresServer* server = nullptr;
int databaseCount = 0;

/// A new empty database on the test server.
std::string newDatabase() {
    return server->createDatabase(QStringLiteral("library_%1").arg(++databaseCount));
}

struct Fixture {
    DeviceRecord device;
    ModelRecord model;
    SignatureRecord signature;

    Fixture() {
        device.fingerprint = Sha256::hex("device cpu");
        device.kind = "cpu";
        device.name = "Test CPU ü";
        device.specJson = R"({"cores":8})";
        device.softwareJson = R"({"torch":"1.13.1"})";
        model.fingerprint = Sha256::hex("model mlp");
        model.name = "mlp";
        model.sourcePath = "/models/mlp.onnx";
        model.nodeCount = 7;
        signature.signature = Sha256::hex("signature conv").substr(0, 32);
        signature.opType = "Conv";
        signature.attrsJson = R"({"kernel_shape":"[3,3]"})";
        signature.shapesJson = R"({"inputs":[],"outputs":[]})";
        signature.flops = 231211008.123;
        signature.bytes = 1605632;
    }
    void store(SampleLibrary& library) const {
        library.upsertDevice(device);
        library.upsertModel(model);
        library.upsertSignature(signature);
    }
    Sample sample(double latency, int index = 0) const {
        Sample s;
        s.modelFingerprint = model.fingerprint;
        s.deviceFingerprint = device.fingerprint;
        s.opSignature = signature.signature;
        s.opMeta = "{\"node\":\"conv" + std::to_string(index) + "\"}";
        s.shapeTuple = "float32[1,64,56,56]->float32[1,64,56,56]";
        s.configJson = R"({"threads":4})";
        s.latencyUs = latency;
        s.repeats = 50;
        return s;
    }
};

int runWriter(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: tst_pgstore --writer CONNINFO BATCHES\n");
        return 2;
    }
    try {
        SampleLibrary library = SampleLibrary::open(argv[2]);
        const Fixture f;
        f.store(library);
        const long batches = std::atol(argv[3]); // 0: until killed
        for (long b = 0; batches == 0 || b < batches; ++b) {
            std::vector<Sample> batch;
            for (int i = 0; i < 10; ++i) {
                Sample s = f.sample(static_cast<double>(b * 100 + i) + 0.25, i);
                s.sampleTime = "2026-12-01T10:00:00." + std::to_string(100 + b) + "Z";
                batch.push_back(std::move(s));
            }
            library.addSamples(batch);
            std::printf("committed %ld\n", b + 1);
            std::fflush(stdout);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "writer: %s\n", e.what());
        return 1;
    }
    std::printf("done\n");
    return 0;
}

QString inputErrorOf(const std::string& conninfo,
                     SampleLibrary::OpenMode mode = SampleLibrary::OpenMode::CreateIfMissing) {
    try {
        SampleLibrary::open(conninfo, mode);
    } catch (const InputError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace

class TestPgStore : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void createsSchema();
    void roundTripsEveryColumn();
    void reuseLookup();
    void batchIsAtomic();
    void duplicateSamplesStoredOnce();
    void twoWriterProcessesStoreEachSampleOnce();
    void killedWriterLosesOnlyItsOpenBatch();
    void refusesForeignDatabase();
    void refusesNewerSchema();
    void existingOnlyRefusesEmptyDatabase();
    void refusesPasswordInConnectionString();
    void cliBadConnections_data();
    void cliBadConnections();
    void cliListsSamples();
    void exportImportBothWays();
    void trainGivesTheSamePredictorOnBoth();
    void badLibraryFiles_data();
    void badLibraryFiles();
    void queueClaimsAndLeases_data();
    void queueClaimsAndLeases();
    void concurrentClaimsTakeEachJobOnce();
    void workersClaimEachJobOnce();
    void killedWorkersJobIsRedone();
};

void TestPgStore::initTestCase() {
    if (PostgresServer::binDir().isEmpty()) {
        QSKIP("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb; apt-get "
              "install postgresql): the PostgreSQL library tests need it");
    }
    server = new PostgresServer;
    QVERIFY2(server->start(), qPrintable(server->error()));
}

void TestPgStore::cleanupTestCase() {
    delete server;
    server = nullptr;
}

void TestPgStore::createsSchema() {
    const std::string db = newDatabase();
    QVERIFY(!db.empty());
    {
        const SampleLibrary library = SampleLibrary::open(db);
        QCOMPARE(library.schemaVersion(), SampleLibrary::kSchemaVersion);
        QVERIFY(library.isServer());
        QVERIFY(library.integrityProblems().empty());
        QCOMPARE(library.path().string(), db);
    }
    const std::vector<std::string> tables = PostgresServer::query(
        db, "SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE "
            "schemaname = 'public'");
    QCOMPARE(tables.at(0), std::string("activation_ranges,device_benchmarks,device_contention,"
                                       "devices,model_runs,models,"
                                       "op_signatures,paretune_library,perf_samples,plans,"
                                       "precision_sensitivity,predictors,profile_jobs,"
                                       "stale_marks,tune_rounds"));
    QCOMPARE(PostgresServer::query(db, "SELECT schema_version FROM paretune_library"),
             std::vector<std::string>{std::to_string(SampleLibrary::kSchemaVersion)});
    // Doubles stay doubles, and keys compare byte by byte whatever the database's locale.
    QCOMPARE(PostgresServer::query(db, "SELECT data_type FROM information_schema.columns WHERE "
                                       "table_name = 'perf_samples' AND column_name = "
                                       "'latency_us'"),
             std::vector<std::string>{"double precision"});
    QCOMPARE(PostgresServer::query(db, "SELECT collation_name FROM information_schema.columns "
                                       "WHERE table_name = 'perf_samples' AND column_name = "
                                       "'op_signature'"),
             std::vector<std::string>{"C"});
    // Reopening changes nothing.
    const SampleLibrary again = SampleLibrary::open(db, SampleLibrary::OpenMode::ExistingOnly);
    QCOMPARE(again.schemaVersion(), SampleLibrary::kSchemaVersion);
}

void TestPgStore::roundTripsEveryColumn() {
    const std::string db = newDatabase();
    SampleLibrary library = SampleLibrary::open(db);
    const Fixture f;
    f.store(library);
    QCOMPARE(library.device(f.device.fingerprint)->name, f.device.name);
    QCOMPARE(library.model(f.model.fingerprint)->nodeCount, f.model.nodeCount);
    QCOMPARE(library.signature(f.signature.signature)->flops, f.signature.flops);
    QCOMPARE(library.signature(f.signature.signature)->bytes, f.signature.bytes);

    Sample full = f.sample(0.1 + 0.2, 1); // 0.30000000000000004: bit-exact or not at all
    full.latencyP10Us = 1e-300;
    full.latencyP90Us = std::nextafter(1.0, 2.0);
    full.peakMemoryMb = 12.5;
    full.energyUj = 123456789.987654321;
    full.energySource = "rapl";
    full.sampleTime = "2026-12-01T10:00:00.000Z";
    full.toolVersion = "9.9.9";
    Sample sparse = f.sample(42.0, 2);
    const std::vector<std::int64_t> ids = library.addSamples(std::vector<Sample>{full, sparse});
    QCOMPARE(ids.size(), std::size_t(2));
    QVERIFY(ids[1] > ids[0]);
    const std::vector<Sample> stored = library.samples();
    QCOMPARE(stored.size(), std::size_t(2));
    const Sample& a = stored[0];
    QCOMPARE(a.id, ids[0]);
    QCOMPARE(a.latencyUs, full.latencyUs);
    QCOMPARE(*a.latencyP10Us, *full.latencyP10Us);
    QCOMPARE(*a.latencyP90Us, *full.latencyP90Us);
    QCOMPARE(*a.peakMemoryMb, *full.peakMemoryMb);
    QCOMPARE(*a.energyUj, *full.energyUj);
    QCOMPARE(a.energySource, full.energySource);
    QCOMPARE(a.opMeta, full.opMeta);
    QCOMPARE(a.shapeTuple, full.shapeTuple);
    QCOMPARE(a.configJson, full.configJson);
    QCOMPARE(a.sampleTime, full.sampleTime);
    QCOMPARE(a.toolVersion, full.toolVersion);
    QCOMPARE(a.opType, std::string("Conv"));
    QCOMPARE(a.repeats, 50);
    QVERIFY(!stored[1].latencyP10Us && !stored[1].peakMemoryMb && !stored[1].energyUj);
    QCOMPARE(library.sampleCount(), 2);

    // Filters by prefix (either case), stale flags, limits.
    SampleFilter filter;
    filter.devicePrefix = f.device.fingerprint.substr(0, 6);
    for (char& c : filter.devicePrefix) {
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    QCOMPARE(library.samples(filter).size(), std::size_t(2));
    filter.devicePrefix = f.device.fingerprint[0] == '0' ? "f" : "0";
    QCOMPARE(library.samples(filter).size(), std::size_t(0));
    QCOMPARE(library.markDeviceStale(f.device.fingerprint, "drifted"), 2);
    QCOMPARE(library.markDeviceStale(f.device.fingerprint, "again"), 0);
    SampleFilter fresh;
    fresh.includeStale = false;
    QCOMPARE(library.samples(fresh).size(), std::size_t(0));

    // Predictor weights: every byte value, the newest wins.
    PredictorRecord predictor;
    predictor.trainSetJson = R"({"rows":2})";
    predictor.metricsJson = R"({"mape":0.1})";
    for (int i = 0; i < 512; ++i) {
        predictor.weights.push_back(static_cast<char>(i % 256));
    }
    const std::int64_t first = library.addPredictor(predictor);
    predictor.weights = std::string("\0\1", 2);
    const std::int64_t second = library.addPredictor(predictor);
    QVERIFY(second > first);
    QCOMPARE(library.predictorCount(), 2);
    QCOMPARE(library.latestPredictor()->weights, std::string("\0\1", 2));
    QCOMPARE(library.predictor(first)->weights.size(), std::size_t(512));
    QCOMPARE(static_cast<unsigned char>(library.predictor(first)->weights[255]), 255);

    // Benchmarks, contention, plans and tune rounds.
    DeviceRecord other = f.device;
    other.fingerprint = Sha256::hex("device other");
    library.upsertDevice(other);
    BenchmarkRecord b{0, f.device.fingerprint, "", 100.5, 20.25, std::nullopt, true};
    QVERIFY(library.addBenchmark(b) > 0);
    QCOMPARE(library.referenceBenchmark(f.device.fingerprint)->gemmGflops, 100.5);
    QVERIFY(!library.referenceBenchmark(f.device.fingerprint)->dispatchUs);
    QVERIFY(!library.newestHostLink(f.device.fingerprint));
    BenchmarkRecord gpu{0,      f.device.fingerprint,
                        "",     5000.0,
                        2000.0, 4.5,
                        false,  HostLinkFigures{24.5, 26.25, 9.75}};
    QVERIFY(library.addBenchmark(gpu) > 0);
    QCOMPARE(library.newestHostLink(f.device.fingerprint)->hostLink->d2hGbs, 26.25);
    QCOMPARE(library.referenceBenchmark(f.device.fingerprint)->gemmGflops, 100.5);
    ContentionRecord c{0, f.device.fingerprint, other.fingerprint, "", 1.25, 1.1, 1.2, 1.3, 1.4};
    QVERIFY(library.addContention(c) > 0);
    QCOMPARE(library.contention(f.device.fingerprint, other.fingerprint)->factor, 1.25);
    PlanRecord plan;
    plan.modelFingerprint = f.model.fingerprint;
    plan.deviceSetJson = R"(["cpu"])";
    plan.objectivesJson = R"({"latency_ms":1.5})";
    plan.assignmentJson = R"({"conv":"cpu"})";
    plan.source = "search";
    QVERIFY(library.addPlan(plan) > 0);
    QCOMPARE(library.plans(f.model.fingerprint).size(), std::size_t(1));
    QCOMPARE(library.plans().size(), std::size_t(1));
    TuneRoundRecord round{0, "key", 0, f.model.fingerprint, R"({"round":0})", ""};
    QVERIFY(library.addTuneRound(round) > 0);
    try {
        library.addTuneRound(round);
        QFAIL("a stored round was stored again");
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("already stored") != std::string::npos, e.what());
    }
    QCOMPARE(library.tuneRounds("key").size(), std::size_t(1));
}

void TestPgStore::reuseLookup() {
    const std::string db = newDatabase();
    SampleLibrary library = SampleLibrary::open(db);
    const Fixture f;
    f.store(library);
    Sample alone = f.sample(10.0, 1);
    Sample inPlan = f.sample(20.0, 2);
    inPlan.configJson = R"({"context":"plan","threads":4})";
    library.addSamples(std::vector<Sample>{alone, inPlan});
    // Without a configuration, in-plan samples are not reused; with one, only that one.
    QCOMPARE(library.findSample(f.signature.signature, f.device.fingerprint)->latencyUs, 10.0);
    QCOMPARE(library.findSample(f.signature.signature, f.device.fingerprint, inPlan.configJson)
                 ->latencyUs,
             20.0);
    QVERIFY(!library.findSample(f.signature.signature, f.device.fingerprint, "{\"threads\":1}"));
    library.markDeviceStale(f.device.fingerprint, "drifted");
    QVERIFY(!library.findSample(f.signature.signature, f.device.fingerprint));
}

void TestPgStore::batchIsAtomic() {
    const std::string db = newDatabase();
    SampleLibrary library = SampleLibrary::open(db);
    const Fixture f;
    f.store(library);
    library.addSamples(std::vector<Sample>{f.sample(1.0, 1)});
    Sample orphan = f.sample(2.0, 2);
    orphan.modelFingerprint = Sha256::hex("a model never stored");
    try {
        library.addSamples(std::vector<Sample>{f.sample(3.0, 3), orphan, f.sample(4.0, 4)});
        QFAIL("a batch with a sample of an unknown model was stored");
    } catch (const InputError& e) {
        const std::string message = e.what();
        QVERIFY2(message.find("sample 2 of 3") != std::string::npos, e.what());
        QVERIFY2(message.find("model " + orphan.modelFingerprint) != std::string::npos, e.what());
        QVERIFY2(message.find("the batch was not stored") != std::string::npos, e.what());
    }
    QCOMPARE(library.sampleCount(), 1);
    // The connection is usable after the failed transaction.
    library.addSamples(std::vector<Sample>{f.sample(5.0, 5)});
    QCOMPARE(library.sampleCount(), 2);
}

void TestPgStore::duplicateSamplesStoredOnce() {
    const std::string db = newDatabase();
    SampleLibrary library = SampleLibrary::open(db);
    const Fixture f;
    f.store(library);
    std::vector<Sample> batch{f.sample(1.0, 1), f.sample(2.0, 2)};
    batch[0].sampleTime = batch[1].sampleTime = "2026-12-01T10:00:00.000Z";
    const std::vector<std::int64_t> ids = library.addSamples(batch);
    QCOMPARE(library.addSamples(batch), ids);
    batch.push_back(batch[0]); // within one batch too
    QCOMPARE(library.addSamples(batch), (std::vector<std::int64_t>{ids[0], ids[1], ids[0]}));
    QCOMPARE(library.sampleCount(), 2);
    // The database enforces it, whoever writes.
    QVERIFY(PostgresServer::execute(db, "INSERT INTO perf_samples(model_fingerprint, "
                                        "device_fingerprint, op_signature, latency_us, repeats, "
                                        "sample_time, tool_version, sample_key) SELECT "
                                        "model_fingerprint, device_fingerprint, op_signature, 1, "
                                        "1, 'x', 'y', sample_key FROM perf_samples LIMIT 1")
                .find("duplicate key") != std::string::npos);
}

void TestPgStore::twoWriterProcessesStoreEachSampleOnce() {
    const std::string db = newDatabase(); // empty: both writers create the schema at once
    const QStringList arguments{QStringLiteral("--writer"), QString::fromStdString(db),
                                QStringLiteral("20")};
    QProcess a;
    QProcess b;
    a.start(QCoreApplication::applicationFilePath(), arguments);
    b.start(QCoreApplication::applicationFilePath(), arguments);
    QVERIFY(a.waitForFinished(60000));
    QVERIFY(b.waitForFinished(60000));
    QVERIFY2(a.exitCode() == 0, a.readAllStandardError().constData());
    QVERIFY2(b.exitCode() == 0, b.readAllStandardError().constData());
    const SampleLibrary library = SampleLibrary::open(db, SampleLibrary::OpenMode::ExistingOnly);
    QCOMPARE(library.sampleCount(), 200); // 20 batches of 10, each stored once
    QCOMPARE(PostgresServer::query(db, "SELECT count(DISTINCT sample_key) FROM perf_samples"),
             std::vector<std::string>{"200"});
    QCOMPARE(PostgresServer::query(db, "SELECT count(*) FROM paretune_library"),
             std::vector<std::string>{"1"});
}

void TestPgStore::killedWriterLosesOnlyItsOpenBatch() {
    const std::string db = newDatabase();
    QProcess writer;
    writer.start(QCoreApplication::applicationFilePath(),
                 {QStringLiteral("--writer"), QString::fromStdString(db), QStringLiteral("0")});
    QVERIFY(writer.waitForStarted());
    QByteArray out;
    while (!out.contains("committed 5\n")) {
        QVERIFY2(writer.waitForReadyRead(30000), writer.readAllStandardError().constData());
        out += writer.readAllStandardOutput();
    }
    ::kill(static_cast<pid_t>(writer.processId()), SIGKILL); // most likely inside a batch
    QVERIFY(writer.waitForFinished(10000));
    const SampleLibrary library = SampleLibrary::open(db, SampleLibrary::OpenMode::ExistingOnly);
    const std::int64_t count = library.sampleCount();
    QVERIFY(count >= 50);
    QCOMPARE(count % 10, 0); // whole batches of 10 only
    QVERIFY(library.integrityProblems().empty());
}

void TestPgStore::refusesForeignDatabase() {
    const std::string db = newDatabase();
    QCOMPARE(PostgresServer::execute(db, "CREATE TABLE customers(id INT); CREATE TABLE "
                                         "orders(id INT)"),
             std::string());
    const QString message = inputErrorOf(db);
    QVERIFY2(message.contains(QStringLiteral("not a Paretune sample library")),
             qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("customers, orders")), qPrintable(message));
    QCOMPARE(PostgresServer::query(db, "SELECT count(*) FROM pg_tables WHERE schemaname = "
                                       "'public'"),
             std::vector<std::string>{"2"}); // nothing created
    // A table of the same name that is not ours is not taken for our mark.
    const std::string other = newDatabase();
    PostgresServer::execute(other, "CREATE TABLE paretune_library(application_id BIGINT, "
                                   "schema_version BIGINT); INSERT INTO paretune_library "
                                   "VALUES(42, 1)");
    QVERIFY(inputErrorOf(other).contains(QStringLiteral("not a Paretune sample library")));
}

void TestPgStore::refusesNewerSchema() {
    const std::string db = newDatabase();
    {
        SampleLibrary library = SampleLibrary::open(db);
        Fixture().store(library);
    }
    PostgresServer::execute(db, "UPDATE paretune_library SET schema_version = 99");
    const QString message = inputErrorOf(db);
    QVERIFY2(message.contains(QStringLiteral("schema version 99, newer than this paretune")),
             qPrintable(message));
    QCOMPARE(PostgresServer::query(db, "SELECT schema_version FROM paretune_library"),
             std::vector<std::string>{"99"});
}

void TestPgStore::existingOnlyRefusesEmptyDatabase() {
    const std::string db = newDatabase();
    const QString message = inputErrorOf(db, SampleLibrary::OpenMode::ExistingOnly);
    QVERIFY2(message.contains(QStringLiteral("no sample library there")), qPrintable(message));
    QCOMPARE(PostgresServer::query(db, "SELECT count(*) FROM pg_tables WHERE schemaname = "
                                       "'public'"),
             std::vector<std::string>{"0"});
}

void TestPgStore::refusesPasswordInConnectionString() {
    const std::string secret = "hunter2-secret";
    for (const std::string& conninfo :
         {"postgresql://paretune:" + secret + "@127.0.0.1:" + std::to_string(server->port()) +
              "/postgres",
          "postgresql://paretune@127.0.0.1/postgres?password=" + secret,
          "host=127.0.0.1 password=" + secret + " dbname=postgres"}) {
        const QString message = inputErrorOf(conninfo);
        QVERIFY2(message.contains(QStringLiteral("holds a password")), qPrintable(message));
        QVERIFY2(!message.contains(QString::fromStdString(secret)), qPrintable(message));
    }
    QCOMPARE(
        libraryLabel("postgresql://u:" + secret + "@h:5/db?sslmode=require&password=" + secret),
        std::string("postgresql://u@h:5/db?sslmode=require"));
    QCOMPARE(libraryLabel("host=h password='a b' dbname=d"), std::string("host=h dbname=d"));
    QVERIFY(isServerLibrary("postgres://h/db"));
    QVERIFY(isServerLibrary("dbname=paretune host=h"));
    QVERIFY(!isServerLibrary("samples.db"));
    QVERIFY(!isServerLibrary("/data/host=1/samples.db"));
}

void TestPgStore::cliBadConnections_data() {
    QTest::addColumn<QString>("conninfo");
    QTest::addColumn<QString>("password"); // PGPASSWORD
    QTest::addColumn<QString>("expected");
    // A port nothing listens on: the server's own port is taken, so one above it is likely free.
    QTest::newRow("unreachable server")
        << QStringLiteral("postgresql://paretune@127.0.0.1:1/paretune?connect_timeout=5")
        << QString() << QStringLiteral("cannot connect to the PostgreSQL sample library");
    QTest::newRow("wrong credentials")
        << QString::fromStdString(server != nullptr ? server->tcpUri(QStringLiteral("postgres"))
                                                    : std::string())
        << QStringLiteral("not-the-password-1234") << QStringLiteral("password authentication");
    QTest::newRow("password in the string")
        << QStringLiteral("postgresql://paretune:pw-on-the-line-5678@127.0.0.1/postgres")
        << QString() << QStringLiteral("holds a password");
    QTest::newRow("database of another application")
        << QStringLiteral("FOREIGN") << QString()
        << QStringLiteral("not a Paretune sample library");
}

void TestPgStore::cliBadConnections() {
    QFETCH(QString, conninfo);
    QFETCH(QString, password);
    QFETCH(QString, expected);
    if (conninfo == QStringLiteral("FOREIGN")) {
        const std::string db = newDatabase();
        PostgresServer::execute(db, "CREATE TABLE invoices(id INT)");
        conninfo = QString::fromStdString(db);
    }
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.remove(QStringLiteral("PGPASSWORD"));
    if (!password.isEmpty()) {
        environment.insert(QStringLiteral("PGPASSWORD"), password);
    }
    for (const QStringList& args :
         {QStringList{QStringLiteral("samples"), QStringLiteral("--db"), conninfo},
          QStringList{QStringLiteral("samples"), QStringLiteral("--json"),
                      QStringLiteral("--db=") + conninfo}}) {
        const CliRun run = runParetune(args, 60000, environment);
        const QString err = QString::fromUtf8(run.err);
        QVERIFY2(run.exitCode == 2, qPrintable(err));
        QVERIFY2(err.contains(expected), qPrintable(err));
        QVERIFY2(!err.contains(QStringLiteral("pw-on-the-line")) &&
                     !err.contains(QStringLiteral("not-the-password")),
                 qPrintable(err));
        QVERIFY(!run.out.contains("pw-on-the-line") && !run.out.contains("not-the-password"));
    }
}

void TestPgStore::cliListsSamples() {
    const std::string db = newDatabase();
    {
        SampleLibrary library = SampleLibrary::open(db);
        const Fixture f;
        f.store(library);
        library.addSamples(std::vector<Sample>{f.sample(12.5, 1), f.sample(13.5, 2)});
    }
    const CliRun run = runParetune({QStringLiteral("samples"), QStringLiteral("--json"),
                                    QStringLiteral("--db"), QString::fromStdString(db)});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonDocument doc = QJsonDocument::fromJson(run.out);
    QCOMPARE(doc[QStringLiteral("schema_version")].toInt(), SampleLibrary::kSchemaVersion);
    QCOMPARE(doc[QStringLiteral("samples")].toArray().size(), 2);
    QCOMPARE(doc[QStringLiteral("samples")].toArray()[0][QStringLiteral("latency_us")].toDouble(),
             12.5);
}

namespace {

/// The records of an exported file: every line but the header (its time and source differ).
QByteArrayList recordsOf(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        return {"cannot read " + path.toUtf8()};
    }
    QByteArrayList lines = file.readAll().split('\n');
    if (!lines.isEmpty()) {
        lines.removeFirst();
    }
    return lines;
}

CliRun runCli(const QStringList& args) {
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.remove(QStringLiteral("PGPASSWORD"));
    return runParetune(args, 300000, environment);
}

QJsonObject jsonOf(const CliRun& run) {
    return QJsonDocument::fromJson(run.out).object();
}

} // namespace

void TestPgStore::exportImportBothWays() {
    QTemporaryDir dir;
    const QString sqlite = dir.filePath(QStringLiteral("a.db"));
    QCOMPARE(restoreSampleFixture(QStringLiteral("predictor_library"), sqlite), QString());
    {
        // A whole-model run moves with the samples it is compared with.
        SampleLibrary library = SampleLibrary::open(sqlite.toStdString());
        ModelRunRecord run;
        run.modelFingerprint = library.models().at(0).fingerprint;
        run.deviceFingerprint = library.devices().at(0).fingerprint;
        run.measuredAt = "2026-12-03T19:00:00.000Z";
        run.medianUs = 15665.0;
        run.p10Us = 15100.5;
        run.p90Us = 16200.25;
        run.runs = 40;
        run.sumOfOpsUs = 10617.7;
        library.addModelRun(run);
    }
    const QString pg = QString::fromStdString(newDatabase());
    const QString first = dir.filePath(QStringLiteral("a.jsonl"));
    CliRun run =
        runCli({QStringLiteral("library"), QStringLiteral("export"), QStringLiteral("--db"), sqlite,
                QStringLiteral("--out"), first, QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const int samples = jsonOf(run)[QStringLiteral("samples")].toInt();
    QVERIFY(samples > 50);

    // SQLite -> PostgreSQL, twice: the second adds nothing.
    for (int pass = 0; pass < 2; ++pass) {
        run = runCli({QStringLiteral("library"), QStringLiteral("import"), first,
                      QStringLiteral("--db"), pg, QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject added = jsonOf(run)[QStringLiteral("added")].toObject();
        QCOMPARE(added[QStringLiteral("samples")].toInt(), pass == 0 ? samples : 0);
        QCOMPARE(jsonOf(run)[QStringLiteral("samples_present")].toInt(), pass == 0 ? 0 : samples);
        QCOMPARE(jsonOf(run)[QStringLiteral("sample_count")].toInt(), samples);
        QCOMPARE(added[QStringLiteral("model_runs")].toInt(), pass == 0 ? 1 : 0);
        if (pass == 1) {
            for (const QString& kind :
                 {QStringLiteral("devices"), QStringLiteral("models"), QStringLiteral("signatures"),
                  QStringLiteral("benchmarks"), QStringLiteral("contention")}) {
                QCOMPARE(added[kind].toInt(), 0);
            }
        }
    }
    // PostgreSQL -> file: the same records, line for line (fingerprints, sources, times, exact
    // numbers).
    const QString second = dir.filePath(QStringLiteral("b.jsonl"));
    run = runCli({QStringLiteral("library"), QStringLiteral("export"), QStringLiteral("--db"), pg,
                  QStringLiteral("--out"), second});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QCOMPARE(recordsOf(second), recordsOf(first));
    // PostgreSQL -> SQLite, and back to a file: still the same.
    const QString copy = dir.filePath(QStringLiteral("c.db"));
    run = runCli({QStringLiteral("library"), QStringLiteral("import"), second,
                  QStringLiteral("--db"), copy});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QByteArray imported = "Imported " + QByteArray::number(samples) + " new samples";
    QVERIFY2(run.out.contains(imported), run.out.constData());
    const QString third = dir.filePath(QStringLiteral("c.jsonl"));
    QCOMPARE(runCli({QStringLiteral("library"), QStringLiteral("export"), QStringLiteral("--db"),
                     copy, QStringLiteral("--out"), third})
                 .exitCode,
             0);
    QCOMPARE(recordsOf(third), recordsOf(first));
    // The header names the library without anything secret, and the format.
    QFile header(second);
    QVERIFY(header.open(QIODevice::ReadOnly));
    const QJsonObject head = QJsonDocument::fromJson(header.readLine()).object();
    QCOMPARE(head[QStringLiteral("format")].toString(), QStringLiteral("paretune-library"));
    QCOMPARE(head[QStringLiteral("version")].toInt(), 2);
    QCOMPARE(head[QStringLiteral("source")].toString(), pg);
}

void TestPgStore::trainGivesTheSamePredictorOnBoth() {
#if !PARETUNE_WITH_TORCH
    QSKIP("built without LibTorch: no train command");
#endif
    QTemporaryDir dir;
    const QString sqlite = dir.filePath(QStringLiteral("a.db"));
    QCOMPARE(restoreSampleFixture(QStringLiteral("predictor_library"), sqlite), QString());
    const QString file = dir.filePath(QStringLiteral("a.jsonl"));
    const QString pg = QString::fromStdString(newDatabase());
    QCOMPARE(runCli({QStringLiteral("library"), QStringLiteral("export"), QStringLiteral("--db"),
                     sqlite, QStringLiteral("--out"), file})
                 .exitCode,
             0);
    QCOMPARE(runCli({QStringLiteral("library"), QStringLiteral("import"), file,
                     QStringLiteral("--db"), pg})
                 .exitCode,
             0);
    for (const QString& db : {sqlite, pg}) {
        const CliRun run =
            runCli({QStringLiteral("train"), QStringLiteral("--db"), db, QStringLiteral("--epochs"),
                    QStringLiteral("4"), QStringLiteral("--members"), QStringLiteral("1"),
                    QStringLiteral("--seed"), QStringLiteral("7"), QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, run.err.constData());
    }
    const SampleLibrary a = SampleLibrary::open(sqlite.toStdString());
    const SampleLibrary b = SampleLibrary::open(pg.toStdString());
    const std::optional<PredictorRecord> pa = a.latestPredictor();
    const std::optional<PredictorRecord> pb = b.latestPredictor();
    QVERIFY(pa && pb);
    QVERIFY(!pa->weights.empty());
    QVERIFY(pa->weights == pb->weights); // bit-identical
    QCOMPARE(pa->trainSetJson, pb->trainSetJson);
}

void TestPgStore::badLibraryFiles_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("expected");
    const QByteArray header = R"({"format":"paretune-library","version":1,"counts":)";
    const QByteArray noRecords =
        R"({"devices":0,"models":0,"signatures":0,"benchmarks":0,"contention":0,"samples":0}})";
    const QByteArray oneSample =
        R"({"devices":0,"models":0,"signatures":0,"benchmarks":0,"contention":0,"samples":1}})";
    const QByteArray sample =
        R"({"sample":{"model_fingerprint":")" + QByteArray(64, 'a') +
        R"(","device_fingerprint":")" + QByteArray(64, 'b') + R"(","op_signature":")" +
        QByteArray(32, 'c') +
        R"(","op_meta":"{}","shape_tuple":"","config_json":"{}","latency_us":1.5,)"
        R"("latency_p10_us":null,"latency_p90_us":null,"peak_memory_mb":null,"energy_uj":null,)"
        R"("energy_source":"","repeats":3,"sample_time":"t","tool_version":"v","stale":false}})";
    QTest::newRow("empty") << QByteArray() << QStringLiteral("empty");
    QTest::newRow("not JSON") << QByteArray("SQLite format 3\0\1\2", 18)
                              << QStringLiteral("line 1: not JSON");
    QTest::newRow("another format") << QByteArray(R"({"format":"something else"})")
                                    << QStringLiteral("not a file of paretune library export");
    QTest::newRow("newer version")
        << QByteArray(R"({"format":"paretune-library","version":99,"counts":{}})")
        << QStringLiteral("format version 99, newer");
    QTest::newRow("truncated") << header + oneSample + "\n"
                               << QStringLiteral("holds 0 samples, its header says 1");
    QTest::newRow("unknown record") << header + noRecords + "\n{\"virus\":{}}\n"
                                    << QStringLiteral("line 2: unknown record \"virus\"");
    QTest::newRow("field of the wrong type")
        << header + oneSample + "\n" + QByteArray(sample).replace("1.5", "\"fast\"")
        << QStringLiteral("line 2: field \"latency_us\": expected a number");
    QTest::newRow("negative repeats")
        << header + oneSample + "\n" + QByteArray(sample).replace("\"repeats\":3", "\"repeats\":-3")
        << QStringLiteral("field \"repeats\": out of range");
    QTest::newRow("sample of nothing stored")
        << header + oneSample + "\n" + sample
        << QStringLiteral("is not in the library (store it first); the batch was not stored");
    QTest::newRow("malformed fingerprint")
        << header + oneSample + "\n" + QByteArray(sample).replace(QByteArray(64, 'a'), "zz")
        << QStringLiteral("model fingerprint");
}

void TestPgStore::badLibraryFiles() {
    QFETCH(QByteArray, content);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("bad.jsonl"));
    {
        QFile out(file);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(content);
    }
    static std::string pg;
    if (pg.empty()) {
        pg = newDatabase();
        SampleLibrary library = SampleLibrary::open(pg);
        const Fixture f;
        f.store(library);
        library.addSamples(std::vector<Sample>{f.sample(1.0, 1)});
    }
    const QString sqlite = dir.filePath(QStringLiteral("s.db"));
    {
        SampleLibrary library = SampleLibrary::open(sqlite.toStdString());
        const Fixture f;
        f.store(library);
        library.addSamples(std::vector<Sample>{f.sample(1.0, 1)});
    }
    for (const QString& db : {QString::fromStdString(pg), sqlite}) {
        const CliRun run = runCli({QStringLiteral("library"), QStringLiteral("import"), file,
                                   QStringLiteral("--db"), db});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(QString::fromUtf8(run.err).contains(expected), run.err.constData());
        QCOMPARE(SampleLibrary::open(db.toStdString()).sampleCount(), 1); // nothing lost or added
    }
}

namespace {

/// Queues `model` for cpu:0 of this machine; returns the job's id, or -1.
int queueJob(const QString& db, const QString& model) {
    const CliRun run =
        runCli({QStringLiteral("profile"), testModelPath(model), QStringLiteral("--device"),
                QStringLiteral("cpu:0"), QStringLiteral("--queue"), QStringLiteral("--repeats"),
                QStringLiteral("1"), QStringLiteral("--db"), db, QStringLiteral("--json")});
    if (run.exitCode != 0) {
        qWarning("%s", run.err.constData());
        return -1;
    }
    return jsonOf(run)[QStringLiteral("job")].toInt();
}

QStringList workerArguments(const QString& db, const QString& lease, const QString& idleExit) {
    return {QStringLiteral("worker"),
            QStringLiteral("--db"),
            db,
            QStringLiteral("--device"),
            QStringLiteral("cpu:0"),
            QStringLiteral("--lease-seconds"),
            lease,
            QStringLiteral("--idle-exit"),
            idleExit,
            QStringLiteral("--poll-seconds"),
            QStringLiteral("0.1"),
            QStringLiteral("--json")};
}

/// Samples stored more than once for the same operator of the same model on the same device.
std::string duplicatedSamples(const std::string& db) {
    return PostgresServer::query(db, "SELECT count(*) FROM (SELECT model_fingerprint, "
                                     "device_fingerprint, op_signature FROM perf_samples GROUP "
                                     "BY 1, 2, 3 HAVING count(*) > 1) d")
        .at(0);
}

} // namespace

void TestPgStore::queueClaimsAndLeases_data() {
    QTest::addColumn<bool>("postgres");
    QTest::newRow("sqlite") << false;
    QTest::newRow("postgres") << true;
}

void TestPgStore::queueClaimsAndLeases() {
    QFETCH(bool, postgres);
    QTemporaryDir dir;
    const std::string db =
        postgres ? newDatabase() : dir.filePath(QStringLiteral("q.db")).toStdString();
    SampleLibrary a = SampleLibrary::open(db);
    SampleLibrary b = SampleLibrary::open(db);
    const Fixture f;
    ProfileJobRecord job;
    job.modelFingerprint = f.model.fingerprint;
    job.modelName = "m.onnx";
    job.modelOnnx = std::string("\0\1onnx", 6);
    job.deviceFingerprint = f.device.fingerprint;
    job.optionsJson = R"({"repeats":1})";
    const std::int64_t first = a.queueProfileJob(job);
    const std::int64_t second = a.queueProfileJob(job);
    QVERIFY(!a.claimProfileJob(Sha256::hex("another device"), "w", 10)); // not for that device

    // A long lease while the claims are checked (a slow machine must not let it run out), then
    // a short one, renewed, to run out on purpose.
    const std::optional<ProfileJobRecord> x = a.claimProfileJob(f.device.fingerprint, "a", 30);
    QVERIFY(x && x->id == first && x->attempts == 1);
    QCOMPARE(x->modelOnnx, job.modelOnnx);
    const std::optional<ProfileJobRecord> y = b.claimProfileJob(f.device.fingerprint, "b", 30);
    QVERIFY(y && y->id == second); // the held job is not given out twice
    QVERIFY(!b.claimProfileJob(f.device.fingerprint, "b", 30));
    QVERIFY(a.renewProfileJob(first, "a", 0.3));
    QVERIFY(!b.renewProfileJob(first, "b", 30)); // only the holder renews
    QThread::msleep(600);                        // a's lease runs out
    const std::optional<ProfileJobRecord> z = b.claimProfileJob(f.device.fingerprint, "b", 30);
    QVERIFY(z && z->id == first && z->attempts == 2);
    QVERIFY(!a.renewProfileJob(first, "a", 0.3)); // a lost it
    QVERIFY(!a.finishProfileJob(first, "a", true, "{}"));
    QVERIFY(b.finishProfileJob(first, "b", true, R"({"measured":3})"));
    QVERIFY(b.finishProfileJob(second, "b", false, R"({"error":"x"})"));
    QVERIFY(!b.claimProfileJob(f.device.fingerprint, "b", 30)); // done jobs are never claimed
    const std::vector<ProfileJobRecord> jobs = a.profileJobs();
    QCOMPARE(jobs.size(), std::size_t(2));
    QCOMPARE(jobs[0].state + " " + jobs[0].worker, std::string("done b"));
    QCOMPARE(jobs[0].resultJson, std::string(R"({"measured":3})"));
    QCOMPARE(jobs[1].state, std::string("failed"));
    QVERIFY(jobs[0].modelOnnx.empty()); // listings leave the model out
}

void TestPgStore::concurrentClaimsTakeEachJobOnce() {
    const std::string db = newDatabase();
    const Fixture f;
    {
        SampleLibrary library = SampleLibrary::open(db);
        ProfileJobRecord job;
        job.modelFingerprint = f.model.fingerprint;
        job.modelName = "m.onnx";
        job.modelOnnx = "model";
        job.deviceFingerprint = f.device.fingerprint;
        for (int i = 0; i < 40; ++i) {
            library.queueProfileJob(job);
        }
    }
    // Eight connections claim as fast as they can: SKIP LOCKED gives each job to one of them.
    std::vector<std::vector<std::int64_t>> claimed(8);
    std::vector<std::thread> threads;
    std::atomic<int> errors = 0;
    for (std::size_t t = 0; t < claimed.size(); ++t) {
        threads.emplace_back([&, t] {
            try {
                SampleLibrary library = SampleLibrary::open(db);
                const std::string worker = "w" + std::to_string(t);
                while (const auto job = library.claimProfileJob(f.device.fingerprint, worker, 60)) {
                    claimed[t].push_back(job->id);
                    library.finishProfileJob(job->id, worker, true, "{}");
                }
            } catch (const std::exception& e) {
                qWarning("%s", e.what());
                ++errors;
            }
        });
    }
    for (std::thread& t : threads) {
        t.join();
    }
    QCOMPARE(errors.load(), 0);
    std::set<std::int64_t> all;
    std::size_t total = 0;
    for (const auto& ids : claimed) {
        all.insert(ids.begin(), ids.end());
        total += ids.size();
    }
    QCOMPARE(total, std::size_t(40));
    QCOMPARE(all.size(), std::size_t(40));
    QCOMPARE(PostgresServer::query(db, "SELECT count(*) FROM profile_jobs WHERE state = 'done' "
                                       "AND attempts = 1"),
             std::vector<std::string>{"40"});
}

void TestPgStore::workersClaimEachJobOnce() {
#if !PARETUNE_WITH_TORCH
    QSKIP("built without LibTorch: no profiling");
#endif
    const std::string uri = newDatabase();
    const QString db = QString::fromStdString(uri);
    const QStringList models{QStringLiteral("tiny_mlp"), QStringLiteral("tiny_cnn"),
                             QStringLiteral("sample")};
    for (const QString& m : models) {
        QVERIFY2(QFile::exists(testModelPath(m)), "run tools/export_models.py");
    }
    // Each model twice: the second job of a model reuses what the first stored.
    for (int i = 0; i < 6; ++i) {
        QVERIFY(queueJob(db, models[i % 3]) > 0);
    }
    QProcess a;
    QProcess b;
    a.start(QStringLiteral(PARETUNE_CLI_PATH),
            workerArguments(db, QStringLiteral("30"), QStringLiteral("1.5")));
    b.start(QStringLiteral(PARETUNE_CLI_PATH),
            workerArguments(db, QStringLiteral("30"), QStringLiteral("1.5")));
    QVERIFY(a.waitForFinished(240000));
    QVERIFY(b.waitForFinished(240000));
    QVERIFY2(a.exitCode() == 0, a.readAllStandardError().constData());
    QVERIFY2(b.exitCode() == 0, b.readAllStandardError().constData());
    // Each worker's last line is its summary: together they did every job, once.
    int done = 0;
    for (QProcess* worker : {&a, &b}) {
        const QByteArrayList lines = worker->readAllStandardOutput().trimmed().split('\n');
        const QJsonObject summary = QJsonDocument::fromJson(lines.last()).object();
        QCOMPARE(summary[QStringLiteral("failed")].toInt(), 0);
        QCOMPARE(summary[QStringLiteral("lost")].toInt(), 0);
        done += summary[QStringLiteral("done")].toInt();
    }
    QCOMPARE(done, 6);
    QCOMPARE(PostgresServer::query(uri, "SELECT count(*) FROM profile_jobs WHERE state = 'done' "
                                        "AND attempts = 1 AND worker <> ''"),
             std::vector<std::string>{"6"});
    // The three models' samples (their fusion groups' samples are recorded under fused graphs).
    QCOMPARE(PostgresServer::query(uri, "SELECT count(DISTINCT s.model_fingerprint) FROM "
                                        "perf_samples s JOIN models m ON m.fingerprint = "
                                        "s.model_fingerprint WHERE m.name NOT LIKE '%(fused %'"),
             std::vector<std::string>{"3"});
    QCOMPARE(PostgresServer::query(uri, "SELECT count(*) - count(DISTINCT sample_key) FROM "
                                        "perf_samples"),
             std::vector<std::string>{"0"});
    qInfo("6 jobs by two workers: %s samples",
          PostgresServer::query(uri, "SELECT count(*) FROM perf_samples").at(0).c_str());
}

void TestPgStore::killedWorkersJobIsRedone() {
#if !PARETUNE_WITH_TORCH
    QSKIP("built without LibTorch: no profiling");
#endif
    const std::string uri = newDatabase();
    const QString db = QString::fromStdString(uri);
    const int job = queueJob(db, QStringLiteral("tiny_cnn"));
    QVERIFY(job > 0);
    QProcess first;
    first.start(QStringLiteral(PARETUNE_CLI_PATH),
                workerArguments(db, QStringLiteral("1"), QStringLiteral("60")));
    QVERIFY(first.waitForStarted());
    // Killed as soon as it holds the job: mid-job, before it could finish it.
    QElapsedTimer clock;
    clock.start();
    while (PostgresServer::query(uri, "SELECT state FROM profile_jobs").at(0) != "running") {
        QVERIFY2(clock.elapsed() < 60000, "the first worker never claimed the job");
        QVERIFY(first.state() == QProcess::Running);
        QThread::msleep(10);
    }
    ::kill(static_cast<pid_t>(first.processId()), SIGKILL);
    QVERIFY(first.waitForFinished(10000));
    const std::string killedWorker =
        PostgresServer::query(uri, "SELECT worker FROM profile_jobs").at(0);

    // The second worker takes it once the lease (1 s) ran out. Its own lease is long, so that a
    // heartbeat delayed on a loaded machine cannot lose it the job; it waits up to 8 s for one.
    QProcess second;
    second.start(QStringLiteral(PARETUNE_CLI_PATH),
                 workerArguments(db, QStringLiteral("30"), QStringLiteral("8")));
    QVERIFY(second.waitForFinished(240000));
    QVERIFY2(second.exitCode() == 0, second.readAllStandardError().constData());
    const QByteArrayList lines = second.readAllStandardOutput().trimmed().split('\n');
    QCOMPARE(QJsonDocument::fromJson(lines.last()).object()[QStringLiteral("done")].toInt(), 1);
    QCOMPARE(PostgresServer::query(uri, "SELECT state || ' ' || attempts FROM profile_jobs"),
             std::vector<std::string>{"done 2"});
    const std::string worker = PostgresServer::query(uri, "SELECT worker FROM profile_jobs").at(0);
    QVERIFY(worker != killedWorker);
    QCOMPARE(duplicatedSamples(uri), std::string("0"));
    QVERIFY(std::stoi(PostgresServer::query(uri, "SELECT count(*) FROM perf_samples").at(0)) > 0);
}

int main(int argc, char** argv) {
    if (argc >= 2 && std::strcmp(argv[1], "--writer") == 0) {
        return runWriter(argc, argv);
    }
    QCoreApplication app(argc, argv);
    TestPgStore test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_pgstore.moc"
