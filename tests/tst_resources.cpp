// SPDX-License-Identifier: GPL-3.0-or-later
// Shared resources of the real devices: the co-run (contention) benchmark, its factors stored
// once per pair, and cost tables given exclusive pairs (shared cores) and measured contention.
// No timing is asserted: figures are only checked to be finite and at least 1.
#include "common/input_error.h"
#include "cost/cost_table.h"
#include "cost/device_catalog.h"
#include "device/corun_benchmark.h"
#include "device/device.h"
#include "device/device_fingerprint.h"
#include "graph/onnx_importer.h"
#include "predict/device_resources.h"
#include "profile/contention_profile.h"
#include "store/graph_records.h"
#include "store/sample_library.h"
#include "testpaths.h"
#include "workflow/search_workflow.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <string_view>
#include <vector>

using namespace paretune;

namespace {

/// A topology from text: cores separated by ';', the Linux CPU ids of a core by ','
/// ("0,2;1,3": two cores with two SMT siblings each).
CpuTopology topologyOf(const QString& text) {
    CpuTopology t;
    t.name = "Test CPU";
    for (const QString& core : text.split(QLatin1Char(';'))) {
        std::vector<std::int32_t> cpus;
        for (const QString& cpu : core.split(QLatin1Char(','))) {
            cpus.push_back(cpu.toInt());
        }
        std::sort(cpus.begin(), cpus.end());
        t.logicalProcessors += static_cast<std::int32_t>(cpus.size());
        t.coreProcessors.push_back(cpus);
    }
    t.physicalCores = static_cast<std::int32_t>(t.coreProcessors.size());
    t.l2Bytes = 2 << 20;
    t.l3Bytes = 32 << 20;
    return t;
}

/// A cost table without nodes over the given device ids (comma separated).
CostTable tableOf(const QString& ids) {
    std::vector<CostDevice> devices;
    for (const QString& id : ids.split(QLatin1Char(','))) {
        CostDevice d;
        d.id = id.toStdString();
        d.kind = id.startsWith(QStringLiteral("cpu")) ? "cpu" : "npu";
        devices.push_back(d);
    }
    return CostTable(0, std::move(devices), 0);
}

/// "a-b" for each exclusive pair (a before b in table order), space separated.
QString exclusivePairs(const CostTable& table) {
    QStringList pairs;
    for (std::int32_t a = 0; a < table.deviceCount(); ++a) {
        for (std::int32_t b = a + 1; b < table.deviceCount(); ++b) {
            if (table.exclusive(a, b) != table.exclusive(b, a)) {
                return QStringLiteral("asymmetric");
            }
            if (table.exclusive(a, b)) {
                pairs << QString::fromStdString(table.device(a).id + "-" + table.device(b).id);
            }
        }
    }
    return pairs.join(QLatin1Char(' '));
}

bool hasNote(const Diagnostics& notes, const std::string& code, const std::string& text) {
    for (const Diagnostic& d : notes) {
        if (d.code == code && d.message.find(text) != std::string::npos) {
            return true;
        }
    }
    return false;
}

QString notesText(const Diagnostics& notes) {
    QStringList lines;
    for (const Diagnostic& d : notes) {
        lines << QString::fromStdString(d.code + ": " + d.message);
    }
    return lines.join(QLatin1Char('\n'));
}

bool plausible(double slowdown) {
    return std::isfinite(slowdown) && slowdown > 0.0;
}

/// Two devices of this machine that can run at the same time (cpu:0, cpu:1), or none.
std::vector<Device> disjointPair() {
    const std::vector<Device> devices = cpuDevices(cpuTopology());
    const std::vector<const Device*> partners = coRunPartners(devices[1], devices);
    if (partners.empty()) {
        return {};
    }
    return {devices[1], *partners.front()};
}

} // namespace

class TestResources : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void partnersCanRunTogether_data();
    void partnersCanRunTogether();
    void coRunFactorIsAtLeastOne();
    void coRunRefusesDevicesThatCannotRunTogether();
    void contentionIsMeasuredOncePerPair();
    void exclusivePairsFollowCpuSets_data();
    void exclusivePairsFollowCpuSets();
    void measuredFactorsComeFromTheLibrary();
    void searchKnowsSharedCores();
    void gpuLinksComeFromTheLibrary();
};

