// SPDX-License-Identifier: GPL-3.0-or-later
// OpRunner (one node alone) and profileModel (every node, then the whole graph) on LibTorch.
#include "op_runner.h"

#include "common/input_error.h"
#include "common/progress.h"
#include "cpu_affinity.h"
#include "cuda_support.h"
#include "device/nvml_energy.h"
#include "device_memory.h"
#include "graph_program.h"
#include "op_kernels.h"
#include "profile_model.h"
#include "rapl_energy.h"
#include "runtime/torch_impl.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <thread>

namespace paretune {

namespace {

using Clock = std::chrono::steady_clock;

using detail::DeviceMemoryCounters;
using detail::toHost;
using detail::torchMessage;

std::int64_t bytesOf(const at::Tensor& t) {
    return t.defined()
               ? static_cast<std::int64_t>(t.numel() * static_cast<std::int64_t>(t.element_size()))
               : 0;
}

bool sharesStorage(const at::Tensor& t, const std::vector<at::Tensor>& others) {
    for (const at::Tensor& o : others) {
        if (o.defined() && t.defined() && t.storage().is_alias_of(o.storage())) {
            return true;
        }
    }
    return false;
}

/// High-water mark of the bytes the CPU allocator hands out to the calling thread during `run`
/// (tensors and oneDNN scratch; the plan executor's counters, device_memory.h), or -1 when no
/// counter is free or the run failed.
std::int64_t probeAllocations(const std::function<void()>& run) {
    const DeviceMemoryCounters counters(1);
    if (!counters.valid()) {
        return -1;
    }
    const DeviceMemoryCounters::ThreadTag tag(counters, 0);
    try {
        run();
    } catch (const c10::Error&) {
        return -1;
    }
    return counters.peakBytes(0);
}

using detail::ThreadScope;

/// Energy of one call of `run` from RAPL: runs it for at least `windowMs`, subtracts the idle
/// power over the same time, divides by the number of runs.
std::optional<double> energyPerRun(const RaplEnergy& meter, double idlePowerW, double windowMs,
                                   const std::function<void()>& run) {
    const auto before = meter.read();
    const auto start = Clock::now();
    int runs = 0;
    while (std::chrono::duration<double, std::milli>(Clock::now() - start).count() < windowMs ||
           runs == 0) {
        run();
        ++runs;
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    const auto after = meter.read();
    if (!before || !after) {
        return std::nullopt;
    }
    const double active = meter.deltaUj(*before, *after) - idlePowerW * seconds * 1e6;
    return std::max(active, 0.0) / runs;
}

/// NVML for the calling thread (NvmlEnergy is one per thread), opened on first use, and the
/// GPU's idle power measured then from its energy counter over 300 ms; null without NVML.
const NvmlEnergy* threadNvml(int cudaIndex, double* idleW) {
    thread_local std::unique_ptr<NvmlEnergy> nvml = NvmlEnergy::open();
    thread_local std::map<int, double> idle;
    if (!nvml || !nvml->totalEnergyMj(cudaIndex)) {
        return nullptr;
    }
    if (!idle.count(cudaIndex)) {
        const auto before = nvml->totalEnergyMj(cudaIndex);
        const auto start = Clock::now();
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        const auto after = nvml->totalEnergyMj(cudaIndex);
        const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
        idle[cudaIndex] = before && after && seconds > 0
                              ? static_cast<double>(*after - *before) / 1e3 / seconds
                              : 0.0;
    }
    *idleW = idle[cudaIndex];
    return nvml.get();
}

/// Energy of one call of `run` on a GPU from NVML's total-energy counter (mJ, updated by the
/// driver): runs it for at least `windowMs`, waits for the device, subtracts the idle power
/// over the same time, divides by the number of runs. In µJ.
std::optional<double> gpuEnergyPerRun(const NvmlEnergy& nvml, int cudaIndex, double idleW,
                                      double windowMs, const std::function<void()>& run) {
    detail::synchronizeCuda(cudaIndex);
    const auto before = nvml.totalEnergyMj(cudaIndex);
    const auto start = Clock::now();
    int runs = 0;
    while (std::chrono::duration<double, std::milli>(Clock::now() - start).count() < windowMs ||
           runs == 0) {
        run();
        if (++runs % 64 == 0) {
            detail::synchronizeCuda(cudaIndex); // the clock follows the GPU, not the queue
        }
    }
    detail::synchronizeCuda(cudaIndex);
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    const auto after = nvml.totalEnergyMj(cudaIndex);
    if (!before || !after) {
        return std::nullopt;
    }
    const double active = static_cast<double>(*after - *before) * 1e3 - idleW * seconds * 1e6;
    return std::max(active, 0.0) / runs;
}

double idlePower(const RaplEnergy& meter) {
    const auto before = meter.read();
    const auto start = Clock::now();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const auto after = meter.read();
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (!before || !after || seconds <= 0) {
        return 0.0;
    }
    return meter.deltaUj(*before, *after) / 1e6 / seconds;
}

} // namespace

// ---- OpRunner -----------------------------------------------------------------------------

struct OpRunner::Impl {
    const Graph* graph = nullptr;
    NodeId node = kNone;
    std::vector<at::Tensor> inputs;
    ProfileStatus status = ProfileStatus::Ok;
    std::string message;
    // Energy settings that profileModel passes down (one idle baseline per model).
    const RaplEnergy* meter = nullptr;
    double idlePowerW = 0;

