// SPDX-License-Identifier: GPL-3.0-or-later
// The graph executor: one device, and plans split over several devices running concurrently,
// whose outputs must equal the single-device outputs.
#include "bundle/bundle_accuracy.h"
#include "common/host_memory.h"
#include "common/input_error.h"
#include "device/device.h"
#include "graph/model_weights.h"
#include "graph/onnx_importer.h"
#include "onnx_fixture.h"
#include "profile/cpu_affinity.h"
#include "profile/execution_threads.h"
#include "profile/graph_executor.h"
#include "profile/output_deviation.h"
#include "testpaths.h"

#include <QtTest>

#include <onnx/onnx_pb.h>

#include <sys/resource.h>

#include <cmath>
#include <filesystem>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

using namespace paretune;

namespace {

HostTensor floats(std::vector<std::int64_t> dims, std::vector<double> values) {
    return {DType::Float32, std::move(dims), std::move(values), {}};
}

/// Two devices for split plans: cpu:0 and cpu:1 when the machine has two cores, else two
/// unpinned devices (still two threads running concurrently).
std::vector<ExecutionDevice> twoDevices() {
    const DeviceInventory inventory = discoverDevices();
    const Device* a = inventory.find("cpu:0");
    const Device* b = inventory.find("cpu:1");
    if (a && b) {
        return {executionDeviceFor(*a), executionDeviceFor(*b)};
    }
    return {ExecutionDevice{"a", {}, 1, -1}, ExecutionDevice{"b", {}, 1, -1}};
}

/// Compute nodes alternate between the two devices in runs of `run` nodes (topological order);
/// everything else is left to the executor (pass-through nodes follow their input).
std::vector<std::int32_t> alternatingPlan(const Graph& g, int run) {
    std::vector<std::int32_t> device(g.nodes.size(), -1);
    int k = 0;
    for (NodeId id : g.topologicalOrder) {
        if (g.nodes[static_cast<std::size_t>(id)].kind == NodeKind::Compute) {
            device[static_cast<std::size_t>(id)] = (k++ / run) % 2;
        }
    }
    return device;
}

/// allclose: |a - b| <= atol + rtol |b| element-wise, same dtype and shape; empty when equal,
/// else what differs.
std::string compareTensors(const std::string& name, const HostTensor& a, const HostTensor& b,
                           double rtol = 1e-4, double atol = 1e-5) {
    if (a.dtype != b.dtype || a.dims != b.dims || a.values.size() != b.values.size()) {
        return name + ": dtype or shape differs";
    }
    for (std::size_t i = 0; i < a.values.size(); ++i) {
        const double x = a.values[i];
        const double y = b.values[i];
        if (std::isnan(x) && std::isnan(y)) {
            continue;
        }
        if (!(std::abs(x - y) <= atol + rtol * std::abs(y))) {
            return name + "[" + std::to_string(i) + "]: " + std::to_string(x) + " vs " +
                   std::to_string(y);
        }
    }
    return {};
}

} // namespace

class TestExecutor : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void tinyGraphComputesTheOnnxSemantics();
    void givenInitializerReplacesTheGraphsValue();
    void accuracyRunsUseTheModelsOwnWeights();
    void badInputsAreRefusedByName();
    void unsupportedOperatorNamesTheNode();
    void splitPlanEqualsSingleDevice_data();
    void splitPlanEqualsSingleDevice();
    void timingsRespectDependenciesAndDevices();
    void executionThreadsKeepOneThreadPerKey();
    void executorsShareTheirDevicesThreads();
    void blasThreadsFollowTheDevice();
    void openMpTeamRunsOneThreadPerCore();
    void memoryIsCountedPerDevice();
    void plansReuseFreedMemory();
    void measuredPeakIsTheHandComputedOne();
    void planMustFitTheGraph();
    void cudaAndModelledDevicesAreRefused();
};

