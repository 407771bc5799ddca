// SPDX-License-Identifier: GPL-3.0-or-later
// Device catalogs: the example loads; each broken file in tests/data/catalogs fails with a
// message naming the file and the field.
#include "common/input_error.h"
#include "cost/cost_table.h"
#include "cost/device_catalog.h"
#include "graph_fixture.h"
#include "testpaths.h"

#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

#include <string>

using namespace paretune;

class TestCatalog : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void exampleLoads();
    void brokenFiles_data();
    void brokenFiles();
    void unreachablePairFailsWhenBuildingTheTable();
    void missingFile();
    void specialFilesAreRefused_data();
    void specialFilesAreRefused();
    void measuredDeviceIsNotModelledUnlessAsked();
    void sharedResourcesMakeTheTable();
    void sharedResourceErrors_data();
    void sharedResourceErrors();
};

namespace {

/// A catalog of a host and an npu whose second device entry is `npu`'s JSON fields.
std::string catalogWithNpu(const std::string& npuFields) {
    return R"({"schema": "paretune.devices/1", "host": "cpu", "devices": [
        {"id": "cpu", "kind": "cpu", "peak_gflops": 100, "mem_bw_gbs": 10, "launch_us": 0,
         "active_w": 10, "idle_w": 1, "memory_mb": 100},
        {"id": "npu", "kind": "npu", "peak_gflops": 100, "mem_bw_gbs": 10, "launch_us": 5,
         "active_w": 2, "idle_w": 1, "memory_mb": 100)" +
           (npuFields.empty() ? "" : ", " + npuFields) + R"(}],
        "links": [{"a": "cpu", "b": "npu", "bandwidth_gbs": 1, "latency_us": 1}]})";
}

} // namespace

// tests/data/catalogs/shared_cores.json: "cpu" on cores 0 and 1, "cpu:0" and "cpu:1" on one
// each, all three in the "dram" domain, the single cores with a contention of 1.3.
void TestCatalog::sharedResourcesMakeTheTable() {
    const DeviceCatalog catalog =
        loadDeviceCatalog(PARETUNE_TEST_DATA_DIR "/catalogs/shared_cores.json");
    const DeviceSpec& all = catalog.devices[static_cast<std::size_t>(catalog.findDevice("cpu"))];
    const DeviceSpec& core1 =
        catalog.devices[static_cast<std::size_t>(catalog.findDevice("cpu:1"))];
    QCOMPARE(all.resources, (std::vector<std::string>{"core0", "core1"}));
    QCOMPARE(all.memoryDomain, std::string("dram"));
    QCOMPARE(all.contention, 1.0); // the default
    QCOMPARE(core1.resources, std::vector<std::string>{"core1"});
    QCOMPARE(core1.contention, 1.3);

    const Graph g = test::fixtureGraph("a->b");
    const CostTable table = buildCostTable(g, catalog, {"cpu:0", "cpu:1"}); // + the host, cpu
    QCOMPARE(table.deviceCount(), 3);
    const std::int32_t cpu = table.findDevice("cpu");
    const std::int32_t c0 = table.findDevice("cpu:0");
    const std::int32_t c1 = table.findDevice("cpu:1");
    QVERIFY(table.hasSharedResources());
    QVERIFY(table.exclusive(cpu, c0) && table.exclusive(c0, cpu));
    QVERIFY(table.exclusive(cpu, c1) && table.exclusive(c1, cpu));
    QVERIFY(!table.exclusive(c0, c1));
    QVERIFY(!table.exclusive(c0, c0));
    QCOMPARE(table.contention(c0, c1), 1.3);
    QCOMPARE(table.contention(c1, c0), 1.3);
    QCOMPARE(table.contention(cpu, c0), 1.0); // its own factor, the default
    QCOMPARE(table.contention(c0, cpu), 1.3); // directed: c0 beside cpu (never runs beside it)
    QCOMPARE(table.contentionSource(c0, c1), CostSource::Modelled);
    // The same devices without the new fields, as every existing catalog: nothing shared.
    QVERIFY(!buildCostTable(
                 g, loadDeviceCatalog(PARETUNE_SOURCE_DIR "/resources/catalogs/example.json"),
                 {"cpu", "gpu", "npu"})
                 .hasSharedResources());
    // Apart, in different domains: nothing shared either.
    const DeviceCatalog apart = parseDeviceCatalogText(
        catalogWithNpu(R"("resources": ["dma1"], "memory_domain": "npu-sram", "contention": 2)"),
        "apart.json");
    QVERIFY(!buildCostTable(g, apart, {"cpu", "npu"}).hasSharedResources());
    // A resource in common, listed twice on one side.
    const DeviceCatalog dma = parseDeviceCatalogText(
        R"({"schema": "paretune.devices/1", "host": "cpu", "devices": [
        {"id": "cpu", "kind": "cpu", "peak_gflops": 100, "mem_bw_gbs": 10, "launch_us": 0,
         "active_w": 10, "idle_w": 1, "memory_mb": 100, "resources": ["dma0"]},
        {"id": "npu", "kind": "npu", "peak_gflops": 100, "mem_bw_gbs": 10, "launch_us": 5,
         "active_w": 2, "idle_w": 1, "memory_mb": 100, "resources": ["sram", "dma0", "dma0"]}],
        "links": [{"a": "cpu", "b": "npu", "bandwidth_gbs": 1, "latency_us": 1}]})",
        "dma.json");
    QCOMPARE(dma.devices[1].resources, (std::vector<std::string>{"dma0", "sram"}));
    const CostTable dmaTable = buildCostTable(g, dma, {"cpu", "npu"});
    QVERIFY(dmaTable.exclusive(0, 1));
    QCOMPARE(dmaTable.contention(1, 0), 1.0);
}

