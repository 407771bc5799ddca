#include "simulator.h"

#include "common/input_error.h"

#include <algorithm>
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

/// Smallest k in [from, n] with starts[k] >= t (starts ascending), galloping from `from`;
/// `from` itself when starts[from] >= t already (the common case, inlined).
inline std::int32_t firstStartingAtOrAfter(const double* starts, std::int32_t n, double t,
                                           std::int32_t from) {
    if (from >= n || starts[from] >= t) {
        return from;
    }
    return gallop(starts, n, t, from);
}

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
    // Graph inputs are produced by a sentinel node C that sits on the host and finishes at 0.
    for (const std::int32_t b : m_inputs.values) {
        const std::int32_t p = at(m_bufferProducer, b);
        m_inputRefs.push_back({b, p < 0 ? static_cast<std::int32_t>(C) : p});
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
    m_start.resize(C);
    m_finish.assign(C + 1, 0.0); // [C]: the graph-input sentinel
    m_step.assign(C + 1, 0);
    m_deviceOf.assign(C + 1, m_host);
    m_deviceFree.resize(D);
    m_busy.resize(D);
    m_stepCount.resize(D);
    m_stepStart.resize(D * std::max<std::size_t>(C, 1));
    m_stepWorkspace.resize(D * std::max<std::size_t>(C, 1));
    m_queueFree.resize(static_cast<std::size_t>(costs.queueCount()));
    m_presence.assign(B * D, Presence{});
    for (std::size_t b = 0; b < B; ++b) {
        const std::int32_t p = m_bufferProducer[b];
        m_buffers.push_back({p < 0 ? static_cast<std::int32_t>(C) : p, m_bufferIsOutput[b],
                             p < 0 ? -1 : 0, m_bufferBytes[b]});
    }
    for (const std::int32_t b : m_graphInputBuffers) {
        m_graphInputBytes += at(m_bufferBytes, b);
    }
    m_hasWorkspace =
        std::any_of(m_workspace.begin(), m_workspace.end(), [](double w) { return w != 0.0; });
    m_staticMask.resize(m_staticBytes.size());
    m_diff.resize(D * (C + 1));
    m_copies.resize(B * D);
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
    const std::size_t C = m_priority.size();
    const auto D = static_cast<std::size_t>(m_deviceCount);
    m_steps.resize(C);
    m_stepCells.resize(C * D);
    for (std::size_t i = 0; i < C; ++i) {
        const std::int32_t ci = m_priority[i];
        Step& s = m_steps[i];
        s.ci = ci;
        s.inBegin = at(m_inputs.offsets, ci);
        s.inEnd = at(m_inputs.offsets, ci + 1);
        s.staticBegin = at(m_statics.offsets, ci);
        s.staticEnd = at(m_statics.offsets, ci + 1);
        s.exclusiveWeight = at(m_exclusiveWeight, ci);
        for (std::size_t d = 0; d < D; ++d) {
            const std::size_t k = static_cast<std::size_t>(ci) * D + d;
            m_stepCells[i * D + d] = {m_latency[k], m_energyUj[k], m_workspace[k],
                                      m_supported[k] == 0 ? 1 : 0};
        }
    }
}

