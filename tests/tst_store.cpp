// SPDX-License-Identifier: GPL-3.0-or-later
// The SQLite sample library: schema and migrations, round-trips of every column, reuse lookups,
// batch atomicity, files that are not a Paretune library, two writer processes, kill -9.
//
// The concurrency cases run this executable again as a writer process:
//   tst_store --writer DB TAG BATCHES BATCH_SIZE   (BATCHES 0: until killed)
// It prints "committed N" after the N-th batch is committed.
#include "common/input_error.h"
#include "common/sha256.h"
#include "graph/onnx_importer.h"
#include "library_files.h"
#include "paretune/config.h"
#include "profile/output_deviation.h"
#include "store/benchmark_drift.h"
#include "store/graph_records.h"
#include "store/library_file.h"
#include "store/sample_library.h"
#include "testpaths.h"

#include <sys/stat.h>

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <thread>

using namespace paretune;

namespace {

std::string fingerprintOf(const std::string& text) {
    return Sha256::hex(text);
}
std::string signatureOf(const std::string& text) {
    return Sha256::hex(text).substr(0, 32);
}

DeviceRecord testDevice(const std::string& name = "cpu") {
    DeviceRecord d;
    d.fingerprint = fingerprintOf("device " + name);
    d.kind = "cpu";
    d.name = "Test CPU " + name;
    d.specJson = R"({"cores":8,"l2_bytes":2097152})";
    d.softwareJson = R"({"compiler":"gcc 12.2.0","torch":"1.13.1"})";
    return d;
}

ModelRecord testModel(const std::string& name = "mlp") {
    ModelRecord m;
    m.fingerprint = fingerprintOf("model " + name);
    m.name = name;
    m.sourcePath = "/models/" + name + ".onnx";
    m.nodeCount = 7;
    return m;
}

SignatureRecord testSignature(const std::string& name = "conv") {
    SignatureRecord s;
    s.signature = signatureOf("signature " + name);
    s.opType = "Conv";
    s.attrsJson = R"({"kernel_shape":"[3,3]","strides":"[1,1]"})";
    s.shapesJson = R"({"inputs":[{"dtype":"float32","shape":[1,64,56,56]}],"outputs":[]})";
    s.flops = 231211008.0;
    s.bytes = 1605632;
    return s;
}

Sample testSample(const ModelRecord& m, const DeviceRecord& d, const SignatureRecord& s,
                  double latency) {
    Sample x;
    x.modelFingerprint = m.fingerprint;
    x.deviceFingerprint = d.fingerprint;
    x.opSignature = s.signature;
    x.opMeta = R"({"node":"conv1","op_type":"Conv"})";
    x.shapeTuple = "float32[1,64,56,56]->float32[1,64,56,56]";
    x.configJson = R"({"threads":4,"warmup":5})";
    x.latencyUs = latency;
    x.repeats = 50;
    return x;
}

/// A library with one device, model and signature stored.
struct Fixture {
    DeviceRecord device = testDevice();
    ModelRecord model = testModel();
    SignatureRecord signature = testSignature();

    void store(SampleLibrary& library) const {
        library.upsertDevice(device);
        library.upsertModel(model);
        library.upsertSignature(signature);
    }
    Sample sample(double latency) const { return testSample(model, device, signature, latency); }
};

/// Runs SQL on a file with SQLite directly (fixtures, and checks that do not trust the API).
QStringList rawQuery(const QString& path, const char* sql) {
    sqlite3* db = nullptr;
    QStringList rows;
    if (sqlite3_open_v2(path.toUtf8().constData(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                        nullptr) != SQLITE_OK) {
        sqlite3_close(db);
        return {QStringLiteral("open failed")};
    }
    auto collect = [](void* out, int columns, char** values, char**) {
        QStringList cells;
        for (int i = 0; i < columns; ++i) {
            cells << (values[i] ? QString::fromUtf8(values[i]) : QStringLiteral("NULL"));
        }
        static_cast<QStringList*>(out)->append(cells.join(QLatin1Char('|')));
        return 0;
    };
    char* error = nullptr;
    if (sqlite3_exec(db, sql, collect, &rows, &error) != SQLITE_OK) {
        rows << QStringLiteral("error: ") + QString::fromUtf8(error);
        sqlite3_free(error);
    }
    sqlite3_close(db);
    return rows;
}

/// Turns a library back into what version 4 wrote (the samples lose their keys, the
/// sensitivity table of version 6 goes).
constexpr const char* kWithoutVersionFive =
    "DROP TABLE model_runs; ALTER TABLE device_benchmarks DROP COLUMN link_h2d_gbs; ALTER TABLE "
    "device_benchmarks DROP "
    "COLUMN link_d2h_gbs; ALTER TABLE device_benchmarks DROP COLUMN link_latency_us; ALTER TABLE "
    "device_benchmarks DROP COLUMN link_h2d_pageable_gbs; ALTER TABLE device_benchmarks DROP "
    "COLUMN link_d2h_pageable_gbs; DROP TABLE "
    "activation_ranges; DROP TABLE "
    "precision_sensitivity; DROP TABLE profile_jobs; DROP INDEX perf_samples_by_key; "
    "ALTER TABLE perf_samples DROP COLUMN sample_key; PRAGMA user_version = 4";

/// A library holding `count` samples, closed.
void makeLibrary(const QString& path, int count) {
    SampleLibrary library = SampleLibrary::open(path.toStdString());
    const Fixture f;
    f.store(library);
    std::vector<Sample> batch;
    for (int i = 0; i < count; ++i) {
        batch.push_back(f.sample(10.0 + i));
    }
    library.addSamples(batch);
}

QString writerPath() {
    return QCoreApplication::applicationFilePath();
}

int runWriter(int argc, char** argv) {
    if (argc != 6) {
        std::fprintf(stderr, "usage: tst_store --writer DB TAG BATCHES BATCH_SIZE\n");
        return 2;
    }
    const std::string tag = argv[3];
    const long batches = std::atol(argv[4]);
    const long batchSize = std::atol(argv[5]);
    try {
        SampleLibrary library = SampleLibrary::open(argv[2]);
        const Fixture f;
        f.store(library);
        for (long b = 1; batches == 0 || b <= batches; ++b) {
            std::vector<Sample> batch;
            for (long i = 0; i < batchSize; ++i) {
                Sample s = f.sample(static_cast<double>(b * 1000 + i));
                s.opMeta = nlohmann::json{{"writer", tag}, {"batch", b}, {"index", i}}.dump();
                batch.push_back(std::move(s));
            }
            library.addSamples(batch);
            std::printf("committed %ld\n", b);
            std::fflush(stdout);
            // Leave the lock free for a moment, so that two writers take turns.
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "writer %s: %s\n", tag.c_str(), e.what());
        return 1;
    }
    return 0;
}

} // namespace

class TestStore : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void createsFolderAndSchema();
    void emptyFilesBecomeLibraries_data();
    void emptyFilesBecomeLibraries();
    void reopensWithoutChanges();
    void roundTripsEveryColumn();
    void upsertsKeepIdentity();
    void reuseLookup();
    void staleSamplesAreKept();
    void benchmarkDriftMarksStale();
    void hostLinksAreStoredAndMoved();
    void migratesVersionOneLibrary();
    void migratesVersionTwoLibrary();
    void measurementsOnMadeUpWeightsAreSetApart();
    void contentionRoundTrips();
    void filters();
    void batchIsAtomic();
    void rejectsMalformedValues();
    void graphRecords();
    void badFilesAreLeftAlone_data();
    void badFilesAreLeftAlone();
    void specialFilesAreRefused();
    void damagedLibraryIsNeverWritten();
    void existingOnly();
    void twoWriterProcesses();
    void killedWriterLosesOnlyItsOpenBatch();
    void defaultPath();
    void timestamps();
    void plansByModel();
};

