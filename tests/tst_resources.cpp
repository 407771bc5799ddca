// Shared resources of the real devices: the co-run (contention) benchmark of two CPU devices
// that can run at the same time, and its factors stored once per pair. No timing is asserted:
// figures are only checked to be finite and at least 1.
#include "common/input_error.h"
#include "device/corun_benchmark.h"
#include "device/device.h"
#include "profile/contention_profile.h"
#include "store/sample_library.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <string>
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

QTEST_GUILESS_MAIN(TestResources)
#include "tst_resources.moc"
