// SPDX-License-Identifier: GPL-3.0-or-later
// The GPU paths of the LibTorch module (the CUDA flavour): the runner on cuda:0, plans across
// the CPU and a GPU, the GPU micro-benchmark. Without a usable GPU (no GPU here, or the CPU
// flavour's module) those tests skip saying why, and the refusals are checked instead: a CUDA
// device LibTorch does not see fails with a message naming the flavour. The fp16 variant runs
// on a GPU (its lowered graph executed and profiled on cuda:0).
#include "common/input_error.h"
#include "device/device.h"
#include "device/micro_benchmark.h"
#include "graph/precision.h"
#include "onnx_fixture.h"
#include "precision_fixture.h"
#include "profile/graph_executor.h"
#include "profile/measurement.h"
#include "profile/op_runner.h"
#include "profile/output_deviation.h"
#include "profile/precision_support.h"
#include "profile/profile_model.h"
#include "runtime/torch_runtime.h"

#include <QtTest>

#include <cmath>

using namespace paretune;

namespace {

NodeId computeNode(const Graph& g, const std::string& opType) {
    for (NodeId id = 0; id < static_cast<NodeId>(g.nodes.size()); ++id) {
        if (g.nodes[static_cast<std::size_t>(id)].opType == opType) {
            return id;
        }
    }
    return kNone;
}

MeasureOptions quickOptions() {
    MeasureOptions o;
    o.minMeasureMs = 2;
    o.warmupRuns = 1;
    o.measureEnergy = false;
    return o;
}

HostTensor floats(std::vector<std::int64_t> dims, std::vector<double> values) {
    HostTensor t;
    t.dtype = DType::Float32;
    t.dims = std::move(dims);
    t.values = std::move(values);
    return t;
}

/// Why the GPU tests cannot run here; empty when cuda:0 is usable.
std::string noGpu() {
    return torchRuntime().cudaUnusable(0);
}

} // namespace

class TestCuda : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void measureOnCuda();
    void measureOnAbsentCudaDeviceFails();
    void planAcrossCpuAndGpu();
    void planOnAbsentGpuIsRefused();
    void gpuMicroBenchmark();
    void fp16OnCuda();
};

// The GPU path of the runner (the CUDA flavour on a machine with a GPU): inputs on the device,
// CUDA events, the caching allocator's peak; shape-like inputs read back from the device.
void TestCuda::measureOnCuda() {
    if (const std::string why = noGpu(); !why.empty()) {
        QSKIP(("no CUDA device to measure on: " + why).c_str());
    }
    const Graph g = onnxFixture(
        "(float[64,256] a, float[256,128] b) => (float[64,128] y) { y = MatMul(a, b) }");
    OpRunner runner(g, computeNode(g, "MatMul"));
    MeasureOptions o = quickOptions();
    o.cudaIndex = 0;
    const OpProfile p = runner.measure(o);
    QVERIFY2(p.status == ProfileStatus::Ok, p.message.c_str());
    QCOMPARE(p.latency.rounds, 3);
    QVERIFY(p.latency.medianUs > 0);
    QVERIFY(p.latency.p10Us <= p.latency.medianUs && p.latency.medianUs <= p.latency.p90Us);
    QCOMPARE(p.memory.inputBytes, qint64(4 * (64 * 256 + 256 * 128)));
    QVERIFY(p.memory.peakBytes >= p.memory.inputBytes + p.memory.outputBytes);
    const OpRunner::Execution once = runner.runOnce(); // the device's result, copied back
    QCOMPARE(once.status, ProfileStatus::Ok);
    QCOMPARE(once.outputs.at(0).dims, (std::vector<std::int64_t>{64, 128}));

    const Graph v = onnxFixture("(float[2,3,4] x) => (float[24] y) {\n"
                                "  s = Constant<value = int64[1] {24}>()\n  y = Reshape(x, s)\n}");
    OpRunner viewRunner(v, computeNode(v, "Reshape"));
    MeasureOptions vo = quickOptions();
    vo.cudaIndex = 0;
    QCOMPARE(viewRunner.measure(vo).status, ProfileStatus::Ok);

    ProfileOptions po;
    po.measure = quickOptions();
    po.measure.cudaIndex = 0;
    const ProfileResult r = profileModel(g, po);
    QCOMPARE(r.count(ProfileStatus::Ok), 1);
    QCOMPARE(r.wholeModel.status, ProfileStatus::Ok);
    QVERIFY(r.wholeModel.endToEnd.medianUs > 0);
}

// Without that GPU (or without CUDA in the module) the node fails with the reason, naming the
// flavour; nothing is timed.
void TestCuda::measureOnAbsentCudaDeviceFails() {
    const TorchCudaInfo info = torchRuntime().cudaInfo();
    const Graph g =
        onnxFixture("(float[4,8] a, float[8,2] b) => (float[4,2] y) { y = MatMul(a, b) }");
    OpRunner runner(g, computeNode(g, "MatMul"));
    MeasureOptions o = quickOptions();
    o.cudaIndex = info.deviceCount; // one past the last device LibTorch sees
    const OpProfile p = runner.measure(o);
    QCOMPARE(p.status, ProfileStatus::Failed);
    QVERIFY2(p.message.find("cuda:" + std::to_string(info.deviceCount)) != std::string::npos,
             p.message.c_str());
    QVERIFY2(p.message.find(info.built ? "the CUDA flavour" : "CPU flavour") != std::string::npos,
             p.message.c_str());
    QCOMPARE(p.latency.repeats, 0);
}