    std::string where() const {
        const Node& n = graph->nodes[static_cast<std::size_t>(node)];
        return "node '" + n.name + "' (" + n.opType + ")";
    }
    void fail(ProfileStatus s, const std::string& why) {
        status = s;
        message = where() + ": " + why;
    }
    int placedOn = -1; ///< the CUDA device the inputs were moved to, -1: the host

    std::vector<at::Tensor> execute() const { return detail::executeNode(*graph, node, inputs); }
    /// Inputs on the CUDA device (once; a runner measures on one device).
    void placeOn(int cudaIndex) {
        if (placedOn == cudaIndex) {
            return;
        }
        const c10::Device gpu(c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(cudaIndex));
        for (at::Tensor& t : inputs) {
            if (t.defined()) {
                t = t.to(gpu);
            }
        }
        placedOn = cudaIndex;
    }
    /// Compares the outputs with the graph's static output shapes; empty when they agree.
    std::string checkOutputs(const std::vector<at::Tensor>& outs) const {
        const auto ids = graph->nodeOutputs.row(node);
        for (std::size_t i = 0; i < ids.size(); ++i) {
            if (ids[i] == kNone) {
                continue;
            }
            const Tensor& t = graph->tensors[static_cast<std::size_t>(ids[i])];
            if (i >= outs.size() || !outs[i].defined()) {
                return "output '" + t.name + "' was not produced";
            }
            if (t.shapeKnown() && !t.sequence &&
                !std::equal(t.dims.begin(), t.dims.end(), outs[i].sizes().begin(),
                            outs[i].sizes().end())) {
                return "output '" + t.name + "' has shape " + detail::dimsText(outs[i].sizes()) +
                       ", the graph says " + detail::dimsText(t.dims);
            }
        }
        return {};
    }
};

OpRunner::OpRunner(const Graph& graph, NodeId node, std::uint64_t seed)
    : d(std::make_unique<Impl>()) {
    if (node < 0 || node >= static_cast<NodeId>(graph.nodes.size())) {
        throw InputError("profiling: node id " + std::to_string(node) + " is outside the graph (" +
                         std::to_string(graph.nodes.size()) + " nodes)");
    }
    d->graph = &graph;
    d->node = node;
    const Node& n = graph.nodes[static_cast<std::size_t>(node)];
    if (!detail::isSupportedOp(detail::kernelKey(n))) {
        d->fail(ProfileStatus::Unsupported,
                "operator '" + detail::kernelKey(n) + "' is not supported by the LibTorch runner");
        return;
    }
    try {
        at::Generator generator = at::detail::createCPUGenerator(seed);
        d->inputs = detail::makeInputs(graph, node, generator);
        for (auto& [index, value] : detail::foldedInputs(graph, node, d->inputs)) {
            d->inputs[static_cast<std::size_t>(index)] = value;
        }
    } catch (const detail::UnsupportedOp& e) {
        d->fail(ProfileStatus::Unsupported, std::string(e.what()) + " is not supported");
    } catch (const detail::OpFailure& e) {
        d->fail(ProfileStatus::Failed, e.what());
    } catch (const c10::Error& e) {
        d->fail(ProfileStatus::Failed, "building inputs: " + torchMessage(e));
    }
}

OpRunner::~OpRunner() = default;

bool OpRunner::supports(std::string_view opType) {
    return detail::isSupportedOp(opType);
}

std::vector<std::string> OpRunner::supportedOps() {
    return detail::supportedOpList();
}

void OpRunner::setEnergyMeter(const RaplEnergy* meter, double idlePowerW) {
    d->meter = meter;
    d->idlePowerW = idlePowerW;
}

ProfileStatus OpRunner::status() const {
    return d->status;
}

const std::string& OpRunner::message() const {
    return d->message;
}

OpRunner::Execution OpRunner::runOnce() {
    Execution e;
    e.status = d->status;
    e.message = d->message;
    if (d->status != ProfileStatus::Ok) {
        return e;
    }
    try {
        const std::vector<at::Tensor> outs = d->execute();
        for (const at::Tensor& t : d->inputs) {
            e.inputs.push_back(toHost(t));
        }
        for (const at::Tensor& t : outs) {
            e.outputs.push_back(toHost(t));
        }
    } catch (const detail::UnsupportedOp& ex) {
        e.status = ProfileStatus::Unsupported;
        e.message = d->where() + ": " + ex.what() + " is not supported";
    } catch (const detail::OpFailure& ex) {
        e.status = ProfileStatus::Failed;
        e.message = d->where() + ": " + ex.what();
    } catch (const c10::Error& ex) {
        e.status = ProfileStatus::Failed;
        e.message = d->where() + ": " + torchMessage(ex);
    }
    return e;
}

OpProfile OpRunner::measure(const MeasureOptions& options) {
    OpProfile p;
    const Node& n = d->graph->nodes[static_cast<std::size_t>(d->node)];
    p.node = d->node;
    p.name = n.name;
    p.opType = n.opType;
    p.status = d->status;
    p.message = d->message;
    if (d->status != ProfileStatus::Ok) {
        return p;
    }
    ThreadScope scope(options.threads, options.cpuSet);
    p.threads = at::get_num_threads();
    const int gpu = options.cudaIndex;
    std::optional<detail::CudaDeviceScope> onGpu;
    if (gpu >= 0) {
        if (const std::string why = detail::cudaUnusable(gpu); !why.empty()) {
            p.status = ProfileStatus::Failed;
            p.message = d->where() + ": " + why;
            return p;
        }
    }
    try {
        if (gpu >= 0) {
            onGpu.emplace(gpu);
            d->placeOn(gpu);
        }
        // First run: also the shape check. A kernel that computes something else than the
        // graph says is not timed.
        std::vector<at::Tensor> outs = d->execute();
        if (const std::string wrong = d->checkOutputs(outs); !wrong.empty()) {
            p.status = ProfileStatus::Failed;
            p.message = d->where() + ": " + wrong;
            return p;
        }
        for (const at::Tensor& t : d->inputs) {
            p.memory.inputBytes += bytesOf(t);
        }
        for (const at::Tensor& t : outs) {
            p.memory.outputBytes += sharesStorage(t, d->inputs) ? 0 : bytesOf(t);
        }
        outs.clear();
        std::int64_t allocated = -1;
        if (gpu >= 0) {
            // LibTorch's caching allocator on the GPU: the most its tensors and workspaces held
            // at once during one run, beyond what was allocated before it.
            detail::synchronizeCuda(gpu);
            const std::int64_t before = detail::cudaAllocatedBytes(gpu);
            detail::resetCudaPeak(gpu);
            d->execute();
            detail::synchronizeCuda(gpu);
            allocated = std::max<std::int64_t>(detail::cudaPeakBytes(gpu) - before, 0);
        } else {
            allocated = probeAllocations([this] { d->execute(); });
        }
        if (allocated >= 0) {
            p.memory.workspaceBytes = std::max<std::int64_t>(allocated - p.memory.outputBytes, 0);
        }
        p.memory.peakBytes = p.memory.inputBytes + std::max(allocated, p.memory.outputBytes);

        if (gpu >= 0) {
            p.latency = measureLatency(
                [this] { d->execute(); }, options,
                [gpu](const std::function<void()>& run) { return detail::timeOnCudaUs(gpu, run); });
            double idleW = 0.0;
            const NvmlEnergy* nvml = options.measureEnergy ? threadNvml(gpu, &idleW) : nullptr;
            if (nvml) {
                if (auto e = gpuEnergyPerRun(*nvml, gpu, idleW, options.energyWindowMs,
                                             [this] { d->execute(); })) {
                    p.energyUj = *e;
                    p.energySource = "nvml";
                }
            }
            return p;
        }
        p.latency = measureLatency([this] { d->execute(); }, options);

        if (d->meter && options.measureEnergy) {
            if (auto e = energyPerRun(*d->meter, d->idlePowerW, options.energyWindowMs,
                                      [this] { d->execute(); })) {
                p.energyUj = *e;
                p.energySource = "rapl";
            }
        }
    } catch (const detail::UnsupportedOp& e) {
        p.status = ProfileStatus::Unsupported;
        p.message = d->where() + ": " + e.what() + " is not supported";
    } catch (const detail::OpFailure& e) {
        p.status = ProfileStatus::Failed;
        p.message = d->where() + ": " + e.what();
    } catch (const c10::Error& e) {
        p.status = ProfileStatus::Failed;
        p.message = d->where() + ": " + torchMessage(e);
    }
    return p;
}

ProfileResult torch_impl::profileModel(const Graph& graph, const ProfileOptions& options,
                                       Progress* progress) {
    const auto start = Clock::now();
    ProfileResult result;
    std::vector<NodeId> nodes = options.nodes;
    if (nodes.empty()) {
        for (NodeId id : graph.topologicalOrder) {
            if (graph.nodes[static_cast<std::size_t>(id)].kind == NodeKind::Compute) {
                nodes.push_back(id);
            }
        }
    }
    for (NodeId id : nodes) {
        if (id < 0 || id >= static_cast<NodeId>(graph.nodes.size())) {
            throw InputError("profiling: node id " + std::to_string(id) + " is outside the graph");
        }
    }
    ThreadScope scope(options.measure.threads, options.measure.cpuSet);
    result.threads = at::get_num_threads();
    result.cpuSet = options.measure.cpuSet;

    std::optional<RaplEnergy> meter;
    if (options.measure.measureEnergy && options.measure.cudaIndex < 0) {
        meter = RaplEnergy::open();
    }
    if (meter) {
        result.energySource = "rapl";
        result.idlePowerW = idlePower(*meter);
    }

    // The rounds go over the whole model: round r of every node, then round r + 1. A burst of
    // load from elsewhere on the machine then spoils one round of an op, not all three, and
    // the median of rounds drops it. Round 0 also checks shapes, probes memory and energy.
    const int rounds = std::max(options.measure.rounds, 1);
    MeasureOptions oneRound = options.measure;
    oneRound.rounds = 1;
    std::map<NodeId, std::vector<LatencyStats>> roundStats;
    std::set<NodeId> finished;
    // A node is finished after its last round: its rounds combined, then handed to the caller.
    const auto finish = [&](NodeId id) {
        if (!finished.insert(id).second) {
            return;
        }
        OpProfile& p = result.nodes.at(id);
        if (p.status == ProfileStatus::Ok) {
            p.latency = combineRounds(roundStats[id]);
        }
        if (options.nodeFinished) {
            options.nodeFinished(id, p);
        }
    };
    const double total =
        static_cast<double>(nodes.size()) * rounds + (options.wholeModel ? 1.0 : 0.0);
    for (int round = 0; round < rounds && !result.cancelled; ++round) {
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            if (progress && progress->cancelled()) {
                result.cancelled = true;
                break;
            }
            const NodeId id = nodes[i];
            if (round > 0 && result.nodes.at(id).status != ProfileStatus::Ok) {
                continue;
            }
            const Node& n = graph.nodes[static_cast<std::size_t>(id)];
            if (progress) {
                progress->report((static_cast<double>(round) * static_cast<double>(nodes.size()) +
                                  static_cast<double>(i)) /
                                     total,
                                 "node '" + n.name + "' (" + n.opType + ")" +
                                     (rounds > 1 ? ", round " + std::to_string(round + 1) + "/" +
                                                       std::to_string(rounds)
                                                 : std::string()));
            }
            OpRunner runner(graph, id, options.measure.seed + static_cast<std::uint64_t>(id));
            if (round == 0) {
                runner.setEnergyMeter(meter ? &*meter : nullptr, result.idlePowerW);
                OpProfile p = runner.measure(oneRound);
                roundStats[id].push_back(p.latency);
                result.nodes.emplace(id, std::move(p));
            } else {
                MeasureOptions later = oneRound;
                later.measureEnergy = false;
                const OpProfile p = runner.measure(later);
                if (p.status == ProfileStatus::Ok) {
                    roundStats[id].push_back(p.latency);
                }
            }
            if (round == rounds - 1) {
                finish(id);
            }
        }
    }
    // Cancelled between rounds: what was measured so far still counts.
    for (const auto& [id, p] : result.nodes) {
        finish(id);
    }

