// SPDX-License-Identifier: GPL-3.0-or-later
// The graph executor on LibTorch, one device in the calling thread (a CUDA device through the
// plan executor, plan_executor.cpp), and what LibTorch supports.
#include "graph_executor.h"

#include "runtime/torch_impl.h"

#include "common/input_error.h"
#include "cuda_support.h"
#include "graph_program.h"

#include <ATen/Context.h>
#include <torch/version.h>

namespace paretune {

bool torch_impl::hasCuda() {
    return at::hasCUDA();
}

std::string torch_impl::libtorchVersion() {
    return TORCH_VERSION;
}

namespace detail {

void requireCuda(const ExecutionDevice& device) {
    if (device.isCuda()) {
        if (const std::string why = cudaUnusable(device.cudaIndex); !why.empty()) {
            throw InputError("device " + device.id + " cannot execute: " + why);
        }
    }
}

c10::Device torchDevice(const ExecutionDevice& device) {
    return device.isCuda()
               ? c10::Device(c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(device.cudaIndex))
               : c10::Device(c10::DeviceType::CPU);
}

} // namespace detail

NamedTensors torch_impl::executeGraph(const Graph& graph, const NamedTensors& inputs,
                                      const ExecutionDevice& device,
                                      const ExecuteOptions& options) {
    detail::requireCuda(device);
    if (device.isCuda()) {
        std::vector<std::int32_t> placement(graph.nodes.size(), 0);
        return planExecutor(graph, {device}, placement, {}, inputs, options)->run(true).outputs;
    }
    detail::ThreadScope scope(device.threads, device.cpus);
    const detail::GraphProgram program(graph, inputs, options.seed, options.weights.get());
    return program.outputsByName(program.runSequential());
}

} // namespace paretune