// A plan over the host and the GPU: MatMul on the CPU, Add and Relu on cuda:0, Reshape back on
// the CPU; tensors cross in both directions through pinned buffers and asynchronous copies, and
// the outputs equal the single-device run's.
void TestCuda::planAcrossCpuAndGpu() {
    if (const std::string why = noGpu(); !why.empty()) {
        QSKIP(("no CUDA device to run a plan on: " + why).c_str());
    }
    const Graph g =
        onnxFixture("(float[2,2] x) => (float[4] z) {\n"
                    "  w = Constant<value = float[2,2] {1.0, -1.0, 2.0, 0.5}>()\n"
                    "  b = Constant<value = float[2] {0.5, -3.0}>()\n"
                    "  s = Constant<value = int64[1] {4}>()\n"
                    "  m = MatMul(x, w)\n  a = Add(m, b)\n  r = Relu(a)\n  z = Reshape(r, s)\n}");
    const NamedTensors inputs = {{"x", floats({2, 2}, {1, 2, 3, 4})}};
    const NamedTensors alone = executeGraph(g, inputs);
    std::vector<std::int32_t> device(g.nodes.size(), -1);
    for (std::size_t n = 0; n < g.nodes.size(); ++n) {
        const std::string& op = g.nodes[n].opType;
        device[n] = op == "Add" || op == "Relu" ? 1 : 0;
    }
    ExecutionDevice gpu;
    gpu.id = "cuda:0";
    gpu.cudaIndex = 0;
    PlanExecutor executor(g, {ExecutionDevice{}, gpu}, device, {}, inputs);
    for (int run = 0; run < 3; ++run) {
        const PlanRun r = executor.run(true);
        QCOMPARE(r.outputs.at("z").values, alone.at("z").values);
        QCOMPARE(r.nodes.size(), std::size_t{4});
        QCOMPARE(r.peakBytes.size(), std::size_t{2});
        for (const NodeRun& n : r.nodes) {
            QVERIFY(n.beginUs <= n.endUs);
        }
    }
}

void TestCuda::planOnAbsentGpuIsRefused() {
    const TorchCudaInfo info = torchRuntime().cudaInfo();
    const Graph g = onnxFixture("(float[2] x) => (float[2] y) { y = Relu(x) }");
    ExecutionDevice gpu;
    gpu.cudaIndex = info.deviceCount; // one past the last device LibTorch sees
    gpu.id = "cuda:" + std::to_string(gpu.cudaIndex);
    try {
        PlanExecutor executor(g, {gpu}, std::vector<std::int32_t>(g.nodes.size(), 0));
        QFAIL("a plan on a CUDA device LibTorch does not see must be refused");
    } catch (const InputError& e) {
        const std::string message = e.what();
        QVERIFY2(message.find(gpu.id) != std::string::npos, message.c_str());
        QVERIFY2(message.find(info.built ? "the CUDA flavour" : "CPU flavour") != std::string::npos,
                 message.c_str());
    }
}

// The GPU's micro-benchmark: every figure measured and positive (no figure is asserted: tests
// never assert speeds). Without a GPU it is refused by name.
void TestCuda::gpuMicroBenchmark() {
    if (const std::string why = noGpu(); !why.empty()) {
        QVERIFY_EXCEPTION_THROWN(runGpuMicroBenchmark(0), InputError);
        QSKIP(("no CUDA device to benchmark: " + why).c_str());
    }
    const GpuMicroBenchmark b = runGpuMicroBenchmark(0);
    for (const double figure :
         {b.gemmGflops, b.memoryBwGbs, b.launchUs, b.h2dPinnedGbs, b.h2dPageableGbs, b.d2hPinnedGbs,
          b.d2hPageableGbs, b.linkLatencyUs}) {
        QVERIFY(std::isfinite(figure) && figure > 0);
    }
}

// fp16 where a device supports it: CUDA devices do. The lowered graph (Casts to float16 around
// the Conv, the MatMul and the Gemm, the weights converted once) runs on cuda:0 close to the fp32
// model, and profiling measures each of its nodes there, the Half ones included.
void TestCuda::fp16OnCuda() {
    Device cuda;
    cuda.id = "cuda:0";
    cuda.kind = "gpu";
    cuda.cudaIndex = 0;
    QVERIFY(precisionRefusal(cuda, Precision::Fp16).empty());
    if (const std::string why = noGpu(); !why.empty()) {
        QSKIP(("no CUDA device to run fp16 on: " + why).c_str());
    }
    const Graph g = precision_fixture::fixture(); // Conv + Relu, MatMul + Add
    const LoweredGraph lowered = lowerGraph(g, lowerAll(g, Precision::Fp16));
    ExecutionDevice gpu;
    gpu.id = "cuda:0";
    gpu.cudaIndex = 0;
    const NamedTensors inputs = randomCalibrationInputs(g, 1, 7).sets.front();
    const OutputDeviation d =
        compareOutputs({executeGraph(g, inputs)}, {executeGraph(lowered.graph, inputs, gpu)});
    // fp16 keeps 11 bits of mantissa: a relative error of about 2^-12 per rounding.
    QVERIFY2(d.relativeL2Pct > 0.0 && d.relativeL2Pct < 1.0,
             std::to_string(d.relativeL2Pct).c_str());
    QVERIFY(d.minCosine > 0.9999);
    ProfileOptions po;
    po.measure = quickOptions();
    po.measure.cudaIndex = 0;
    const ProfileResult r = profileModel(lowered.graph, po);
    QCOMPARE(r.count(ProfileStatus::Failed), 0);
    QCOMPARE(r.count(ProfileStatus::Unsupported), 0);
    QVERIFY(r.count(ProfileStatus::Ok) >= 7); // Conv, MatMul, their Casts, Relu, Add, Reshape
}

QTEST_GUILESS_MAIN(TestCuda)
#include "tst_cuda.moc"
