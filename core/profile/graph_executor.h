// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graph/graph.h"
#include "op_profile.h"

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace paretune {

struct Device;
class ExecutionThreads;
struct ModelWeights;

/// Tensors by name, as host copies.
using NamedTensors = std::map<std::string, HostTensor>;

/// A device the executor runs nodes on: one thread per device, pinned to `cpus` (when not empty)
/// with `threads` intra-op threads. A CUDA device (cudaIndex >= 0) exists only where LibTorch
/// was built with CUDA.
struct ExecutionDevice {
    std::string id = "cpu";
    std::vector<int> cpus;
    int threads = 1;
    int cudaIndex = -1;

    bool isCuda() const { return cudaIndex >= 0; }
};

/// Whether this build's LibTorch can run on CUDA (Debian's cannot).
bool torchHasCuda();
/// Empty when this build's LibTorch runs Conv and matrix products in float16 on the CPU; else
/// why not (LibTorch 1.13's CPU kernels have no Half convolution). Loads LibTorch; throws
/// TorchUnavailable without it.
std::string torchCpuHalfRefusal();

/// The execution device for a device of the inventory: a CPU device pins to its CPUs with one
/// intra-op thread per CPU; a CUDA device needs LibTorch with CUDA. Throws InputError naming the
/// device for a modelled device or for CUDA without CUDA support in LibTorch.
ExecutionDevice executionDeviceFor(const Device& device);

/// A graph that could not be executed: an operator (or one of its modes) without a LibTorch
/// implementation (`unsupported`), or a node that failed. The message names the node.
class ExecutionError : public std::runtime_error {
public:
    ExecutionError(const std::string& message, bool unsupported)
        : std::runtime_error(message), m_unsupported(unsupported) {}
    bool unsupported() const { return m_unsupported; }

private:
    bool m_unsupported;
};

struct ExecuteOptions {
    /// Seed of the values the executor makes up: graph inputs not given, and weights too large
    /// for the graph to keep (Tensor::value) that `weights` does not hold. Each such tensor is
    /// seeded by its name, so two graphs sharing a tensor name and shape (a model and a
    /// partition of it) get equal values.
    std::uint64_t seed = 0x5eed;
    /// The model's large weights (graph/model_weights.h): what measures accuracy runs with, so
    /// that it is the model's. Without them (timing), their values are made up.
    std::shared_ptr<const ModelWeights> weights;
    /// The threads a plan executor runs its devices on (profile/execution_threads.h), shared
    /// with the other executors given the same; without them, its own.
    std::shared_ptr<ExecutionThreads> threads;
};

/// Executes the graph once on one device, in the calling thread (pinned for the call when the
/// device has CPUs), in topological order with the ONNX semantics of OpRunner. Pass-through
/// nodes are views, Constant and folded shape nodes give the graph's constants.
///
/// `inputs` gives values by tensor name: graph inputs, and optionally initializers or constants
/// (they replace the graph's values). Returns every graph output by name.
/// Throws InputError for a name that is not a graph input, initializer or constant of the graph,
/// or a value whose shape differs from the graph's static one; ExecutionError when a node is
/// unsupported or fails.
NamedTensors executeGraph(const Graph& graph, const NamedTensors& inputs = {},
                          const ExecutionDevice& device = {}, const ExecuteOptions& options = {});

/// The measured time of one node in one run, µs from the start of the run (steady clock).
/// `copyUs` is the time spent copying the node's inputs from other devices just before it.
struct NodeRun {
    NodeId node = kNone;
    std::int32_t device = 0; ///< index into the executor's devices
    double beginUs = 0.0;
    double endUs = 0.0;
    double copyUs = 0.0;
};

/// One run of a plan: per-node timings (in the order the nodes finished) and the wall time from
/// the start signal to the last node's end. `outputs` is filled when asked for.
///
/// Memory, per device (empty when it could not be counted): `peakBytes` is the most the device
/// held at once during the run through LibTorch's CPU allocator (the tensors its thread made,
/// copies of inputs from other devices included, until they were freed, and oneDNN's scratch
/// memory; not what the OpenMP helper threads of a multi-threaded device allocate themselves);
/// `weightBytes` the fixed tensors its nodes read (weights, constants, graph inputs), resident
/// for the whole run.
struct PlanRun {
    std::vector<NodeRun> nodes;
    double wallUs = 0.0;
    NamedTensors outputs;
    std::vector<double> peakBytes;
    std::vector<double> weightBytes;
};

/// Executes a graph with a placement plan: each compute and pass-through node on its device,
/// every device on its own thread (started once, pinned to its CPUs), devices running
/// concurrently. A node starts as soon as its inputs are ready and its device is free; of the
/// ready nodes of a device, the earliest in `order` runs first. A tensor consumed on another
/// device than the one that produced it is copied there once per run (weights and graph inputs
/// are resident on every device).
///
/// `nodeDevice` has one entry per graph node: an index into `devices`, or -1 for a node that is
/// not placed (Constant, folded shape nodes; a pass-through node with -1 runs with the producer
/// of its first input). `order` lists compute nodes by priority; empty: topological order.
/// Throws InputError for a plan that does not fit the graph (sizes, a compute node without a
/// device, a device index out of range, a CUDA device without CUDA in LibTorch).
/// run() throws ExecutionError when a node is unsupported or fails (the other devices stop).
/// Not thread-safe: one run at a time.
/// What runs a plan behind PlanExecutor (implemented in the LibTorch module, which the first
/// PlanExecutor loads; see runtime/torch_runtime.h).
class PlanExecutorEngine {
public:
    virtual ~PlanExecutorEngine() = default;
    virtual const std::vector<ExecutionDevice>& devices() const = 0;
    virtual PlanRun run(bool collectOutputs) = 0;
};

class PlanExecutor {
public:
    PlanExecutor(const Graph& graph, std::vector<ExecutionDevice> devices,
                 std::vector<std::int32_t> nodeDevice, std::vector<NodeId> order = {},
                 const NamedTensors& inputs = {}, const ExecuteOptions& options = {});
    ~PlanExecutor();
    PlanExecutor(const PlanExecutor&) = delete;
    PlanExecutor& operator=(const PlanExecutor&) = delete;

    const std::vector<ExecutionDevice>& devices() const;
    /// One inference; graph outputs copied to the host when `collectOutputs`.
    PlanRun run(bool collectOutputs = false);

private:
    std::unique_ptr<PlanExecutorEngine> d;
};

} // namespace paretune