void TestStore::createsFolderAndSchema() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("deep/er/samples.db"));
    {
        const SampleLibrary library = SampleLibrary::open(path.toStdString());
        QCOMPARE(library.schemaVersion(), SampleLibrary::kSchemaVersion);
        QCOMPARE(library.sampleCount(), 0);
        QVERIFY(library.integrityProblems().empty());
        QCOMPARE(QString::fromStdString(library.path().string()), path);
    }
    QVERIFY(QFile::exists(path));
    QCOMPARE(rawQuery(path, "PRAGMA journal_mode"), QStringList{QStringLiteral("wal")});
    QCOMPARE(rawQuery(path, "PRAGMA user_version"),
             QStringList{QString::number(SampleLibrary::kSchemaVersion)});
    QCOMPARE(rawQuery(path, "PRAGMA application_id"),
             QStringList{QString::number(SampleLibrary::kApplicationId)});
    const QStringList tables =
        rawQuery(path, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
    QCOMPARE(tables,
             QStringList({QStringLiteral("activation_ranges"), QStringLiteral("device_benchmarks"),
                          QStringLiteral("device_contention"), QStringLiteral("devices"),
                          QStringLiteral("model_runs"), QStringLiteral("models"),
                          QStringLiteral("op_signatures"), QStringLiteral("perf_samples"),
                          QStringLiteral("plans"), QStringLiteral("precision_sensitivity"),
                          QStringLiteral("predictors"), QStringLiteral("profile_jobs"),
                          QStringLiteral("stale_marks"), QStringLiteral("tune_rounds")}));
    const QStringList columns =
        rawQuery(path, "SELECT group_concat(name, ',') FROM pragma_table_info('perf_samples')");
    QCOMPARE(columns.value(0),
             QStringLiteral("id,model_fingerprint,device_fingerprint,op_signature,op_meta,"
                            "shape_tuple,config_json,latency_us,latency_p10_us,latency_p90_us,"
                            "peak_memory_mb,energy_uj,energy_source,repeats,sample_time,"
                            "tool_version,stale,sample_key"));
}

void TestStore::emptyFilesBecomeLibraries_data() {
    QTest::addColumn<QString>("kind");
    QTest::newRow("zero-length file") << QStringLiteral("empty");
    QTest::newRow("SQLite database without tables") << QStringLiteral("sqlite");
}

void TestStore::emptyFilesBecomeLibraries() {
    QFETCH(QString, kind);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("samples.db"));
    if (kind == QLatin1String("empty")) {
        writeAll(path, {});
    } else {
        rawQuery(path, "VACUUM");
        QVERIFY(QFileInfo(path).size() > 0);
    }
    SampleLibrary library = SampleLibrary::open(path.toStdString());
    QCOMPARE(library.schemaVersion(), SampleLibrary::kSchemaVersion);
    Fixture f;
    f.store(library);
    QCOMPARE(library.addSamples(std::vector<Sample>{f.sample(1.0)}).size(), std::size_t(1));
}

void TestStore::reopensWithoutChanges() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("samples.db"));
    makeLibrary(path, 3);
    const QByteArray before = readAll(path);
    for (int i = 0; i < 2; ++i) {
        const SampleLibrary library = SampleLibrary::open(path.toStdString());
        QCOMPARE(library.sampleCount(), 3);
    }
    QCOMPARE(readAll(path), before); // opening a current library writes nothing
}

void TestStore::roundTripsEveryColumn() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("samples.db"));
    const Fixture f;
    Sample full = f.sample(123.456789012345);
    full.latencyP10Us = 120.25;
    full.latencyP90Us = 130.0000001;
    full.peakMemoryMb = 12.5;
    full.energyUj = 3456.75;
    full.energySource = "nvml";
    full.repeats = 100;
    full.sampleTime = "2026-11-29T11:35:32.123Z";
    full.toolVersion = "9.8.7";
    full.shapeTuple = "float32[1,64,56,56],float32[64,64,3,3]->float32[1,64,56,56]";
    Sample bare = f.sample(0.5);
    bare.opMeta.clear();
    bare.configJson.clear();
    bare.repeats = 1;
    std::vector<std::int64_t> ids;
    {
        SampleLibrary library = SampleLibrary::open(path.toStdString());
        f.store(library);
        ids = library.addSamples(std::vector<Sample>{full, bare});
        QCOMPARE(ids.size(), std::size_t(2));
        QVERIFY(ids[1] > ids[0]);
    }
    const SampleLibrary library = SampleLibrary::open(path.toStdString());
    const std::vector<Sample> back = library.samples();
    QCOMPARE(back.size(), std::size_t(2));

    const Sample& a = back[0];
    QCOMPARE(a.id, ids[0]);
    QCOMPARE(a.modelFingerprint, full.modelFingerprint);
    QCOMPARE(a.deviceFingerprint, full.deviceFingerprint);
    QCOMPARE(a.opSignature, full.opSignature);
    QCOMPARE(a.opMeta, full.opMeta);
    QCOMPARE(a.shapeTuple, full.shapeTuple);
    QCOMPARE(a.configJson, full.configJson);
    QCOMPARE(a.latencyUs, full.latencyUs); // exact: REAL is a double
    QCOMPARE(a.latencyP10Us, full.latencyP10Us);
    QCOMPARE(a.latencyP90Us, full.latencyP90Us);
    QCOMPARE(a.peakMemoryMb, full.peakMemoryMb);
    QCOMPARE(a.energyUj, full.energyUj);
    QCOMPARE(a.energySource, full.energySource);
    QCOMPARE(a.repeats, full.repeats);
    QCOMPARE(a.sampleTime, full.sampleTime);
    QCOMPARE(a.toolVersion, full.toolVersion);
    QCOMPARE(a.stale, false);
    QCOMPARE(a.opType, f.signature.opType);

    const Sample& b = back[1];
    QCOMPARE(b.opMeta, std::string("{}"));
    QCOMPARE(b.configJson, std::string("{}"));
    QVERIFY(!b.latencyP10Us && !b.latencyP90Us && !b.peakMemoryMb && !b.energyUj);
    QCOMPARE(b.energySource, std::string());
    QCOMPARE(b.toolVersion, std::string(PARETUNE_VERSION));
    QVERIFY2(QRegularExpression(QStringLiteral(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$)"))
                 .match(QString::fromStdString(b.sampleTime))
                 .hasMatch(),
             b.sampleTime.c_str());
    // NULL really is NULL in the file, not 0.
    QCOMPARE(rawQuery(path, "SELECT count(*) FROM perf_samples WHERE energy_uj IS NULL AND "
                            "latency_p10_us IS NULL AND peak_memory_mb IS NULL"),
             QStringList{QStringLiteral("1")});

    const std::optional<DeviceRecord> device = library.device(f.device.fingerprint);
    QVERIFY(device);
    QCOMPARE(device->kind, f.device.kind);
    QCOMPARE(device->name, f.device.name);
    QCOMPARE(device->specJson, f.device.specJson);
    QCOMPARE(device->softwareJson, f.device.softwareJson);
    QVERIFY(!device->createdAt.empty());
    QCOMPARE(library.devices().size(), std::size_t(1));

    const std::optional<ModelRecord> model = library.model(f.model.fingerprint);
    QVERIFY(model);
    QCOMPARE(model->name, f.model.name);
    QCOMPARE(model->sourcePath, f.model.sourcePath);
    QCOMPARE(model->nodeCount, f.model.nodeCount);
    QVERIFY(!model->importedAt.empty());
    QCOMPARE(library.models().size(), std::size_t(1));

    const std::optional<SignatureRecord> signature = library.signature(f.signature.signature);
    QVERIFY(signature);
    QCOMPARE(signature->opType, f.signature.opType);
    QCOMPARE(signature->attrsJson, f.signature.attrsJson);
    QCOMPARE(signature->shapesJson, f.signature.shapesJson);
    QCOMPARE(signature->flops, f.signature.flops);
    QCOMPARE(signature->bytes, f.signature.bytes);
    QVERIFY(!library.signature(signatureOf("nothing")));
    QVERIFY(!library.device(fingerprintOf("nothing")));
}

