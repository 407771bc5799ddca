// SPDX-License-Identifier: GPL-3.0-or-later
// Device discovery, pinning, device fingerprints, micro-benchmark and drift verdicts.
#include "common/input_error.h"
#include "cost/device_catalog.h"
#include "device/cuda_devices.h"
#include "device/device.h"
#include "device/device_fingerprint.h"
#include "device/micro_benchmark.h"
#include "testpaths.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <sched.h>
#include <set>
#include <thread>

using namespace paretune;

namespace {

std::string catalogPath() {
    return PARETUNE_TEST_DATA_DIR "/devices/catalog.json";
}

const Device& deviceById(const std::vector<Device>& devices, const std::string& id) {
    for (const Device& d : devices) {
        if (d.id == id) {
            return d;
        }
    }
    throw std::runtime_error("no device " + id);
}

bool isHex64(const std::string& text) {
    return text.size() == 64 && text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

/// The calling thread's allowed CPUs.
std::set<int> affinity() {
    cpu_set_t set;
    CPU_ZERO(&set);
    std::set<int> cpus;
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        for (int c = 0; c < CPU_SETSIZE; ++c) {
            if (CPU_ISSET(c, &set)) {
                cpus.insert(c);
            }
        }
    }
    return cpus;
}

} // namespace

class TestDeviceList : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void listShape();
    void discoveredDevicesAreReal();
    void catalogDevicesAreModelled();
    void pinningPins();
    void pinningRejectsWhatCannotBePinned();
    void fingerprintIsStable();
    void fingerprintSeparatesCoreSets();
    void fingerprintIsSensitive_data();
    void fingerprintIsSensitive();
    void driftVerdicts_data();
    void driftVerdicts();
    void microBenchmarkMeasures();
    void microBenchmarkRefusesOtherDevices();
    void cudaDevicesOnlyWithGpu();
};

void TestDeviceList::listShape() {
    const CpuTopology& topology = cpuTopology();
    QVERIFY(!topology.name.empty());
    QVERIFY(topology.physicalCores >= 1);
    QVERIFY(topology.logicalProcessors >= topology.physicalCores);
    // The test process is not pinned: every CPU it may use belongs to exactly one core.
    const std::set<int> allowed = affinity();
    QCOMPARE(static_cast<std::size_t>(topology.logicalProcessors), allowed.size());

    const std::vector<Device> devices = cpuDevices(topology);
    QCOMPARE(devices.size(), static_cast<std::size_t>(topology.physicalCores) + 1);
    QCOMPARE(devices[0].id, std::string("cpu"));
    QCOMPARE(devices[0].cores, topology.physicalCores);
    QCOMPARE(std::set<int>(devices[0].cpus.begin(), devices[0].cpus.end()), allowed);

    std::set<std::string> ids;
    std::set<int> seen;
    for (std::size_t i = 0; i < devices.size(); ++i) {
        const Device& d = devices[i];
        QVERIFY2(ids.insert(d.id).second, d.id.c_str());
        QCOMPARE(d.kind, std::string("cpu"));
        QCOMPARE(d.tag, DeviceTag::Real);
        QVERIFY(d.isCpu());
        QVERIFY(!d.cpus.empty());
        QVERIFY(std::is_sorted(d.cpus.begin(), d.cpus.end()));
        if (i == 0) {
            continue;
        }
        QCOMPARE(d.id, "cpu:" + std::to_string(i - 1));
        QCOMPARE(d.cores, 1);
        for (const int cpu : d.cpus) {
            QVERIFY2(seen.insert(cpu).second, "core sets of cpu:N overlap");
            QVERIFY(allowed.count(cpu) == 1);
        }
    }
    QCOMPARE(seen, allowed); // the cpu:N devices cover exactly what `cpu` uses
}