void TestExecutor::tinyGraphComputesTheOnnxSemantics() {
    // y = relu(x · w + b), z = reshape(y) : hand-checked values.
    const Graph g =
        onnxFixture("(float[2,2] x) => (float[4] z) { "
                    "w = Constant<value = float[2,2] {1.0, -1.0, 2.0, 0.5}>() "
                    "b = Constant<value = float[2] {0.5, -3.0}>() "
                    "s = Constant<value = int64[1] {4}>() "
                    "m = MatMul(x, w)  a = Add(m, b)  y = Relu(a)  z = Reshape(y, s) }");
    const NamedTensors out = executeGraph(g, {{"x", floats({2, 2}, {1, 2, 3, 4})}});
    QCOMPARE(out.size(), std::size_t{1});
    const HostTensor& z = out.at("z");
    QCOMPARE(z.dims, (std::vector<std::int64_t>{4}));
    // [1,2]·w = [5, 0] + b = [5.5, -3] -> [5.5, 0]; [3,4]·w = [11, -1] + b = [11.5, -4] -> [11.5,
    // 0]
    QCOMPARE(z.values, (std::vector<double>{5.5, 0, 11.5, 0}));
    QCOMPARE(z.dtype, DType::Float32);

    // The same graph placed over two devices gives the same values.
    std::vector<std::int32_t> device(g.nodes.size(), -1);
    for (std::size_t n = 0; n < g.nodes.size(); ++n) {
        device[n] = static_cast<std::int32_t>(n % 2);
    }
    PlanExecutor executor(g, twoDevices(), device, {}, {{"x", floats({2, 2}, {1, 2, 3, 4})}});
    const PlanRun run = executor.run(true);
    QCOMPARE(run.outputs.at("z").values, z.values);
    QCOMPARE(run.nodes.size(), std::size_t{4}); // MatMul, Add, Relu, Reshape
}

void TestExecutor::givenInitializerReplacesTheGraphsValue() {
    const Graph g = onnxFixture("(float[1,2] x) => (float[1,2] y) "
                                "{ w = Constant<value = float[1,2] {1.0, 1.0}>()  y = Mul(x, w) }");
    const NamedTensors out =
        executeGraph(g, {{"x", floats({1, 2}, {2, 3})}, {"w", floats({1, 2}, {10, -1})}});
    QCOMPARE(out.at("y").values, (std::vector<double>{20, -3}));
    // Inputs not given are made up reproducibly: same seed, same outputs.
    const NamedTensors a = executeGraph(g);
    const NamedTensors b = executeGraph(g);
    QCOMPARE(a.at("y").values, b.at("y").values);
    ExecuteOptions other;
    other.seed = 99;
    QVERIFY(executeGraph(g, {}, {}, other).at("y").values != a.at("y").values);
}

// A weight too large for the Graph to hold (90,000 floats) is read from the model when outputs
// are compared (runOnSets, a bundle's partitions): y = x · W with every W[i][j] = 0.5 gives
// 0.5 · Σx in every column. Without the model's file its values are made up, as for timing.
void TestExecutor::accuracyRunsUseTheModelsOwnWeights() {
    constexpr int n = 300;
    onnx::ModelProto model;
    model.set_ir_version(8);
    model.add_opset_import()->set_version(13);
    onnx::GraphProto& graph = *model.mutable_graph();
    graph.set_name("large_weight");
    auto declare = [](onnx::ValueInfoProto* info, const char* name) {
        info->set_name(name);
        auto* type = info->mutable_type()->mutable_tensor_type();
        type->set_elem_type(onnx::TensorProto::FLOAT);
        type->mutable_shape()->add_dim()->set_dim_value(1);
        type->mutable_shape()->add_dim()->set_dim_value(n);
    };
    declare(graph.add_input(), "x");
    declare(graph.add_output(), "y");
    onnx::TensorProto& w = *graph.add_initializer();
    w.set_name("w");
    w.set_data_type(onnx::TensorProto::FLOAT);
    w.add_dims(n);
    w.add_dims(n);
    const std::vector<float> half(static_cast<std::size_t>(n) * n, 0.5f);
    w.set_raw_data(std::string(reinterpret_cast<const char*>(half.data()), half.size() * 4));
    onnx::NodeProto& matmul = *graph.add_node();
    matmul.set_name("product");
    matmul.set_op_type("MatMul");
    matmul.add_input("x");
    matmul.add_input("w");
    matmul.add_output("y");
    std::string bytes;
    QVERIFY(model.SerializeToString(&bytes));
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("large_weight.onnx")).toStdString();
    {
        QFile file(QString::fromStdString(path));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(bytes.data(), static_cast<qint64>(bytes.size()));
    }
    const Graph g = importOnnxFile(path).graph;
    QVERIFY(g.tensors[static_cast<std::size_t>(g.findTensor("w"))].value == nullptr);
    const std::shared_ptr<const ModelWeights> weights = readModelWeights(g);
    QVERIFY(weights != nullptr);
    QCOMPARE(weights->tensors.size(), std::size_t{1});
    QCOMPARE(weights->tensors.at("w").bytes.size(), half.size() * 4);

    const CalibrationInputs inputs = randomCalibrationInputs(g, 2, 9);
    auto expected = [&](std::size_t set) {
        double sum = 0.0;
        for (const double v : inputs.sets[set].at("x").values) {
            sum += v;
        }
        return 0.5 * sum;
    };
    auto checkColumns = [&](const std::vector<NamedTensors>& outputs) {
        QCOMPARE(outputs.size(), std::size_t{2});
        for (std::size_t k = 0; k < outputs.size(); ++k) {
            const HostTensor& y = outputs[k].at("y");
            QCOMPARE(y.values.size(), std::size_t{n});
            for (const double v : y.values) {
                QVERIFY2(std::abs(v - expected(k)) < 1e-3,
                         qPrintable(QString::number(v) + QStringLiteral(" vs ") +
                                    QString::number(expected(k))));
            }
        }
    };
    checkColumns(runOnSets(g, inputs, ExecutionDevice{}));
    // A partition imported from memory reads its own bytes.
    const std::vector<std::string> names{"y"};
    const PartitionToRun whole{"the whole model", bytes, {"x"}, {"y"}};
    checkColumns(runPartitionChain({&whole, 1}, inputs, names));
    // Without them (timing runs; a graph whose file is gone), the weights are made up.
    Graph detached = g;
    detached.sourcePath.clear();
    QVERIFY(cachedModelWeights(detached) == nullptr);
    const HostTensor madeUp = runOnSets(detached, inputs, ExecutionDevice{}).front().at("y");
    QVERIFY(std::abs(madeUp.values[0] - expected(0)) > 1e-3);
}