void TestCatalog::sharedResourceErrors_data() {
    QTest::addColumn<QString>("fields"); // of the npu, devices[1]
    QTest::addColumn<QString>("message");
    QTest::newRow("resources not an array")
        << R"("resources": "dma0")"
        << "catalog.json: devices[1].resources: expected an array of resource names";
    QTest::newRow("empty resource name")
        << R"("resources": ["dma0", ""])"
        << "catalog.json: devices[1].resources[1]: expected a non-empty string";
    QTest::newRow("resource not a string")
        << R"("resources": [3])"
        << "catalog.json: devices[1].resources[0]: expected a non-empty string";
    QTest::newRow("memory domain not a string")
        << R"("memory_domain": 1)"
        << "catalog.json: devices[1].memory_domain: expected a non-empty string";
    QTest::newRow("empty memory domain")
        << R"("memory_domain": "")"
        << "catalog.json: devices[1].memory_domain: expected a non-empty string";
    QTest::newRow("contention below 1")
        << R"("memory_domain": "dram", "contention": 0.5)"
        << "catalog.json: devices[1].contention: expected a number of at least 1, got 0.5";
    QTest::newRow("contention not a number")
        << R"("memory_domain": "dram", "contention": "1.3")"
        << "catalog.json: devices[1].contention: expected a number of at least 1";
    QTest::newRow("contention without a domain")
        << R"("contention": 1.3)"
        << "catalog.json: devices[1].contention: has no effect without a \"memory_domain\"";
}

void TestCatalog::sharedResourceErrors() {
    QFETCH(QString, fields);
    QFETCH(QString, message);
    try {
        parseDeviceCatalogText(catalogWithNpu(fields.toStdString()), "catalog.json");
        QFAIL("no error");
    } catch (const InputError& e) {
        QCOMPARE(QString::fromStdString(e.what()), message);
    }
    // Without the field, the same catalog is valid (the fields are optional).
    QCOMPARE(parseDeviceCatalogText(catalogWithNpu(""), "catalog.json").devices[1].contention, 1.0);
}

void TestCatalog::measuredDeviceIsNotModelledUnlessAsked() {
    const DeviceCatalog catalog = parseDeviceCatalogText(R"({"schema": "paretune.devices/1",
        "host": "cpu", "devices": [
        {"id": "cpu", "kind": "cpu", "cost": "measured", "peak_gflops": 100, "mem_bw_gbs": 10,
         "active_w": 10, "idle_w": 1, "memory_mb": 100},
        {"id": "npu", "kind": "npu", "peak_gflops": 100, "mem_bw_gbs": 10, "launch_us": 5,
         "active_w": 2, "idle_w": 1, "memory_mb": 100}],
        "links": [{"a": "cpu", "b": "npu", "bandwidth_gbs": 1, "latency_us": 1}]})",
                                                         "measured.json");
    QVERIFY(!catalog.devices[0].modelled);
    test::FixtureOptions options;
    options.flops = {{"a", 1e9}};
    const Graph g = test::fixtureGraph("a", options);
    const CostTable plain = buildCostTable(g, catalog, {"cpu", "npu"});
    QCOMPARE(plain.cell(0, plain.findDevice("cpu")).source, CostSource::Unsupported);
    QCOMPARE(plain.cell(0, plain.findDevice("npu")).source, CostSource::Modelled);
    CostTableOptions roofline;
    roofline.rooflineForMeasuredDevices = true;
    const CostTable asked = buildCostTable(g, catalog, {"cpu", "npu"}, roofline);
    QCOMPARE(asked.cell(0, asked.findDevice("cpu")).source, CostSource::Modelled);
    // 0 + max(1e9 / (100 · 1 · 1e3), 2000 / (10 · 1e3)) = 10000 µs.
    QCOMPARE(asked.cell(0, asked.findDevice("cpu")).latencyUs, 10000.0);
    // Measured figures are set from outside and keep their source.
    CostTable measured = plain;
    measured.setCell(0, measured.findDevice("cpu"), {123.0, 1230.0, 4096, CostSource::Measured});
    QCOMPARE(measured.cell(0, measured.findDevice("cpu")).source, CostSource::Measured);
    QCOMPARE(costSourceName(CostSource::Measured), std::string_view("measured"));
}

