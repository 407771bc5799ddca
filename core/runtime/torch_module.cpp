// SPDX-License-Identifier: GPL-3.0-or-later
// The LibTorch module's entry point: the TorchRuntime the loader asks for.
#include "paretune/config.h"
#include "runtime/torch_impl.h"

namespace paretune {

namespace {

class ModuleRuntime final : public TorchRuntime {
public:
    std::string libtorchVersion() const override { return torch_impl::libtorchVersion(); }
    bool hasCuda() const override { return torch_impl::hasCuda(); }
    ProfileResult profileModel(const Graph& graph, const ProfileOptions& options,
                               Progress* progress) const override {
        return torch_impl::profileModel(graph, options, progress);
    }
    NamedTensors executeGraph(const Graph& graph, const NamedTensors& inputs,
                              const ExecutionDevice& device,
                              const ExecuteOptions& options) const override {
        return torch_impl::executeGraph(graph, inputs, device, options);
    }
    std::unique_ptr<PlanExecutorEngine>
    planExecutor(const Graph& graph, std::vector<ExecutionDevice> devices,
                 std::vector<std::int32_t> nodeDevice, std::vector<NodeId> order,
                 const NamedTensors& inputs, const ExecuteOptions& options) const override {
        return torch_impl::planExecutor(graph, std::move(devices), std::move(nodeDevice),
                                        std::move(order), inputs, options);
    }
    double dispatchOverheadUs(const std::vector<int>& cpus) const override {
        return torch_impl::dispatchOverheadUs(cpus);
    }
    TorchCudaInfo cudaInfo() const override { return torch_impl::cudaInfo(); }
    std::string cudaUnusable(int cudaIndex) const override {
        return torch_impl::cudaUnusable(cudaIndex);
    }
    GpuMicroBenchmark gpuMicroBenchmark(int cudaIndex, bool quick) const override {
        return torch_impl::gpuMicroBenchmark(cudaIndex, quick);
    }
    std::string cpuHalfRefusal() const override { return torch_impl::cpuHalfRefusal(); }
    std::unique_ptr<PredictorEngine>
    trainPredictor(const PredictorDataset& dataset, std::span<const std::size_t> rows,
                   const PredictorOptions& options,
                   const PerformancePredictor::EpochCallback& onEpoch) const override {
        return torch_impl::trainPredictor(dataset, rows, options, onEpoch);
    }
    std::unique_ptr<PredictorEngine> loadPredictor(const PredictorRecord& record) const override {
        return torch_impl::loadPredictor(record);
    }
};

} // namespace

} // namespace paretune

extern "C" __attribute__((visibility("default"))) const paretune::TorchRuntime*
paretune_torch_runtime(std::uint32_t abi, const char** version) {
    static const paretune::ModuleRuntime runtime;
    if (version != nullptr) {
        *version = PARETUNE_VERSION;
    }
    return abi == paretune::kTorchRuntimeAbi ? &runtime : nullptr;
}