void TestResources::partnersCanRunTogether_data() {
    QTest::addColumn<QString>("topology");
    QTest::addColumn<QString>("device");
    QTest::addColumn<QString>("partners");
    QTest::newRow("one core: none") << "0"
                                    << "cpu:0"
                                    << "";
    QTest::newRow("cpu holds every core") << "0;1;2"
                                          << "cpu"
                                          << "";
    QTest::newRow("two cores") << "0;1"
                               << "cpu:1"
                               << "cpu:0";
    QTest::newRow("four cores") << "0;1;2;3"
                                << "cpu:2"
                                << "cpu:0 cpu:1 cpu:3";
    QTest::newRow("SMT siblings stay in their core") << "0,2;1,3"
                                                     << "cpu:0"
                                                     << "cpu:1";
}

void TestResources::partnersCanRunTogether() {
    QFETCH(QString, topology);
    QFETCH(QString, device);
    QFETCH(QString, partners);
    const std::vector<Device> devices = cpuDevices(topologyOf(topology));
    const Device* d = nullptr;
    for (const Device& candidate : devices) {
        d = candidate.id == device.toStdString() ? &candidate : d;
    }
    QVERIFY(d != nullptr);
    QStringList ids;
    for (const Device* p : coRunPartners(*d, devices)) {
        QVERIFY(sharedCpus(*d, *p).empty());
        ids << QString::fromStdString(p->id);
    }
    QCOMPARE(ids.join(QLatin1Char(' ')), partners);
}

// Both directions, every kernel pair: finite positive slowdowns, a factor of at least 1.
void TestResources::coRunFactorIsAtLeastOne() {
    const std::vector<Device> pair = disjointPair();
    if (pair.empty()) {
        QSKIP("one physical core: no two devices of this machine can run at the same time");
    }
    const CoRunBenchmark run = runCoRunBenchmark(pair[0], pair[1], {true});
    for (const CoRunSlowdown* s : {&run.first, &run.second}) {
        QVERIFY(plausible(s->gemmBesideGemm));
        QVERIFY(plausible(s->gemmBesideTriad));
        QVERIFY(plausible(s->triadBesideGemm));
        QVERIFY(plausible(s->triadBesideTriad));
        QVERIFY(std::isfinite(s->factor()));
        QVERIFY(s->factor() >= 1.0);
    }
    QVERIFY(run.seconds > 0.0);
    qInfo("%s beside %s: factor %.3f (GEMM|GEMM %.3f, GEMM|triad %.3f, triad|GEMM %.3f, "
          "triad|triad %.3f); reverse %.3f; %.2f s",
          pair[0].id.c_str(), pair[1].id.c_str(), run.first.factor(), run.first.gemmBesideGemm,
          run.first.gemmBesideTriad, run.first.triadBesideGemm, run.first.triadBesideTriad,
          run.second.factor(), run.seconds);
    // The factor is the clamped mean of the four slowdowns.
    CoRunSlowdown under;
    under.gemmBesideGemm = under.gemmBesideTriad = under.triadBesideGemm = 0.9;
    under.triadBesideTriad = 1.2;
    QCOMPARE(under.factor(), 1.0);
    under.triadBesideTriad = 2.3;
    QCOMPARE(under.factor(), 1.25);
}

void TestResources::coRunRefusesDevicesThatCannotRunTogether() {
    const std::vector<Device> devices = cpuDevices(cpuTopology());
    // cpu holds cpu:0's core: they never run at once, there is nothing to measure.
    QVERIFY_THROWS_EXCEPTION(InputError, runCoRunBenchmark(devices[0], devices[1]));
    Device modelled = devices[1];
    modelled.tag = DeviceTag::Modelled;
    QVERIFY_THROWS_EXCEPTION(InputError, runCoRunBenchmark(modelled, devices[0]));
}