void TestCatalog::exampleLoads() {
    const std::string path = PARETUNE_SOURCE_DIR "/resources/catalogs/example.json";
    const DeviceCatalog catalog = loadDeviceCatalog(path);
    QCOMPARE(catalog.host, std::string("cpu"));
    QCOMPARE(catalog.devices.size(), std::size_t(3));
    const DeviceSpec& npu = catalog.devices[static_cast<std::size_t>(catalog.findDevice("npu"))];
    QCOMPARE(npu.peakGflops, 4000.0);
    QCOMPARE(npu.efficiency("Conv"), 1.0);
    QCOMPARE(npu.efficiency("Relu"), 0.1);
    QVERIFY(!npu.supports("Softmax"));
    QVERIFY(npu.supports("Conv"));
    QVERIFY(npu.modelled);
    // Lower precisions: bf16 and int8 everywhere, fp16 on the GPU and the NPU only (the
    // desktop CPU has no float16 arithmetic, so its fp16 cells stay unsupported).
    QVERIFY(npu.peakGflopsFor(Precision::Fp16) > npu.peakGflops);
    const DeviceSpec& gpu = catalog.devices[static_cast<std::size_t>(catalog.findDevice("gpu"))];
    QVERIFY(gpu.peakGflopsFor(Precision::Fp16) > gpu.peakGflops);
    const DeviceSpec& cpu = catalog.devices[static_cast<std::size_t>(catalog.findDevice("cpu"))];
    QCOMPARE(cpu.peakGflopsFor(Precision::Fp16), 0.0);
    QVERIFY(cpu.peakGflopsFor(Precision::Bf16) > 0.0);
    QCOMPARE(catalog.path("gpu", "npu"), (std::vector<std::string>{"gpu", "cpu", "npu"}));
    QCOMPARE(catalog.path("cpu", "gpu"), (std::vector<std::string>{"cpu", "gpu"}));
    QCOMPARE(catalog.links[0].transferUs(16e3), 11.0);
}

void TestCatalog::brokenFiles_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("message");
    QTest::newRow("schema")
        << "bad_schema.json"
        << "schema: expected \"paretune.devices/1\", got \"paretune.devices/2\"";
    QTest::newRow("missing field") << "missing_peak.json"
                                   << "devices[0].peak_gflops: missing";
    QTest::newRow("negative") << "negative_bandwidth.json"
                              << "links[0].bandwidth_gbs: expected a positive number, got -4";
    QTest::newRow("host") << "unknown_host.json"
                          << "host: \"tpu\" is not the id of a device in \"devices\"";
    QTest::newRow("route") << "route_without_link.json"
                           << "routes[0]: no link between \"gpu\" and \"cpu\"";
    QTest::newRow("duplicate") << "duplicate_id.json"
                               << "devices[1].id: duplicate device id \"cpu\"";
    QTest::newRow("unknown field") << "unknown_field.json"
                                   << "devices[0].peak_gflop: unknown field";
    QTest::newRow("efficiency") << "bad_efficiency.json"
                                << "devices[0].efficiency.ops.Conv: expected a fraction in (0, 1]";
    QTest::newRow("duplex") << "bad_duplex.json"
                            << "links[0].duplex: expected \"full\" or \"half\", got \"simplex\"";
    QTest::newRow("contention")
        << "bad_contention.json"
        << "devices[1].contention: expected a number of at least 1, got 0.8";
    QTest::newRow("precision name") << "bad_precision_name.json"
                                    << "devices[1].precisions.bf17: unknown precision 'bf17' "
                                       "(expected one of fp32, bf16, fp16, int8)";
    QTest::newRow("precision peak")
        << "bad_precision_peak.json"
        << "devices[1].precisions.bf16.peak_gflops: expected a positive number, got -5";
    QTest::newRow("json") << "not_json.json"
                          << "not valid JSON";
    QTest::newRow("1e400") << "number_overflow.json"
                           << "not valid JSON: number overflow parsing '1e400'";
    QTest::newRow("invalid UTF-8") << "invalid_utf8.json"
                                   << "not valid JSON: parse error at line 1, column 72: syntax "
                                      "error while parsing value - invalid string: ill-formed "
                                      "UTF-8 byte; last read: '\"cpu\\xff'";
    QTest::newRow("wrong type") << "wrong_type.json"
                                << "host: expected a non-empty string";
}

