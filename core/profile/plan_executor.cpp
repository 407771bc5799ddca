// SPDX-License-Identifier: GPL-3.0-or-later
// The plan executor on LibTorch (TorchPlanExecutor): a placement plan over several devices,
// each on its own pinned thread (execution_threads.h: shared between executors that take
// turns), nodes started as their inputs become ready.
#include "graph_executor.h"

#include "runtime/torch_impl.h"

#include "common/input_error.h"
#include "cpu_affinity.h"
#include "cuda_support.h"
#include "device_memory.h"
#include "execution_threads.h"
#include "graph_program.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <queue>

namespace paretune {

namespace {

using Clock = std::chrono::steady_clock;

double microsecondsBetween(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::micro>(b - a).count();
}

struct PlanState {
    const Graph& graph;
    std::vector<ExecutionDevice> devices;
    std::unique_ptr<detail::GraphProgram> program;
    std::vector<std::int32_t> stepDevice;         ///< per step
    std::vector<int> priority;                    ///< per step: rank in the order
    std::vector<std::vector<at::Tensor>> fixedOn; ///< per device: fixed values there
    std::vector<int> stepsOn;                     ///< per device: number of steps
    /// Per device: the devices it shares a CPU with (bit e). Two such devices never run nodes at
    /// the same time, as the simulator models them: `cpu` and `cpu:0` both need core 0.
    std::vector<std::uint64_t> sharesCpu;
    /// The BLAS's threads (process-wide) during a run: the fewest of any device, so that
    /// devices running side by side never share cores through it. Set for each run, not for
    /// the executor's life: executors alive together (validation's) would otherwise all run
    /// with the last one's.
    int blasThreads = 1;
    /// Per device: the BLAS threads its nodes run with, when more than blasThreads: its own
    /// thread count where it shares cores with every other CPU device of the plan (no CPU device
    /// runs beside it, so none can call the BLAS meanwhile), else 0. Without it, `cpu`'s MatMul
    /// and Gemm ran on one core of the two it holds in every plan that also uses `cpu:0`:
    /// MobileNet-V2's classifier took 923 µs there against 512 µs all on `cpu`.
    std::vector<int> ownBlasThreads;
    std::unique_ptr<detail::DeviceMemoryCounters> memory;
    std::vector<double> weightBytes; ///< per device: fixed tensors its steps read

    // Per run.
    std::vector<at::Tensor> values;           ///< tensor · D + device
    std::vector<std::int32_t> home;           ///< per tensor: device that produced it
    std::unique_ptr<std::atomic<int>[]> uses; ///< per tensor: readers still to run
    std::vector<int> waiting;                 ///< per step: computed inputs not ready yet
    using ReadyQueue =
        std::priority_queue<std::pair<int, int>, std::vector<std::pair<int, int>>, std::greater<>>;
    std::vector<ReadyQueue> ready; ///< per device: (priority, step)
    std::vector<int> done;         ///< per device: steps finished this run
    std::uint64_t running = 0;     ///< devices running a node now (bit d)
    std::vector<NodeRun> runs;
    std::exception_ptr error;
    Clock::time_point start;

    std::mutex mutex;
    /// Per device: its thread waits here for a ready step and free cores. Each is woken only
    /// when it may start (wakeStartable), or on an error: on a 2-core VM, waking every device's
    /// thread after each node (to find it may not start yet) took the cores from the device
    /// running, 50–60 µs between two of `cpu`'s nodes in a plan with `cpu:0` against 10 µs.
    std::unique_ptr<std::condition_variable[]> wake;
    std::shared_ptr<ExecutionThreads> threads;
    std::vector<ExecutionThreads::Job> jobs; ///< per device: its steps of a run, on its thread

    explicit PlanState(const Graph& g) : graph(g) {}