void TestDeviceList::discoveredDevicesAreReal() {
    const DeviceInventory inventory = discoverDevices();
    std::set<std::string> ids;
    for (const Device& d : inventory.devices) {
        QVERIFY2(ids.insert(d.id).second, d.id.c_str());
        QCOMPARE(d.tag, DeviceTag::Real);
    }
    QVERIFY(inventory.find("cpu") != nullptr);
    QVERIFY(inventory.find("cpu:0") != nullptr);
    QVERIFY(inventory.find("npu") == nullptr);
}

void TestDeviceList::catalogDevicesAreModelled() {
    const DeviceCatalog catalog = loadDeviceCatalog(catalogPath());
    const DeviceInventory inventory = discoverDevices(&catalog);
    const Device* npu = inventory.find("npu");
    const Device* dsp = inventory.find("dsp");
    QVERIFY(npu != nullptr);
    QVERIFY(dsp != nullptr);
    QCOMPARE(npu->tag, DeviceTag::Modelled);
    QCOMPARE(npu->kind, std::string("npu"));
    QCOMPARE(npu->peakGflops, 4000.0);
    QCOMPARE(npu->memBwGbs, 60.0);
    QCOMPARE(npu->memoryBytes, std::int64_t(1024) * 1024 * 1024);
    QCOMPARE(dsp->tag, DeviceTag::Modelled);
    QCOMPARE(dsp->memBwGbs, 12.5);
    QVERIFY(!npu->isCpu());
    QVERIFY(npu->cpus.empty());

    // The catalog's "cpu" has the real one's id and kind: the real device stays, quietly (the
    // bundled catalogs describe this machine's CPUs so).
    std::set<std::string> ids;
    for (const Device& d : inventory.devices) {
        QVERIFY2(ids.insert(d.id).second, d.id.c_str());
    }
    QCOMPARE(inventory.find("cpu")->tag, DeviceTag::Real);
    for (const Diagnostic& diagnostic : inventory.diagnostics) {
        QVERIFY2(diagnostic.code != "catalog-device-shadowed", diagnostic.message.c_str());
    }
    // A different kind of device under a real id is a mistake: the real one stays, with a warning.
    const DeviceCatalog clash = parseDeviceCatalogText(
        R"({"schema": "paretune.devices/1", "host": "cpu", "devices": [
            {"id": "cpu", "kind": "cpu", "peak_gflops": 100, "mem_bw_gbs": 10, "launch_us": 1,
             "active_w": 10, "idle_w": 1, "memory_mb": 1024},
            {"id": "cpu:0", "kind": "npu", "peak_gflops": 100, "mem_bw_gbs": 10, "launch_us": 1,
             "active_w": 10, "idle_w": 1, "memory_mb": 1024}]})",
        "clash.json");
    const DeviceInventory clashed = discoverDevices(&clash);
    if (clashed.find("cpu:0") == nullptr) {
        QSKIP("this machine has no cpu:0 device");
    }
    QCOMPARE(clashed.find("cpu:0")->tag, DeviceTag::Real);
    bool warned = false;
    for (const Diagnostic& diagnostic : clashed.diagnostics) {
        warned = warned || (diagnostic.code == "catalog-device-shadowed" &&
                            diagnostic.message.find("'cpu:0' (npu)") != std::string::npos &&
                            diagnostic.message.find("clash.json") != std::string::npos);
    }
    QVERIFY(warned);
}