void TestExecutor::badInputsAreRefusedByName() {
    const Graph g = onnxFixture("(float[1,2] x) => (float[1,2] y) { h = Relu(x)  y = Neg(h) }");
    try {
        executeGraph(g, {{"nope", floats({1}, {1})}});
        QFAIL("an unknown input name was accepted");
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("'nope'") != std::string::npos, e.what());
    }
    try {
        executeGraph(g, {{"x", floats({2, 1}, {1, 2})}});
        QFAIL("a wrong shape was accepted");
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("[1,2]") != std::string::npos, e.what());
    }
    QVERIFY_EXCEPTION_THROWN(executeGraph(g, {{"h", floats({1, 2}, {1, 2})}}), InputError);
    QVERIFY_EXCEPTION_THROWN(executeGraph(g, {{"x", floats({1, 2}, {1})}}), InputError);
}

void TestExecutor::unsupportedOperatorNamesTheNode() {
    const Graph g = onnxFixture("(float[3,3] x) => (float y) { r = Relu(x)  y = Det(r) }");
    try {
        executeGraph(g);
        QFAIL("an unsupported operator ran");
    } catch (const ExecutionError& e) {
        QVERIFY(e.unsupported());
        QVERIFY2(std::string(e.what()).find("(Det)") != std::string::npos, e.what());
    }
    // In a plan the failure stops every device and reaches run(); the executor stays usable.
    std::vector<std::int32_t> device(g.nodes.size(), 0);
    device[1] = 1;
    PlanExecutor executor(g, twoDevices(), device);
    QVERIFY_EXCEPTION_THROWN(executor.run(), ExecutionError);
    QVERIFY_EXCEPTION_THROWN(executor.run(), ExecutionError);
}

void TestExecutor::splitPlanEqualsSingleDevice_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("run");
    QTest::newRow("tiny_mlp") << QStringLiteral("tiny_mlp.onnx") << 1;
    QTest::newRow("tiny_cnn") << QStringLiteral("tiny_cnn.onnx") << 1;
    QTest::newRow("resnet18") << QStringLiteral("resnet18.onnx") << 3;
    QTest::newRow("bert_base") << QStringLiteral("bert_base.onnx") << 5;
}