    /// A device's thread as it starts: pinned to the device's CPUs with its intra-op threads
    /// (each of them on a CPU of its own), launching on its GPU's stream.
    static std::shared_ptr<void> setUpThread(const ExecutionDevice& dev) {
        struct Scopes {
            std::unique_ptr<detail::ThreadScope> cpu;
            std::unique_ptr<detail::CudaDeviceScope> gpu;
        };
        auto scopes = std::make_shared<Scopes>();
        // With its intra-op threads one per core: left to the scheduler, a device sharing its
        // cores with pinned ones ran its team on one core (pinOpenMpTeam).
        scopes->cpu = std::make_unique<detail::ThreadScope>(dev.threads, dev.cpus, false);
        if (dev.isCuda()) {
            scopes->gpu = std::make_unique<detail::CudaDeviceScope>(dev.cudaIndex);
        }
        return scopes;
    }

    /// The key of a device's thread in ExecutionThreads: what its setup depends on.
    static std::string threadKey(const ExecutionDevice& dev) {
        std::string key = dev.id + " threads " + std::to_string(dev.threads) + " cuda " +
                          std::to_string(dev.cudaIndex) + " cpus";
        for (const int cpu : dev.cpus) {
            key += " " + std::to_string(cpu);
        }
        return key;
    }

    /// One run's work of `device`, on its thread.
    void work(std::int32_t device, const std::exception_ptr& setupError) {
        const detail::DeviceMemoryCounters::ThreadTag tag(*memory,
                                                          static_cast<std::size_t>(device));
        std::unique_lock<std::mutex> lock(mutex);
        if (setupError && !error) {
            error = setupError;
            wakeAll();
        }
        runDevice(device, lock);
    }

    /// Runs the device's steps of this run; called and returns with the lock held.
    void runDevice(std::int32_t device, std::unique_lock<std::mutex>& lock) {
        const auto dv = static_cast<std::size_t>(device);
        const std::size_t D = devices.size();
        const c10::Device target = detail::torchDevice(devices[dv]);
        std::vector<at::Tensor> inputs;
        while (!error && done[dv] < stepsOn[dv]) {
            if (ready[dv].empty()) {
                wake[dv].wait(lock, [&] { return error || !ready[dv].empty(); });
                continue;
            }
            const int step = ready[dv].top().second;
            if (!mayStart(device, ready[dv].top().first)) {
                wake[dv].wait(lock,
                              [&] { return error || mayStart(device, ready[dv].top().first); });
                continue;
            }
            ready[dv].pop();
            running |= std::uint64_t{1} << dv;
            lock.unlock();
            const NodeId id = program->steps()[static_cast<std::size_t>(step)];
            NodeRun record;
            record.node = id;
            record.device = device;
            try {
                const auto copyBegin = Clock::now();
                inputs.clear();
                for (TensorId t : graph.nodeInputs.row(id)) {
                    inputs.push_back(t == kNone ? at::Tensor() : valueOn(t, device, target));
                }
                program->applyFolded(static_cast<int>(step), inputs);
                for (at::Tensor& value : inputs) { // folded weights are made on the host
                    if (value.defined() && value.device() != target) {
                        value = detail::copyAcross(value, target);
                    }
                }
                std::optional<ScopedBlasThreads> blas; // the run's count back after the node
                if (ownBlasThreads[dv] > 0) {
                    blas.emplace(ownBlasThreads[dv]);
                }
                const auto begin = Clock::now();
                std::vector<at::Tensor> outs = detail::runStep(graph, id, inputs);
                if (devices[dv].isCuda()) {
                    // The node's end is when its kernels have run, not when they were queued:
                    // the device's stream is waited for (copies to it were queued before them).
                    detail::synchronizeCuda(devices[dv].cudaIndex);
                }
                const auto end = Clock::now();
                record.copyUs = microsecondsBetween(copyBegin, begin);
                record.beginUs = microsecondsBetween(start, begin);
                record.endUs = microsecondsBetween(start, end);
                const auto ids = graph.nodeOutputs.row(id);
                for (std::size_t i = 0; i < ids.size() && i < outs.size(); ++i) {
                    if (ids[i] != kNone && program->computed(ids[i])) {
                        const auto ti = static_cast<std::size_t>(ids[i]);
                        values[ti * D + dv] = std::move(outs[i]);
                        home[ti] = device;
                    }
                }
                inputs.clear();
                release(id);
            } catch (...) {
                lock.lock();
                running &= ~(std::uint64_t{1} << dv);
                if (!error) {
                    error = std::current_exception();
                }
                wakeAll();
                return;
            }
            lock.lock();
            running &= ~(std::uint64_t{1} << dv);
            runs.push_back(record);
            ++done[dv];
            for (TensorId t : graph.nodeOutputs.row(id)) {
                if (t == kNone || !program->computed(t)) {
                    continue;
                }
                for (int reader : program->consumers()[static_cast<std::size_t>(t)]) {
                    if (--waiting[static_cast<std::size_t>(reader)] == 0) {
                        const std::int32_t rd = stepDevice[static_cast<std::size_t>(reader)];
                        ready[static_cast<std::size_t>(rd)].emplace(
                            priority[static_cast<std::size_t>(reader)], reader);
                    }
                }
            }
            wakeStartable(device);
        }
    }