void TestDeviceList::pinningPins() {
    const std::vector<Device> devices = cpuDevices(cpuTopology());
    const std::vector<std::string> ids = {"cpu:0", "cpu:" + std::to_string(devices.size() - 2)};
    for (const std::string& id : ids) {
        const Device& device = deviceById(devices, id);
        std::string error;
        std::set<int> ranOn;
        std::set<int> threadAffinity;
        std::thread worker([&] {
            error = pinCurrentThread(device);
            if (!error.empty()) {
                return;
            }
            threadAffinity = affinity();
            for (int i = 0; i < 200; ++i) {
                ranOn.insert(sched_getcpu());
                std::this_thread::yield();
            }
        });
        worker.join();
        if (error.find("not permitted") != std::string::npos) {
            QSKIP(qPrintable(QStringLiteral("CPU affinity is not permitted here: ") +
                             QString::fromStdString(error)));
        }
        QVERIFY2(error.empty(), error.c_str());
        const std::set<int> expected(device.cpus.begin(), device.cpus.end());
        QCOMPARE(threadAffinity, expected);
        for (const int cpu : ranOn) {
            QVERIFY2(
                expected.count(cpu) == 1,
                qPrintable(
                    QStringLiteral("%1 ran on CPU %2").arg(QString::fromStdString(id)).arg(cpu)));
        }
    }
    // Pinning a worker leaves the test thread alone.
    QCOMPARE(affinity().size(), static_cast<std::size_t>(cpuTopology().logicalProcessors));
}

void TestDeviceList::pinningRejectsWhatCannotBePinned() {
    const DeviceCatalog catalog = loadDeviceCatalog(catalogPath());
    const DeviceInventory inventory = discoverDevices(&catalog);
    const std::string modelled = pinCurrentThread(*inventory.find("npu"));
    QVERIFY(modelled.find("'npu'") != std::string::npos);
    QVERIFY(modelled.find("not a CPU device") != std::string::npos);

    Device outside = *inventory.find("cpu:0");
    outside.id = "cpu:99";
    outside.cpus = {CPU_SETSIZE + 5};
    const std::string error = pinCurrentThread(outside);
    QVERIFY(error.find("'cpu:99'") != std::string::npos);

    Device offline = *inventory.find("cpu:0");
    offline.id = "cpu:98";
    offline.cpus = {CPU_SETSIZE - 1}; // a CPU this machine does not have
    std::string offlineError;
    std::thread worker([&] { offlineError = pinCurrentThread(offline); });
    worker.join();
    QVERIFY(offlineError.find("'cpu:98'") != std::string::npos);
    QVERIFY(offlineError.find("pinning the thread failed") != std::string::npos);
}

void TestDeviceList::fingerprintIsStable() {
    const DeviceInventory first = discoverDevices();
    const DeviceInventory second = discoverDevices();
    QCOMPARE(first.devices.size(), second.devices.size());
    for (std::size_t i = 0; i < first.devices.size(); ++i) {
        const std::string a = deviceFingerprint(first.devices[i]);
        QVERIFY(isHex64(a));
        QCOMPARE(a, deviceFingerprint(second.devices[i]));
        QCOMPARE(a, deviceFingerprint(first.devices[i], softwareStack()));
    }
    // The identity is canonical JSON that names the hardware and the software.
    const nlohmann::json identity = deviceIdentity(first.devices[0], softwareStack());
    QCOMPARE(identity["hardware"]["model"].get<std::string>(), cpuTopology().name);
    QVERIFY(identity["software"].contains("blas"));
    QVERIFY(identity["software"].contains("torch"));
}

void TestDeviceList::fingerprintSeparatesCoreSets() {
    const std::vector<Device> devices = cpuDevices(cpuTopology());
    if (devices.size() < 3) {
        QSKIP("a single-core machine: cpu and cpu:0 are the same core set");
    }
    std::set<std::string> fingerprints;
    for (const Device& d : devices) {
        QVERIFY2(fingerprints.insert(deviceFingerprint(d)).second, d.id.c_str());
    }
}