void TestExecutor::splitPlanEqualsSingleDevice() {
    QFETCH(QString, model);
    QFETCH(int, run);
    const QString path = testModelsDir() + QLatin1Char('/') + model;
    if (!QFile::exists(path)) {
        QSKIP(qPrintable(model + QStringLiteral(" is not in the test models folder")));
    }
    const Graph g = importOnnxFile(path.toStdString()).graph;
    const NamedTensors single = executeGraph(g);
    QVERIFY(!single.empty());

    const std::vector<std::int32_t> device = alternatingPlan(g, run);
    PlanExecutor executor(g, twoDevices(), device);
    const PlanRun first = executor.run(true);
    const PlanRun second = executor.run(true); // a second run on the same executor too
    int onSecond = 0;
    for (const NodeRun& r : first.nodes) {
        onSecond += r.device == 1;
    }
    QVERIFY(onSecond > 0 && onSecond < static_cast<int>(first.nodes.size()));
    QCOMPARE(first.outputs.size(), single.size());
    for (const auto& [name, expected] : single) {
        QVERIFY2(first.outputs.count(name), name.c_str());
        const std::string a = compareTensors(name, first.outputs.at(name), expected);
        QVERIFY2(a.empty(), a.c_str());
        const std::string b = compareTensors(name, second.outputs.at(name), expected);
        QVERIFY2(b.empty(), b.c_str());
    }
}

void TestExecutor::timingsRespectDependenciesAndDevices() {
    const QString path = testModelsDir() + QStringLiteral("/tiny_cnn.onnx");
    if (!QFile::exists(path)) {
        QSKIP("tiny_cnn.onnx is not in the test models folder");
    }
    const Graph g = importOnnxFile(path.toStdString()).graph;
    PlanExecutor executor(g, twoDevices(), alternatingPlan(g, 1));
    const PlanRun run = executor.run();
    std::map<NodeId, NodeRun> byNode;
    for (const NodeRun& r : run.nodes) {
        QVERIFY(r.beginUs >= 0 && r.endUs >= r.beginUs && r.copyUs >= 0);
        QVERIFY(r.endUs <= run.wallUs);
        byNode[r.node] = r;
    }
    int steps = 0;
    for (const Node& n : g.nodes) {
        steps += n.kind == NodeKind::Compute || n.kind == NodeKind::PassThrough;
    }
    QCOMPARE(static_cast<int>(byNode.size()), steps);
    for (const auto& [id, r] : byNode) {
        // A node starts after every producer of its inputs ended.
        for (NodeId p : g.predecessors.row(id)) {
            if (byNode.count(p)) {
                QVERIFY(r.beginUs >= byNode.at(p).endUs);
            }
        }
        // A device runs one node at a time.
        for (const auto& [other, o] : byNode) {
            if (other != id && o.device == r.device) {
                QVERIFY(o.endUs <= r.beginUs || r.endUs <= o.beginUs);
            }
        }
    }
}

// One thread per key, started once (its setup once) and reused; a setup's failure reaches every
// task of its thread; two jobs for one thread are refused.
void TestExecutor::executionThreadsKeepOneThreadPerKey() {
    ExecutionThreads threads;
    std::mutex mutex;
    std::map<std::string, std::vector<std::thread::id>> ranOn;
    std::map<std::string, int> setups;
    std::map<std::string, bool> sawSetupError;
    const auto job = [&](const std::string& key, bool failingSetup) {
        return ExecutionThreads::Job{key,
                                     [&, key, failingSetup]() -> std::shared_ptr<void> {
                                         const std::lock_guard<std::mutex> lock(mutex);
                                         ++setups[key];
                                         if (failingSetup) {
                                             throw std::runtime_error("no such core");
                                         }
                                         return nullptr;
                                     },
                                     [&, key](const std::exception_ptr& setupError) {
                                         const std::lock_guard<std::mutex> lock(mutex);
                                         ranOn[key].push_back(std::this_thread::get_id());
                                         sawSetupError[key] = setupError != nullptr;
                                     }};
    };
    for (int call = 0; call < 3; ++call) {
        threads.runTogether({job("a", false), job("b", true)});
    }
    QCOMPARE(threads.threadCount(), std::size_t{2});
    QCOMPARE(setups["a"], 1);
    QCOMPARE(setups["b"], 1);
    for (const std::string key : {"a", "b"}) {
        QCOMPARE(ranOn[key].size(), std::size_t{3});
        QVERIFY(ranOn[key][0] == ranOn[key][1] && ranOn[key][1] == ranOn[key][2]);
        QVERIFY(ranOn[key][0] != std::this_thread::get_id());
    }
    QVERIFY(ranOn["a"][0] != ranOn["b"][0]);
    QVERIFY(!sawSetupError["a"]);
    QVERIFY(sawSetupError["b"]);
    QVERIFY_EXCEPTION_THROWN(threads.runTogether({job("a", false), job("a", false)}),
                             std::invalid_argument);
}

