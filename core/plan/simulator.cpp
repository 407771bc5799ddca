#include "simulator.h"

#include "common/input_error.h"

#include <algorithm>
#include <limits>
#include <string>

namespace paretune {

namespace {

double tensorBytes(const Tensor& t) {
    const std::int64_t bytes = t.byteSize();
    return bytes < 0 ? 0.0 : static_cast<double>(bytes);
}

template <typename T> T& at(std::vector<T>& v, std::int32_t i) {
    return v[static_cast<std::size_t>(i)];
}
template <typename T> const T& at(const std::vector<T>& v, std::int32_t i) {
    return v[static_cast<std::size_t>(i)];
}

constexpr std::int32_t kStartPad = 4; // sentinels on each side of a row of step starts
constexpr std::int32_t kToEnd = std::numeric_limits<std::int32_t>::max();

/// Galloping part of firstStartingAtOrAfter, for starts[from] < t.
[[gnu::noinline]] std::int32_t gallop(const double* starts, std::int32_t n, double t,
                                      std::int32_t from) {
    std::int32_t below = from;
    std::int32_t step = 1;
    while (below + step < n && starts[below + step] < t) {
        below += step;
        step *= 2;
    }
    std::int32_t above = std::min(below + step, n);
    while (above - below > 1) {
        const std::int32_t mid = below + (above - below) / 2;
        if (starts[mid] < t) {
            below = mid;
        } else {
            above = mid;
        }
    }
    return above;
}

/// Smallest k in [from, n] with starts[k] >= t (starts ascending, from <= n, +inf sentinels at
/// starts[n], starts[n + 1]). The answer is nearly always `from` or the step after: those two
/// are counted without a branch; further on it gallops.
inline std::int32_t firstStartingAtOrAfter(const double* starts, std::int32_t n, double t,
                                           std::int32_t from) {
    const int before = static_cast<int>(starts[from] < t) + static_cast<int>(starts[from + 1] < t);
    if (before == 2) [[unlikely]] {
        return gallop(starts, n, t, from + 1);
    }
    return from + before;
}

/// Smallest k in [0, upTo] with starts[k .. upTo - 1] all >= t (starts ascending, -inf
/// sentinels at starts[-2], starts[-1]): searching back from upTo, two steps at a time.
inline std::int32_t firstStartingAtOrAfterBack(const double* starts, std::int32_t upTo, double t) {
    for (;;) {
        const int after =
            static_cast<int>(starts[upTo - 1] >= t) + static_cast<int>(starts[upTo - 2] >= t);
        upTo -= after;
        if (after < 2) [[likely]] {
            return upTo;
        }
    }
}

/// What evaluate() records of a simulation: nothing.
struct NoRecording {
    void node(std::int32_t, std::int32_t, double, double) {}
    void transfer(std::int32_t, std::int32_t, double, double) {}
    void unsupportedNodes(std::int32_t) {}
};

/// What simulate() records: start and finish of every compute node and, when asked for, the
/// timeline.
struct Recording {
    SimulationResult& result;
    const std::vector<NodeId>& computeNodes;
    const std::vector<TensorId>& bufferTensor;
    bool withTimeline;

    void node(std::int32_t ci, std::int32_t device, double begin, double end) {
        const auto n = computeNodes[static_cast<std::size_t>(ci)];
        result.startUs[static_cast<std::size_t>(n)] = begin;
        result.finishUs[static_cast<std::size_t>(n)] = end;
        segment(TimelineSegment::Lane::Device, device, begin, end).node = n;
    }
    void transfer(std::int32_t queue, std::int32_t buffer, double begin, double end) {
        segment(TimelineSegment::Lane::Link, queue, begin, end).tensor =
            bufferTensor[static_cast<std::size_t>(buffer)];
    }
    /// The new segment; a scratch one when the timeline is not asked for.
    TimelineSegment& segment(TimelineSegment::Lane lane, std::int32_t index, double begin,
                             double end) {
        TimelineSegment& s = withTimeline ? result.timeline.emplace_back() : scratch;
        s.lane = lane;
        s.index = index;
        s.beginUs = begin;
        s.endUs = end;
        return s;
    }
    void unsupportedNodes(std::int32_t count) { result.unsupportedCount = count; }

