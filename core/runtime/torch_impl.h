// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Inside the LibTorch module only: the implementations behind TorchRuntime, defined in the
// files that include LibTorch (profile/op_runner.cpp, profile/graph_executor.cpp,
// profile/plan_executor.cpp, profile/dispatch_overhead.cpp, profile/cuda_support.cpp,
// predict/torch_predictor_training.cpp, predict/torch_predictor_record.cpp).
#include "runtime/torch_runtime.h"

namespace paretune::torch_impl {

std::string libtorchVersion();
bool hasCuda();
ProfileResult profileModel(const Graph& graph, const ProfileOptions& options, Progress* progress);
NamedTensors executeGraph(const Graph& graph, const NamedTensors& inputs,
                          const ExecutionDevice& device, const ExecuteOptions& options);
std::unique_ptr<PlanExecutorEngine>
planExecutor(const Graph& graph, std::vector<ExecutionDevice> devices,
             std::vector<std::int32_t> nodeDevice, std::vector<NodeId> order,
             const NamedTensors& inputs, const ExecuteOptions& options);
double dispatchOverheadUs(const std::vector<int>& cpus);
TorchCudaInfo cudaInfo();
std::string cudaUnusable(int cudaIndex);
GpuMicroBenchmark gpuMicroBenchmark(int cudaIndex, bool quick);
std::string cpuHalfRefusal();
std::unique_ptr<PredictorEngine> trainPredictor(const PredictorDataset& dataset,
                                                std::span<const std::size_t> rows,
                                                const PredictorOptions& options,
                                                const PerformancePredictor::EpochCallback& onEpoch);
std::unique_ptr<PredictorEngine> loadPredictor(const PredictorRecord& record);

} // namespace paretune::torch_impl