// Executors given the same threads run their devices on them, in turn, and compute what one
// device computes: two plans of the same devices, interleaved, start two threads in all.
void TestExecutor::executorsShareTheirDevicesThreads() {
    const QString path = testModelsDir() + QStringLiteral("/tiny_cnn.onnx");
    if (!QFile::exists(path)) {
        QSKIP("tiny_cnn.onnx is not in the test models folder");
    }
    const Graph g = importOnnxFile(path.toStdString()).graph;
    const NamedTensors single = executeGraph(g);
    ExecuteOptions options;
    options.threads = std::make_shared<ExecutionThreads>();
    PlanExecutor a(g, twoDevices(), alternatingPlan(g, 1), {}, {}, options);
    PlanExecutor b(g, twoDevices(), alternatingPlan(g, 2), {}, {}, options);
    for (int round = 0; round < 2; ++round) {
        for (PlanExecutor* executor : {&a, &b}) {
            const PlanRun run = executor->run(true);
            for (const auto& [name, expected] : single) {
                QVERIFY2(run.outputs.count(name), name.c_str());
                const std::string differs = compareTensors(name, run.outputs.at(name), expected);
                QVERIFY2(differs.empty(), differs.c_str());
            }
        }
    }
    QCOMPARE(options.threads->threadCount(), std::size_t{2});
}

// A plan with the all-core device and a core of it: the all-core device's nodes run with its own
// BLAS threads, the others with one; the process's BLAS setting is the same after the runs as
// before (executors set it per run, not for their lives), and the outputs are one device's.
void TestExecutor::blasThreadsFollowTheDevice() {
    const QString path = testModelsDir() + QStringLiteral("/tiny_mlp.onnx");
    const DeviceInventory inventory = discoverDevices();
    const Device* all = inventory.find("cpu");
    const Device* first = inventory.find("cpu:0");
    if (!QFile::exists(path) || all == nullptr || first == nullptr || all->cores < 2) {
        QSKIP("needs tiny_mlp.onnx and a CPU of two cores or more");
    }
    const Graph g = importOnnxFile(path.toStdString()).graph;
    const NamedTensors single = executeGraph(g);
    const int before = ScopedBlasThreads::current();
    {
        PlanExecutor a(g, {executionDeviceFor(*all), executionDeviceFor(*first)},
                       alternatingPlan(g, 1));
        PlanExecutor b(g, {executionDeviceFor(*first)}, alternatingPlan(g, 1 << 20));
        QCOMPARE(ScopedBlasThreads::current(), before);
        for (int round = 0; round < 2; ++round) {
            for (PlanExecutor* executor : {&a, &b}) {
                const PlanRun run = executor->run(true);
                QCOMPARE(ScopedBlasThreads::current(), before);
                for (const auto& [name, expected] : single) {
                    const std::string differs =
                        compareTensors(name, run.outputs.at(name), expected);
                    QVERIFY2(differs.empty(), differs.c_str());
                }
            }
        }
    }
    QCOMPARE(ScopedBlasThreads::current(), before);
}