    /// Wakes the thread of every device but `finished` that may start its next step now (a
    /// node's end is the only change that lets one: its outputs make steps ready, its cores come
    /// free). Called with the lock held.
    void wakeStartable(std::int32_t finished) {
        for (std::size_t e = 0; e < devices.size(); ++e) {
            const auto de = static_cast<std::int32_t>(e);
            if (de != finished && !ready[e].empty() && mayStart(de, ready[e].top().first)) {
                wake[e].notify_one();
            }
        }
    }

    /// Wakes every device's thread (an error: each stops). Called with the lock held.
    void wakeAll() {
        for (std::size_t e = 0; e < devices.size(); ++e) {
            wake[e].notify_one();
        }
    }

    /// Whether `device` may start its next step (of `rank` in the priority order) now: no device
    /// sharing a CPU with it is running, and none has a ready step that comes first in the order
    /// (the simulator gives shared cores to the nodes in priority order).
    bool mayStart(std::int32_t device, int rank) const {
        const std::uint64_t shared = sharesCpu[static_cast<std::size_t>(device)];
        if ((running & shared) != 0) {
            return false;
        }
        for (std::size_t e = 0; e < devices.size(); ++e) {
            if ((shared >> e & 1u) != 0 && !ready[e].empty() && ready[e].top().first < rank) {
                return false;
            }
        }
        return true;
    }

    /// The value of tensor t on `device`, copied from its producer's device on first use.
    /// Only the device's own thread writes its slot, after the producer published its value.
    at::Tensor valueOn(TensorId t, std::int32_t device, const c10::Device& target) {
        const auto ti = static_cast<std::size_t>(t);
        if (!program->computed(t)) {
            return fixedOn[static_cast<std::size_t>(device)][ti];
        }
        const std::size_t D = devices.size();
        at::Tensor& slot = values[ti * D + static_cast<std::size_t>(device)];
        if (!slot.defined()) {
            const at::Tensor& source = values[ti * D + static_cast<std::size_t>(home[ti])];
            // Across devices the tensor is copied, as a runtime would: to the other device's
            // memory (host to GPU through a pinned buffer and an asynchronous copy on the GPU's
            // stream, GPU to host into a pinned buffer the consumer reads after the copy's
            // event), or for two CPU core sets into a buffer the consumer owns.
            slot = detail::copyAcross(source, target);
        }
        return slot;
    }