// The first profile measures each pair once and stores both directions; the next finds them.
void TestResources::contentionIsMeasuredOncePerPair() {
    const std::vector<Device> devices = cpuDevices(cpuTopology());
    QTemporaryDir dir;
    SampleLibrary library =
        SampleLibrary::open(dir.filePath(QStringLiteral("samples.db")).toStdString());
    // `cpu` shares its cores with every cpu:N: nothing to measure, on any machine.
    QVERIFY(measureMissingContention(library, devices[0], devices).empty());
    const std::vector<Device> pair = disjointPair();
    if (pair.empty()) {
        QSKIP("one physical core: no two devices of this machine can run at the same time");
    }
    const std::vector<ContentionMeasurement> first =
        measureMissingContention(library, pair[0], devices);
    QCOMPARE(first.size(), coRunPartners(pair[0], devices).size());
    for (const ContentionMeasurement& m : first) {
        QCOMPARE(m.deviceId, pair[0].id);
        for (const ContentionRecord* r : {&m.deviceSlowed, &m.besideSlowed}) {
            QVERIFY(r->id > 0);
            QVERIFY(std::isfinite(r->factor) && r->factor >= 1.0);
            const auto stored = library.contention(r->deviceFingerprint, r->besideFingerprint);
            QVERIFY(stored);
            QCOMPARE(stored->id, r->id);
            QCOMPARE(stored->factor, r->factor);
        }
    }
    // Stored once per pair: neither the same device nor its partner measures it again.
    QVERIFY(measureMissingContention(library, pair[0], devices).empty());
    const std::vector<ContentionMeasurement> partner =
        measureMissingContention(library, pair[1], devices);
    for (const ContentionMeasurement& m : partner) {
        QVERIFY2(m.besideId != pair[0].id, m.besideId.c_str());
    }
}

void TestResources::exclusivePairsFollowCpuSets_data() {
    QTest::addColumn<QString>("topology");
    QTest::addColumn<QString>("ids");
    QTest::addColumn<QString>("exclusive");
    QTest::newRow("one core") << "0"
                              << "cpu,cpu:0"
                              << "cpu-cpu:0";
    QTest::newRow("two cores") << "0;1"
                               << "cpu,cpu:0,cpu:1"
                               << "cpu-cpu:0 cpu-cpu:1";
    QTest::newRow("SMT") << "0,2;1,3"
                         << "cpu:0,cpu:1,cpu"
                         << "cpu:0-cpu cpu:1-cpu";
    QTest::newRow("cores only") << "0;1;2;3"
                                << "cpu:0,cpu:2,cpu:3"
                                << "";
    QTest::newRow("a modelled device") << "0;1"
                                       << "npu,cpu,cpu:1"
                                       << "cpu-cpu:1";
    QTest::newRow("a core this machine lacks") << "0;1"
                                               << "cpu,cpu:5"
                                               << "";
}

// Exactly the pairs whose CPU sets intersect never run at once; without a library every
// disjoint pair keeps factor 1 and a note says that profiling measures it.
void TestResources::exclusivePairsFollowCpuSets() {
    QFETCH(QString, topology);
    QFETCH(QString, ids);
    QFETCH(QString, exclusive);
    CostTable table = tableOf(ids);
    const std::vector<Device> devices = cpuDevices(topologyOf(topology));
    const Diagnostics notes = applyDeviceResources(table, devices, nullptr);
    QCOMPARE(exclusivePairs(table), exclusive);
    std::set<std::string> disjoint; // "a beside b" over the real devices of the table
    for (std::int32_t a = 0; a < table.deviceCount(); ++a) {
        for (std::int32_t b = 0; b < table.deviceCount(); ++b) {
            QCOMPARE(table.contention(a, b), 1.0);
            if (a != b && !table.exclusive(a, b) && table.device(a).kind == "cpu" &&
                table.device(b).kind == "cpu" && table.device(a).id != "cpu:5" &&
                table.device(b).id != "cpu:5") {
                disjoint.insert(table.device(a).id);
            }
        }
    }
    for (const std::string& id : disjoint) {
        QVERIFY2(hasNote(notes, "contention-not-measured", id + " beside "),
                 qPrintable(notesText(notes)));
    }
    if (std::string_view(QTest::currentDataTag()) == "one core") {
        QVERIFY2(hasNote(notes, "shared-cores", "cpu and cpu:0 share CPU 0: never run at once"),
                 qPrintable(notesText(notes)));
    }
    for (const Diagnostic& d : notes) {
        QVERIFY(d.severity == Diagnostic::Severity::Info);
    }
}

