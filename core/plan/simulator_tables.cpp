// SPDX-License-Identifier: GPL-3.0-or-later
// Simulator's construction: the flat tables built once from the graph and the cost table and
// the steps laid out in the priority order (simulator_genome.cpp: plans and genomes).
#include "simulator.h"

#include "common/input_error.h"
#include "graph/precision_bytes.h"
#include "step_starts.h"

#include <algorithm>
#include <limits>
#include <string>

namespace paretune {

using detail::kStartPad;

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
    if (costs.columnCount() > 256) {
        throw InputError("the simulator handles up to 256 columns (devices × variants), the "
                         "cost table has " +
                         std::to_string(costs.columnCount()));
    }
    m_columnCount = costs.columnCount();
    const auto D = static_cast<std::size_t>(m_deviceCount);
    const auto K = static_cast<std::size_t>(m_columnCount);
    m_columnDeviceOf.assign(256, 0);
    for (std::int32_t c = 0; c < m_columnCount; ++c) {
        at(m_columnDeviceOf, c) = static_cast<std::uint8_t>(c % m_deviceCount);
    }
    m_computeIndex.assign(graph.nodes.size(), -1);
    for (std::size_t n = 0; n < graph.nodes.size(); ++n) {
        if (graph.nodes[n].kind == NodeKind::Compute) {
            m_computeIndex[n] = static_cast<std::int32_t>(m_computeNodes.size());
            m_computeNodes.push_back(static_cast<NodeId>(n));
        }
    }
    const std::size_t C = m_computeNodes.size();
    m_latency.resize(C * K);
    m_energyUj.resize(C * K);
    m_workspace.resize(C * K);
    m_supported.resize(C * K);
    m_deviation.assign(m_columnCount > m_deviceCount ? C * K : 0, 0.0);
    for (std::size_t ci = 0; ci < C; ++ci) {
        for (std::int32_t col = 0; col < m_columnCount; ++col) {
            const CostCell& c =
                costs.cell(m_computeNodes[ci], col % m_deviceCount, col / m_deviceCount);
            const std::size_t k = ci * K + static_cast<std::size_t>(col);
            m_latency[k] = c.latencyUs;
            m_energyUj[k] = c.energyUj;
            m_workspace[k] = static_cast<double>(c.workspaceBytes);
            m_supported[k] = c.supported() ? 1 : 0;
            if (!m_deviation.empty()) {
                // fp32 is the reference: its cells deviate by nothing, whatever they hold.
                m_deviation[k] = col < m_deviceCount ? 0.0 : c.deviationPct;
            }
        }
    }
    for (std::int32_t d = 0; d < m_deviceCount; ++d) {
        m_idleW.push_back(costs.device(d).idleW);
        m_memory.push_back(costs.device(d).memoryBytes);
    }
    m_exclusiveWith.assign(D, 0u);
    m_contendedBy.assign(D, 0u);
    m_contention.assign(D * D, 1.0);
    m_turnUs.assign(D, 0.0);
    m_receiveFactor.assign(D, 1.0);
    for (std::int32_t d = 0; d < m_deviceCount; ++d) {
        // A turn is only taken over from a device that shares a core.
        at(m_turnUs, d) = costs.turnCost(d);
        at(m_receiveFactor, d) = costs.receiveFactor(d);
        m_sharedResources = m_sharedResources || at(m_receiveFactor, d) != 1.0;
        for (std::int32_t e = 0; e < m_deviceCount; ++e) {
            if (costs.exclusive(d, e)) {
                at(m_exclusiveWith, d) |= 1u << e;
            }
            if (d != e && costs.contention(d, e) > 1.0) {
                at(m_contendedBy, d) |= 1u << e;
                m_contention[static_cast<std::size_t>(d) * D + static_cast<std::size_t>(e)] =
                    costs.contention(d, e);
            }
            m_sharedResources =
                m_sharedResources || at(m_exclusiveWith, d) != 0 || at(m_contendedBy, d) != 0;
        }
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
        // Per column: a node in a lower precision holds its own weights narrower (bf16 in 2
        // bytes, int8 in 1); shared statics stay in fp32.
        m_exclusiveWeight.assign(C * K, 0.0);
        std::vector<std::uint8_t> seen(m_staticBytes.size(), 0);
        for (std::size_t ci = 0; ci < C; ++ci) {
            double fp32 = 0.0;
            for (const std::int32_t st : statics[ci]) {
                fp32 += readers[static_cast<std::size_t>(st)] == 1 ? at(m_staticBytes, st) : 0.0;
            }
            const NodeId node = m_computeNodes[ci];
            const auto direct = graph.nodeInputs.row(node);
            for (std::size_t c = 0; c < K; ++c) {
                const Precision precision =
                    costs.variant(static_cast<std::int32_t>(c / D)).precision;
                double& weight = m_exclusiveWeight[ci * K + c];
                if (precision == Precision::Fp32) {
                    weight = fp32;
                    continue;
                }
                // Each exclusive static once, at the size of the input that reads it first.
                weight = fp32;
                for (std::size_t i = 0; i < direct.size(); ++i) {
                    const std::int32_t st = direct[i] == kNone ? -1 : at(m_tensorStatic, direct[i]);
                    if (st < 0 || readers[static_cast<std::size_t>(st)] != 1 ||
                        seen[static_cast<std::size_t>(st)] != 0) {
                        continue;
                    }
                    seen[static_cast<std::size_t>(st)] = 1;
                    weight += loweredWeightBytes(graph, node, i, precision, at(m_staticBytes, st)) -
                              at(m_staticBytes, st);
                }
                for (std::size_t i = 0; i < direct.size(); ++i) {
                    const std::int32_t st = direct[i] == kNone ? -1 : at(m_tensorStatic, direct[i]);
                    if (st >= 0) {
                        seen[static_cast<std::size_t>(st)] = 0;
                    }
                }
            }
            std::erase_if(statics[ci], [&](std::int32_t st) {
                return readers[static_cast<std::size_t>(st)] == 1;
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
    buildChainTables();
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
    buildFusionTables();
}

void Simulator::buildFusionTables() {
    const auto D = static_cast<std::size_t>(m_deviceCount);
    const std::size_t C = m_computeNodes.size();
    const auto& options = m_costs.fusionOptions();
    m_groupOf.assign(C, -1);
    m_bufferGroup.assign(m_bufferBytes.size(), -1);
    m_fusedCells.assign(C * D, StepCell{0.0, 0.0, 0, 0});
    m_groupTakable.assign(options.size() * D, 0);
    m_groupMembers = {};
    m_groupInternal = {};
    m_liveBytes = m_bufferSize;
    for (std::size_t g = 0; g < options.size(); ++g) {
        const FusionOption& option = options[g];
        std::vector<std::int32_t> members;
        for (const NodeId n : option.group.members) {
            const std::int32_t ci = at(m_computeIndex, n);
            if (ci < 0 || at(m_groupOf, ci) >= 0) {
                throw InputError("fusion group '" + option.group.pattern + "': node '" +
                                 at(m_graph.nodes, n).name +
                                 "' is not a compute node or in two groups");
            }
            at(m_groupOf, ci) = static_cast<std::int32_t>(g);
            members.push_back(ci);
        }
        std::vector<std::int32_t> internal;
        for (std::size_t k = 0; k + 1 < members.size(); ++k) {
            for (const std::int32_t b : m_produced.row(members[k])) {
                at(m_bufferGroup, b) = static_cast<std::int32_t>(g);
                internal.push_back(b);
            }
        }
        for (std::size_t d = 0; d < D; ++d) {
            const CostCell& cell = option.cells[d];
            m_groupTakable[g * D + d] =
                m_costs.fusionTakable(g, static_cast<std::int32_t>(d)) ? 1 : 0;
            m_fusedCells[static_cast<std::size_t>(members.back()) * D + d] = {
                cell.latencyUs, cell.energyUj, cell.workspaceBytes, 0};
        }
        m_groupMembers.appendRow(members);
        m_groupInternal.appendRow(internal);
    }
    m_groupTaken.assign(options.size(), 0);
    m_hasGroups = !options.empty();
    m_hasWorkspace =
        m_hasWorkspace || std::any_of(m_fusedCells.begin(), m_fusedCells.end(),
                                      [](const StepCell& c) { return c.workspaceBytes != 0; });
    buildSteps();
}

bool Simulator::takes(std::int32_t g, const std::uint8_t* genome) const {
    const auto members = m_groupMembers.row(g);
    const std::uint8_t d = genome[members[0]]; // a column: taken in fp32 only (c < D)
    if (d >= m_deviceCount ||
        m_groupTakable[static_cast<std::size_t>(g) * static_cast<std::size_t>(m_deviceCount) + d] ==
            0) {
        return false;
    }
    for (const std::int32_t ci : members) {
        if (genome[ci] != d) {
            return false;
        }
    }
    return true;
}

const std::int64_t* Simulator::markTakenGroups(const std::uint8_t* genome) {
    if (!m_hasGroups && m_narrowings.empty()) {
        return m_bufferSize.data();
    }
    const auto groups = static_cast<std::int32_t>(m_groupTaken.size());
    for (std::int32_t g = 0; g < groups; ++g) {
        const bool taken = takes(g, genome);
        m_groupTaken[static_cast<std::size_t>(g)] = taken ? 1 : 0;
        for (const std::int32_t b : m_groupInternal.row(g)) {
            m_liveBytes[static_cast<std::size_t>(b)] =
                taken ? 0 : m_bufferSize[static_cast<std::size_t>(b)];
        }
    }
    // A chain's outputs in full (never inside a taken group: groups are fp32); run() narrows
    // them at their producer's step where the plan keeps them narrow.
    for (const std::int32_t b : m_narrowBuffers) {
        if (m_bufferGroup[static_cast<std::size_t>(b)] < 0) {
            m_liveBytes[static_cast<std::size_t>(b)] = m_bufferSize[static_cast<std::size_t>(b)];
        }
    }
    return m_liveBytes.data();
}

std::vector<std::int32_t> Simulator::takenGroups(std::span<const std::uint8_t> genome) const {
    if (genome.size() != m_computeNodes.size()) {
        throw InputError("genome has " + std::to_string(genome.size()) +
                         " genes, expected one per compute node (" +
                         std::to_string(m_computeNodes.size()) + ")");
    }
    std::vector<std::int32_t> taken;
    for (std::int32_t g = 0; g < static_cast<std::int32_t>(m_groupTaken.size()); ++g) {
        if (takes(g, genome.data())) {
            taken.push_back(g);
        }
    }
    return taken;
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
    const auto K = static_cast<std::size_t>(m_columnCount);
    m_steps.resize(C);
    m_stepCells.resize(C * K);
    m_stepWeight.resize(C * K);
    m_stepFusedCells.resize(m_hasGroups ? C * D : 0);
    m_stepInputs.clear();
    m_stepOutputs.clear();
    m_stepOf.resize(C);
    for (std::size_t i = 0; i < C; ++i) {
        const std::int32_t ci = m_priority[i];
        Step& s = m_steps[i];
        s.ci = ci;
        m_stepOf[static_cast<std::size_t>(ci)] = static_cast<std::int32_t>(i);
        s.linkBegin = at(m_nodeLinkBegin, ci);
        s.linkEnd = at(m_nodeLinkBegin, ci + 1);
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
        s.group = m_hasGroups ? at(m_groupOf, ci) : -1;
        for (std::size_t c = 0; c < K; ++c) {
            const std::size_t k = static_cast<std::size_t>(ci) * K + c;
            m_stepCells[i * K + c] = {m_latency[k], m_energyUj[k],
                                      static_cast<std::int64_t>(m_workspace[k]),
                                      m_supported[k] == 0 ? 1 : 0};
            m_stepWeight[i * K + c] = m_exclusiveWeight[k];
        }
        for (std::size_t d = 0; d < D && m_hasGroups; ++d) {
            m_stepFusedCells[i * D + d] = m_fusedCells[static_cast<std::size_t>(ci) * D + d];
        }
    }
}

} // namespace paretune