void TestDeviceList::fingerprintIsSensitive_data() {
    QTest::addColumn<QString>("change");
    QTest::addColumn<bool>("gpu");
    QTest::addColumn<bool>("differs");
    QTest::newRow("cpu model name") << "name" << false << true;
    QTest::newRow("cpu core set") << "cpus" << false << true;
    QTest::newRow("cpu L2") << "l2" << false << true;
    QTest::newRow("cpu L3") << "l3" << false << true;
    QTest::newRow("cpu avx512f") << "avx512f" << false << true;
    QTest::newRow("cpu BLAS") << "blas" << false << true;
    QTest::newRow("cpu LibTorch") << "torch" << false << true;
    QTest::newRow("cpu compiler") << "compiler" << false << true;
    QTest::newRow("cpu, CUDA driver (not its stack)") << "driver" << false << false;
    QTest::newRow("gpu name") << "name" << true << true;
    QTest::newRow("gpu SMs") << "sms" << true << true;
    QTest::newRow("gpu memory") << "memory" << true << true;
    QTest::newRow("gpu compute capability") << "cc" << true << true;
    QTest::newRow("gpu CUDA driver") << "driver" << true << true;
    QTest::newRow("gpu CUDA runtime") << "runtime" << true << true;
    QTest::newRow("gpu LibTorch") << "torch" << true << true;
}

void TestDeviceList::fingerprintIsSensitive() {
    QFETCH(QString, change);
    QFETCH(bool, gpu);
    QFETCH(bool, differs);
    Device device;
    if (gpu) {
        device.id = "cuda:0";
        device.kind = "gpu";
        device.name = "NVIDIA H200";
        device.cores = 132;
        device.memoryBytes = std::int64_t(141) << 30;
        device.computeMajor = 9;
        device.cudaIndex = 0;
    } else {
        device = cpuDevices(cpuTopology())[0];
    }
    const SoftwareStack software{"gcc 12.2.0", "1.13.0", "/usr/lib/openblas/libblas.so.3", 13000,
                                 13000};
    Device other = device;
    SoftwareStack otherSoftware = software;
    const std::map<QString, std::function<void()>> changes = {
        {QStringLiteral("name"), [&] { other.name += " v2"; }},
        {QStringLiteral("cpus"), [&] { other.cpus.push_back(1000); }},
        {QStringLiteral("l2"), [&] { other.l2Bytes += 1024; }},
        {QStringLiteral("l3"), [&] { other.l3Bytes *= 2; }},
        {QStringLiteral("avx512f"), [&] { other.avx512f = !other.avx512f; }},
        {QStringLiteral("blas"), [&] { otherSoftware.blas = "/usr/lib/blas/libblas.so.3"; }},
        {QStringLiteral("torch"), [&] { otherSoftware.torchVersion = "2.1.0"; }},
        {QStringLiteral("compiler"), [&] { otherSoftware.compiler = "clang 16"; }},
        {QStringLiteral("driver"), [&] { otherSoftware.cudaDriver = 12040; }},
        {QStringLiteral("runtime"), [&] { otherSoftware.cudaRuntime = 12040; }},
        {QStringLiteral("sms"), [&] { other.cores = 114; }},
        {QStringLiteral("memory"), [&] { other.memoryBytes /= 2; }},
        {QStringLiteral("cc"), [&] { other.computeMinor = 1; }},
    };
    changes.at(change)();
    const std::string before = deviceFingerprint(device, software);
    QCOMPARE(before, deviceFingerprint(device, software));
    QCOMPARE(deviceFingerprint(other, otherSoftware) != before, differs);
}

void TestDeviceList::driftVerdicts_data() {
    QTest::addColumn<double>("storedGemm");
    QTest::addColumn<double>("storedBw");
    QTest::addColumn<double>("nowGemm");
    QTest::addColumn<double>("nowBw");
    QTest::addColumn<bool>("stale");
    QTest::addColumn<QString>("component");
    const double nan = std::numeric_limits<double>::quiet_NaN();
    QTest::newRow("identical") << 40.0 << 12.0 << 40.0 << 12.0 << false << "";
    QTest::newRow("within threshold") << 40.0 << 12.0 << 35.0 << 13.5 << false << "";
    QTest::newRow("exactly at threshold") << 40.0 << 10.0 << 46.0 << 10.0 << false << "";
    QTest::newRow("gemm slower") << 40.0 << 12.0 << 30.0 << 12.0 << true << "gemm_gflops";
    QTest::newRow("gemm faster") << 40.0 << 12.0 << 50.0 << 12.0 << true << "gemm_gflops";
    QTest::newRow("bandwidth drop") << 40.0 << 12.0 << 41.0 << 9.0 << true << "memory_bw_gbs";
    QTest::newRow("stored zero") << 0.0 << 12.0 << 40.0 << 12.0 << true << "gemm_gflops";
    QTest::newRow("now NaN") << 40.0 << 12.0 << 40.0 << nan << true << "memory_bw_gbs";
}