template <bool WithTimeline, int FixedDevices>
Objectives Simulator::run(const std::uint8_t* genome, SimulationResult* detail) {
    // A device count known at compile time turns the b · D + d indexing into shifts and adds.
    const std::int32_t D = FixedDevices > 0 ? FixedDevices : m_deviceCount;
    const auto C = static_cast<std::int32_t>(m_computeNodes.size());
    const auto B = static_cast<std::int32_t>(m_buffers.size());
    const std::size_t stride = static_cast<std::size_t>(D);
    const std::int32_t host = m_host;
    std::fill(m_deviceFree.begin(), m_deviceFree.end(), 0.0);
    std::fill(m_busy.begin(), m_busy.end(), 0.0);
    std::fill(m_stepCount.begin(), m_stepCount.end(), 0);
    std::fill(m_queueFree.begin(), m_queueFree.end(), 0.0);
    std::fill(m_staticMask.begin(), m_staticMask.end(), 0u);
    std::vector<TimelineSegment>* timeline = WithTimeline ? &detail->timeline : nullptr;

    // Local pointers: the compiler need not reload them from `this` after every store.
    const Step* const stepTable = m_steps.data();
    const StepCell* const stepCells = m_stepCells.data();
    const double* const staticBytes = m_staticBytes.data();
    const BufferInfo* const buffers = m_buffers.data();
    const InputRef* const inputs = m_inputRefs.data();
    const std::int32_t* const staticIds = m_statics.values.data();
    const TransferHop* const hops = m_hops.data();
    const std::int32_t* const pathOffsets = m_pathOffsets.data();
    double* const startOf = m_start.data();
    double* const finishOf = m_finish.data();
    std::int32_t* const stepOf = m_step.data();
    std::int32_t* const deviceOf = m_deviceOf.data();
    const double* const transferUs = m_transferUs.data();
    const auto hopCount = static_cast<std::size_t>(m_hopCount);
    double* const deviceFree = m_deviceFree.data();
    double* const busy = m_busy.data();
    std::int32_t* const stepCount = m_stepCount.data();
    double* const stepStart = m_stepStart.data();
    double* const stepWorkspace = m_stepWorkspace.data();
    double* const queueFree = m_queueFree.data();
    std::uint32_t* const staticMask = m_staticMask.data();
    Presence* const presence = m_presence.data();
    Copy* const copies = m_copies.data();
    std::size_t copyCount = 0;
    const bool hasWorkspace = m_hasWorkspace;

    // Brings buffer b to device d (hop by hop, reusing copies already on the way) and returns
    // when it is there; -1 when d cannot be reached.
    auto arrive = [&](std::int32_t b, std::int32_t d) -> double {
        Presence& here =
            presence[static_cast<std::size_t>(b) * stride + static_cast<std::size_t>(d)];
        if (here.arrival >= 0.0) {
            return here.arrival;
        }
        const std::int32_t p = buffers[b].producer;
        const std::int32_t home = deviceOf[p];
        double t = finishOf[p];
        const double* const transferOfB = transferUs + static_cast<std::size_t>(b) * hopCount;
        const std::size_t pair =
            static_cast<std::size_t>(home) * stride + static_cast<std::size_t>(d);
        const TransferHop* const last = hops + pathOffsets[pair + 1];
        const TransferHop* hop = hops + pathOffsets[pair];
        if (hop == last) {
            return -1.0;
        }
        for (; hop != last; ++hop) {
            Presence& to =
                presence[static_cast<std::size_t>(b) * stride + static_cast<std::size_t>(hop->to)];
            if (to.arrival >= 0.0) {
                t = to.arrival;
                continue;
            }
            double& queue = queueFree[hop->queue];
            const double begin = std::max(t, queue);
            const double end = begin + hop->latencyUs + transferOfB[hop - hops];
            queue = end;
            Presence& from = presence[static_cast<std::size_t>(b) * stride +
                                      static_cast<std::size_t>(hop->from)];
            from.outEnd = std::max(from.outEnd, end);
            to.copyBegin = begin;
            to.arrival = end;
            copies[copyCount++] = {b, hop->to, stepCount[hop->to]};
            t = end;
            if constexpr (WithTimeline) {
                TimelineSegment s;
                s.lane = TimelineSegment::Lane::Link;
                s.index = hop->queue;
                s.beginUs = begin;
                s.endUs = end;
                s.tensor = m_bufferTensor[static_cast<std::size_t>(b)];
                timeline->push_back(s);
            }
        }
        return t;
    };

    double weights[32] = {};
    double energyUj = 0.0;
    double makespan = 0.0;
    std::int32_t unsupported = 0;
    std::int32_t unreachable = 0;
    for (std::int32_t i = 0; i < C; ++i) {
        const Step& step = stepTable[i];
        const std::int32_t ci = step.ci;
        const std::int32_t d = genome[ci];
        const StepCell& cell =
            stepCells[static_cast<std::size_t>(i) * stride + static_cast<std::size_t>(d)];
        unsupported += cell.unsupported;
        const std::int32_t k = stepCount[d];
        double ready = deviceFree[d];
        const InputRef* const inEnd = inputs + step.inEnd;
        for (const InputRef* in = inputs + step.inBegin; in != inEnd; ++in) {
            const std::int32_t p = in->producer;
            double t;
            if (deviceOf[p] == d) {
                t = finishOf[p];
            } else {
                t = arrive(in->buffer, d);
                if (t < 0.0) {
                    ++unreachable;
                    t = 0.0;
                }
            }
            presence[static_cast<std::size_t>(in->buffer) * stride + static_cast<std::size_t>(d)]
                .lastStep = k;
            ready = std::max(ready, t);
        }
        weights[d] += step.exclusiveWeight;
        const std::uint32_t bit = 1u << d;
        const std::int32_t* const staticEnd = staticIds + step.staticEnd;
        for (const std::int32_t* st = staticIds + step.staticBegin; st != staticEnd; ++st) {
            std::uint32_t& mask = staticMask[*st];
            if ((mask & bit) == 0) {
                mask |= bit;
                weights[d] += staticBytes[*st];
            }
        }
        const double latency = cell.latencyUs;
        const double finish = ready + latency;
        stepCount[d] = k + 1;
        const std::size_t row = static_cast<std::size_t>(d) * static_cast<std::size_t>(C);
        stepStart[row + static_cast<std::size_t>(k)] = ready;
        if (hasWorkspace) {
            stepWorkspace[row + static_cast<std::size_t>(k)] = cell.workspaceBytes;
        }
        if (detail != nullptr) {
            startOf[ci] = ready;
        }
        finishOf[ci] = finish;
        stepOf[ci] = k;
        deviceOf[ci] = d;
        deviceFree[d] = finish;
        busy[d] += latency;
        energyUj += cell.energyUj;
        makespan = std::max(makespan, finish);
        if constexpr (WithTimeline) {
            TimelineSegment s;
            s.lane = TimelineSegment::Lane::Device;
            s.index = d;
            s.beginUs = ready;
            s.endUs = finish;
            s.node = m_computeNodes[static_cast<std::size_t>(ci)];
            timeline->push_back(s);
        }
    }

    // Memory, sampled at each node start on each device: a difference array over the steps of
    // each device. The presence entries read here are reset for the next evaluation.
    const std::size_t diffRow = static_cast<std::size_t>(C) + 1;
    double* const diffs = m_diff.data();
    for (std::int32_t d = 0; d < D; ++d) {
        std::fill_n(diffs + static_cast<std::size_t>(d) * diffRow, stepCount[d] + 1, 0.0);
    }
    // Buffers where they were produced (graph inputs: on the host from the start).
    for (std::int32_t b = 0; b < B; ++b) {
        const BufferInfo& info = buffers[b];
        const std::int32_t p = info.producer;
        const std::int32_t home = deviceOf[p];
        Presence& state =
            presence[static_cast<std::size_t>(b) * stride + static_cast<std::size_t>(home)];
        const std::int32_t steps = stepCount[home];
        const std::int32_t lo = stepOf[p];
        std::int32_t hi = std::max(lo + info.firstHi, state.lastStep);
        if (state.outEnd >= 0.0) {
            hi = std::max(hi, firstStartingAtOrAfter(stepStart + static_cast<std::size_t>(home) *
                                                                     static_cast<std::size_t>(C),
                                                     steps, state.outEnd, std::max(lo, hi)) -
                                  1);
        }
        if (info.isOutput != 0) {
            hi = steps - 1;
        }
        state.lastStep = -1;
        state.outEnd = -1.0;
        if (hi >= lo) {
            double* diff = diffs + static_cast<std::size_t>(home) * diffRow;
            diff[lo] += info.bytes;
            diff[hi + 1] -= info.bytes;
        }
    }
    // Copies, from the start of their arrival.
    for (std::size_t c = 0; c < copyCount; ++c) {
        const std::int32_t b = copies[c].buffer;
        const std::int32_t d = copies[c].device;
        Presence& state =
            presence[static_cast<std::size_t>(b) * stride + static_cast<std::size_t>(d)];
        const std::int32_t steps = stepCount[d];
        const double* starts =
            stepStart + static_cast<std::size_t>(d) * static_cast<std::size_t>(C);
        std::int32_t lo = copies[c].stepHint;
        while (lo > 0 && starts[lo - 1] >= state.copyBegin) {
            --lo;
        }
        lo = firstStartingAtOrAfter(starts, steps, state.copyBegin, lo);
        std::int32_t hi = state.lastStep;
        if (state.outEnd >= 0.0) {
            hi = std::max(
                hi, firstStartingAtOrAfter(starts, steps, state.outEnd, std::max(lo, hi)) - 1);
        }
        state = Presence{};
        if (hi >= lo) {
            const double bytes = buffers[b].bytes;
            double* diff = diffs + static_cast<std::size_t>(d) * diffRow;
            diff[lo] += bytes;
            diff[hi + 1] -= bytes;
        }
    }
    double peakAll = 0.0;
    double violation = unsupported + unreachable;
    for (std::int32_t d = 0; d < D; ++d) {
        const double* diff = diffs + static_cast<std::size_t>(d) * diffRow;
        double live = 0.0;
        double peak = 0.0;
        const std::int32_t steps = stepCount[d];
        if (hasWorkspace) {
            const double* ws =
                stepWorkspace + static_cast<std::size_t>(d) * static_cast<std::size_t>(C);
            for (std::int32_t k = 0; k < steps; ++k) {
                live += diff[k];
                peak = std::max(peak, live + ws[k]);
            }
        } else {
            for (std::int32_t k = 0; k < steps; ++k) {
                live += diff[k];
                peak = std::max(peak, live);
            }
        }
        peak += weights[d];
        if (d == host) {
            peak = std::max(peak, weights[d] + m_graphInputBytes);
        }
        m_peak[static_cast<std::size_t>(d)] = peak;
        peakAll = std::max(peakAll, peak);
        if (peak > m_memory[static_cast<std::size_t>(d)]) {
            violation += peak / m_memory[static_cast<std::size_t>(d)] - 1.0;
        }
        if (steps > 0 || d == host) {
            energyUj += (makespan - busy[d]) * m_idleW[static_cast<std::size_t>(d)];
        }
    }

    Objectives o;
    o.latencyUs = makespan;
    o.energyMj = energyUj * 1e-3;
    o.averagePowerW = makespan > 0.0 ? energyUj / makespan : 0.0;
    o.peakMemoryBytes = peakAll;
    o.violation = violation;
    if (detail) {
        detail->objectives = o;
        detail->peakBytes = m_peak;
        detail->busyUs = m_busy;
        detail->unsupportedCount = unsupported;
        detail->startUs.assign(m_graph.nodes.size(), 0.0);
        detail->finishUs.assign(m_graph.nodes.size(), 0.0);
        for (std::int32_t ci = 0; ci < C; ++ci) {
            detail->startUs[static_cast<std::size_t>(at(m_computeNodes, ci))] = at(m_start, ci);
            detail->finishUs[static_cast<std::size_t>(at(m_computeNodes, ci))] = at(m_finish, ci);
        }
    }
    return o;
}

Objectives Simulator::evaluate(std::span<const std::uint8_t> genome) {
    switch (m_deviceCount) {
    case 2:
        return run<false, 2>(genome.data(), nullptr);
    case 3:
        return run<false, 3>(genome.data(), nullptr);
    case 4:
        return run<false, 4>(genome.data(), nullptr);
    default:
        return run<false, 0>(genome.data(), nullptr);
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
    if (withTimeline) {
        run<true, 0>(genome.data(), &result);
    } else {
        run<false, 0>(genome.data(), &result);
    }
    m_priority = saved;
    buildSteps();
    return result;
}

} // namespace paretune