void TestStore::upsertsKeepIdentity() {
    QTemporaryDir dir;
    SampleLibrary library =
        SampleLibrary::open(dir.filePath(QStringLiteral("samples.db")).toStdString());
    DeviceRecord device = testDevice();
    device.createdAt = "2020-01-01T00:00:00.000Z";
    library.upsertDevice(device);
    device.name = "Renamed CPU";
    device.createdAt = "2030-01-01T00:00:00.000Z";
    library.upsertDevice(device);
    QCOMPARE(library.devices().size(), std::size_t(1));
    QCOMPARE(library.device(device.fingerprint)->name, std::string("Renamed CPU"));
    QCOMPARE(library.device(device.fingerprint)->createdAt,
             std::string("2020-01-01T00:00:00.000Z")); // first seen stays

    ModelRecord model = testModel();
    library.upsertModel(model);
    model.sourcePath = "/elsewhere/mlp.onnx";
    library.upsertModel(model);
    QCOMPARE(library.models().size(), std::size_t(1));
    QCOMPARE(library.model(model.fingerprint)->sourcePath, model.sourcePath);

    SignatureRecord signature = testSignature();
    library.upsertSignature(signature);
    signature.opType = "Other";
    library.upsertSignature(signature); // a signature names its content: never rewritten
    QCOMPARE(library.signature(signature.signature)->opType, std::string("Conv"));
}

void TestStore::reuseLookup() {
    QTemporaryDir dir;
    SampleLibrary library =
        SampleLibrary::open(dir.filePath(QStringLiteral("samples.db")).toStdString());
    const Fixture f;
    f.store(library);
    const DeviceRecord gpu = testDevice("gpu");
    const ModelRecord other = testModel("other");
    library.upsertDevice(gpu);
    library.upsertModel(other);

    QVERIFY(!library.findSample(f.signature.signature, f.device.fingerprint));
    Sample older = f.sample(50.0);
    Sample newer = f.sample(40.0);
    newer.modelFingerprint = other.fingerprint; // same operator and shapes in another model
    Sample single = f.sample(70.0);
    single.configJson = R"({"threads":1,"warmup":5})";
    library.addSamples(std::vector<Sample>{older, newer, single});

    // Already measured on this device: the newest sample, whichever model it came from.
    std::optional<Sample> found = library.findSample(f.signature.signature, f.device.fingerprint);
    QVERIFY(found);
    QCOMPARE(found->latencyUs, 70.0);
    found = library.findSample(f.signature.signature, f.device.fingerprint,
                               std::string_view(R"({"threads":4,"warmup":5})"));
    QVERIFY(found);
    QCOMPARE(found->latencyUs, 40.0);
    QCOMPARE(found->modelFingerprint, other.fingerprint);
    QVERIFY(!library.findSample(f.signature.signature, f.device.fingerprint,
                                std::string_view(R"({"threads":2})")));
    // Not on another device, not for another signature.
    QVERIFY(!library.findSample(f.signature.signature, gpu.fingerprint));
    QVERIFY(!library.findSample(signatureOf("other op"), f.device.fingerprint));
}

// The first vector becomes the reference; small changes keep it (creep is measured against
// the same figures); a drift beyond the threshold marks the samples stale and becomes the new
// reference.
void TestStore::benchmarkDriftMarksStale() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("samples.db"));
    SampleLibrary library = SampleLibrary::open(path.toStdString());
    const Fixture f;
    f.store(library);
    library.addSamples(std::vector<Sample>{f.sample(10.0), f.sample(11.0)});
    const std::string& fp = f.device.fingerprint;

    const DriftOutcome first = recordBenchmark(library, fp, MicroBenchmark{40.0, 10.0, 2.0}, 0.15);
    QVERIFY(first.firstBenchmark && !first.drifted);
    QCOMPARE(library.referenceBenchmark(fp)->gemmGflops, 40.0);

    const DriftOutcome small = recordBenchmark(library, fp, MicroBenchmark{35.0, 10.5, 2.2}, 0.15);
    QVERIFY(!small.firstBenchmark && !small.drifted);
    QCOMPARE(small.samplesMarkedStale, 0);
    QCOMPARE(library.referenceBenchmark(fp)->gemmGflops, 40.0); // reference kept
    QVERIFY(library.findSample(f.signature.signature, fp));

    // 40 -> 33 is 17.5% from the reference, although only 5.7% from the last measurement.
    const DriftOutcome slow = recordBenchmark(library, fp, MicroBenchmark{33.0, 10.0, 2.0}, 0.15);
    QVERIFY(slow.drifted);
    QVERIFY2(slow.why.find("gemm_gflops") != std::string::npos, slow.why.c_str());
    QCOMPARE(slow.samplesMarkedStale, 2);
    QCOMPARE(library.sampleCount(), 2); // kept
    QVERIFY(!library.findSample(f.signature.signature, fp));
    QCOMPARE(library.referenceBenchmark(fp)->gemmGflops, 33.0);
    QCOMPARE(library.benchmarks(fp).size(), std::size_t(3));
    QCOMPARE(rawQuery(path, "SELECT count(*) FROM stale_marks WHERE reason LIKE "
                            "'micro-benchmark drift: gemm_gflops%'"),
             QStringList{QStringLiteral("1")});

    // The dispatch overhead counts when both vectors have one.
    const DriftOutcome dispatch =
        recordBenchmark(library, fp, MicroBenchmark{33.0, 10.0, 3.0}, 0.15);
    QVERIFY(dispatch.drifted);
    QVERIFY2(dispatch.why.find("dispatch_us") != std::string::npos, dispatch.why.c_str());

    QVERIFY_THROWS_EXCEPTION(InputError,
                             recordBenchmark(library, fp, MicroBenchmark{33.0, 10.0, 0.0}, 0.0));
    QVERIFY_THROWS_EXCEPTION(
        InputError, recordBenchmark(library, fingerprintOf("unknown"), MicroBenchmark{1, 1, 0}));
    QVERIFY_THROWS_EXCEPTION(InputError,
                             recordBenchmark(library, fp, MicroBenchmark{-1.0, 10.0, 0.0}));
    QCOMPARE(library.benchmarks(fp).size(), std::size_t(4)); // refused ones stored nothing
}