// Disjoint pairs take the newest factor the library stores for their fingerprints, tagged
// measured, per direction; a pair without one keeps 1 with a note.
void TestResources::measuredFactorsComeFromTheLibrary() {
    const std::vector<Device> devices = cpuDevices(topologyOf(QStringLiteral("0;1;2")));
    const Device& core0 = devices[1];
    const Device& core1 = devices[2];
    QTemporaryDir dir;
    SampleLibrary library =
        SampleLibrary::open(dir.filePath(QStringLiteral("samples.db")).toStdString());
    for (const Device& d : devices) {
        library.upsertDevice(deviceRecordOf(d));
    }
    const auto store = [&](const Device& d, const Device& beside, double factor) {
        ContentionRecord c;
        c.deviceFingerprint = deviceFingerprint(d);
        c.besideFingerprint = deviceFingerprint(beside);
        c.measuredAt = "2026-12-01T12:00:00.000Z";
        c.factor = factor;
        library.addContention(c);
    };
    store(core0, core1, 1.5); // superseded by the next one
    store(core0, core1, 1.3);
    store(core1, core0, 1.1);

    CostTable table = tableOf(QStringLiteral("cpu:0,cpu:1,cpu:2,cpu"));
    const Diagnostics notes = applyDeviceResources(table, devices, &library);
    QCOMPARE(table.contention(0, 1), 1.3);
    QCOMPARE(table.contentionSource(0, 1), CostSource::Measured);
    QCOMPARE(table.contention(1, 0), 1.1);
    QCOMPARE(table.contentionSource(1, 0), CostSource::Measured);
    QCOMPARE(table.contention(0, 2), 1.0);
    QCOMPARE(table.contentionSource(0, 2), CostSource::Modelled);
    QCOMPARE(table.contention(2, 0), 1.0);
    QCOMPARE(table.contention(3, 0), 1.0); // cpu: exclusive, no contention
    QCOMPARE(exclusivePairs(table), QStringLiteral("cpu:0-cpu cpu:1-cpu cpu:2-cpu"));
    QVERIFY(table.hasSharedResources());
    const QString text = notesText(notes);
    QVERIFY2(hasNote(notes, "contention-measured",
                     "cpu:0 beside cpu:1: contention 1.30 (measured 2026-12-01)"),
             qPrintable(text));
    QVERIFY2(hasNote(notes, "contention-measured",
                     "cpu:1 beside cpu:0: contention 1.10 (measured 2026-12-01)"),
             qPrintable(text));
    QVERIFY2(hasNote(notes, "contention-not-measured",
                     "cpu:0 beside cpu:2: contention not "
                     "measured yet"),
             qPrintable(text));
    QVERIFY2(hasNote(notes, "contention-not-measured", "paretune profile MODEL --device cpu:2"),
             qPrintable(text));
    QVERIFY2(hasNote(notes, "shared-cores", "cpu shares CPU 0 with cpu:0"), qPrintable(text));
}

// runSearch applies them: a search over cpu and cpu:0 (here modelled, so that it has costs
// without a library) knows the two share a core.
void TestResources::searchKnowsSharedCores() {
    const DeviceCatalog catalog = parseDeviceCatalogText(
        R"({"schema": "paretune.devices/1", "host": "cpu", "devices": [
          {"id": "cpu", "kind": "cpu", "peak_gflops": 100, "mem_bw_gbs": 10, "launch_us": 1,
           "active_w": 10, "idle_w": 2, "memory_mb": 1024},
          {"id": "cpu:0", "kind": "cpu", "peak_gflops": 50, "mem_bw_gbs": 10, "launch_us": 1,
           "active_w": 5, "idle_w": 1, "memory_mb": 1024}],
         "links": [{"a": "cpu", "b": "cpu:0", "bandwidth_gbs": 10, "latency_us": 2,
                    "duplex": "full"}]})",
        "cores.json");
    const ImportResult model = importOnnxFile(PARETUNE_SAMPLE_MODEL);
    SearchRequest request;
    request.deviceIds = {"cpu", "cpu:0"};
    request.options.population = 8;
    request.options.generations = 2;
    const SearchRun run = runSearch(model.graph, catalog, request);
    QVERIFY(run.costs->exclusive(0, 1));
    QVERIFY2(hasNote(run.diagnostics, "shared-cores", "cpu and cpu:0 share CPU"),
             qPrintable(notesText(run.diagnostics)));
}

