// SPDX-License-Identifier: GPL-3.0-or-later
// ONNX's own backend node tests (Debian's libonnx-testdata) on the LibTorch executor: every
// single-node test of an op type the executor supports runs with its inputs and is compared
// with its expected outputs. The suite prints (and writes to the build folder) a report of
// pass / fail / unsupported per op type, and fails when a test of the checked-in list of
// passing tests (tests/data/onnx_conformance_passing.txt) no longer passes.
#include "common/input_error.h"
#include "graph/onnx_importer.h"
#include "onnx_node_tests.h"
#include "profile/graph_executor.h"
#include "runtime/torch_runtime.h"
#include "testpaths.h"

#include <QtTest>

#include <filesystem>
#include <fstream>
#include <set>

using namespace paretune;
namespace fs = std::filesystem;

namespace {

const char* kNodeTests = conformance::kDebianNodeTests;

std::set<std::string> listedTests(const std::string& file) {
    return conformance::listedTests(std::string(PARETUNE_TEST_DATA_DIR) + "/" + file);
}

std::set<std::string> expectedPassing() {
    return listedTests("onnx_conformance_passing.txt");
}

/// Runs the node tests on `device`, writes the report and the list of passing tests to
/// `reportPath` and `passingPath`, and checks that every test of `expected` passes.
void runNodeTests(const ExecutionDevice& device, const std::set<std::string>& expected,
                  const char* reportPath, const char* passingPath) {
    const conformance::NodeTestRun run = conformance::runNodeTests(kNodeTests, device, expected);
    std::ofstream(reportPath) << run.report;
    std::ofstream(passingPath) << [&] {
        std::string text = "# ONNX node tests the LibTorch executor passes on " + device.id +
                           " (tst_conformance)\n";
        for (const std::string& name : run.passing) {
            text += name + "\n";
        }
        return text;
    }();
    qInfo().noquote() << QString::fromStdString(run.report);
    std::string regressed;
    for (const std::string& name : run.regressions) {
        regressed += " " + name;
    }
    QVERIFY2(run.regressions.empty(), ("tests that passed before fail now:" + regressed).c_str());
    QVERIFY(!expected.empty());
}

} // namespace

class TestConformance : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void halfPrecisionDecodes();
    void comparisonCanFail();
    void nodeTestsOfSupportedOps();
    void nodeTestsOnCuda();
    void cudaRefusedNamesTheFlavour();
};

void TestConformance::halfPrecisionDecodes() {
    QCOMPARE(conformance::halfToFloat(0x3c00), 1.0f);
    QCOMPARE(conformance::halfToFloat(0xc000), -2.0f);
    QCOMPARE(conformance::halfToFloat(0x0001), 5.9604645e-8f);
}

void TestConformance::comparisonCanFail() {
    const HostTensor a{DType::Float32, {2}, {1.0, 2.0}, {}};
    HostTensor b = a;
    QVERIFY(conformance::compare(a, b).empty());
    b.values[1] = 2.01;
    QVERIFY(!conformance::compare(a, b).empty());
    b.dims = {1, 2};
    QVERIFY(!conformance::compare(a, b).empty());
}

void TestConformance::nodeTestsOfSupportedOps() {
    if (!fs::is_directory(kNodeTests)) {
        QSKIP("libonnx-testdata is not installed (/usr/share/libonnx-testdata)");
    }
    runNodeTests(ExecutionDevice{}, expectedPassing(), PARETUNE_CONFORMANCE_REPORT,
                 PARETUNE_CONFORMANCE_PASSING);
}

void TestConformance::nodeTestsOnCuda() {
    if (!fs::is_directory(kNodeTests)) {
        QSKIP("libonnx-testdata is not installed (/usr/share/libonnx-testdata)");
    }
    if (const std::string why = torchRuntime().cudaUnusable(0); !why.empty()) {
        QSKIP(("no CUDA device to run the node tests on: " + why).c_str());
    }
    ExecutionDevice gpu;
    gpu.id = "cuda:0";
    gpu.cudaIndex = 0;
    // Every test the CPU passes passes on the GPU too, but for the checked-in exceptions (each
    // with its reason: tolerances of GPU kernels, ops LibTorch runs only on the host).
    std::set<std::string> expected = expectedPassing();
    for (const std::string& name : listedTests("onnx_conformance_cuda_exceptions.txt")) {
        expected.erase(name);
    }
    runNodeTests(gpu, expected, PARETUNE_CONFORMANCE_CUDA_REPORT,
                 PARETUNE_CONFORMANCE_CUDA_PASSING);
}

void TestConformance::cudaRefusedNamesTheFlavour() {
    const TorchCudaInfo info = torchRuntime().cudaInfo();
    const int absent = info.deviceCount; // one past the last device LibTorch sees
    ExecutionDevice gpu;
    gpu.id = "cuda:" + std::to_string(absent);
    gpu.cudaIndex = absent;
    const std::string model = std::string(kNodeTests) + "/test_relu/model.onnx";
    if (!fs::exists(model)) {
        QSKIP("libonnx-testdata is not installed (/usr/share/libonnx-testdata)");
    }
    const Graph g = importOnnxFile(model).graph;
    try {
        executeGraph(g, {}, gpu);
        QFAIL("executing on a CUDA device LibTorch does not see must fail");
    } catch (const InputError& e) {
        const std::string message = e.what();
        QVERIFY2(message.find(gpu.id) != std::string::npos, message.c_str());
        QVERIFY2(message.find(info.built ? "the CUDA flavour" : "CPU flavour") != std::string::npos,
                 message.c_str());
        if (!info.built) { // and how to get the CUDA one
            QVERIFY2(message.find("scripts/dev build-cuda") != std::string::npos, message.c_str());
        }
    }
}

QTEST_GUILESS_MAIN(TestConformance)
#include "tst_conformance.moc"