// A GPU's measured link to the host is stored with its micro-benchmark, the newest one carrying
// a link is what the search reads (a later vector without one does not hide it), bad figures
// are refused, and an export keeps it; files from before the field still import.
void TestStore::hostLinksAreStoredAndMoved() {
    QTemporaryDir dir;
    SampleLibrary library = SampleLibrary::open(dir.filePath(QStringLiteral("a.db")).toStdString());
    const Fixture f;
    f.store(library);
    const std::string& fp = f.device.fingerprint;
    QVERIFY(!library.newestHostLink(fp));
    MicroBenchmark gpu{5000.0, 2000.0, 4.5, HostLinkFigures{24.5, 26.25, 9.75, 11.5, 12.0}};
    QVERIFY(recordBenchmark(library, fp, gpu).firstBenchmark);
    gpu.hostLink = HostLinkFigures{25.0, 27.0, 8.5};
    recordBenchmark(library, fp, gpu);
    recordBenchmark(library, fp, MicroBenchmark{5000.0, 2000.0, 4.5}); // no link measured
    const std::optional<BenchmarkRecord> newest = library.newestHostLink(fp);
    QVERIFY(newest && newest->hostLink);
    QCOMPARE(newest->hostLink->h2dGbs, 25.0);
    QCOMPARE(newest->hostLink->d2hGbs, 27.0);
    QCOMPARE(newest->hostLink->latencyUs, 8.5);
    const std::vector<BenchmarkRecord> all = library.benchmarks(fp);
    QCOMPARE(all.size(), std::size_t(3));
    QCOMPARE(all[0].hostLink->d2hGbs, 26.25);
    QCOMPARE(all[0].hostLink->h2dPageableGbs, 11.5);
    QCOMPARE(all[0].hostLink->d2hPageableGbs, 12.0);
    QCOMPARE(all[1].hostLink->h2dPageableGbs, 0.0); // not measured: NULL, read back as 0
    QVERIFY(!all[2].hostLink);
    for (const HostLinkFigures bad :
         {HostLinkFigures{0.0, 1.0, 1.0}, HostLinkFigures{1.0, -1.0, 1.0},
          HostLinkFigures{1.0, 1.0, std::nan("")}, HostLinkFigures{1.0, 1.0, 1.0, -2.0, 0.0}}) {
        BenchmarkRecord b{0, fp, "", 1.0, 1.0, std::nullopt, false, bad};
        QVERIFY_THROWS_EXCEPTION(InputError, library.addBenchmark(b));
    }
    QCOMPARE(library.benchmarks(fp).size(), std::size_t(3));

    const std::filesystem::path file = dir.filePath(QStringLiteral("export.jsonl")).toStdString();
    writeLibraryFile(file, library.records(), "a.db");
    SampleLibrary other = SampleLibrary::open(dir.filePath(QStringLiteral("b.db")).toStdString());
    other.importRecords(readLibraryFile(file));
    QCOMPARE(other.newestHostLink(fp)->hostLink->h2dGbs, 25.0);
    QCOMPARE(other.benchmarks(fp)[0].hostLink->d2hPageableGbs, 12.0);
    QCOMPARE(other.benchmarks(fp).size(), std::size_t(3));

    // A file written before host links were stored has no "host_link" field.
    QFile in(QString::fromStdString(file.string()));
    QVERIFY(in.open(QIODevice::ReadOnly));
    QString text = QString::fromUtf8(in.readAll());
    in.close();
    text.replace(QRegularExpression(QStringLiteral(",\\s*\"host_link\":(null|\\{[^}]*\\})")),
                 QString());
    QVERIFY(!text.contains(QStringLiteral("host_link")));
    const std::filesystem::path old = dir.filePath(QStringLiteral("old.jsonl")).toStdString();
    QFile out(QString::fromStdString(old.string()));
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(text.toUtf8());
    out.close();
    const LibraryRecords records = readLibraryFile(old);
    QCOMPARE(records.benchmarks.size(), std::size_t(3));
    QVERIFY(!records.benchmarks[0].hostLink);
}

// A library written by version 1 (no device_benchmarks, no device_contention) is upgraded in
// place, data kept.
void TestStore::migratesVersionOneLibrary() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("samples.db"));
    {
        SampleLibrary library = SampleLibrary::open(path.toStdString());
        const Fixture f;
        f.store(library);
        library.addSamples(std::vector<Sample>{f.sample(10.0)});
    }
    rawQuery(path, kWithoutVersionFive);
    rawQuery(path, "DROP TABLE tune_rounds; DROP TABLE device_contention; DROP TABLE "
                   "device_benchmarks; PRAGMA user_version = 1");
    QCOMPARE(rawQuery(path, "PRAGMA user_version"), QStringList{QStringLiteral("1")});
    SampleLibrary library = SampleLibrary::open(path.toStdString());
    QCOMPARE(library.schemaVersion(), SampleLibrary::kSchemaVersion);
    QCOMPARE(library.sampleCount(), 1);
    const Fixture f;
    QVERIFY(recordBenchmark(library, f.device.fingerprint, MicroBenchmark{1.0, 1.0, 0.0})
                .firstBenchmark);
    QVERIFY(library.integrityProblems().empty());
}

// Schema 8: sensitivities and activation ranges stored by a version 7 library (measured on
// made-up large weights) are kept under "made-up-weights:KEY", and no longer taken as the
// newest for an int8 node's scales; measured again, the new ones are.
void TestStore::measurementsOnMadeUpWeightsAreSetApart() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("samples.db"));
    const Fixture f;
    const std::string key = "random:1:4";
    {
        SampleLibrary library = SampleLibrary::open(path.toStdString());
        f.store(library);
        library.addSensitivities(
            std::vector<SensitivityRecord>{{f.model.fingerprint, "conv1", "bf16", key, 0.25, {}}});
        library.addActivationRanges(
            std::vector<ActivationRangeRecord>{{f.model.fingerprint, "x", key, -1.0, 2.0, {}}});
    }
    rawQuery(path, "UPDATE precision_sensitivity SET measured_at = '2026-01-01T00:00:00Z'; "
                   "UPDATE activation_ranges SET measured_at = '2026-01-01T00:00:00Z'; "
                   "DROP TABLE model_runs; PRAGMA user_version = 7");
    SampleLibrary library = SampleLibrary::open(path.toStdString());
    QCOMPARE(library.schemaVersion(), SampleLibrary::kSchemaVersion);
    const std::string apart = std::string(kMadeUpWeightsPrefix) + key;
    QCOMPARE(library.sensitivityInputs(f.model.fingerprint, "bf16"),
             std::vector<std::string>{apart});
    QVERIFY(library.sensitivities(f.model.fingerprint, "bf16", key).empty());
    QCOMPARE(library.sensitivities(f.model.fingerprint, "bf16", apart).size(), std::size_t{1});
    Graph g;
    g.fingerprint = f.model.fingerprint;
    QVERIFY(newestActivationRanges(library, g).empty());
    library.addActivationRanges(
        std::vector<ActivationRangeRecord>{{f.model.fingerprint, "x", key, -3.0, 4.0, {}}});
    const ActivationRanges ranges = newestActivationRanges(library, g);
    QCOMPARE(ranges.size(), std::size_t{1});
    QCOMPARE(ranges.at("x").hi, 4.0);
    QVERIFY(library.integrityProblems().empty());
}