void TestCatalog::brokenFiles() {
    QFETCH(QString, file);
    QFETCH(QString, message);
    const std::string path = PARETUNE_TEST_DATA_DIR "/catalogs/" + file.toStdString();
    try {
        loadDeviceCatalog(path);
        QFAIL("no error");
    } catch (const InputError& e) {
        const QString what = QString::fromStdString(e.what());
        QVERIFY2(what.startsWith(QString::fromStdString(path + ": ")), qPrintable(what));
        QVERIFY2(what.contains(message), qPrintable(what));
    }
}

void TestCatalog::unreachablePairFailsWhenBuildingTheTable() {
    const std::string path = PARETUNE_TEST_DATA_DIR "/catalogs/unreachable.json";
    const DeviceCatalog catalog = loadDeviceCatalog(path);
    const Graph g = test::fixtureGraph("a->b");
    try {
        buildCostTable(g, catalog, {"cpu", "npu"});
        QFAIL("no error");
    } catch (const InputError& e) {
        QCOMPARE(QString::fromStdString(e.what()),
                 QString::fromStdString(path + ": no link or route from \"cpu\" to \"npu\""));
    }
    QVERIFY_THROWS_EXCEPTION(InputError, buildCostTable(g, catalog, {"cpu", "tpu"}));
    QCOMPARE(buildCostTable(g, catalog, {"cpu"}).deviceCount(), 1);
}

void TestCatalog::missingFile() {
    try {
        loadDeviceCatalog("/nonexistent/catalog.json");
        QFAIL("no error");
    } catch (const InputError& e) {
        QCOMPARE(QString::fromStdString(e.what()),
                 QStringLiteral("/nonexistent/catalog.json: no such device catalog"));
    }
}

void TestCatalog::specialFilesAreRefused_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("message");
    QTest::newRow("/dev/zero") << QStringLiteral("/dev/zero")
                               << QStringLiteral("/dev/zero: the device catalog is a character "
                                                 "device; only regular files are read");
    QTest::newRow("/dev/urandom") << QStringLiteral("/dev/urandom")
                                  << QStringLiteral("is a character device");
    QTest::newRow("directory") << QStringLiteral(PARETUNE_TEST_DATA_DIR "/catalogs")
                               << QStringLiteral("the device catalog is a directory, not a file");
    QTest::newRow("fifo") << QStringLiteral("FIFO")
                          << QStringLiteral("the device catalog is a FIFO (named pipe); only "
                                            "regular files are read");
    QTest::newRow("oversized") << QStringLiteral("BIG")
                               << QStringLiteral("bytes, over the limit of 64 MiB");
}

void TestCatalog::specialFilesAreRefused() {
    QFETCH(QString, path);
    QFETCH(QString, message);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    if (path == QLatin1String("FIFO")) {
        // Nobody ever writes to it: reading it would block forever.
        path = dir.filePath(QStringLiteral("catalog.fifo"));
        QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
    } else if (path == QLatin1String("BIG")) {
        // A sparse file: its size, not its content, is over the limit.
        path = dir.filePath(QStringLiteral("big.json"));
        QFile big(path);
        QVERIFY(big.open(QIODevice::WriteOnly));
        QVERIFY(big.resize(qint64(65) << 20));
    }
    try {
        loadDeviceCatalog(path.toStdString());
        QFAIL("no error");
    } catch (const InputError& e) {
        const QString what = QString::fromStdString(e.what());
        QVERIFY2(what.startsWith(path + QStringLiteral(": ")), qPrintable(what));
        QVERIFY2(what.contains(message), qPrintable(what));
    }
}

QTEST_APPLESS_MAIN(TestCatalog)
#include "tst_catalog.moc"