    /// After a step: tensors it was the last reader of are freed on every device.
    void release(NodeId id) {
        const std::size_t D = devices.size();
        const auto ins = graph.nodeInputs.row(id);
        for (std::size_t i = 0; i < ins.size(); ++i) {
            const TensorId t = ins[i];
            if (t == kNone || !program->computed(t) ||
                std::find(ins.begin(), ins.begin() + static_cast<std::ptrdiff_t>(i), t) !=
                    ins.begin() + static_cast<std::ptrdiff_t>(i)) {
                continue;
            }
            const auto ti = static_cast<std::size_t>(t);
            if (uses[ti].fetch_sub(1) == 1 && !graph.tensors[ti].graphOutput) {
                for (std::size_t dv = 0; dv < D; ++dv) {
                    values[ti * D + dv].reset();
                }
            }
        }
    }
};

class TorchPlanExecutor final : public PlanExecutorEngine {
public:
    TorchPlanExecutor(const Graph& graph, std::vector<ExecutionDevice> devices,
                      std::vector<std::int32_t> nodeDevice, std::vector<NodeId> order,
                      const NamedTensors& inputs, const ExecuteOptions& options);
    ~TorchPlanExecutor() override;
    const std::vector<ExecutionDevice>& devices() const override;
    PlanRun run(bool collectOutputs) override;

private:
    std::unique_ptr<PlanState> d;
};

TorchPlanExecutor::TorchPlanExecutor(const Graph& graph, std::vector<ExecutionDevice> devices,
                                     std::vector<std::int32_t> nodeDevice,
                                     std::vector<NodeId> order, const NamedTensors& inputs,
                                     const ExecuteOptions& options)
    : d(std::make_unique<PlanState>(graph)) {
    if (devices.empty()) {
        throw InputError("plan executor: no devices");
    }
    if (devices.size() > 64) {
        throw InputError("plan executor: " + std::to_string(devices.size()) +
                         " devices, at most 64 are supported");
    }
    for (const ExecutionDevice& dev : devices) {
        detail::requireCuda(dev);
        if (dev.threads < 1) {
            throw InputError("device " + dev.id + ": thread count " + std::to_string(dev.threads) +
                             " is not positive");
        }
    }
    if (nodeDevice.size() != graph.nodes.size()) {
        throw InputError("plan executor: the plan places " + std::to_string(nodeDevice.size()) +
                         " nodes, the graph has " + std::to_string(graph.nodes.size()));
    }
    const auto D = static_cast<std::int32_t>(devices.size());
    d->blasThreads = std::min_element(devices.begin(), devices.end(),
                                      [](const ExecutionDevice& a, const ExecutionDevice& b) {
                                          return a.threads < b.threads;
                                      })
                         ->threads;
    d->devices = std::move(devices);
    d->sharesCpu.assign(d->devices.size(), 0);
    for (std::size_t a = 0; a < d->devices.size(); ++a) {
        for (std::size_t b = 0; b < d->devices.size(); ++b) {
            const std::vector<int>& ca = d->devices[a].cpus;
            const std::vector<int>& cb = d->devices[b].cpus;
            if (a != b && std::any_of(ca.begin(), ca.end(), [&](int cpu) {
                    return std::find(cb.begin(), cb.end(), cpu) != cb.end();
                })) {
                d->sharesCpu[a] |= std::uint64_t{1} << b;
            }
        }
    }
    d->ownBlasThreads.assign(d->devices.size(), 0);
    for (std::size_t a = 0; a < d->devices.size(); ++a) {
        bool alone = !d->devices[a].isCuda() && d->devices[a].threads > d->blasThreads;
        for (std::size_t b = 0; alone && b < d->devices.size(); ++b) {
            alone = b == a || d->devices[b].isCuda() || (d->sharesCpu[a] >> b & 1u) != 0;
        }
        d->ownBlasThreads[a] = alone ? d->devices[a].threads : 0;
    }
    d->program =
        std::make_unique<detail::GraphProgram>(graph, inputs, options.seed, options.weights.get());
    const detail::GraphProgram& program = *d->program;
    const std::size_t S = program.steps().size();

    // Devices per step; a pass-through node without one runs with its input's producer.
    d->stepDevice.assign(S, -1);
    for (std::size_t s = 0; s < S; ++s) {
        const NodeId id = program.steps()[s];
        const Node& n = graph.nodes[static_cast<std::size_t>(id)];
        std::int32_t dev = nodeDevice[static_cast<std::size_t>(id)];
        if (dev < 0 && n.kind == NodeKind::PassThrough) {
            dev = 0;
            const auto ins = graph.nodeInputs.row(id);
            if (!ins.empty() && ins[0] != kNone) {
                const NodeId producer = graph.tensors[static_cast<std::size_t>(ins[0])].producer;
                if (producer != kNone && program.stepOf(producer) >= 0) {
                    dev = d->stepDevice[static_cast<std::size_t>(program.stepOf(producer))];
                }
            }
        }
        if (dev < 0 || dev >= D) {
            throw InputError("plan executor: node '" + n.name + "' (" + n.opType +
                             ") has device index " + std::to_string(dev) + ", expected 0.." +
                             std::to_string(D - 1));
        }
        d->stepDevice[s] = dev;
    }

    // Priority: the given order of compute nodes; pass-through nodes and anything the order
    // leaves out follow in topological order.
    d->priority.assign(S, 0);
    std::vector<int> rank(graph.nodes.size(), -1);
    int next = 0;
    for (NodeId id : order) {
        if (id < 0 || id >= static_cast<NodeId>(graph.nodes.size())) {
            throw InputError("plan executor: order names node id " + std::to_string(id) +
                             " outside the graph");
        }
        if (rank[static_cast<std::size_t>(id)] < 0) {
            rank[static_cast<std::size_t>(id)] = next++;
        }
    }
    for (std::size_t s = 0; s < S; ++s) {
        const int r = rank[static_cast<std::size_t>(program.steps()[s])];
        d->priority[s] = r >= 0 ? r : next + static_cast<int>(s);
    }

    d->stepsOn.assign(static_cast<std::size_t>(D), 0);
    for (std::int32_t dev : d->stepDevice) {
        ++d->stepsOn[static_cast<std::size_t>(dev)];
    }
    // Weights and graph inputs are resident on every device.
    d->fixedOn.resize(static_cast<std::size_t>(D));
    for (std::int32_t dev = 0; dev < D; ++dev) {
        const ExecutionDevice& ed = d->devices[static_cast<std::size_t>(dev)];
        auto& fixed = d->fixedOn[static_cast<std::size_t>(dev)];
        fixed = program.fixed();
        if (ed.isCuda()) { // weights are resident on the GPU before the runs, as deployed
            const detail::CudaDeviceScope scope(ed.cudaIndex);
            for (at::Tensor& t : fixed) {
                if (t.defined()) {
                    t = t.to(detail::torchDevice(ed));
                }
            }
            detail::synchronizeCuda(ed.cudaIndex);
        }
    }
    // The bytes of the fixed tensors each device's steps read (each tensor once per device).
    d->weightBytes.assign(static_cast<std::size_t>(D), 0.0);
    std::vector<std::int32_t> countedOn(graph.tensors.size(), -1);
    for (std::int32_t dev = 0; dev < D; ++dev) {
        for (std::size_t s = 0; s < S; ++s) {
            if (d->stepDevice[s] != dev) {
                continue;
            }
            for (TensorId t : graph.nodeInputs.row(program.steps()[s])) {
                const auto ti = static_cast<std::size_t>(t);
                if (t != kNone && !program.computed(t) && countedOn[ti] != dev &&
                    program.fixed()[ti].defined()) {
                    countedOn[ti] = dev;
                    d->weightBytes[static_cast<std::size_t>(dev)] +=
                        static_cast<double>(program.fixed()[ti].nbytes());
                }
            }
        }
    }
    d->memory = std::make_unique<detail::DeviceMemoryCounters>(static_cast<std::size_t>(D));
    d->values.resize(graph.tensors.size() * static_cast<std::size_t>(D));
    d->home.assign(graph.tensors.size(), 0);
    d->uses = std::make_unique<std::atomic<int>[]>(graph.tensors.size());
    d->ready.resize(static_cast<std::size_t>(D));
    d->wake = std::make_unique<std::condition_variable[]>(static_cast<std::size_t>(D));
    d->done.assign(static_cast<std::size_t>(D), 0);
    d->threads = options.threads ? options.threads : std::make_shared<ExecutionThreads>();
    for (std::int32_t dev = 0; dev < D; ++dev) {
        const ExecutionDevice& ed = d->devices[static_cast<std::size_t>(dev)];
        d->jobs.push_back({PlanState::threadKey(ed), [ed] { return PlanState::setUpThread(ed); },
                           [state = d.get(), dev](const std::exception_ptr& setupError) {
                               state->work(dev, setupError);
                           }});
    }
}

TorchPlanExecutor::~TorchPlanExecutor() = default;

const std::vector<ExecutionDevice>& TorchPlanExecutor::devices() const {
    return d->devices;
}

PlanRun TorchPlanExecutor::run(bool collectOutputs) {
    const detail::GraphProgram& program = *d->program;
    const std::size_t S = program.steps().size();
    const std::size_t D = d->devices.size();
    PlanRun result;
    const ScopedBlasThreads blas(d->blasThreads);
    {
        std::unique_lock<std::mutex> lock(d->mutex);
        std::fill(d->values.begin(), d->values.end(), at::Tensor());
        for (std::size_t t = 0; t < d->graph.tensors.size(); ++t) {
            d->uses[t].store(static_cast<int>(program.consumers()[t].size()));
        }
        d->waiting = program.computedInputs();
        for (auto& q : d->ready) {
            q = PlanState::ReadyQueue();
        }
        for (std::size_t s = 0; s < S; ++s) {
            if (d->waiting[s] == 0) {
                d->ready[static_cast<std::size_t>(d->stepDevice[s])].emplace(d->priority[s],
                                                                             static_cast<int>(s));
            }
        }
        std::fill(d->done.begin(), d->done.end(), 0);
        d->runs.clear();
        d->runs.reserve(S);
        d->error = nullptr;
        d->running = 0;
        d->memory->resetPeaks();
        // A GPU's memory is LibTorch's caching allocator's: what its tensors hold beyond the
        // resident weights, at the most during the run.
        std::vector<std::int64_t> gpuBaseline(D, 0);
        for (std::size_t dv = 0; dv < D; ++dv) {
            if (d->devices[dv].isCuda()) {
                detail::synchronizeCuda(d->devices[dv].cudaIndex);
                gpuBaseline[dv] = detail::cudaAllocatedBytes(d->devices[dv].cudaIndex);
                detail::resetCudaPeak(d->devices[dv].cudaIndex);
            }
        }
        d->start = Clock::now();
        lock.unlock();
        d->threads->runTogether(d->jobs); // every device's steps, each on its thread
        lock.lock();
        const auto end = Clock::now();
        result.wallUs = microsecondsBetween(d->start, end);
        if (d->error) {
            std::exception_ptr e = d->error;
            d->error = nullptr;
            std::fill(d->values.begin(), d->values.end(), at::Tensor());
            std::rethrow_exception(e);
        }
        result.nodes = std::move(d->runs);
        d->runs = {};
        if (d->memory->valid()) {
            for (std::size_t dv = 0; dv < D; ++dv) {
                const ExecutionDevice& ed = d->devices[dv];
                result.peakBytes.push_back(static_cast<double>(
                    ed.isCuda() ? std::max<std::int64_t>(
                                      detail::cudaPeakBytes(ed.cudaIndex) - gpuBaseline[dv], 0)
                                : d->memory->peakBytes(dv)));
            }
            result.weightBytes = d->weightBytes;
        }
    }
    if (!result.nodes.empty()) {
        result.wallUs =
            std::max_element(result.nodes.begin(), result.nodes.end(),
                             [](const NodeRun& a, const NodeRun& b) { return a.endUs < b.endUs; })
                ->endUs;
    }
    if (collectOutputs) {
        std::vector<at::Tensor> outputs;
        for (TensorId t : d->graph.outputs) {
            const auto ti = static_cast<std::size_t>(t);
            outputs.push_back(program.computed(t)
                                  ? d->values[ti * D + static_cast<std::size_t>(d->home[ti])]
                                  : program.fixed()[ti]);
        }
        result.outputs = program.outputsByName(outputs);
    }
    std::fill(d->values.begin(), d->values.end(), at::Tensor());
    return result;
}

} // namespace

std::unique_ptr<PlanExecutorEngine>
torch_impl::planExecutor(const Graph& graph, std::vector<ExecutionDevice> devices,
                         std::vector<std::int32_t> nodeDevice, std::vector<NodeId> order,
                         const NamedTensors& inputs, const ExecuteOptions& options) {
    return std::make_unique<TorchPlanExecutor>(graph, std::move(devices), std::move(nodeDevice),
                                               std::move(order), inputs, options);
}

} // namespace paretune