void TestDeviceList::driftVerdicts() {
    QFETCH(double, storedGemm);
    QFETCH(double, storedBw);
    QFETCH(double, nowGemm);
    QFETCH(double, nowBw);
    QFETCH(bool, stale);
    QFETCH(QString, component);
    std::string why = "left over";
    QCOMPARE(drifted({storedGemm, storedBw}, {nowGemm, nowBw}, 0.15, &why), stale);
    if (stale) {
        QVERIFY2(why.find(component.toStdString()) != std::string::npos, why.c_str());
    } else {
        QVERIFY(why.empty());
    }
    QCOMPARE(drifted({storedGemm, storedBw}, {nowGemm, nowBw}, 0.15, nullptr), stale);
}

void TestDeviceList::microBenchmarkMeasures() {
    const std::vector<Device> devices = cpuDevices(cpuTopology());
    for (const Device& device : {devices[0], devices[1]}) {
        const MicroBenchmark m = runMicroBenchmark(device, MicroBenchmarkOptions{true});
        QVERIFY2(std::isfinite(m.gemmGflops) && m.gemmGflops > 0.0, device.id.c_str());
        QVERIFY2(std::isfinite(m.memoryBwGbs) && m.memoryBwGbs > 0.0, device.id.c_str());
        qInfo("%s: GEMM %.1f GFLOP/s, triad %.1f GB/s (quick)", device.id.c_str(), m.gemmGflops,
              m.memoryBwGbs);
        // A vector never drifts from itself.
        QVERIFY(!drifted(m, m, 0.15, nullptr));
    }
}

void TestDeviceList::microBenchmarkRefusesOtherDevices() {
    const DeviceCatalog catalog = loadDeviceCatalog(catalogPath());
    const DeviceInventory inventory = discoverDevices(&catalog);
    QVERIFY_THROWS_EXCEPTION(InputError, runMicroBenchmark(*inventory.find("npu")));
}

void TestDeviceList::cudaDevicesOnlyWithGpu() {
    const CudaInventory cuda = discoverCudaDevices();
    const DeviceInventory inventory = discoverDevices();
    std::size_t gpus = 0;
    for (const Device& d : inventory.devices) {
        if (d.kind == "gpu") {
            ++gpus;
            QCOMPARE(d.id, "cuda:" + std::to_string(d.cudaIndex));
            QCOMPARE(d.tag, DeviceTag::Real);
            QVERIFY(!d.isCpu());
            QVERIFY(!pinCurrentThread(d).empty());
        }
    }
    QCOMPARE(gpus, cuda.devices.size());
    if (cuda.devices.empty()) {
        // A driver without devices is noted; no driver at all is the usual machine, said nowhere
        // but in the software line (driver 0).
        bool noted = false;
        for (const Diagnostic& diagnostic : inventory.diagnostics) {
            const std::string& note = diagnostic.message;
            noted = noted || note.rfind("no CUDA devices", 0) == 0;
        }
        QCOMPARE(noted, cuda.driverVersion > 0);
        QSKIP("no CUDA device on this machine: GPU device figures not checked");
    }
    for (const Device& d : inventory.devices) {
        if (d.kind == "gpu") {
            QVERIFY(d.cores > 0);
            QVERIFY(d.memoryBytes > 0);
            QVERIFY(d.computeMajor > 0);
            QVERIFY(isHex64(deviceFingerprint(d)));
        }
    }
}

QTEST_APPLESS_MAIN(TestDeviceList)
#include "tst_devicelist.moc"
