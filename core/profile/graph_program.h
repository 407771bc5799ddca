// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to paretune_profile: includes ATen.

#include "cpu_affinity.h"
#include "graph_executor.h"
#include "op_kernels.h"

#include <optional>
#include <vector>

namespace paretune::detail {

/// What executing a graph needs, prepared once: the steps (compute and pass-through nodes in
/// topological order), the values of every tensor that is not computed at run time (given
/// inputs, the graph's constants, made-up graph inputs and large weights), and who consumes
/// what. Shared by the single-device run (profileModel, executeGraph) and PlanExecutor.
class GraphProgram {
public:
    /// Throws InputError for a given tensor that is not an input, initializer or constant of the
    /// graph, or whose shape disagrees with the graph; ExecutionError when a value cannot be
    /// made (unsupported element type, unknown shape).
    /// Initializers without a value in the graph take theirs from `weights` where it holds them
    /// (same name, type and shape), else they are made up from `seed`.
    GraphProgram(const Graph& graph, const NamedTensors& given, std::uint64_t seed,
                 const ModelWeights* weights = nullptr);

    const Graph& graph() const { return m_graph; }
    const std::vector<NodeId>& steps() const { return m_steps; }
    /// Step index of a node, or -1 for a node that does not run.
    int stepOf(NodeId node) const { return m_stepOf[static_cast<std::size_t>(node)]; }
    /// Whether a tensor is produced by a step at run time (else fixed() holds it).
    bool computed(TensorId t) const { return m_computed[static_cast<std::size_t>(t)] != 0; }
    /// Values of the tensors that are not computed (undefined for the others).
    const std::vector<at::Tensor>& fixed() const { return m_fixed; }
    /// Per tensor, the steps reading it (each once).
    const std::vector<std::vector<int>>& consumers() const { return m_consumers; }
    /// Per step, how many distinct computed tensors it reads.
    const std::vector<int>& computedInputs() const { return m_computedInputs; }

    /// Replaces the inputs of a step that were computed once before the runs (foldedInputs: a
    /// FusedConv's folded weights); `inputs` are the step's node inputs, in order.
    void applyFolded(int step, std::vector<at::Tensor>& inputs) const;

    /// Moves the fixed values (and folded weights) to `device`, so that runSequential() runs
    /// there (a CUDA device: the whole model profiled on the GPU).
    void moveTo(const c10::Device& device);

    /// One run in the calling thread, in step order; intermediates are freed after their last
    /// reader. Returns the values of graph.outputs (in that order).
    std::vector<at::Tensor> runSequential() const;
    /// Host copies of graph outputs by name.
    NamedTensors outputsByName(const std::vector<at::Tensor>& values) const;

private:
    /// The value of a tensor made by a Constant-kind node with inputs (the weight conversions of
    /// a lowered graph, graph/precision.h), computed once from those inputs; undefined for any
    /// other tensor.
    at::Tensor convertedOnce(TensorId t, std::uint64_t seed);
    /// An initializer's value from m_weights; undefined when they do not hold it.
    at::Tensor givenWeight(TensorId t) const;

    const Graph& m_graph;
    const ModelWeights* m_weights = nullptr;
    std::vector<NodeId> m_steps;
    std::vector<int> m_stepOf;
    std::vector<std::uint8_t> m_computed;
    std::vector<at::Tensor> m_fixed;
    std::vector<std::vector<int>> m_consumers;
    std::vector<int> m_computedInputs;
    std::vector<std::vector<TensorId>> m_release; ///< per step, tensors dead after it
    std::vector<std::vector<std::pair<int, at::Tensor>>> m_folded; ///< per step
};

/// Intra-op threads and pinning of the calling thread for the scope's lifetime, and the system
/// BLAS's threads unless `blasToo` is false (the BLAS count is process-wide: threads that run
/// devices side by side set it once for all, see PlanExecutor); restored afterwards. With as
/// many threads as CPUs (two or more), the intra-op threads run one per CPU (ScopedOpenMpTeamPin):
/// the executor's devices and the profiler's samples alike. Throws InputError for threads < 1
/// or a CPU set the kernel refuses.
class ThreadScope {
public:
    ThreadScope(int threads, const std::vector<int>& cpus, bool blasToo = true);
    ~ThreadScope();
    ThreadScope(const ThreadScope&) = delete;
    ThreadScope& operator=(const ThreadScope&) = delete;

private:
    ScopedCpuAffinity m_affinity;
    std::optional<ScopedBlasThreads> m_blas;
    int m_previous = 1;
    std::optional<ScopedOpenMpTeamPin> m_team; ///< last: undone first
};

/// Runs one node with its inputs, turning the kernels' exceptions into ExecutionError naming
/// the node.
std::vector<at::Tensor> runStep(const Graph& graph, NodeId node,
                                const std::vector<at::Tensor>& inputs);

/// Throws InputError naming the device for a CUDA device when this build's LibTorch has no CUDA
/// (graph_executor.cpp, like the two functions below it).
void requireCuda(const ExecutionDevice& device);
/// LibTorch's device for an execution device.
c10::Device torchDevice(const ExecutionDevice& device);

} // namespace paretune::detail
