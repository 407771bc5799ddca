// SPDX-License-Identifier: GPL-3.0-or-later
// The memory plan of a simulated plan: buffers and their lifetimes per device (as the
// simulator counts them), in-place candidates, workspace blocks, then the arena.
#include "plan/memory_plan.h"

#include "common/input_error.h"
#include "cost/cost_table.h"
#include "graph/precision_bytes.h"
#include "plan/simulator.h"

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <string>
#include <string_view>

namespace paretune {

namespace {

std::int64_t tensorBytes(const Tensor& t) {
    return std::max<std::int64_t>(t.byteSize(), 0);
}

template <typename T> T& at(std::vector<T>& v, std::int32_t i) {
    return v[static_cast<std::size_t>(i)];
}
template <typename T> const T& at(const std::vector<T>& v, std::int32_t i) {
    return v[static_cast<std::size_t>(i)];
}

/// Element-wise operators whose output may overwrite an input of its size and type.
bool elementwise(std::string_view op) {
    static constexpr std::array<std::string_view, 28> kOps = {
        "Abs",  "Add",     "Ceil", "Clip",        "Div",        "Elu",       "Erf",
        "Exp",  "Floor",   "Gelu", "HardSigmoid", "HardSwish",  "LeakyRelu", "Log",
        "Mul",  "Neg",     "Pow",  "PRelu",       "Reciprocal", "Relu",      "Round",
        "Selu", "Sigmoid", "Sign", "Softplus",    "Sqrt",       "Sub",       "Tanh"};
    return std::find(kOps.begin(), kOps.end(), op) != kOps.end();
}

/// Buffers and statics as the simulator forms them (simulator_tables.cpp).
struct Buffers {
    std::vector<std::int32_t> ofTensor; // per tensor, or -1
    std::vector<std::int32_t> staticOf; // per tensor, or -1
    std::vector<std::int64_t> staticBytes;
    std::vector<TensorId> tensor;                   // per buffer
    std::vector<std::int64_t> bytes;                // per buffer
    std::vector<NodeId> producer;                   // per buffer; kNone: graph input
    std::vector<std::uint8_t> isOutput;             // per buffer
    std::vector<std::vector<std::int32_t>> inputs;  // per node: buffers read, each once
    std::vector<std::vector<std::int32_t>> statics; // per node: statics read, each once
    std::vector<std::vector<std::int32_t>> outputs; // per node: buffers written
};

Buffers formBuffers(const Graph& g) {
    Buffers b;
    b.ofTensor.assign(g.tensors.size(), -1);
    b.staticOf.assign(g.tensors.size(), -1);
    auto newStatic = [&](TensorId t) {
        at(b.staticOf, t) = static_cast<std::int32_t>(b.staticBytes.size());
        b.staticBytes.push_back(tensorBytes(at(g.tensors, t)));
    };
    auto newBuffer = [&](TensorId t, NodeId producer) {
        at(b.ofTensor, t) = static_cast<std::int32_t>(b.tensor.size());
        b.tensor.push_back(t);
        b.bytes.push_back(tensorBytes(at(g.tensors, t)));
        b.producer.push_back(producer);
    };
    for (std::size_t t = 0; t < g.tensors.size(); ++t) {
        if (g.tensors[t].role == TensorRole::Initializer) {
            newStatic(static_cast<TensorId>(t));
        } else if (g.tensors[t].role == TensorRole::GraphInput) {
            newBuffer(static_cast<TensorId>(t), kNone);
        }
    }
    b.outputs.resize(g.nodes.size());
    for (const NodeId n : g.topologicalOrder) {
        const Node& node = at(g.nodes, n);
        const auto outs = g.nodeOutputs.row(n);
        if (node.kind == NodeKind::Compute) {
            for (const TensorId t : outs) {
                if (t != kNone) {
                    newBuffer(t, n);
                    at(b.outputs, n).push_back(at(b.ofTensor, t));
                }
            }
        } else if (node.kind == NodeKind::PassThrough) {
            TensorId source = kNone;
            for (const TensorId t : g.nodeInputs.row(n)) {
                if (t != kNone) {
                    source = t;
                    break;
                }
            }
            for (const TensorId t : outs) {
                if (t == kNone) {
                    continue;
                }
                if (source != kNone && at(b.ofTensor, source) >= 0) {
                    at(b.ofTensor, t) = at(b.ofTensor, source);
                } else if (source != kNone && at(b.staticOf, source) >= 0) {
                    at(b.staticOf, t) = at(b.staticOf, source);
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
    b.isOutput.assign(b.tensor.size(), 0);
    for (const TensorId t : g.outputs) {
        if (at(b.ofTensor, t) >= 0) {
            at(b.isOutput, at(b.ofTensor, t)) = 1;
        }
    }
    b.inputs.resize(g.nodes.size());
    b.statics.resize(g.nodes.size());
    const bool hasCaptured = g.capturedInputs.offsets.size() == g.nodes.size() + 1;
    for (std::size_t n = 0; n < g.nodes.size(); ++n) {
        if (g.nodes[n].kind != NodeKind::Compute) {
            continue;
        }
        std::vector<TensorId> read(g.nodeInputs.row(static_cast<NodeId>(n)).begin(),
                                   g.nodeInputs.row(static_cast<NodeId>(n)).end());
        if (hasCaptured) {
            const auto captured = g.capturedInputs.row(static_cast<NodeId>(n));
            read.insert(read.end(), captured.begin(), captured.end());
        }
        for (const TensorId t : read) {
            if (t == kNone) {
                continue;
            }
            auto addOnce = [](std::vector<std::int32_t>& row, std::int32_t v) {
                if (std::find(row.begin(), row.end(), v) == row.end()) {
                    row.push_back(v);
                }
            };
            if (at(b.ofTensor, t) >= 0) {
                addOnce(b.inputs[n], at(b.ofTensor, t));
            } else if (at(b.staticOf, t) >= 0) {
                addOnce(b.statics[n], at(b.staticOf, t));
            }
        }
    }
    return b;
}

/// Buffer b on device d.
struct Presence {
    bool there = false;
    ArenaTensorKind kind = ArenaTensorKind::Activation;
    double copyBegin = 0.0;  // Copy: when its transfer began
    double outEnd = -1.0;    // end of the last transfer out of it; -1: none
    std::int32_t first = -1; // counted steps, as the simulator counts them
    std::int32_t last = -1;
};

/// Smallest k in [0, n] with starts[k] >= t (starts ascending).
std::int32_t firstStartingAtOrAfter(const std::vector<double>& starts, double t) {
    return static_cast<std::int32_t>(std::lower_bound(starts.begin(), starts.end(), t) -
                                     starts.begin());
}

/// The bytes static `s` holds for node n in a lower precision (loweredWeightBytes, at the first
/// input of n that reads it).
std::int64_t narrowedStaticBytes(const Graph& g, NodeId n, std::int32_t s, Precision precision,
                                 const Buffers& buf) {
    const auto inputs = g.nodeInputs.row(n);
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        if (inputs[i] != kNone && at(buf.staticOf, inputs[i]) == s) {
            return static_cast<std::int64_t>(loweredWeightBytes(
                g, n, i, precision, static_cast<double>(at(buf.staticBytes, s))));
        }
    }
    return at(buf.staticBytes, s);
}

} // namespace

MemoryPlan buildMemoryPlan(const Graph& g, const CostTable& costs, const Plan& plan,
                           const SimulationResult& result,
                           std::span<const std::uint8_t> notMaterialised) {
    const std::size_t N = g.nodes.size();
    if (plan.device.size() != N || result.startUs.size() != N || result.finishUs.size() != N) {
        throw InputError("memory plan: the plan or its simulation does not fit graph '" + g.name +
                         "'");
    }
    const std::int32_t D = costs.deviceCount();
    const auto stride = static_cast<std::size_t>(D);
    const std::int32_t host = costs.host();
    Buffers buf = formBuffers(g);
    for (const auto& [t, bytes] : result.narrowed) { // a chain's activations, narrower
        if (at(buf.ofTensor, t) >= 0) {
            at(buf.bytes, at(buf.ofTensor, t)) = bytes;
        }
    }
    std::vector<int> staticReaders(buf.staticBytes.size(), 0); // compute nodes reading each
    for (const auto& row : buf.statics) {
        for (const std::int32_t s : row) {
            ++at(staticReaders, s);
        }
    }
    const std::size_t B = buf.tensor.size();
    // The tensors between the members of the fusion groups the plan takes never reach memory
    // (the fused kernel keeps them), beside those the caller names.
    std::vector<std::uint8_t> fusedAway(g.tensors.size(), 0);
    for (const std::int32_t k : result.fusedGroups) {
        const auto& members = costs.fusionOptions()[static_cast<std::size_t>(k)].group.members;
        for (std::size_t m = 0; m + 1 < members.size(); ++m) {
            for (const TensorId t : g.nodeOutputs.row(members[m])) {
                if (t != kNone) {
                    fusedAway[static_cast<std::size_t>(t)] = 1;
                }
            }
        }
    }
    auto masked = [&](std::int32_t b) {
        const auto t = static_cast<std::size_t>(at(buf.tensor, b));
        return (t < notMaterialised.size() && notMaterialised[t] != 0) || fusedAway[t] != 0;
    };

    // Steps: the compute nodes of each device in the plan's order.
    MemoryPlan mp;
    mp.devices.resize(stride);
    std::vector<std::vector<double>> starts(stride), finishes(stride);
    std::vector<std::int32_t> stepOf(N, -1);
    for (std::int32_t d = 0; d < D; ++d) {
        at(mp.devices, d).device = d;
    }
    for (const NodeId n : plan.order) {
        if (n < 0 || static_cast<std::size_t>(n) >= N || at(g.nodes, n).kind != NodeKind::Compute) {
            continue;
        }
        const std::int32_t d = at(plan.device, n);
        if (d < 0 || d >= D) {
            throw InputError("memory plan: node '" + at(g.nodes, n).name +
                             "' has no device of the cost table");
        }
        at(stepOf, n) = static_cast<std::int32_t>(at(mp.devices, d).steps.size());
        at(mp.devices, d).steps.push_back(n);
        at(starts, d).push_back(at(result.startUs, n));
        at(finishes, d).push_back(at(result.finishUs, n));
    }

    // The transfers of the simulation, per (tensor, queue), in the order they were scheduled.
    std::map<std::pair<TensorId, std::int32_t>, std::deque<const TimelineSegment*>> transfers;
    for (const TimelineSegment& s : result.timeline) {
        if (s.lane == TimelineSegment::Lane::Link) {
            transfers[{s.tensor, s.index}].push_back(&s);
        }
    }

    // Walk the schedule as the simulator does: where each buffer is, copies hop by hop.
    std::vector<Presence> presence(B * stride);
    std::vector<std::int32_t> home(B, host);
    auto on = [&](std::int32_t b, std::int32_t d) -> Presence& {
        return presence[static_cast<std::size_t>(b) * stride + static_cast<std::size_t>(d)];
    };
    for (std::size_t b = 0; b < B; ++b) {
        if (buf.producer[b] == kNone) {
            Presence& p = on(static_cast<std::int32_t>(b), host);
            p.there = true;
            p.kind = ArenaTensorKind::GraphInput;
            p.first = 0;
        }
    }
    for (const NodeId n : plan.order) {
        if (n < 0 || static_cast<std::size_t>(n) >= N || at(stepOf, n) < 0) {
            continue;
        }
        const std::int32_t d = at(plan.device, n);
        const std::int32_t k = at(stepOf, n);
        for (const std::int32_t b : at(buf.inputs, n)) {
            if (!on(b, d).there) {
                const auto hops = costs.path(at(home, b), d);
                if (hops.empty()) {
                    continue; // unreachable: the simulator counts it as a violation
                }
                for (const TransferHop& hop : hops) {
                    Presence& to = on(b, hop.to);
                    if (to.there) {
                        continue;
                    }
                    auto found = transfers.find({at(buf.tensor, b), hop.queue});
                    if (found == transfers.end() || found->second.empty()) {
                        throw InputError("memory plan: the simulation of graph '" + g.name +
                                         "' has no timeline of its transfers (simulate with "
                                         "the timeline)");
                    }
                    const TimelineSegment* s = found->second.front();
                    found->second.pop_front();
                    to.there = true;
                    to.kind = ArenaTensorKind::Copy;
                    to.copyBegin = s->beginUs;
                    Presence& from = on(b, hop.from);
                    from.outEnd = std::max(from.outEnd, s->endUs);
                }
            }
            Presence& here = on(b, d);
            here.last = std::max(here.last, k);
        }
        for (const std::int32_t b : at(buf.outputs, n)) {
            Presence& p = on(b, d);
            p.there = true;
            p.kind = ArenaTensorKind::Activation;
            p.first = k;
            p.last = std::max(p.last, k);
            at(home, b) = d;
        }
    }

    // What the whole schedule settles, then the blocks of each device.
    for (std::int32_t d = 0; d < D; ++d) {
        DeviceMemoryPlan& dev = at(mp.devices, d);
        const std::vector<double>& st = at(starts, d);
        const auto steps = static_cast<std::int32_t>(st.size());
        std::vector<ArenaBlock> counted; // as the simulator counts: the live peak
        std::vector<ArenaBlock> planned; // per tensor, as the arena holds it
        std::vector<std::int32_t> bufferTensorIndex(B, -1);
        std::int64_t graphInputBytes = 0;
        for (std::size_t bi = 0; bi < B; ++bi) {
            const auto b = static_cast<std::int32_t>(bi);
            Presence& p = on(b, d);
            if (!p.there || masked(b)) {
                continue;
            }
            if (p.kind == ArenaTensorKind::Copy) {
                p.first = firstStartingAtOrAfter(st, p.copyBegin);
            }
            if (p.outEnd >= 0.0) {
                p.last = std::max(p.last, firstStartingAtOrAfter(st, p.outEnd) - 1);
            }
            if (at(buf.isOutput, b) != 0 && at(home, b) == d) {
                p.last = std::max(p.last, steps - 1);
            }
            const std::int64_t bytes = at(buf.bytes, b);
            if (p.kind == ArenaTensorKind::GraphInput) {
                graphInputBytes += bytes;
            }
            counted.push_back({bytes, p.first, p.last});
            ArenaBlock a{bytes, p.first, p.last};
            if (p.kind == ArenaTensorKind::Copy && a.first > 0 &&
                at(finishes, d)[static_cast<std::size_t>(a.first - 1)] > p.copyBegin) {
                a.first -= 1; // written while that step runs
            }
            if (p.kind == ArenaTensorKind::GraphInput) {
                a.first = 0;
            }
            a.last = std::max(a.last, a.first);
            if (a.first >= std::max(steps, 1)) {
                continue; // a relay copy after the device's last run: never held at a step
            }
            PlannedTensor t;
            t.tensor = at(buf.tensor, b);
            t.node = p.kind == ArenaTensorKind::Activation ? at(buf.producer, b) : kNone;
            t.kind = p.kind;
            t.bytes = bytes;
            t.first = a.first;
            t.last = a.last;
            bufferTensorIndex[bi] = static_cast<std::int32_t>(dev.tensors.size());
            dev.tensors.push_back(t);
            planned.push_back(a);
            dev.naiveBytes += bytes;
        }
        // Workspace: a block during its node's step.
        for (std::int32_t k = 0; k < steps; ++k) {
            const NodeId n = at(dev.steps, k);
            const std::int32_t v = // its precision
                plan.variant.empty() ? 0 : plan.variant[static_cast<std::size_t>(n)];
            const std::int64_t ws = costs.cell(n, d, v).workspaceBytes;
            if (ws > 0) {
                counted.push_back({ws, k, k});
                planned.push_back({ws, k, k});
                PlannedTensor t;
                t.node = n;
                t.kind = ArenaTensorKind::Workspace;
                t.bytes = ws;
                t.first = k;
                t.last = k;
                dev.tensors.push_back(t);
                dev.workspaceBytes = std::max(dev.workspaceBytes, ws);
            }
        }
        dev.naiveBytes += dev.workspaceBytes;
        dev.livePeakBytes = mostLiveBytes(counted);
        if (d == host) {
            dev.livePeakBytes = std::max(dev.livePeakBytes, graphInputBytes);
        }
        // Weights: the statics the device's nodes read, each once; a node in a lower precision
        // holds the statics only it reads narrower, as the simulator counts them.
        std::vector<std::uint8_t> resident(buf.staticBytes.size(), 0);
        for (const NodeId n : dev.steps) {
            const std::int32_t v =
                plan.variant.empty() ? 0 : plan.variant[static_cast<std::size_t>(n)];
            const Precision precision = costs.variant(v).precision;
            for (const std::int32_t s : at(buf.statics, n)) {
                if (at(resident, s) == 0) {
                    at(resident, s) = 1;
                    dev.weightsBytes += precision == Precision::Fp32 || at(staticReaders, s) != 1
                                            ? at(buf.staticBytes, s)
                                            : narrowedStaticBytes(g, n, s, precision, buf);
                }
            }
        }

        // In place: an element-wise node's output into the block of an input whose last use it
        // is. Blocks are then groups of tensors sharing one place.
        std::vector<std::int32_t> group(dev.tensors.size());
        for (std::size_t i = 0; i < group.size(); ++i) {
            group[i] = static_cast<std::int32_t>(i);
        }
        std::vector<std::uint8_t> overwritten(dev.tensors.size(), 0);
        for (std::int32_t k = 0; k < steps; ++k) {
            const NodeId n = at(dev.steps, k);
            const auto& outs = at(buf.outputs, n);
            if (!elementwise(at(g.nodes, n).opType) || outs.size() != 1 ||
                at(bufferTensorIndex, outs[0]) < 0) {
                continue;
            }
            const std::int32_t o = at(bufferTensorIndex, outs[0]);
            for (const std::int32_t b : at(buf.inputs, n)) {
                const std::int32_t i = at(bufferTensorIndex, b);
                if (i < 0 || at(overwritten, i) != 0 || at(buf.isOutput, b) != 0) {
                    continue;
                }
                const PlannedTensor& in = at(dev.tensors, i);
                const PlannedTensor& out = at(dev.tensors, o);
                if (in.kind == ArenaTensorKind::GraphInput || in.last != k ||
                    in.bytes != out.bytes ||
                    at(g.tensors, in.tensor).dtype != at(g.tensors, out.tensor).dtype) {
                    continue;
                }
                at(overwritten, i) = 1;
                at(dev.tensors, o).inPlaceOf = i;
                at(group, o) = at(group, i); // the input's group root (its own, or earlier)
                ++dev.inPlaceCount;
                break;
            }
        }
        std::vector<ArenaBlock> blocks(dev.tensors.size());
        for (std::size_t i = 0; i < blocks.size(); ++i) {
            const auto r = static_cast<std::size_t>(group[i]);
            if (r == i) {
                blocks[i] = {dev.tensors[i].bytes, dev.tensors[i].first, dev.tensors[i].last};
            } else { // a root precedes its members: extend the root's block
                blocks[r].last = std::max(blocks[r].last, dev.tensors[i].last);
                blocks[i] = {0, dev.tensors[i].first, dev.tensors[i].last};
            }
        }
        const ArenaLayout layout = planArena(blocks);
        for (std::size_t i = 0; i < blocks.size(); ++i) {
            dev.tensors[i].offset = layout.offsets[static_cast<std::size_t>(group[i])];
        }
        dev.arenaBytes = layout.arenaBytes;
    }
    return mp;
}

MemoryPlan memoryPlanOf(const Simulator& sim, std::span<const std::uint8_t> genome,
                        std::span<const std::uint8_t> notMaterialised) {
    Simulator again(sim.graph(), sim.costs());
    again.setPriority(sim.priority());
    const Plan plan = sim.planOf(genome);
    const SimulationResult result = again.simulate(plan, true);
    return buildMemoryPlan(sim.graph(), sim.costs(), plan, result, notMaterialised);
}

} // namespace paretune