    if (options.measure.cudaIndex >= 0 &&
        std::any_of(result.nodes.begin(), result.nodes.end(),
                    [](const auto& entry) { return entry.second.energySource == "nvml"; })) {
        result.energySource = "nvml"; // the GPU's total-energy counter, idle power subtracted
    }
    WholeModelResult& whole = result.wholeModel;
    for (const auto& [id, p] : result.nodes) {
        if (p.status == ProfileStatus::Ok) {
            whole.sumOfOpsUs += p.latency.medianUs;
        }
    }
    if (options.wholeModel && !result.cancelled) {
        if (progress && progress->cancelled()) {
            result.cancelled = true;
        } else {
            if (progress) {
                progress->report(static_cast<double>(nodes.size()) * rounds / total, "whole model");
            }
            const int unsupported = result.count(ProfileStatus::Unsupported);
            try {
                detail::GraphProgram program(graph, {}, options.measure.seed);
                whole.nodesExecuted = static_cast<int>(program.steps().size());
                const int gpu = options.measure.cudaIndex;
                std::optional<detail::CudaDeviceScope> onGpu;
                if (gpu >= 0) { // the whole model on the GPU, timed with events as its nodes
                    onGpu.emplace(gpu);
                    program.moveTo(
                        c10::Device(c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(gpu)));
                }
                program.runSequential();
                whole.endToEnd =
                    gpu >= 0
                        ? measureLatency([&program] { program.runSequential(); }, options.measure,
                                         [gpu](const std::function<void()>& run) {
                                             return detail::timeOnCudaUs(gpu, run);
                                         })
                        : measureLatency([&program] { program.runSequential(); }, options.measure);
                whole.status = ProfileStatus::Ok;
                if (whole.endToEnd.medianUs > 0) {
                    whole.ratio = whole.sumOfOpsUs / whole.endToEnd.medianUs;
                }
            } catch (const ExecutionError& e) {
                whole.status = e.unsupported() ? ProfileStatus::Unsupported : ProfileStatus::Failed;
                whole.message =
                    "whole model: " + std::string(e.what()) +
                    (e.unsupported() ? " (" + std::to_string(unsupported) + " unsupported nodes)"
                                     : std::string());
            } catch (const c10::Error& e) {
                whole.message = "whole model: " + torchMessage(e);
            }
        }
    }
    if (progress && !result.cancelled) {
        progress->report(1.0, "done");
    }
    result.wallSeconds = std::chrono::duration<double>(Clock::now() - start).count();
    return result;
}

} // namespace paretune