// A device of several cores runs its OpenMP team one thread per core (pinOpenMpTeam): after the
// pin, the team's thread t may run on the device's CPU t only; a pin that cannot be done in full
// leaves the team as it was.
void TestExecutor::openMpTeamRunsOneThreadPerCore() {
    const DeviceInventory inventory = discoverDevices();
    const Device* all = inventory.find("cpu");
    if (all == nullptr || all->cores < 2 || !ScopedOpenMpThreads::available()) {
        QSKIP("needs a CPU of two cores or more and LibTorch's OpenMP runtime");
    }
    const std::vector<int> cpus = executionDeviceFor(*all).cpus;
    const int n = static_cast<int>(cpus.size());
    QVERIFY(!pinOpenMpTeam({cpus.front()}));
    // On a thread of its own: the pins hold for the thread's team, not the test's.
    std::vector<std::vector<int>> before, refused, pinned;
    bool badPin = true, goodPin = false;
    std::thread([&] {
        const ScopedCpuAffinity reach(cpus);
        before = openMpTeamCpus(n);
        badPin = pinOpenMpTeam({cpus.front(), 1 << 20}); // a CPU the machine lacks
        refused = openMpTeamCpus(2);
        goodPin = pinOpenMpTeam(cpus);
        pinned = openMpTeamCpus(n);
    }).join();
    // Scoped (the profiler's operators): pinned inside, as before afterwards.
    std::vector<std::vector<int>> inside, after;
    bool scopedPin = false, singlePin = true;
    std::thread([&] {
        const ScopedCpuAffinity reach(cpus);
        {
            const ScopedOpenMpTeamPin single({cpus.front()});
            singlePin = single.pinned();
        }
        {
            const ScopedOpenMpTeamPin scope(cpus);
            scopedPin = scope.pinned();
            inside = openMpTeamCpus(n);
        }
        after = openMpTeamCpus(n);
    }).join();
    QVERIFY(!singlePin);
    QVERIFY(scopedPin);
    QCOMPARE(inside, pinned);
    QCOMPARE(after, before);
    QCOMPARE(before.size(), cpus.size());
    for (const std::vector<int>& threadCpus : before) {
        QCOMPARE(threadCpus, cpus);
    }
    QVERIFY(!badPin);
    QCOMPARE(refused, (std::vector<std::vector<int>>(2, cpus)));
    QVERIFY(goodPin);
    QCOMPARE(pinned.size(), cpus.size());
    for (std::size_t t = 0; t < cpus.size(); ++t) {
        QCOMPARE(pinned[t], std::vector<int>{cpus[t]});
    }
}

void TestExecutor::plansReuseFreedMemory() {
#if defined(__SANITIZE_ADDRESS__)
    QSKIP("AddressSanitizer's allocator stands in for glibc's: its malloc settings do not apply");
#endif
    const QString path = testModelsDir() + QStringLiteral("/mobilenet_v2.onnx");
    if (!QFile::exists(path)) {
        QSKIP("mobilenet_v2.onnx is not in the test models folder");
    }
    const Graph g = importOnnxFile(path.toStdString()).graph;
    PlanExecutor executor(g, twoDevices(), alternatingPlan(g, 1 << 20)); // all on the first
    if (hostMemoryPolicy() != "kept") { // the module's loader applied it, or the user chose
        QSKIP("this environment sets glibc's malloc tunables itself");
    }
    for (int run = 0; run < 3; ++run) {
        executor.run();
    }
    // Once warm, a run's tensors take memory earlier runs freed. With glibc's defaults its
    // depthwise convolutions' outputs went back to the kernel and were faulted in again: about
    // 2,800 page faults a run (paretune validate, all on cpu:0).
    rusage before{};
    getrusage(RUSAGE_SELF, &before);
    constexpr int kRuns = 3;
    for (int run = 0; run < kRuns; ++run) {
        executor.run();
    }
    rusage after{};
    getrusage(RUSAGE_SELF, &after);
    const long perRun = (after.ru_minflt - before.ru_minflt) / kRuns;
    QVERIFY2(perRun < 300, qPrintable(QStringLiteral("%1 page faults per run").arg(perRun)));
}