// A library written by version 2 (micro-benchmarks, no device_contention) is upgraded in place:
// samples, benchmark vectors, stale marks, plans and predictors are all still there, and
// contention can be stored.
void TestStore::migratesVersionTwoLibrary() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("samples.db"));
    const Fixture f;
    const DeviceRecord other = testDevice("cpu:1");
    {
        SampleLibrary library = SampleLibrary::open(path.toStdString());
        f.store(library);
        library.upsertDevice(other);
        library.addSamples(std::vector<Sample>{f.sample(10.0), f.sample(12.0)});
        recordBenchmark(library, f.device.fingerprint, MicroBenchmark{40.0, 10.0, 2.0});
        recordBenchmark(library, f.device.fingerprint, MicroBenchmark{20.0, 10.0, 2.0});
        PlanRecord plan;
        plan.modelFingerprint = f.model.fingerprint;
        plan.deviceSetJson = R"(["cpu"])";
        plan.objectivesJson = R"({"latency_us":1})";
        plan.assignmentJson = R"({"conv1":"cpu"})";
        plan.source = "searched";
        library.addPlan(plan);
        PredictorRecord predictor;
        predictor.trainSetJson = "{}";
        predictor.metricsJson = "{}";
        predictor.weights = std::string("\0\1\2", 3);
        library.addPredictor(predictor);
    }
    // What version 2 wrote: everything but the new table.
    rawQuery(path, kWithoutVersionFive);
    rawQuery(path, "DROP TABLE tune_rounds; DROP TABLE device_contention; PRAGMA user_version = 2");
    const QStringList before = rawQuery(
        path, "SELECT (SELECT count(*) FROM perf_samples), (SELECT count(*) FROM perf_samples "
              "WHERE stale = 1), (SELECT count(*) FROM device_benchmarks), (SELECT count(*) FROM "
              "stale_marks), (SELECT count(*) FROM plans), (SELECT count(*) FROM predictors), "
              "(SELECT count(*) FROM devices)");
    QCOMPARE(before, QStringList{QStringLiteral("2|2|2|1|1|1|2")});

    SampleLibrary library = SampleLibrary::open(path.toStdString());
    QCOMPARE(library.schemaVersion(), SampleLibrary::kSchemaVersion);
    QCOMPARE(rawQuery(path, "PRAGMA user_version"),
             QStringList{QString::number(SampleLibrary::kSchemaVersion)});
    QCOMPARE(rawQuery(path, "SELECT (SELECT count(*) FROM perf_samples), (SELECT count(*) FROM "
                            "perf_samples WHERE stale = 1), (SELECT count(*) FROM "
                            "device_benchmarks), (SELECT count(*) FROM stale_marks), (SELECT "
                            "count(*) FROM plans), (SELECT count(*) FROM predictors), (SELECT "
                            "count(*) FROM devices)"),
             before);
    // Version 5 keyed every stored sample: storing one again adds nothing.
    QCOMPARE(rawQuery(path, "SELECT count(DISTINCT sample_key) FROM perf_samples"),
             QStringList{QStringLiteral("2")});
    const std::vector<Sample> stored = library.samples();
    QCOMPARE(library.addSamples(stored), (std::vector<std::int64_t>{stored[0].id, stored[1].id}));
    QCOMPARE(library.sampleCount(), 2);
    QCOMPARE(library.referenceBenchmark(f.device.fingerprint)->gemmGflops, 20.0);
    QCOMPARE(library.benchmarks(f.device.fingerprint).size(), std::size_t(2));
    QCOMPARE(library.plans().size(), std::size_t(1));
    QCOMPARE(library.latestPredictor()->weights, std::string("\0\1\2", 3));
    QVERIFY(!library.contention(f.device.fingerprint, other.fingerprint));
    ContentionRecord c;
    c.deviceFingerprint = f.device.fingerprint;
    c.besideFingerprint = other.fingerprint;
    c.factor = 1.2;
    QVERIFY(library.addContention(c) > 0);
    QCOMPARE(library.contention(f.device.fingerprint, other.fingerprint)->factor, 1.2);
    QVERIFY(library.integrityProblems().empty());
}

// Contention is directed (device slowed beside the other), the newest row of a pair is the one
// read, and values a co-run cannot produce are refused without writing anything.
void TestStore::contentionRoundTrips() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("samples.db"));
    SampleLibrary library = SampleLibrary::open(path.toStdString());
    const DeviceRecord a = testDevice("cpu:0");
    const DeviceRecord b = testDevice("cpu:1");
    library.upsertDevice(a);
    library.upsertDevice(b);
    ContentionRecord c;
    c.deviceFingerprint = a.fingerprint;
    c.besideFingerprint = b.fingerprint;
    c.measuredAt = "2026-12-01T10:00:00.000Z";
    c.factor = 1.25;
    c.gemmBesideGemm = 1.01;
    c.gemmBesideTriad = 1.05;
    c.triadBesideGemm = 0.98; // raw ratios may dip under 1 by noise
    c.triadBesideTriad = 2.0;
    const std::int64_t first = library.addContention(c);
    const auto stored = library.contention(a.fingerprint, b.fingerprint);
    QVERIFY(stored);
    QCOMPARE(stored->id, first);
    QCOMPARE(stored->measuredAt, c.measuredAt);
    QCOMPARE(stored->factor, 1.25);
    QCOMPARE(stored->gemmBesideGemm, 1.01);
    QCOMPARE(stored->gemmBesideTriad, 1.05);
    QCOMPARE(stored->triadBesideGemm, 0.98);
    QCOMPARE(stored->triadBesideTriad, 2.0);
    QVERIFY(!library.contention(b.fingerprint, a.fingerprint)); // directed

    c.measuredAt.clear();
    c.factor = 1.1;
    const std::int64_t second = library.addContention(c);
    QVERIFY(second > first);
    QCOMPARE(library.contention(a.fingerprint, b.fingerprint)->factor, 1.1);
    QVERIFY(!library.contention(a.fingerprint, b.fingerprint)->measuredAt.empty());

    const auto refused = [&](ContentionRecord bad) {
        try {
            library.addContention(bad);
        } catch (const InputError&) {
            return true;
        }
        return false;
    };
    ContentionRecord bad = c;
    bad.factor = 0.9;
    QVERIFY(refused(bad));
    bad.factor = std::nan("");
    QVERIFY(refused(bad));
    bad = c;
    bad.triadBesideTriad = 0.0;
    QVERIFY(refused(bad));
    bad = c;
    bad.besideFingerprint = a.fingerprint;
    QVERIFY(refused(bad));
    bad = c;
    bad.besideFingerprint = fingerprintOf("unknown");
    QVERIFY(refused(bad));
    QCOMPARE(rawQuery(path, "SELECT count(*) FROM device_contention"),
             QStringList{QStringLiteral("2")});
}

void TestStore::staleSamplesAreKept() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("samples.db"));
    SampleLibrary library = SampleLibrary::open(path.toStdString());
    const Fixture f;
    f.store(library);
    const DeviceRecord gpu = testDevice("gpu");
    library.upsertDevice(gpu);
    Sample onGpu = f.sample(5.0);
    onGpu.deviceFingerprint = gpu.fingerprint;
    library.addSamples(std::vector<Sample>{f.sample(10.0), f.sample(11.0), onGpu});

    QCOMPARE(library.markDeviceStale(f.device.fingerprint, "matmul benchmark 18% slower"), 2);
    QCOMPARE(library.sampleCount(), 3);                                        // kept
    QVERIFY(!library.findSample(f.signature.signature, f.device.fingerprint)); // not reused
    QVERIFY(library.findSample(f.signature.signature, gpu.fingerprint));       // other device
    const std::vector<Sample> all = library.samples();
    QCOMPARE(all.size(), std::size_t(3));
    QVERIFY(all[0].stale && all[1].stale && !all[2].stale);
    SampleFilter fresh;
    fresh.includeStale = false;
    QCOMPARE(library.samples(fresh).size(), std::size_t(1));
    QCOMPARE(rawQuery(path, "SELECT reason, sample_count FROM stale_marks"),
             QStringList{QStringLiteral("matmul benchmark 18% slower|2")});

    // Measured again after the drift: fresh, and the lookup finds it.
    library.addSamples(std::vector<Sample>{f.sample(12.0)});
    const std::optional<Sample> found =
        library.findSample(f.signature.signature, f.device.fingerprint);
    QVERIFY(found);
    QCOMPARE(found->latencyUs, 12.0);
    QCOMPARE(library.markDeviceStale(f.device.fingerprint, "again"), 1); // only the fresh one
    QVERIFY_THROWS_EXCEPTION(InputError,
                             library.markDeviceStale(fingerprintOf("unknown"), "no such device"));
}

