// SPDX-License-Identifier: GPL-3.0-or-later
// The core definitions of the engine's LibTorch entry points. Each forwards to the module
// through torchRuntime(), so a program that calls none of them never loads LibTorch.
#include "common/input_error.h"
#include "device/device.h"
#include "profile/dispatch_overhead.h"
#include "runtime/torch_runtime.h"
#include "store/records.h"

#include <algorithm>

namespace paretune {

// ---- profiling and execution --------------------------------------------------------------

ProfileResult profileModel(const Graph& graph, const ProfileOptions& options, Progress* progress) {
    return torchRuntime().profileModel(graph, options, progress);
}

double measureDispatchOverheadUs(const std::vector<int>& cpus) {
    return torchRuntime().dispatchOverheadUs(cpus);
}

bool torchHasCuda() {
    return torchRuntime().hasCuda();
}

std::string torchCpuHalfRefusal() {
    return torchRuntime().cpuHalfRefusal();
}

GpuMicroBenchmark runGpuMicroBenchmark(int cudaIndex, const MicroBenchmarkOptions& options) {
    return torchRuntime().gpuMicroBenchmark(cudaIndex, options.quick);
}

ExecutionDevice executionDeviceFor(const Device& device) {
    ExecutionDevice e;
    e.id = device.id;
    if (device.tag != DeviceTag::Real) {
        throw InputError("device " + device.id + " is modelled: it exists only in a catalog and " +
                         "cannot execute anything");
    }
    if (device.isCpu()) {
        e.cpus.assign(device.cpus.begin(), device.cpus.end());
        e.threads = std::max<int>(1, static_cast<int>(device.cpus.size()));
        return e;
    }
    if (device.cudaIndex >= 0) {
        e.cudaIndex = device.cudaIndex;
        if (const std::string why = torchRuntime().cudaUnusable(device.cudaIndex); !why.empty()) {
            throw InputError("device " + device.id + " cannot execute plans: " + why);
        }
        return e;
    }
    throw InputError("device " + device.id + " (" + device.kind + ") cannot execute plans");
}

NamedTensors executeGraph(const Graph& graph, const NamedTensors& inputs,
                          const ExecutionDevice& device, const ExecuteOptions& options) {
    return torchRuntime().executeGraph(graph, inputs, device, options);
}

PlanExecutor::PlanExecutor(const Graph& graph, std::vector<ExecutionDevice> devices,
                           std::vector<std::int32_t> nodeDevice, std::vector<NodeId> order,
                           const NamedTensors& inputs, const ExecuteOptions& options)
    : d(torchRuntime().planExecutor(graph, std::move(devices), std::move(nodeDevice),
                                    std::move(order), inputs, options)) {}

PlanExecutor::~PlanExecutor() = default;

const std::vector<ExecutionDevice>& PlanExecutor::devices() const {
    return d->devices();
}

PlanRun PlanExecutor::run(bool collectOutputs) {
    return d->run(collectOutputs);
}

// ---- the learned predictor ----------------------------------------------------------------

PerformancePredictor::PerformancePredictor(std::unique_ptr<PredictorEngine> engine)
    : m_engine(std::move(engine)) {}
PerformancePredictor::PerformancePredictor(PerformancePredictor&&) noexcept = default;
PerformancePredictor& PerformancePredictor::operator=(PerformancePredictor&&) noexcept = default;
PerformancePredictor::~PerformancePredictor() = default;

PerformancePredictor PerformancePredictor::train(const PredictorDataset& dataset,
                                                 std::span<const std::size_t> rows,
                                                 const PredictorOptions& options,
                                                 const EpochCallback& onEpoch) {
    return PerformancePredictor(torchRuntime().trainPredictor(dataset, rows, options, onEpoch));
}

PerformancePredictor PerformancePredictor::fromRecord(const PredictorRecord& record) {
    return PerformancePredictor(torchRuntime().loadPredictor(record));
}

std::vector<LatencyPrediction>
PerformancePredictor::predict(std::span<const PredictorRow> rows,
                              const std::map<std::string, DeviceFigures>& devices) const {
    return m_engine->predict(rows, devices);
}

bool PerformancePredictor::knowsDevice(const std::string& fingerprint) const {
    return m_engine->knowsDevice(fingerprint);
}

std::string PerformancePredictor::nearestDevice(const DeviceFigures& device) const {
    return m_engine->nearestDevice(device);
}

void PerformancePredictor::fineTune(std::span<const PredictorRow> rows, const DeviceFigures& device,
                                    int steps) {
    m_engine->fineTune(rows, device, steps);
}

PredictorRecord PerformancePredictor::toRecord(const nlohmann::json& metrics) const {
    return m_engine->toRecord(metrics);
}

const PredictorOptions& PerformancePredictor::options() const {
    return m_engine->options();
}

std::size_t PerformancePredictor::trainingRows() const {
    return m_engine->trainingRows();
}

} // namespace paretune