QTEST_GUILESS_MAIN(TestResources)
// A real GPU's newest measured link to the host replaces the catalog's modelled link on every hop
// between it and a CPU device, each direction with its own bandwidth, tagged measured; a GPU
// without one keeps the catalog's figures and a note says how to measure it. No GPU is needed:
// the device is described, its figures stored as a profile on it stores them.
void TestResources::gpuLinksComeFromTheLibrary() {
    const DeviceCatalog catalog = parseDeviceCatalogText(
        R"({"schema": "paretune.devices/1", "host": "cpu", "devices": [
          {"id": "cpu", "kind": "cpu", "cost": "measured", "active_w": 10, "idle_w": 2,
           "memory_mb": 1024},
          {"id": "cpu:0", "kind": "cpu", "cost": "measured", "active_w": 5, "idle_w": 1,
           "memory_mb": 1024},
          {"id": "cuda:0", "kind": "gpu", "cost": "measured", "active_w": 300, "idle_w": 50,
           "memory_mb": 8192}],
         "links": [{"a": "cpu", "b": "cuda:0", "bandwidth_gbs": 50, "latency_us": 10,
                    "duplex": "full"},
                   {"a": "cpu", "b": "cpu:0", "bandwidth_gbs": 100, "latency_us": 1,
                    "duplex": "full"}]})",
        "links.json");
    std::vector<Device> devices = cpuDevices(topologyOf(QStringLiteral("0;1")));
    Device gpu;
    gpu.id = "cuda:0";
    gpu.kind = "gpu";
    gpu.name = "Test GPU";
    gpu.cudaIndex = 0;
    gpu.cores = 132;
    gpu.memoryBytes = std::int64_t{8} << 30;
    devices.push_back(gpu);
    const Graph graph;
    CostTable table = buildCostTable(graph, catalog, {"cpu", "cpu:0", "cuda:0"});
    const std::int32_t cpu = table.findDevice("cpu");
    const std::int32_t core0 = table.findDevice("cpu:0");
    const std::int32_t cuda = table.findDevice("cuda:0");
    const double bytes = 1e6;
    QCOMPARE(table.transferUs(cpu, cuda, bytes), 10.0 + bytes / 50e3);

    QTemporaryDir dir;
    SampleLibrary library =
        SampleLibrary::open(dir.filePath(QStringLiteral("samples.db")).toStdString());
    for (const Device& d : devices) {
        library.upsertDevice(deviceRecordOf(d));
    }
    Diagnostics notes = applyMeasuredLinks(table, devices, &library);
    QVERIFY2(hasNote(notes, "link-not-measured", "paretune profile MODEL --device cuda:0"),
             qPrintable(notesText(notes)));
    QCOMPARE(table.transferUs(cpu, cuda, bytes), 10.0 + bytes / 50e3);
    QCOMPARE(table.path(cpu, cuda)[0].source, CostSource::Modelled);

    BenchmarkRecord b;
    b.deviceFingerprint = deviceFingerprint(gpu);
    b.measuredAt = "2026-12-02T09:00:00.000Z";
    b.gemmGflops = 50000.0;
    b.memoryBwGbs = 3000.0;
    b.hostLink = HostLinkFigures{24.5, 20.0, 8.0};
    library.addBenchmark(b);
    notes = applyMeasuredLinks(table, devices, &library);
    QVERIFY2(hasNote(notes, "link-measured",
                     "cuda:0 and the host: measured link, 24.5 GB/s to the GPU, 20.0 GB/s back, "
                     "8.0 µs (measured 2026-12-02)"),
             qPrintable(notesText(notes)));
    // Host to GPU at the host-to-device figure, back at the device-to-host one, by hand.
    QCOMPARE(table.transferUs(cpu, cuda, bytes), 8.0 + bytes / 24.5e3);
    QCOMPARE(table.transferUs(cuda, cpu, bytes), 8.0 + bytes / 20.0e3);
    QCOMPARE(table.path(cpu, cuda)[0].source, CostSource::Measured);
    // cpu:0 reaches the GPU through the host: its own hop stays the catalog's.
    const auto through = table.path(core0, cuda);
    QCOMPARE(through.size(), std::size_t(2));
    QCOMPARE(through[0].source, CostSource::Modelled);
    QCOMPARE(through[1].source, CostSource::Measured);
    QCOMPARE(table.transferUs(core0, cuda, bytes), 1.0 + bytes / 100e3 + 8.0 + bytes / 24.5e3);
    // Between CPU devices nothing changed.
    QCOMPARE(table.transferUs(cpu, core0, bytes), 1.0 + bytes / 100e3);
}

#include "tst_resources.moc"