void TestStore::filters() {
    QTemporaryDir dir;
    SampleLibrary library =
        SampleLibrary::open(dir.filePath(QStringLiteral("samples.db")).toStdString());
    const Fixture f;
    f.store(library);
    const DeviceRecord gpu = testDevice("gpu");
    const ModelRecord other = testModel("other");
    library.upsertDevice(gpu);
    library.upsertModel(other);
    std::vector<Sample> batch;
    for (int i = 0; i < 8; ++i) {
        Sample s = f.sample(i);
        s.deviceFingerprint = (i % 2 ? gpu : f.device).fingerprint;
        s.modelFingerprint = (i < 3 ? other : f.model).fingerprint;
        batch.push_back(s);
    }
    library.addSamples(batch);

    auto count = [&](SampleFilter filter) { return library.samples(filter).size(); };
    SampleFilter filter;
    QCOMPARE(count(filter), std::size_t(8));
    filter.modelPrefix = other.fingerprint.substr(0, 6);
    QCOMPARE(count(filter), std::size_t(3));
    filter.devicePrefix = gpu.fingerprint.substr(0, 3);
    QCOMPARE(count(filter), std::size_t(1)); // sample 1
    filter = {};
    filter.devicePrefix = QString::fromStdString(gpu.fingerprint).toUpper().toStdString();
    QCOMPARE(count(filter), std::size_t(4)); // case does not matter
    filter.limit = 2;
    const std::vector<Sample> limited = library.samples(filter);
    QCOMPARE(limited.size(), std::size_t(2));
    QCOMPARE(limited[0].latencyUs, 1.0);
    QCOMPARE(limited[1].latencyUs, 3.0);
    filter = {};
    filter.signaturePrefix = f.signature.signature.substr(0, 4);
    QCOMPARE(count(filter), std::size_t(8));
    filter.modelPrefix = "0000000000000000000000000000000000000000000000000000000000000000";
    QCOMPARE(count(filter), std::size_t(0));

    for (const char* bad : {"xyz", "12*", "1'--", "%"}) {
        SampleFilter wrong;
        wrong.modelPrefix = bad;
        QVERIFY_THROWS_EXCEPTION(InputError, library.samples(wrong));
    }
    SampleFilter tooLong;
    tooLong.devicePrefix = gpu.fingerprint + "0";
    QVERIFY_THROWS_EXCEPTION(InputError, library.samples(tooLong));
}

void TestStore::batchIsAtomic() {
    QTemporaryDir dir;
    SampleLibrary library =
        SampleLibrary::open(dir.filePath(QStringLiteral("samples.db")).toStdString());
    const Fixture f;
    f.store(library);
    library.addSamples(std::vector<Sample>{f.sample(1.0)});
    QCOMPARE(library.addSamples(std::vector<Sample>{}).size(), std::size_t(0));

    // The third sample names a device that was never stored: the database refuses it, and the
    // two before it go too.
    std::vector<Sample> batch{f.sample(2.0), f.sample(3.0), f.sample(4.0), f.sample(5.0)};
    const std::string unknown = fingerprintOf("device never stored");
    batch[2].deviceFingerprint = unknown;
    try {
        library.addSamples(batch);
        QFAIL("a batch with an unknown device was stored");
    } catch (const InputError& e) {
        const QString message = QString::fromUtf8(e.what());
        QVERIFY2(message.contains(QStringLiteral("sample 3 of 4")), e.what());
        QVERIFY2(message.contains(QString::fromStdString(unknown)), e.what());
        QVERIFY2(message.contains(dir.path()), e.what());
    }
    QCOMPARE(library.sampleCount(), 1);
    batch[2] = f.sample(4.0);
    batch[3].opSignature = signatureOf("signature never stored");
    QVERIFY_THROWS_EXCEPTION(InputError, library.addSamples(batch));
    batch[3] = f.sample(5.0);
    batch[1].modelFingerprint = fingerprintOf("model never stored");
    QVERIFY_THROWS_EXCEPTION(InputError, library.addSamples(batch));
    QCOMPARE(library.sampleCount(), 1);

    // The library stays usable after a refused batch.
    batch[1] = f.sample(3.0);
    QCOMPARE(library.addSamples(batch).size(), std::size_t(4));
    QCOMPARE(library.sampleCount(), 5);

    // Signatures in one transaction too: a malformed one keeps the others out.
    std::vector<SignatureRecord> signatures{testSignature("a"), testSignature("b"),
                                            testSignature("c")};
    signatures[2].shapesJson = "{broken";
    QVERIFY_THROWS_EXCEPTION(InputError, library.upsertSignatures(signatures));
    QVERIFY(!library.signature(signatures[0].signature));
    signatures[2] = testSignature("c");
    library.upsertSignatures(signatures);
    QVERIFY(library.signature(signatures[0].signature) &&
            library.signature(signatures[2].signature));
}

void TestStore::rejectsMalformedValues() {
    QTemporaryDir dir;
    SampleLibrary library =
        SampleLibrary::open(dir.filePath(QStringLiteral("samples.db")).toStdString());
    const Fixture f;
    f.store(library);

    DeviceRecord device = testDevice();
    device.fingerprint = "abc";
    QVERIFY_THROWS_EXCEPTION(InputError, library.upsertDevice(device));
    device = testDevice();
    device.fingerprint[0] = 'G';
    QVERIFY_THROWS_EXCEPTION(InputError, library.upsertDevice(device));
    device = testDevice();
    device.specJson = "{not json";
    QVERIFY_THROWS_EXCEPTION(InputError, library.upsertDevice(device));
    ModelRecord model = testModel();
    model.fingerprint = model.fingerprint.substr(0, 32);
    QVERIFY_THROWS_EXCEPTION(InputError, library.upsertModel(model));
    SignatureRecord signature = testSignature();
    signature.signature = fingerprintOf("64 digits is a fingerprint, not a signature");
    QVERIFY_THROWS_EXCEPTION(InputError, library.upsertSignature(signature));

    auto rejects = [&](const std::function<void(Sample&)>& spoil) {
        std::vector<Sample> batch{f.sample(1.0), f.sample(2.0)};
        spoil(batch[1]);
        try {
            library.addSamples(batch);
        } catch (const InputError& e) {
            return QString::fromUtf8(e.what()).contains(QStringLiteral("sample 2 of 2"));
        }
        return false;
    };
    QVERIFY(rejects([](Sample& s) { s.latencyUs = std::nan(""); }));
    QVERIFY(rejects([](Sample& s) { s.latencyUs = -1.0; }));
    QVERIFY(rejects([](Sample& s) { s.energyUj = INFINITY; }));
    QVERIFY(rejects([](Sample& s) { s.opMeta = "[1,"; }));
    QVERIFY(rejects([](Sample& s) { s.configJson = "threads=4"; }));
    QVERIFY(rejects([](Sample& s) { s.repeats = -3; }));
    QVERIFY(rejects([](Sample& s) { s.opSignature = "Conv"; }));
    QCOMPARE(library.sampleCount(), 0);
}