void TestExecutor::memoryIsCountedPerDevice() {
    const QString path = testModelsDir() + QStringLiteral("/resnet18.onnx");
    if (!QFile::exists(path)) {
        QSKIP("resnet18.onnx is not in the test models folder");
    }
    const Graph g = importOnnxFile(path.toStdString()).graph;
    const std::vector<std::int32_t> device = alternatingPlan(g, 3);
    PlanExecutor executor(g, twoDevices(), device);
    for (int run = 0; run < 2; ++run) {
        const PlanRun r = executor.run();
        QCOMPARE(r.peakBytes.size(), std::size_t{2});
        QCOMPARE(r.weightBytes.size(), std::size_t{2});
        for (std::int32_t d = 0; d < 2; ++d) {
            // A node's outputs exist when it ends: the device's peak holds its largest output;
            // the resident bytes are the initializers and graph inputs its nodes read, each once.
            double largestOutput = 0.0;
            double weights = 0.0;
            std::set<TensorId> read;
            for (std::size_t n = 0; n < g.nodes.size(); ++n) {
                if (device[n] != d) {
                    continue;
                }
                for (TensorId t : g.nodeOutputs.row(static_cast<NodeId>(n))) {
                    largestOutput = std::max(
                        largestOutput,
                        static_cast<double>(g.tensors[static_cast<std::size_t>(t)].byteSize()));
                }
                for (TensorId t : g.nodeInputs.row(static_cast<NodeId>(n))) {
                    const Tensor& tensor = g.tensors[static_cast<std::size_t>(t)];
                    if (t != kNone && tensor.role != TensorRole::Activation &&
                        read.insert(t).second) {
                        weights += static_cast<double>(tensor.byteSize());
                    }
                }
            }
            QVERIFY(largestOutput > 0);
            QVERIFY2(r.peakBytes[static_cast<std::size_t>(d)] >= largestOutput,
                     qPrintable(QStringLiteral("device %1: peak %2 < largest output %3")
                                    .arg(d)
                                    .arg(r.peakBytes[static_cast<std::size_t>(d)])
                                    .arg(largestOutput)));
            QCOMPARE(r.weightBytes[static_cast<std::size_t>(d)], weights);
        }
    }
}

// x (1024 floats, a graph input) -> Relu -> h -> Neg -> y on one device: the allocator holds
// h (4 KiB) while Neg writes y (4 KiB): a peak of 8 KiB; x is resident (weights and inputs).
// Both on a second device instead: the first device's peak is 0.
void TestExecutor::measuredPeakIsTheHandComputedOne() {
    const Graph g =
        onnxFixture("(float[1,1024] x) => (float[1,1024] y) { h = Relu(x)  y = Neg(h) }");
    for (const std::int32_t d : {0, 1}) {
        PlanExecutor executor(g, twoDevices(), {d, d});
        for (int run = 0; run < 3; ++run) {
            const PlanRun r = executor.run();
            QCOMPARE(r.peakBytes.size(), std::size_t{2});
            QCOMPARE(r.peakBytes[static_cast<std::size_t>(d)], 8192.0);
            QCOMPARE(r.weightBytes[static_cast<std::size_t>(d)], 4096.0);
            QCOMPARE(r.peakBytes[static_cast<std::size_t>(1 - d)], 0.0);
        }
    }
}

void TestExecutor::planMustFitTheGraph() {
    const Graph g = onnxFixture("(float[1,2] x) => (float[1,2] y) { h = Relu(x)  y = Neg(h) }");
    QVERIFY_EXCEPTION_THROWN(PlanExecutor(g, twoDevices(), {0}), InputError);
    QVERIFY_EXCEPTION_THROWN(PlanExecutor(g, twoDevices(), {0, 2}), InputError);
    QVERIFY_EXCEPTION_THROWN(PlanExecutor(g, twoDevices(), {0, -1}), InputError);
    QVERIFY_EXCEPTION_THROWN(PlanExecutor(g, {}, {0, 0}), InputError);
}

void TestExecutor::cudaAndModelledDevicesAreRefused() {
    Device modelled;
    modelled.id = "npu";
    modelled.kind = "npu";
    modelled.tag = DeviceTag::Modelled;
    try {
        executionDeviceFor(modelled);
        QFAIL("a modelled device was accepted");
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("npu") != std::string::npos, e.what());
    }
    if (torchHasCuda()) {
        QSKIP("LibTorch has CUDA and a GPU here: the refusal applies where it has none");
    }
    Device gpu;
    gpu.id = "cuda:0";
    gpu.kind = "gpu";
    gpu.cudaIndex = 0;
    try {
        executionDeviceFor(gpu);
        QFAIL("a CUDA device was accepted by a LibTorch without CUDA");
    } catch (const InputError& e) { // which flavour the module is, and (CPU) how to get CUDA
        QVERIFY2(std::string(e.what()).find("flavour") != std::string::npos, e.what());
    }
    const Graph g = onnxFixture("(float[1,2] x) => (float[1,2] y) { y = Relu(x) }");
    QVERIFY_EXCEPTION_THROWN(executeGraph(g, {}, ExecutionDevice{"cuda:0", {}, 1, 0}), InputError);
}

QTEST_GUILESS_MAIN(TestExecutor)
#include "tst_executor.moc"
