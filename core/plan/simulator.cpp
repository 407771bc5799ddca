// SPDX-License-Identifier: GPL-3.0-or-later
// Simulator's schedule: run(), the one scheduling core, the objectives of a finished schedule,
// and the two ways in, evaluate() and simulate().
#include "simulator.h"

#include "common/input_error.h"
#include "step_starts.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <string>

namespace paretune {

using detail::firstStartingAtOrAfter;
using detail::firstStartingAtOrAfterBack;
using detail::kStartPad;

namespace {

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

/// How long a node of `latency` µs takes when it starts at `start` on a device slowed by the
/// devices of `contendedBy` (bit e: by factors[e] > 1) whose scheduled work ends at
/// deviceFree[e]: at 1 / f while one of them runs, the longest of the stretches. Evaluated as
/// SimulatorLanes::run (simulator_batch.cpp) does it, operation for operation: L · f is only
/// compared and selected, never added to, so that no multiply-add is contracted into an FMA.
double contendedLatency(double latency, double start, std::uint32_t contendedBy,
                        const double* factors, const double* deviceFree) {
    double longest = latency;
    for (; contendedBy != 0; contendedBy &= contendedBy - 1) {
        const int e = std::countr_zero(contendedBy);
        const double f = factors[e];
        const double overlap = deviceFree[e] - start;
        if (overlap > 0.0) {
            const double slowed = latency * f;
            // All of it within the overlap, or the overlap at 1 / f and the rest at full speed.
            const double stretched = slowed <= overlap ? slowed : overlap + (latency - overlap / f);
            longest = std::max(longest, stretched);
        }
    }
    return longest;
}

} // namespace

template <class Recorder, int FixedDevices, bool Shared>
Objectives Simulator::run(const std::uint8_t* genome, Recorder& recorder) {
    // A device count known at compile time turns the b · D + d indexing into shifts and adds.
    const std::int32_t D = FixedDevices > 0 ? FixedDevices : m_deviceCount;
    const auto C = static_cast<std::int32_t>(m_computeNodes.size());
    const std::size_t stride = static_cast<std::size_t>(D);
    const auto columns = static_cast<std::size_t>(m_columnCount); // stride of the step cells
    const std::uint8_t* const columnDevice = m_columnDeviceOf.data();
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
    const double* const stepWeight = m_stepWeight.data();
    const std::int32_t* const stepInputs = m_stepInputs.data();
    const std::int32_t* const stepOutputs = m_stepOutputs.data();
    // Bytes per buffer: 0 for those between the members of a fusion group the plan takes.
    const std::int64_t* const bufferBytes = markTakenGroups(genome);
    const StepCell* const fusedCells = m_stepFusedCells.data();
    const std::uint8_t* const groupTaken = m_groupTaken.data();
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
    const std::uint32_t* const exclusiveWith = m_exclusiveWith.data();
    const std::uint32_t* const contendedBy = m_contendedBy.data();
    const double* const contention = m_contention.data();
    const double* const turnUs = m_turnUs.data();
    const double* const receiveFactor = m_receiveFactor.data();
    const bool hasChains = m_hasChains;
    const std::uint8_t* const columnVariant = m_columnVariantOf.data();
    const ChainLink* const chainLinks = m_chainLinks.data();
    const std::int32_t* const chainPartners = m_chainPartners.data();
    const ChainSave* const chainSave = m_chainSave.data();
    const std::int32_t* const linkNarrowing = m_linkNarrowing.data();
    const Narrowing* const narrowings = m_narrowings.data();
    std::int64_t* const liveBytes = m_liveBytes.data(); // bufferBytes, where chains narrow
    const std::uint8_t* const bufferNarrowable = m_bufferNarrowable.data();

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
        const std::uint8_t column = genome[step.ci];
        const std::int32_t d = columnDevice[column];
        const bool fused = step.group >= 0 && groupTaken[step.group] != 0;
        // A taken group is in fp32, where the column is the device.
        const StepCell& cell =
            fused ? fusedCells[static_cast<std::size_t>(i) * stride + static_cast<std::size_t>(d)]
                  : stepCells[static_cast<std::size_t>(i) * columns + column];
        unsupported += cell.unsupported;
        const std::int32_t k = stepCount[d];
        std::int64_t* const diff = diffs + static_cast<std::size_t>(d) * diffRow;
        double ready = deviceFree[d];
        bool turn = false;      // the shared cores were another device's last
        if constexpr (Shared) { // and every device it takes turns with
            for (std::uint32_t e = exclusiveWith[d]; e != 0; e &= e - 1) {
                ready = std::max(ready, deviceFree[std::countr_zero(e)]);
            }
            turn = ready > deviceFree[d];
        }
        [[maybe_unused]] bool received = false; // an input copied to d for it, its first reader
        std::int64_t released = 0;              // bytes held here up to this step only, so far
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
                received = true;
                t = of[src].arrival;
                const double* const transferOfB =
                    transferUs + static_cast<std::size_t>(b) * hopCount;
                // A buffer a chain may keep narrow moves its live bytes.
                const bool narrowable = bufferNarrowable[b] != 0;
                for (; hop != last; ++hop) {
                    const std::int32_t to = hop->to;
                    if ((where[b] & (1u << to)) != 0) {
                        t = of[to].arrival;
                        continue;
                    }
                    where[b] |= 1u << to;
                    double& queue = queueFree[hop->queue];
                    const double begin = std::max(t, queue);
                    const double moved = narrowable
                                             ? static_cast<double>(bufferBytes[b]) / hop->bytesPerUs
                                             : transferOfB[hop - hops];
                    const double end = begin + hop->latencyUs + moved;
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
        weights[d] += stepWeight[static_cast<std::size_t>(i) * columns + column];
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
        double latency = cell.latencyUs;
        double energyHere = cell.energyUj;
        if (hasChains) { // conversions its neighbours in its variant make unneeded
            const std::uint8_t v = columnVariant[column];
            for (std::int32_t l = step.linkBegin; l != step.linkEnd; ++l) {
                bool joined = true;
                for (std::int32_t p = chainLinks[l].partnerBegin; p != chainLinks[l].partnerEnd;
                     ++p) {
                    joined = joined && columnVariant[genome[chainPartners[p]]] == v;
                }
                if (joined) {
                    const ChainSave& save =
                        chainSave[static_cast<std::size_t>(l) * columns + column];
                    latency -= save.latencyUs;
                    energyHere -= save.energyUj;
                }
                // Its output kept narrow, every reader in its variant.
                if (const std::int32_t w = linkNarrowing[l];
                    w >= 0 && joined && narrowings[w].variant == v) {
                    liveBytes[narrowings[w].buffer] = narrowings[w].bytes;
                }
            }
        }
        if constexpr (Shared) {
            if (received && !turn) {
                latency *= receiveFactor[d];
            }
            latency += turn ? turnUs[d] : 0.0;
            latency =
                contendedLatency(latency, ready, contendedBy[d],
                                 contention + static_cast<std::size_t>(d) * stride, deviceFree);
        }
        const double finish = ready + latency;
        stepCount[d] = k + 1;
        stepStart[static_cast<std::size_t>(d) * startRow + static_cast<std::size_t>(k)] = ready;
        if (hasWorkspace) {
            m_stepWorkspace[static_cast<std::size_t>(d) * static_cast<std::size_t>(C) +
                            static_cast<std::size_t>(k)] = cell.workspaceBytes;
        }
        deviceFree[d] = finish;
        busy[d] += latency;
        energyUj += energyHere;
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
        {mostLive, weights, busy, stepCount, genome, makespan, energyUj, unsupported, unreachable},
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
    const double deviation = deviationOf(totals.genome);
    if (deviation > m_deviationLimit) { // the search's accuracy constraint
        violation +=
            m_deviationLimit > 0.0 ? (deviation - m_deviationLimit) / m_deviationLimit : deviation;
    }
    Objectives o;
    o.deviationPct = deviation;
    o.latencyUs = makespan;
    o.energyMj = energyUj * 1e-3;
    o.averagePowerW = makespan > 0.0 ? energyUj / makespan : 0.0;
    o.peakMemoryBytes = peakAll;
    o.violation = violation;
    return o;
}

template <bool Shared> Objectives Simulator::evaluateWith(const std::uint8_t* genome) {
    NoRecording none;
    switch (m_deviceCount) {
    case 2:
        return run<NoRecording, 2, Shared>(genome, none);
    case 3:
        return run<NoRecording, 3, Shared>(genome, none);
    case 4:
        return run<NoRecording, 4, Shared>(genome, none);
    default:
        return run<NoRecording, 0, Shared>(genome, none);
    }
}

Objectives Simulator::evaluate(std::span<const std::uint8_t> genome) {
    // Decided once per plan, not per node: without shared resources or receive factors the
    // schedule is the one it was before they existed, instruction for instruction.
    return m_sharedResources ? evaluateWith<true>(genome.data())
                             : evaluateWith<false>(genome.data());
}

void Simulator::showGroupsAsOne(SimulationResult& result) const {
    std::vector<std::uint8_t> hidden(m_graph.nodes.size(), 0);
    for (const std::int32_t g : result.fusedGroups) {
        const auto members = m_groupMembers.row(g);
        const auto tail =
            static_cast<std::size_t>(m_computeNodes[static_cast<std::size_t>(members.back())]);
        for (const std::int32_t ci : members) {
            const auto n = static_cast<std::size_t>(m_computeNodes[static_cast<std::size_t>(ci)]);
            result.startUs[n] = result.startUs[tail];
            result.finishUs[n] = result.finishUs[tail];
            hidden[n] = n != tail ? 1 : 0;
        }
    }
    std::erase_if(result.timeline, [&](const TimelineSegment& segment) {
        return segment.lane == TimelineSegment::Lane::Device &&
               hidden[static_cast<std::size_t>(segment.node)] != 0;
    });
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
        if (computeIndex(n) >= 0) {
            order.push_back(computeIndex(n));
        }
    }
    const std::vector<std::int32_t> saved = m_priority;
    setPriority(order); // validates
    SimulationResult result;
    result.startUs.assign(m_graph.nodes.size(), 0.0);
    result.finishUs.assign(m_graph.nodes.size(), 0.0);
    Recording recording{result, m_computeNodes, m_bufferTensor, withTimeline, {}};
    // One instantiation for every table: without shared resources it schedules as the other.
    result.objectives = run<Recording, 0, true>(genome.data(), recording);
    result.peakBytes = m_peak;
    result.busyUs = m_busy;
    result.fusedGroups = takenGroups(genome);
    for (const std::int32_t b : m_narrowBuffers) { // as run() left them
        const auto at = static_cast<std::size_t>(b);
        // A taken group's buffers are 0 bytes, not narrow (its members are fp32); one between
        // the members of a group not taken is narrowed like any other.
        const std::int32_t group = m_bufferGroup[at];
        if (m_liveBytes[at] < m_bufferSize[at] &&
            (group < 0 || m_groupTaken[static_cast<std::size_t>(group)] == 0)) {
            result.narrowed.emplace_back(m_bufferTensor[at], m_liveBytes[at]);
        }
    }
    result.variant.assign(m_graph.nodes.size(), 0);
    for (std::size_t ci = 0; ci < m_computeNodes.size(); ++ci) {
        result.variant[static_cast<std::size_t>(m_computeNodes[ci])] = columnVariant(genome[ci]);
    }
    showGroupsAsOne(result);
    m_priority = saved;
    buildSteps();
    return result;
}

} // namespace paretune