void TestStore::graphRecords() {
    const ImportResult imported = importOnnxFile(PARETUNE_SAMPLE_MODEL);
    const Graph& g = imported.graph;
    QTemporaryDir dir;
    SampleLibrary library =
        SampleLibrary::open(dir.filePath(QStringLiteral("samples.db")).toStdString());
    library.upsertGraph(g);
    library.upsertGraph(g); // idempotent

    const std::optional<ModelRecord> model = library.model(g.fingerprint);
    QVERIFY(model);
    QCOMPARE(model->nodeCount, static_cast<std::int64_t>(g.nodes.size()));
    QCOMPARE(model->sourcePath, g.sourcePath);
    QVERIFY(!model->name.empty());

    const std::vector<SignatureRecord> records = signatureRecordsOf(g);
    std::set<std::string> computeSignatures;
    for (std::size_t n = 0; n < g.nodes.size(); ++n) {
        if (g.nodes[n].kind == NodeKind::Compute) {
            computeSignatures.insert(g.signatures[n]);
        }
    }
    QCOMPARE(records.size(), computeSignatures.size());
    QVERIFY(!records.empty());
    for (const SignatureRecord& r : records) {
        const std::optional<SignatureRecord> stored = library.signature(r.signature);
        QVERIFY(stored);
        QCOMPARE(stored->opType, r.opType);
        QCOMPARE(stored->flops, r.flops);
        const nlohmann::json shapes = nlohmann::json::parse(stored->shapesJson);
        QVERIFY(shapes.contains("inputs") && shapes.contains("outputs"));
        QVERIFY(!shapes["outputs"].empty());
    }

    // A sample built from a node carries the node's keys; the profiler adds device and figures.
    const DeviceRecord device = testDevice();
    library.upsertDevice(device);
    std::vector<Sample> batch;
    for (std::size_t n = 0; n < g.nodes.size(); ++n) {
        if (g.nodes[n].kind != NodeKind::Compute) {
            continue;
        }
        Sample s = sampleFor(g, static_cast<NodeId>(n));
        QCOMPARE(s.opType, g.nodes[n].opType);
        QVERIFY(QString::fromStdString(s.shapeTuple).contains(QStringLiteral("->")));
        QCOMPARE(nlohmann::json::parse(s.opMeta)["node"].get<std::string>(), g.nodes[n].name);
        s.deviceFingerprint = device.fingerprint;
        s.latencyUs = 1.0 + static_cast<double>(n);
        s.repeats = 10;
        batch.push_back(s);
    }
    library.addSamples(batch);
    for (std::size_t n = 0; n < g.nodes.size(); ++n) {
        if (g.nodes[n].kind == NodeKind::Compute) {
            QVERIFY(library.findSample(g.signatures[n], device.fingerprint));
        }
    }
    SampleFilter filter;
    filter.modelPrefix = g.fingerprint.substr(0, 8);
    QCOMPARE(library.samples(filter).size(), batch.size());
}

void TestStore::badFilesAreLeftAlone_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("message");
    QTest::newRow("text file") << QStringLiteral("text")
                               << QStringLiteral("not an SQLite database");
    QTest::newRow("ONNX model") << QStringLiteral("onnx")
                                << QStringLiteral("not an SQLite database");
    QTest::newRow("another application's database")
        << QStringLiteral("foreign")
        << QStringLiteral("not a Paretune sample library (tables: moz_places");
    QTest::newRow("another application's database, log not checkpointed")
        << QStringLiteral("foreign-wal") << QStringLiteral("write-ahead-log mode); it was left");
    QTest::newRow("database with an application id")
        << QStringLiteral("foreign-id") << QStringLiteral("application id 1234");
    QTest::newRow("damaged schema page")
        << QStringLiteral("corrupt-schema") << QStringLiteral("damaged");
    QTest::newRow("damaged data pages")
        << QStringLiteral("corrupt-data") << QStringLiteral("damaged");
    QTest::newRow("truncated header") << QStringLiteral("truncated") << QStringLiteral("damaged");
    QTest::newRow("newer schema") << QStringLiteral("newer")
                                  << QStringLiteral("schema version 99, newer");
    QTest::newRow("folder") << QStringLiteral("folder") << QStringLiteral("is a folder");
}

void TestStore::badFilesAreLeftAlone() {
    QFETCH(QString, kind);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("samples.db"));
    if (kind == QLatin1String("text")) {
        writeAll(path, "device,latency\ncpu,12.5\n");
    } else if (kind == QLatin1String("onnx")) {
        QVERIFY(QFile::copy(QStringLiteral(PARETUNE_SAMPLE_MODEL), path));
    } else if (kind == QLatin1String("foreign")) {
        rawQuery(path, "CREATE TABLE moz_places(id INTEGER PRIMARY KEY, url TEXT);"
                       "INSERT INTO moz_places(url) VALUES('https://example.org');");
    } else if (kind == QLatin1String("foreign-wal")) {
        const QString failure = writeUncheckpointedWalDatabase(path, QDir(dir.path()));
        QVERIFY2(failure.isEmpty(), qPrintable(failure));
    } else if (kind == QLatin1String("foreign-id")) {
        rawQuery(path, "PRAGMA application_id = 1234");
    } else if (kind.startsWith(QLatin1String("corrupt")) || kind == QLatin1String("truncated")) {
        makeLibrary(path, 2000);
        QByteArray bytes = readAll(path);
        QVERIFY(bytes.size() > 16 * 4096);
        if (kind == QLatin1String("corrupt-schema")) {
            for (int i = 100; i < 4096; ++i) { // page 1 after the header: sqlite_master
                bytes[i] = static_cast<char>(0xA5 ^ i);
            }
        } else if (kind == QLatin1String("corrupt-data")) {
            for (qsizetype i = 5 * 4096; i < bytes.size(); ++i) {
                bytes[i] = static_cast<char>((i * 7919) & 0xff);
            }
        } else {
            bytes.truncate(40);
        }
        writeAll(path, bytes);
    } else if (kind == QLatin1String("newer")) {
        makeLibrary(path, 1);
        rawQuery(path, "PRAGMA user_version = 99");
    } else {
        QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("samples.db")));
    }
    const QByteArray before = readAll(path);
    const QString wal = path + QStringLiteral("-wal");
    const QByteArray walBefore = QFile::exists(wal) ? readAll(wal) : QByteArray();
    const QFileInfo info(path);
    const QDateTime modified = info.lastModified();

    try {
        const SampleLibrary library = SampleLibrary::open(path.toStdString());
        // Damage beyond the schema shows when the pages are read.
        library.samples();
        const std::vector<std::string> problems = library.integrityProblems();
        QFAIL(qPrintable(QStringLiteral("opened and read without an error; integrity: ") +
                         QString::fromStdString(problems.empty() ? "ok" : problems.front())));
    } catch (const InputError& e) {
        const QString text = QString::fromUtf8(e.what());
        QVERIFY2(text.startsWith(path), e.what());
        QVERIFY2(text.contains(message), e.what());
    }
    QCOMPARE(readAll(path), before);
    QCOMPARE(QFileInfo(path).lastModified(), modified);
    QVERIFY(!QFile::exists(path + QStringLiteral("-journal")));
    QCOMPARE(QFile::exists(wal) ? readAll(wal) : QByteArray(), walBefore);
    QVERIFY(!QFile::exists(path + QStringLiteral("-shm")));
}

void TestStore::specialFilesAreRefused() {
    // A FIFO would block the first read and a device never ends: both are refused before any
    // read, and nothing is created beside them (no /dev/null-journal).
    QTemporaryDir dir;
    const QString fifo = dir.filePath(QStringLiteral("samples.db"));
    QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    for (const QString& path : {fifo, QStringLiteral("/dev/null")}) {
        try {
            SampleLibrary::open(path.toStdString());
            QFAIL(qPrintable(path + QStringLiteral(": opened")));
        } catch (const InputError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).startsWith(path + QStringLiteral(": not a regular "
                                                                                  "file (a ")),
                     e.what());
        }
        for (const char* suffix : {"-journal", "-wal", "-shm"}) {
            QVERIFY(!QFileInfo::exists(path + QLatin1String(suffix)));
        }
    }
    QCOMPARE(QDir(dir.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries | QDir::System),
             QStringList{QStringLiteral("samples.db")});
}

void TestStore::damagedLibraryIsNeverWritten() {
    // Pages past the schema damaged: the file opens, but the first write finds the damage
    // (quick_check) and writes nothing.
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("samples.db"));
    makeLibrary(path, 2000);
    QByteArray bytes = readAll(path);
    QVERIFY(bytes.size() > 16 * 4096);
    for (qsizetype i = 5 * 4096; i < bytes.size(); ++i) {
        bytes[i] = static_cast<char>((i * 7919) & 0xff);
    }
    writeAll(path, bytes);
    try {
        SampleLibrary library = SampleLibrary::open(path.toStdString());
        const std::vector<Sample> one{Fixture{}.sample(1.0)};
        library.addSamples(one);
        QFAIL("a sample was added to a damaged library");
    } catch (const InputError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("damaged")) &&
                     QString::fromUtf8(e.what()).contains(QStringLiteral("left as it is")),
                 e.what());
    }
    QCOMPARE(readAll(path), bytes);
    for (const char* suffix : {"-journal", "-wal"}) {
        QVERIFY(!QFileInfo::exists(path + QLatin1String(suffix)) ||
                QFileInfo(path + QLatin1String(suffix)).size() == 0);
    }
}