    TimelineSegment scratch;
};

Csr toCsr(const std::vector<std::vector<std::int32_t>>& rows) {
    Csr csr;
    for (const auto& r : rows) {
        csr.appendRow(r);
    }
    return csr;
}

} // namespace

Simulator::Simulator(const Graph& graph, const CostTable& costs)
    : m_graph(graph), m_costs(costs), m_deviceCount(costs.deviceCount()), m_host(costs.host()) {
    if (m_deviceCount < 1 || m_deviceCount > 32) {
        throw InputError("the simulator handles 1 to 32 devices, the cost table has " +
                         std::to_string(m_deviceCount));
    }
    if (costs.nodeCount() != static_cast<std::int32_t>(graph.nodes.size())) {
        throw InputError("the cost table has " + std::to_string(costs.nodeCount()) +
                         " nodes, the graph '" + graph.name + "' has " +
                         std::to_string(graph.nodes.size()));
    }
    const auto D = static_cast<std::size_t>(m_deviceCount);
    m_computeIndex.assign(graph.nodes.size(), -1);
    for (std::size_t n = 0; n < graph.nodes.size(); ++n) {
        if (graph.nodes[n].kind == NodeKind::Compute) {
            m_computeIndex[n] = static_cast<std::int32_t>(m_computeNodes.size());
            m_computeNodes.push_back(static_cast<NodeId>(n));
        }
    }
    const std::size_t C = m_computeNodes.size();
    m_latency.resize(C * D);
    m_energyUj.resize(C * D);
    m_workspace.resize(C * D);
    m_supported.resize(C * D);
    for (std::size_t ci = 0; ci < C; ++ci) {
        for (std::int32_t d = 0; d < m_deviceCount; ++d) {
            const CostCell& c = costs.cell(m_computeNodes[ci], d);
            const std::size_t k = ci * D + static_cast<std::size_t>(d);
            m_latency[k] = c.latencyUs;
            m_energyUj[k] = c.energyUj;
            m_workspace[k] = static_cast<double>(c.workspaceBytes);
            m_supported[k] = c.supported() ? 1 : 0;
        }
    }
    for (std::int32_t d = 0; d < m_deviceCount; ++d) {
        m_idleW.push_back(costs.device(d).idleW);
        m_memory.push_back(costs.device(d).memoryBytes);
    }

    // Buffers (activations and graph inputs, pass-through outputs aliased to their input) and
    // statics (initializers, constants, folded shape values).
    m_tensorBuffer.assign(graph.tensors.size(), -1);
    m_tensorStatic.assign(graph.tensors.size(), -1);
    auto newStatic = [&](TensorId t) {
        at(m_tensorStatic, t) = static_cast<std::int32_t>(m_staticBytes.size());
        m_staticBytes.push_back(tensorBytes(at(graph.tensors, t)));
    };
    auto newBuffer = [&](TensorId t, std::int32_t producer) {
        at(m_tensorBuffer, t) = static_cast<std::int32_t>(m_bufferBytes.size());
        m_bufferBytes.push_back(tensorBytes(at(graph.tensors, t)));
        m_bufferProducer.push_back(producer);
        m_bufferTensor.push_back(t);
        if (producer < 0) {
            m_graphInputBuffers.push_back(static_cast<std::int32_t>(m_bufferBytes.size() - 1));
        }
    };
    for (std::size_t t = 0; t < graph.tensors.size(); ++t) {
        if (graph.tensors[t].role == TensorRole::Initializer) {
            newStatic(static_cast<TensorId>(t));
        } else if (graph.tensors[t].role == TensorRole::GraphInput) {
            newBuffer(static_cast<TensorId>(t), -1);
        }
    }
    for (const NodeId n : graph.topologicalOrder) {
        const Node& node = at(graph.nodes, n);
        const auto outs = graph.nodeOutputs.row(n);
        if (node.kind == NodeKind::Compute) {
            for (const TensorId t : outs) {
                if (t != kNone) {
                    newBuffer(t, at(m_computeIndex, n));
                }
            }
        } else if (node.kind == NodeKind::PassThrough) {
            TensorId source = kNone;
            for (const TensorId t : graph.nodeInputs.row(n)) {
                if (t != kNone) {
                    source = t;
                    break;
                }
            }
            for (const TensorId t : outs) {
                if (t == kNone) {
                    continue;
                }
                if (source != kNone && at(m_tensorBuffer, source) >= 0) {
                    at(m_tensorBuffer, t) = at(m_tensorBuffer, source);
                } else if (source != kNone && at(m_tensorStatic, source) >= 0) {
                    at(m_tensorStatic, t) = at(m_tensorStatic, source);
                } else {
                    newStatic(t);
                }
            }
        } else {
            for (const TensorId t : outs) {
                if (t != kNone) {
                    newStatic(t);
                }
            }
        }
    }
    m_bufferIsOutput.assign(m_bufferBytes.size(), 0);
    for (const TensorId t : graph.outputs) {
        if (at(m_tensorBuffer, t) >= 0) {
            at(m_bufferIsOutput, at(m_tensorBuffer, t)) = 1;
        }
    }

    std::vector<std::vector<std::int32_t>> inputs(C), statics(C), succ(C), pred(C);
    m_outputBytes.assign(C, 0.0);
    // Tensors a subgraph (Loop, If, Scan body) reads from the outer scope count as inputs too.
    const bool hasCaptured = graph.capturedInputs.offsets.size() == graph.nodes.size() + 1;
    std::vector<TensorId> nodeInputs;
    for (std::size_t ci = 0; ci < C; ++ci) {
        const auto direct = graph.nodeInputs.row(m_computeNodes[ci]);
        nodeInputs.assign(direct.begin(), direct.end());
        if (hasCaptured) {
            const auto captured = graph.capturedInputs.row(m_computeNodes[ci]);
            nodeInputs.insert(nodeInputs.end(), captured.begin(), captured.end());
        }
        for (const TensorId t : nodeInputs) {
            if (t == kNone) {
                continue;
            }
            if (const std::int32_t b = at(m_tensorBuffer, t); b >= 0) {
                if (std::find(inputs[ci].begin(), inputs[ci].end(), b) == inputs[ci].end()) {
                    inputs[ci].push_back(b);
                    const std::int32_t p = at(m_bufferProducer, b);
                    if (p >= 0 &&
                        std::find(pred[ci].begin(), pred[ci].end(), p) == pred[ci].end()) {
                        pred[ci].push_back(p);
                        succ[static_cast<std::size_t>(p)].push_back(static_cast<std::int32_t>(ci));
                    }
                }
            } else if (const std::int32_t s = at(m_tensorStatic, t); s >= 0) {
                if (std::find(statics[ci].begin(), statics[ci].end(), s) == statics[ci].end()) {
                    statics[ci].push_back(s);
                }
            }
        }
        for (const TensorId t : graph.nodeOutputs.row(m_computeNodes[ci])) {
            if (t != kNone) {
                m_outputBytes[ci] += tensorBytes(at(graph.tensors, t));
            }
        }
    }
    // Keep only the statics compute nodes read, renumbered densely.
    {
        std::vector<std::int32_t> renumber(m_staticBytes.size(), -1);
        std::vector<double> used;
        for (auto& row : statics) {
            for (std::int32_t& st : row) {
                std::int32_t& r = renumber[static_cast<std::size_t>(st)];
                if (r < 0) {
                    r = static_cast<std::int32_t>(used.size());
                    used.push_back(at(m_staticBytes, st));
                }
                st = r;
            }
        }
        for (std::int32_t& t : m_tensorStatic) {
            t = t < 0 ? -1 : renumber[static_cast<std::size_t>(t)];
        }
        m_staticBytes = std::move(used);
    }
    m_inputs = toCsr(inputs);
    {
        std::vector<std::vector<std::int32_t>> produced(C);
        for (std::size_t b = 0; b < m_bufferProducer.size(); ++b) {
            if (m_bufferProducer[b] >= 0) {
                produced[static_cast<std::size_t>(m_bufferProducer[b])].push_back(
                    static_cast<std::int32_t>(b));
            }
        }
        m_produced = toCsr(produced);
    }
    // A static read by one compute node only (most weights) is resident exactly where that node
    // runs: its bytes go into the node's exclusive weight; the shared ones keep a device mask.
    {
        std::vector<int> readers(m_staticBytes.size(), 0);
        for (const auto& row : statics) {
            for (const std::int32_t st : row) {
                ++readers[static_cast<std::size_t>(st)];
            }
        }
        m_exclusiveWeight.assign(C, 0.0);
        for (std::size_t ci = 0; ci < C; ++ci) {
            std::erase_if(statics[ci], [&](std::int32_t st) {
                if (readers[static_cast<std::size_t>(st)] == 1) {
                    m_exclusiveWeight[ci] += at(m_staticBytes, st);
                    return true;
                }
                return false;
            });
        }
    }
    m_statics = toCsr(statics);
    m_pathOffsets.push_back(0);
    for (std::int32_t a = 0; a < m_deviceCount; ++a) {
        for (std::int32_t z = 0; z < m_deviceCount; ++z) {
            if (a != z) {
                const auto hops = costs.path(a, z);
                m_hops.insert(m_hops.end(), hops.begin(), hops.end());
            }
            m_pathOffsets.push_back(static_cast<std::int32_t>(m_hops.size()));
        }
    }
    // Transfer time of each buffer over each hop of every path, so that the inner loop does not
    // divide (same expression as before, hence the same values).
    m_hopCount = static_cast<std::int32_t>(m_hops.size());
    m_transferUs.resize(m_bufferBytes.size() * m_hops.size());
    for (std::size_t b = 0; b < m_bufferBytes.size(); ++b) {
        for (std::size_t h = 0; h < m_hops.size(); ++h) {
            m_transferUs[b * m_hops.size() + h] = m_bufferBytes[b] / m_hops[h].bytesPerUs;
        }
    }
    m_computeSuccessors = toCsr(succ);
    m_computePredecessors = toCsr(pred);

    for (const NodeId n : graph.topologicalOrder) {
        if (at(m_computeIndex, n) >= 0) {
            m_priority.push_back(at(m_computeIndex, n));
        }
    }
    if (m_priority.size() != C) {
        throw InputError("graph '" + graph.name + "': its topological order misses compute nodes");
    }
    buildSteps();

    const std::size_t B = m_bufferBytes.size();
    m_busy.resize(D);
    m_startRow = C + 2 * static_cast<std::size_t>(kStartPad);
    m_stepStart.assign(D * m_startRow, -std::numeric_limits<double>::infinity());
    m_stepWorkspace.resize(D * std::max<std::size_t>(C, 1));
    m_queueFree.resize(static_cast<std::size_t>(costs.queueCount()));
    m_presence.assign(B * D, Presence{});
    m_home.assign(B, m_host); // graph inputs start on the host; the rest is set per evaluation
    m_where.assign(B, 0u);
    for (const std::int32_t b : m_graphInputBuffers) {
        m_graphInputBytes += at(m_bufferBytes, b);
    }
    m_hasWorkspace =
        std::any_of(m_workspace.begin(), m_workspace.end(), [](double w) { return w != 0.0; });
    m_staticMask.resize(m_staticBytes.size());
    m_diff.resize(D * (C + 1));
    for (const double bytes : m_bufferBytes) {
        m_bufferSize.push_back(static_cast<std::int64_t>(bytes));
    }
    m_sent.resize(B * D);
    m_relayed.resize(B * D);
    for (std::size_t b = 0; b < B; ++b) {
        if (m_bufferIsOutput[b] != 0) {
            m_outputBuffers.push_back(static_cast<std::int32_t>(b));
        }
    }
    m_relay.assign(D, 0);
    for (std::int32_t a = 0; a < m_deviceCount; ++a) {
        for (std::int32_t z = 0; z < m_deviceCount; ++z) {
            const auto path = costs.path(a, z);
            for (std::size_t h = 1; h < path.size(); ++h) {
                at(m_relay, path[h].from) = 1;
            }
        }
    }
    m_peak.resize(D);
}

void Simulator::setPriority(std::span<const std::int32_t> order) {
    const std::size_t C = m_computeNodes.size();
    if (order.size() != C) {
        throw InputError("priority order has " + std::to_string(order.size()) +
                         " entries, expected one per compute node (" + std::to_string(C) + ")");
    }
    std::vector<std::int32_t> position(C, -1);
    for (std::size_t i = 0; i < C; ++i) {
        const std::int32_t ci = order[i];
        if (ci < 0 || static_cast<std::size_t>(ci) >= C ||
            position[static_cast<std::size_t>(ci)] >= 0) {
            throw InputError("priority order: entry " + std::to_string(i) +
                             " is out of range or repeated");
        }
        position[static_cast<std::size_t>(ci)] = static_cast<std::int32_t>(i);
    }
    for (std::size_t ci = 0; ci < C; ++ci) {
        for (const std::int32_t p : m_computePredecessors.row(static_cast<std::int32_t>(ci))) {
            if (position[static_cast<std::size_t>(p)] > position[ci]) {
                throw InputError("priority order is not topological: node '" +
                                 at(m_graph.nodes, m_computeNodes[ci]).name +
                                 "' comes before its input's producer '" +
                                 at(m_graph.nodes, at(m_computeNodes, p)).name + "'");
            }
        }
    }
    m_priority.assign(order.begin(), order.end());
    buildSteps();
}

void Simulator::buildSteps() {
    ++m_stepsVersion;
    const std::size_t C = m_priority.size();
    const auto D = static_cast<std::size_t>(m_deviceCount);
    m_steps.resize(C);
    m_stepCells.resize(C * D);
    m_stepInputs.clear();
    m_stepOutputs.clear();
    for (std::size_t i = 0; i < C; ++i) {
        const std::int32_t ci = m_priority[i];
        Step& s = m_steps[i];
        s.ci = ci;
        s.inBegin = static_cast<std::int32_t>(m_stepInputs.size());
        const auto in = m_inputs.row(ci);
        m_stepInputs.insert(m_stepInputs.end(), in.begin(), in.end());
        s.inEnd = static_cast<std::int32_t>(m_stepInputs.size());
        s.outBegin = static_cast<std::int32_t>(m_stepOutputs.size());
        const auto out = m_produced.row(ci);
        m_stepOutputs.insert(m_stepOutputs.end(), out.begin(), out.end());
        s.outEnd = static_cast<std::int32_t>(m_stepOutputs.size());
        s.staticBegin = at(m_statics.offsets, ci);
        s.staticEnd = at(m_statics.offsets, ci + 1);
        s.exclusiveWeight = at(m_exclusiveWeight, ci);
        for (std::size_t d = 0; d < D; ++d) {
            const std::size_t k = static_cast<std::size_t>(ci) * D + d;
            m_stepCells[i * D + d] = {m_latency[k], m_energyUj[k],
                                      static_cast<std::int64_t>(m_workspace[k]),
                                      m_supported[k] == 0 ? 1 : 0};
        }
    }
}

template <class Recorder, int FixedDevices>
Objectives Simulator::run(const std::uint8_t* genome, Recorder& recorder) {
    // A device count known at compile time turns the b · D + d indexing into shifts and adds.
    const std::int32_t D = FixedDevices > 0 ? FixedDevices : m_deviceCount;
    const auto C = static_cast<std::int32_t>(m_computeNodes.size());
    const std::size_t stride = static_cast<std::size_t>(D);
    const std::int32_t host = m_host;
    // Per device, on the stack (at most 32 devices).
    double deviceFree[32];
    double busy[32];
    double weights[32];
    std::int32_t stepCount[32];
    for (std::int32_t d = 0; d < D; ++d) {
        deviceFree[d] = 0.0;
        busy[d] = 0.0;
        weights[d] = 0.0;
        stepCount[d] = 0;
    }
    std::fill(m_queueFree.begin(), m_queueFree.end(), 0.0);
    std::fill(m_staticMask.begin(), m_staticMask.end(), 0u);
    // Memory: a difference array over the steps of each device (bytes are whole numbers, so the
    // sums are exact in any order).
    const std::size_t diffRow = static_cast<std::size_t>(C) + 1;
    std::int64_t* const diffs = m_diff.data();
    for (std::int32_t d = 0; d < D; ++d) { // entry k + 1 is set at step k
        diffs[static_cast<std::size_t>(d) * diffRow] = 0;
    }

    // Local pointers: the compiler need not reload them from `this` after every store.
    const Step* const stepTable = m_steps.data();
    const StepCell* const stepCells = m_stepCells.data();
    const std::int32_t* const stepInputs = m_stepInputs.data();
    const std::int32_t* const stepOutputs = m_stepOutputs.data();
    const std::int64_t* const bufferBytes = m_bufferSize.data();
    const std::uint8_t* const relay = m_relay.data();
    const TransferHop* const hops = m_hops.data();
    const std::int32_t* const pathOffsets = m_pathOffsets.data();
    const double* const transferUs = m_transferUs.data();
    const auto hopCount = static_cast<std::size_t>(m_hopCount);
    const std::size_t startRow = m_startRow;
    double* const stepStart = m_stepStart.data() + kStartPad; // row d at d · startRow
    double* const queueFree = m_queueFree.data();
    std::int32_t* const home = m_home.data();
    std::uint32_t* const where = m_where.data();
    Presence* const presence = m_presence.data();
    Sent* const sent = m_sent.data();
    Relayed* const relayed = m_relayed.data();
    std::size_t sentCount = 0;
    std::size_t relayedCount = 0;
    const bool hasWorkspace = m_hasWorkspace;

    // Graph inputs: on the host from time 0, held there from step 0 while needed.
    for (const std::int32_t b : m_graphInputBuffers) {
        presence[static_cast<std::size_t>(b) * stride + static_cast<std::size_t>(host)] = {};
        presence[static_cast<std::size_t>(b) * stride + static_cast<std::size_t>(host)].arrival =
            0.0;
        where[b] = 1u << host;
    }

    double energyUj = 0.0;
    double makespan = 0.0;
    std::int32_t unsupported = 0;
    std::int32_t unreachable = 0;
    for (std::int32_t i = 0; i < C; ++i) {
        const Step& step = stepTable[i];
        const std::int32_t d = genome[step.ci];
        const StepCell& cell =
            stepCells[static_cast<std::size_t>(i) * stride + static_cast<std::size_t>(d)];
        unsupported += cell.unsupported;
        const std::int32_t k = stepCount[d];
        std::int64_t* const diff = diffs + static_cast<std::size_t>(d) * diffRow;
        double ready = deviceFree[d];
        std::int64_t released = 0; // bytes held here up to this step only, so far
        const std::int32_t* const inEnd = stepInputs + step.inEnd;
        for (const std::int32_t* in = stepInputs + step.inBegin; in != inEnd; ++in) {
            const std::int32_t b = *in;
            Presence* const of = presence + static_cast<std::size_t>(b) * stride;
            // Where the buffer is comes from the plan alone, known long before the times: the
            // branch resolves early even when it goes the unexpected way.
            double t;
            std::int32_t from = 0; // first step here not counted yet
            if ((where[b] & (1u << d)) != 0) {
                t = of[d].arrival;
                from = of[d].held + 1;
            } else {
                // Not on d yet: copied hop by hop along the path from where it was produced,
                // reusing copies already on the way, each hop waiting for its queue.
                const std::int32_t src = home[b];
                const std::size_t pair =
                    static_cast<std::size_t>(src) * stride + static_cast<std::size_t>(d);
                const TransferHop* hop = hops + pathOffsets[pair];
                const TransferHop* const last = hops + pathOffsets[pair + 1];
                if (hop == last) { // d cannot be reached
                    ++unreachable;
                    ready = std::max(ready, 0.0);
                    continue;
                }
                t = of[src].arrival;
                const double* const transferOfB =
                    transferUs + static_cast<std::size_t>(b) * hopCount;
                for (; hop != last; ++hop) {
                    const std::int32_t to = hop->to;
                    if ((where[b] & (1u << to)) != 0) {
                        t = of[to].arrival;
                        continue;
                    }
                    where[b] |= 1u << to;
                    double& queue = queueFree[hop->queue];
                    const double begin = std::max(t, queue);
                    const double end = begin + hop->latencyUs + transferOfB[hop - hops];
                    queue = end;
                    double& outEnd = of[hop->from].outEnd;
                    // Only the first transfer out of the buffer where it was produced is listed:
                    // a repeated entry would settle to no change (same range, +bytes -bytes).
                    sent[sentCount] = {b, src};
                    sentCount += hop->from == src && outEnd < 0.0 ? 1 : 0;
                    outEnd = std::max(outEnd, end);
                    of[to].arrival = end;
                    of[to].outEnd = -1.0;
                    // Held there from the first run that starts once the copy began: among the
                    // runs scheduled so far, or (relay devices only) a later one.
                    const std::int32_t lo = firstStartingAtOrAfterBack(
                        stepStart + static_cast<std::size_t>(to) * startRow, stepCount[to], begin);
                    of[to].held = lo - 1;
                    from = lo; // the last hop's, to d
                    relayed[relayedCount] = {b, to, lo, begin};
                    relayedCount += relay[to];
                    t = end;
                    recorder.transfer(hop->queue, b, begin, end);
                }
            }
            // Held here up to this step.
            const std::int64_t bytes = bufferBytes[b];
            diff[from] += bytes;
            released += bytes;
            of[d].held = k;
            ready = std::max(ready, t);
        }
        weights[d] += step.exclusiveWeight;
        if (step.staticBegin != step.staticEnd) {
            const std::uint32_t bit = 1u << d;
            const std::int32_t* const staticIds = m_statics.values.data();
            for (std::int32_t s = step.staticBegin; s != step.staticEnd; ++s) {
                std::uint32_t& mask = m_staticMask[static_cast<std::size_t>(staticIds[s])];
                if ((mask & bit) == 0) {
                    mask |= bit;
                    weights[d] += m_staticBytes[static_cast<std::size_t>(staticIds[s])];
                }
            }
        }
        const double latency = cell.latencyUs;
        const double finish = ready + latency;
        stepCount[d] = k + 1;
        stepStart[static_cast<std::size_t>(d) * startRow + static_cast<std::size_t>(k)] = ready;
        if (hasWorkspace) {
            m_stepWorkspace[static_cast<std::size_t>(d) * static_cast<std::size_t>(C) +
                            static_cast<std::size_t>(k)] = cell.workspaceBytes;
        }
        deviceFree[d] = finish;
        busy[d] += latency;
        energyUj += cell.energyUj;
        makespan = std::max(makespan, finish);
        // Its outputs are on d from its finish, held from its own start.
        std::int64_t produced = 0;
        const std::int32_t* const outEnd = stepOutputs + step.outEnd;
        for (const std::int32_t* out = stepOutputs + step.outBegin; out != outEnd; ++out) {
            const std::int32_t b = *out;
            Presence& here =
                presence[static_cast<std::size_t>(b) * stride + static_cast<std::size_t>(d)];
            here.arrival = finish;
            here.outEnd = -1.0;
            here.held = k;
            home[b] = d;
            where[b] = 1u << d;
            const std::int64_t bytes = bufferBytes[b];
            produced += bytes;
        }
        diff[k] += produced;
        diff[k + 1] = -(produced + released);
        recorder.node(step.ci, d, ready, finish);
    }

    // What only the complete schedule tells.
    for (std::int32_t d = 0; d < D; ++d) {
        std::fill_n(stepStart + static_cast<std::size_t>(d) * startRow + stepCount[d], kStartPad,
                    std::numeric_limits<double>::infinity());
    }
    // Copies on relay devices: held from the first run that starts once they began (which may
    // come after the runs scheduled when they began) to their last consumer there or the last
    // run that starts before their last transfer out ends. What was counted is replaced.
    for (std::size_t r = 0; r < relayedCount; ++r) {
        const Relayed& copy = relayed[r];
        const std::int32_t d = copy.device;
        const std::int32_t steps = stepCount[d];
        const double* const starts = stepStart + static_cast<std::size_t>(d) * startRow;
        Presence& state =
            presence[static_cast<std::size_t>(copy.buffer) * stride + static_cast<std::size_t>(d)];
        const std::int32_t lo = firstStartingAtOrAfter(starts, steps, copy.copyBegin, copy.lo);
        // From the step after the held one: an answer of `held` gives the same range.
        const std::int32_t hi = std::max(
            state.held,
            firstStartingAtOrAfter(starts, steps, state.outEnd, std::max(lo, state.held + 1)) - 1);
        const std::int64_t bytes = bufferBytes[copy.buffer];
        std::int64_t* const diff = diffs + static_cast<std::size_t>(d) * diffRow;
        diff[copy.lo] -= bytes; // an empty range removes and adds at the same step
        diff[std::max(state.held + 1, copy.lo)] += bytes;
        diff[lo] += bytes;
        diff[std::max(hi + 1, lo)] -= bytes;
        state.held = std::max(hi, lo - 1);
    }
    // Buffers where they were produced, sent elsewhere: held to the last run that starts before
    // their last transfer out ends.
    for (std::size_t s = 0; s < sentCount; ++s) {
        const std::int32_t d = sent[s].device;
        Presence& state = presence[static_cast<std::size_t>(sent[s].buffer) * stride +
                                   static_cast<std::size_t>(d)];
        const std::int32_t hi = std::max(
            state.held, firstStartingAtOrAfter(stepStart + static_cast<std::size_t>(d) * startRow,
                                               stepCount[d], state.outEnd, state.held + 1) -
                            1);
        const std::int64_t bytes = bufferBytes[sent[s].buffer];
        std::int64_t* const diff = diffs + static_cast<std::size_t>(d) * diffRow;
        diff[state.held + 1] += bytes;
        diff[hi + 1] -= bytes;
        state.held = hi;
    }
    // Graph outputs: held to the end where they were produced.
    for (const std::int32_t b : m_outputBuffers) {
        const std::int32_t d = home[b];
        Presence& state =
            presence[static_cast<std::size_t>(b) * stride + static_cast<std::size_t>(d)];
        const std::int64_t bytes = bufferBytes[b];
        std::int64_t* const diff = diffs + static_cast<std::size_t>(d) * diffRow;
        diff[state.held + 1] += bytes;
        diff[std::max(stepCount[d], state.held + 1)] -= bytes;
    }
    std::copy_n(busy, D, m_busy.begin());
    std::int64_t mostLive[32];
    for (std::int32_t d = 0; d < D; ++d) {
        const std::int64_t* diff = diffs + static_cast<std::size_t>(d) * diffRow;
        std::int64_t live = 0;
        std::int64_t most = 0;
        const std::int32_t steps = stepCount[d];
        if (hasWorkspace) {
            const std::int64_t* ws =
                m_stepWorkspace.data() + static_cast<std::size_t>(d) * static_cast<std::size_t>(C);
            for (std::int32_t k = 0; k < steps; ++k) {
                live += diff[k];
                most = std::max(most, live + ws[k]);
            }
        } else {
            for (std::int32_t k = 0; k < steps; ++k) {
                live += diff[k];
                most = std::max(most, live);
            }
        }
        mostLive[d] = most;
    }
    recorder.unsupportedNodes(unsupported);
    return objectivesOf(
        {mostLive, weights, busy, stepCount, makespan, energyUj, unsupported, unreachable},
        m_peak.data());
}

Objectives Simulator::objectivesOf(const ScheduleTotals& totals, double* peaks) const {
    double peakAll = 0.0;
    double violation = totals.unsupported + totals.unreachable;
    double energyUj = totals.energyUj;
    const double makespan = totals.makespan;
    for (std::int32_t d = 0; d < m_deviceCount; ++d) {
        const double weights = totals.weights[d];
        double peak = static_cast<double>(totals.mostLive[d]) + weights;
        if (d == m_host) {
            peak = std::max(peak, weights + m_graphInputBytes);
        }
        if (peaks != nullptr) {
            peaks[d] = peak;
        }
        peakAll = std::max(peakAll, peak);
        if (peak > m_memory[static_cast<std::size_t>(d)]) {
            violation += peak / m_memory[static_cast<std::size_t>(d)] - 1.0;
        }
        if (totals.steps[d] > 0 || d == m_host) {
            energyUj += (makespan - totals.busy[d]) * m_idleW[static_cast<std::size_t>(d)];
        }
    }
    Objectives o;
    o.latencyUs = makespan;
    o.energyMj = energyUj * 1e-3;
    o.averagePowerW = makespan > 0.0 ? energyUj / makespan : 0.0;
    o.peakMemoryBytes = peakAll;
    o.violation = violation;
    return o;
}

Objectives Simulator::evaluate(std::span<const std::uint8_t> genome) {
    NoRecording none;
    switch (m_deviceCount) {
    case 2:
        return run<NoRecording, 2>(genome.data(), none);
    case 3:
        return run<NoRecording, 3>(genome.data(), none);
    case 4:
        return run<NoRecording, 4>(genome.data(), none);
    default:
        return run<NoRecording, 0>(genome.data(), none);
    }
}

std::vector<std::uint8_t> Simulator::genomeOf(const Plan& plan) const {
    if (plan.device.size() != m_graph.nodes.size()) {
        throw InputError("plan has " + std::to_string(plan.device.size()) +
                         " device entries, the graph has " + std::to_string(m_graph.nodes.size()) +
                         " nodes");
    }
    std::vector<std::uint8_t> genome(m_computeNodes.size());
    for (std::size_t ci = 0; ci < m_computeNodes.size(); ++ci) {
        const NodeId n = m_computeNodes[ci];
        const std::int32_t d = at(plan.device, n);
        if (d < 0 || d >= m_deviceCount) {
            throw InputError("plan: node '" + at(m_graph.nodes, n).name + "' has device index " +
                             std::to_string(d) + ", expected 0.." +
                             std::to_string(m_deviceCount - 1));
        }
        genome[ci] = static_cast<std::uint8_t>(d);
    }
    return genome;
}

Plan Simulator::planOf(std::span<const std::uint8_t> genome) const {
    Plan plan;
    plan.device.assign(m_graph.nodes.size(), -1);
    for (const NodeId n : m_graph.topologicalOrder) {
        const Node& node = at(m_graph.nodes, n);
        std::int32_t& d = at(plan.device, n);
        switch (node.kind) {
        case NodeKind::Compute:
            d = genome[static_cast<std::size_t>(at(m_computeIndex, n))];
            break;
        case NodeKind::Constant:
            d = -1;
            break;
        case NodeKind::ShapeComputation:
            d = m_host;
            break;
        case NodeKind::PassThrough: {
            d = m_host;
            for (const TensorId t : m_graph.nodeInputs.row(n)) {
                if (t != kNone) {
                    const std::int32_t b = at(m_tensorBuffer, t);
                    if (b >= 0 && at(m_bufferProducer, b) >= 0) {
                        d = genome[static_cast<std::size_t>(at(m_bufferProducer, b))];
                    }
                    break;
                }
            }
            break;
        }
        }
    }
    for (const std::int32_t ci : m_priority) {
        plan.order.push_back(at(m_computeNodes, ci));
    }
    return plan;
}

SimulationResult Simulator::simulate(const Plan& plan, bool withTimeline) {
    const std::vector<std::uint8_t> genome = genomeOf(plan);
    std::vector<std::int32_t> order;
    order.reserve(m_computeNodes.size());
    for (const NodeId n : plan.order) {
        if (n < 0 || static_cast<std::size_t>(n) >= m_graph.nodes.size()) {
            throw InputError("plan: order names node index " + std::to_string(n) +
                             ", which is not in the graph");
        }
        if (at(m_computeIndex, n) >= 0) {
            order.push_back(at(m_computeIndex, n));
        }
    }
    const std::vector<std::int32_t> saved = m_priority;
    setPriority(order); // validates
    SimulationResult result;
    result.startUs.assign(m_graph.nodes.size(), 0.0);
    result.finishUs.assign(m_graph.nodes.size(), 0.0);
    Recording recording{result, m_computeNodes, m_bufferTensor, withTimeline, {}};
    result.objectives = run<Recording, 0>(genome.data(), recording);
    result.peakBytes = m_peak;
    result.busyUs = m_busy;
    m_priority = saved;
    buildSteps();
    return result;
}

} // namespace paretune