void TestStore::existingOnly() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("missing/samples.db"));
    QVERIFY_THROWS_EXCEPTION(
        InputError, SampleLibrary::open(path.toStdString(), SampleLibrary::OpenMode::ExistingOnly));
    QVERIFY(!QFile::exists(path));
    QVERIFY(!QDir(dir.filePath(QStringLiteral("missing"))).exists());
}

void TestStore::twoWriterProcesses() {
    // Both start on a file that does not exist yet, so they also race to create the schema.
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("shared/samples.db"));
    constexpr int kBatches = 40;
    constexpr int kBatchSize = 25;
    QProcess a;
    QProcess b;
    const QStringList common{QString::number(kBatches), QString::number(kBatchSize)};
    a.start(writerPath(),
            QStringList{QStringLiteral("--writer"), path, QStringLiteral("a")} + common);
    b.start(writerPath(),
            QStringList{QStringLiteral("--writer"), path, QStringLiteral("b")} + common);
    QVERIFY(a.waitForFinished(120000));
    QVERIFY(b.waitForFinished(120000));
    QCOMPARE(a.exitStatus(), QProcess::NormalExit);
    QCOMPARE(b.exitStatus(), QProcess::NormalExit);
    QVERIFY2(a.exitCode() == 0, a.readAllStandardError().constData());
    QVERIFY2(b.exitCode() == 0, b.readAllStandardError().constData());

    const SampleLibrary library = SampleLibrary::open(path.toStdString());
    QVERIFY(library.integrityProblems().empty());
    QCOMPARE(library.sampleCount(), 2 * kBatches * kBatchSize);
    std::map<std::string, std::set<std::pair<int, int>>> seen; // writer -> (batch, index)
    for (const Sample& s : library.samples()) {
        const nlohmann::json meta = nlohmann::json::parse(s.opMeta);
        seen[meta["writer"].get<std::string>()].insert(
            {meta["batch"].get<int>(), meta["index"].get<int>()});
    }
    QCOMPARE(seen["a"].size(), std::size_t(kBatches * kBatchSize));
    QCOMPARE(seen["b"].size(), std::size_t(kBatches * kBatchSize));
    QCOMPARE(library.devices().size(), std::size_t(1));
}

void TestStore::killedWriterLosesOnlyItsOpenBatch() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("samples.db"));
    constexpr int kBatchSize = 500; // big batches: the kill most likely lands inside one
    constexpr int kCommitsBeforeKill = 12;
    QProcess writer;
    writer.start(writerPath(), {QStringLiteral("--writer"), path, QStringLiteral("k"),
                                QStringLiteral("0"), QString::number(kBatchSize)});
    QVERIFY(writer.waitForStarted());
    int printed = 0;
    QByteArray pending;
    QElapsedTimer timer;
    timer.start();
    while (printed < kCommitsBeforeKill && timer.elapsed() < 120000) {
        if (!writer.waitForReadyRead(1000) && writer.state() != QProcess::Running) {
            break;
        }
        pending += writer.readAllStandardOutput();
        while (pending.contains('\n')) {
            const qsizetype end = pending.indexOf('\n');
            const QByteArray line = pending.left(end);
            pending.remove(0, end + 1);
            if (line.startsWith("committed ")) {
                printed = line.mid(10).toInt();
            }
        }
    }
    QVERIFY2(printed >= kCommitsBeforeKill, writer.readAllStandardError().constData());
    writer.kill(); // SIGKILL
    QVERIFY(writer.waitForFinished(10000));
    QCOMPARE(writer.exitStatus(), QProcess::CrashExit);
    pending += writer.readAllStandardOutput();
    for (const QByteArray& line : pending.split('\n')) {
        if (line.startsWith("committed ")) {
            printed = line.mid(10).toInt();
        }
    }

    const SampleLibrary library = SampleLibrary::open(path.toStdString());
    const std::vector<std::string> problems = library.integrityProblems();
    QVERIFY2(problems.empty(), problems.empty() ? "" : problems.front().c_str());
    const std::int64_t count = library.sampleCount();
    // Every batch it reported is there; at most the one it was committing when killed is also
    // there; never a part of a batch.
    QVERIFY2(count >= static_cast<std::int64_t>(printed) * kBatchSize,
             qPrintable(QStringLiteral("%1 samples, %2 batches reported").arg(count).arg(printed)));
    QVERIFY(count <= static_cast<std::int64_t>(printed + 1) * kBatchSize);
    QCOMPARE(count % kBatchSize, 0);
}

void TestStore::defaultPath() {
    const QByteArray savedData = qgetenv("XDG_DATA_HOME");
    const QByteArray savedHome = qgetenv("HOME");
    qputenv("XDG_DATA_HOME", "/data/xdg");
    QCOMPARE(defaultSampleLibraryPath().string(), std::string("/data/xdg/paretune/samples.db"));
    qputenv("HOME", "/home/someone");
    qunsetenv("XDG_DATA_HOME");
    QCOMPARE(defaultSampleLibraryPath().string(),
             std::string("/home/someone/.local/share/paretune/samples.db"));
    qputenv("XDG_DATA_HOME", "relative/ignored"); // the XDG spec: relative paths are invalid
    QCOMPARE(defaultSampleLibraryPath().string(),
             std::string("/home/someone/.local/share/paretune/samples.db"));
    savedData.isNull() ? qunsetenv("XDG_DATA_HOME") : qputenv("XDG_DATA_HOME", savedData);
    savedHome.isNull() ? qunsetenv("HOME") : qputenv("HOME", savedHome);
}

void TestStore::timestamps() {
    const std::string a = currentTimestamp();
    QVERIFY2(QRegularExpression(QStringLiteral(R"(^20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$)"))
                 .match(QString::fromStdString(a))
                 .hasMatch(),
             a.c_str());
    QVERIFY(currentTimestamp() >= a); // text order is time order
}

void TestStore::plansByModel() {
    QTemporaryDir dir;
    SampleLibrary library =
        SampleLibrary::open(dir.filePath(QStringLiteral("plans.db")).toStdString());
    Graph a = importOnnxFile(PARETUNE_SAMPLE_MODEL).graph;
    Graph b = a;
    b.fingerprint = std::string(64, 'b'); // a second model, as far as the library can tell
    library.upsertGraph(a);
    library.upsertGraph(b);
    const std::string modelA = a.fingerprint;
    const std::string modelB = b.fingerprint;
    for (const std::string& model : {modelA, modelB, modelA}) {
        PlanRecord plan;
        plan.modelFingerprint = model;
        plan.deviceSetJson = "[]";
        plan.objectivesJson = "{}";
        plan.assignmentJson = "{}";
        plan.source = "validated";
        QVERIFY(library.addPlan(plan) > 0);
    }
    // No fingerprint (an empty view, whose data pointer may be null): every model's plans.
    QCOMPARE(library.plans().size(), std::size_t{3});
    QCOMPARE(library.plans(std::string_view()).size(), std::size_t{3});
    const std::vector<PlanRecord> plansOfA = library.plans(modelA);
    QCOMPARE(plansOfA.size(), std::size_t{2});
    QVERIFY(plansOfA[0].id < plansOfA[1].id);
    QCOMPARE(library.plans(modelB).front().modelFingerprint, modelB);
    QVERIFY(library.plans(std::string(64, 'c')).empty());
}

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "--writer") == 0) {
        return runWriter(argc, argv);
    }
    QCoreApplication app(argc, argv);
    TestStore test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}

#include "tst_store.moc"
