// SPDX-License-Identifier: GPL-3.0-or-later
// Simulator::evaluateBatch: run()'s schedule for eight plans at once, one per AVX-512 lane.
//
// The graph, the priority order and so the loops over steps, inputs and outputs are the same
// for every plan; only the devices differ. What is a branch in run() (is the input already on
// this device? how many hops to bring it? how far back does the step search go?) becomes a lane
// mask here, and the chain of dependent times is shared by eight plans. Every lane performs the
// same floating-point operations in the same order as run() does for its plan (additions and
// maxima, and the contention stretch's product, quotient and differences, none of them fused;
// the objectives are formed by the shared scalar objectivesOf()), so the results are
// bit-identical: tst_simulator checks it on random plans of real models, with and without
// shared resources.
#include "simulator.h"
#include "simulator_lanes.h"

#include <algorithm>
#include <array>
#include <limits>

namespace paretune {

using namespace lanes;

// The vector core: everything from here on is compiled for AVX-512 and only called where the CPU
// has it (lanesApply()).
#include "avx512_begin.h" // IWYU pragma: keep

/// evaluateBatch's vector core, a friend of Simulator defined here so that it is compiled for
/// AVX-512 (a member function template would keep the target of its declaration).
class SimulatorLanes {
public:
    template <int D, bool Shared>
    static void run(Simulator& sim, const std::uint8_t* const* genomes, Objectives* out,
                    std::size_t count);
};

template <int D, bool Shared>
void SimulatorLanes::run(Simulator& sim, const std::uint8_t* const* genomes, Objectives* out,
                         std::size_t count) {
    Simulator::Lanes& l = sim.m_lanes;
    const auto C = static_cast<std::int64_t>(sim.m_steps.size());
    const std::int64_t diffRow = C + 1;
    const std::int64_t startRow = C + 2 * kPad;
    const __m512i lane = laneIndex();
    const __m512i one = splat(std::int64_t{1});
    const __m512i zero = _mm512_setzero_si512();
    const __m512d zeroTime = _mm512_setzero_pd();
    const __m512d noTransfer = splat(-1.0);
    const __m512d unit = splat(1.0);
    // Cells per step: a column per device and variant (looked up by columnCell()).
    const std::int64_t K = sim.m_columnCount;
    const bool variants = K > D;

    // The genomes in step order, eight bytes (one per lane) per step.
    std::uint8_t* const genomeOfStep = l.genomes.data();
    for (std::int64_t i = 0; i < C; ++i) {
        const auto ci = static_cast<std::size_t>(sim.m_steps[static_cast<std::size_t>(i)].ci);
        for (std::int64_t g = 0; g < kLanes; ++g) {
            genomeOfStep[i * kLanes + g] = genomes[g][ci];
        }
    }

    // The lanes that take each fusion group.
    for (std::size_t g = 0; g < l.groupLanes.size(); ++g) {
        std::uint8_t taking = 0;
        for (std::int64_t plan = 0; plan < kLanes; ++plan) {
            taking |= sim.takes(static_cast<std::int32_t>(g), genomes[plan]) ? 1u << plan : 0u;
        }
        l.groupLanes[g] = taking;
    }
    const std::int32_t* const bufferGroup = sim.m_bufferGroup.data();

    // Each lane's bytes of the buffers a chain may keep narrow (the others: one size for all):
    // in full here, narrowed at their producer's step.
    const bool narrowing = !sim.m_narrowings.empty();
    std::int64_t* const laneBytes = l.bufferBytes.data();
    if (narrowing) {
        for (const std::int32_t b : sim.m_narrowBuffers) {
            std::fill_n(laneBytes + std::int64_t{b} * kLanes, kLanes,
                        sim.m_bufferSize[static_cast<std::size_t>(b)]);
        }
    }
    const std::int64_t* const sizes = sim.m_bufferSize.data();
    const auto bytesOf = [&](std::int64_t b) -> __m512i {
        return narrowing ? _mm512_loadu_si512(laneBytes + b * kLanes) : splat(sizes[b]);
    };

    // Where row 0 of each device's tables is, per lane.
    std::int64_t diffBase[D], startBase[D], workspaceBase[D], relayOf[D];
    for (std::int64_t dd = 0; dd < D; ++dd) {
        diffBase[dd] = dd * diffRow * kLanes;
        startBase[dd] = (dd * startRow + kPad) * kLanes;
        workspaceBase[dd] = dd * C * kLanes;
        relayOf[dd] = sim.m_relay[static_cast<std::size_t>(dd)];
    }

    __m512d deviceFree[D], busy[D], weights[D];
    __m512d lastStart[D], previousStart[D]; // of the last two runs there
    __m512i stepCount[D];
    // Entry stepCount of each device's memory differences, stored when its run is scheduled:
    // most additions land there, and they need no load then.
    __m512i nextDiff[D];
    for (int dd = 0; dd < D; ++dd) {
        deviceFree[dd] = zeroTime;
        lastStart[dd] = splat(-std::numeric_limits<double>::infinity());
        previousStart[dd] = lastStart[dd];
        busy[dd] = zeroTime;
        weights[dd] = zeroTime;
        stepCount[dd] = zero;
        nextDiff[dd] = zero;
    }
    std::fill_n(l.queueFree.begin(), sim.m_queueFree.size() * kLanes, 0.0);
    std::fill_n(l.staticMask.begin(), sim.m_staticMask.size() * kLanes, 0);

    double* const stepStart = l.stepStart.data();
    std::int64_t* const diffs = l.diff.data();
    // Per buffer b: arrival and outEnd (per device) at times + b · timesRow, held (per device),
    // where and home at marks + b · marksRow: what is used together lies together.
    constexpr std::int64_t timesRow = 2 * D * kLanes;
    constexpr std::int64_t marksRow = (D + 2) * kLanes;
    double* const arrival = l.times.data();
    double* const outEnd = arrival + D * kLanes;
    std::int64_t* const held = l.marks.data();
    std::int64_t* const where = held + D * kLanes;
    std::int64_t* const home = where + kLanes;
    double* const queueFree = l.queueFree.data();
    const std::int64_t* const bufferBytes = sim.m_bufferSize.data();
    const double* const transferUs = l.transferUs.data();
    const std::int32_t* const stepInputs = sim.m_stepInputs.data();
    const std::int32_t* const stepOutputs = sim.m_stepOutputs.data();
    const std::int32_t* const staticIds = sim.m_statics.values.data();
    const bool hasWorkspace = sim.m_hasWorkspace;

    // Graph inputs: on the host from time 0.
    for (const std::int32_t b : sim.m_graphInputBuffers) {
        const std::int64_t hostRow = sim.m_host * kLanes;
        _mm512_storeu_pd(arrival + b * timesRow + hostRow, zeroTime);
        _mm512_storeu_pd(outEnd + b * timesRow + hostRow, noTransfer);
        _mm512_storeu_si512(held + b * marksRow + hostRow, splat(std::int64_t{-1}));
        _mm512_storeu_si512(where + b * marksRow, splat(std::int64_t{1} << sim.m_host));
    }

    __m512d energyUj = zeroTime;
    __m512d makespan = zeroTime;
    __m512i unsupported = zero;
    __m512i unreachable = zero;
    std::size_t sentRows = 0;
    std::size_t relayedRows = 0;
    for (std::int64_t i = 0; i < C; ++i) {
        const Simulator::Step& step = sim.m_steps[static_cast<std::size_t>(i)];
        // Each lane's column (device and variant) and its device.
        const __m512i column = _mm512_cvtepu8_epi64(
            _mm_loadl_epi64(reinterpret_cast<const __m128i*>(genomeOfStep + i * kLanes)));
        const __m512i d = variants ? columnCell(l.columnDevice.data(), K, column) : column;
        const DeviceMasks<D> on = masksOf<D>(d);
        const __m512i bitD = _mm512_sllv_epi64(one, d);
        // Lanes that take the step's fusion group use its fused cells.
        const __mmask8 fused =
            step.group >= 0 ? l.groupLanes[static_cast<std::size_t>(step.group)] : __mmask8{0};
        __m512d latency = columnCell(l.latencyUs.data() + i * K, K, column);
        __m512i unsupportedHere = columnCell(l.unsupported.data() + i * K, K, column);
        __m512d energyHere = columnCell(l.energyUj.data() + i * K, K, column);
        __m512i workspaceHere =
            hasWorkspace ? columnCell(l.workspaceBytes.data() + i * K, K, column) : zero;
        if (fused != 0) { // the lanes that take a group are in fp32: column = device
            latency =
                _mm512_mask_mov_pd(latency, fused, lookup8(l.fusedLatencyUs.data() + i * D, D, d));
            unsupportedHere = _mm512_mask_mov_epi64(
                unsupportedHere, fused, lookup8(l.fusedUnsupported.data() + i * D, D, d));
            energyHere = _mm512_mask_mov_pd(energyHere, fused,
                                            lookup8(l.fusedEnergyUj.data() + i * D, D, d));
            workspaceHere = _mm512_mask_mov_epi64(
                workspaceHere, fused, lookup8(l.fusedWorkspaceBytes.data() + i * D, D, d));
        }
        if (sim.m_hasChains) { // conversions its neighbours in its variant make unneeded
            const __m512i own = columnCell(l.columnVariant.data(), K, column);
            for (std::int32_t link = step.linkBegin; link != step.linkEnd; ++link) {
                const Simulator::ChainLink& c = sim.m_chainLinks[static_cast<std::size_t>(link)];
                __mmask8 joined = 0xFF;
                for (std::int32_t p = c.partnerBegin; p != c.partnerEnd; ++p) {
                    const std::int64_t at =
                        sim.m_stepOf[static_cast<std::size_t>(sim.m_chainPartners[p])];
                    const __m512i theirs = _mm512_cvtepu8_epi64(_mm_loadl_epi64(
                        reinterpret_cast<const __m128i*>(genomeOfStep + at * kLanes)));
                    joined &=
                        _mm512_cmpeq_epi64_mask(columnCell(l.columnVariant.data(), K, theirs), own);
                }
                latency =
                    _mm512_mask_sub_pd(latency, joined, latency,
                                       columnCell(l.chainSaveUs.data() + link * K, K, column));
                energyHere =
                    _mm512_mask_sub_pd(energyHere, joined, energyHere,
                                       columnCell(l.chainSaveUj.data() + link * K, K, column));
                // Its output kept narrow, every reader in its variant.
                if (const std::int32_t w = sim.m_linkNarrowing[static_cast<std::size_t>(link)];
                    w >= 0) {
                    const Simulator::Narrowing& n = sim.m_narrowings[static_cast<std::size_t>(w)];
                    const __mmask8 narrow =
                        joined & _mm512_cmpeq_epi64_mask(own, splat(std::int64_t{n.variant}));
                    _mm512_mask_storeu_epi64(laneBytes + std::int64_t{n.buffer} * kLanes, narrow,
                                             splat(n.bytes));
                }
            }
        }
        unsupported = _mm512_add_epi64(unsupported, unsupportedHere);
        const __m512i k = pick<D>(stepCount, on);
        const __m512i diffRowD = _mm512_add_epi64(lookup8(diffBase, D, d), lane);
        __m512d ready = pick<D>(deviceFree, on);
        __mmask8 turn = 0;      // the shared cores were another device's last
        if constexpr (Shared) { // and every device it takes turns with
            const __m512d own = ready;
            const __m512i turns = lookup8(l.exclusiveWith, D, d);
            for (int dd = 0; dd < D; ++dd) {
                const __mmask8 waits = _mm512_test_epi64_mask(turns, splat(std::int64_t{1} << dd));
                ready = _mm512_mask_max_pd(ready, waits, ready, deviceFree[dd]);
            }
            turn = _mm512_cmp_pd_mask(ready, own, _CMP_GT_OQ);
        }
        [[maybe_unused]] __mmask8 received = 0;  // lanes with an input copied to d, first reader
        __m512i released = zero;                 // bytes held here up to this step only, so far
        __m512i ownDiff = pick<D>(nextDiff, on); // entry k of d's differences
        for (std::int32_t in = step.inBegin; in != step.inEnd; ++in) {
            const std::int64_t b = stepInputs[in];
            double* const arrivalOf = arrival + b * timesRow;
            double* const outEndOf = outEnd + b * timesRow;
            std::int64_t* const heldOf = held + b * marksRow;
            __m512i whereB = _mm512_loadu_si512(where + b * marksRow);
            const __mmask8 absent = _mm512_testn_epi64_mask(whereB, bitD);
            __m512d t = pick<D>(arrivalOf, on);
            __m512i from = _mm512_add_epi64(pick<D>(heldOf, on), one); // first step not counted
            __mmask8 reached = 0xFF;
            if (absent != 0) {
                // Copied hop by hop along the path from where it was produced.
                const __m512i src = _mm512_loadu_si512(home + b * marksRow);
                const __m512i pair = _mm512_add_epi64(timesDevices<D>(src), d);
                const __m512i length = lookup16(l.pathLength, pair);
                const __m512i firstHop = lookup16(l.pathFirst, pair);
                const __mmask8 cut = _mm512_mask_cmpeq_epi64_mask(absent, length, zero);
                unreachable = _mm512_mask_add_epi64(unreachable, cut, unreachable, one);
                ready = _mm512_mask_max_pd(ready, cut, ready, zeroTime);
                reached = static_cast<__mmask8>(~cut);
                const __mmask8 moving = absent & reached;
                received |= moving;
                t = _mm512_mask_mov_pd(t, moving, pick<D>(arrivalOf, masksOf<D>(src)));
                const __m512d transferLo = _mm512_loadu_pd(transferUs + b * 16);
                const __m512d transferHi = _mm512_loadu_pd(transferUs + b * 16 + kLanes);
                // A buffer a chain may keep narrow moves each lane's live bytes (as run()).
                const bool narrowable = sim.m_bufferNarrowable[static_cast<std::size_t>(b)] != 0;
                __mmask8 copiedBefore = 0; // lanes that made a copy at the previous hop
                for (std::int32_t h = 0; h < l.maxHops; ++h) {
                    const __mmask8 hopping =
                        _mm512_mask_cmpgt_epi64_mask(moving, length, splat(std::int64_t{h}));
                    if (hopping == 0) {
                        break;
                    }
                    const __m512i hop = _mm512_add_epi64(firstHop, splat(std::int64_t{h}));
                    const __m512i to = lookup16(l.hopTo, hop);
                    const __m512i bitTo = _mm512_sllv_epi64(one, to);
                    const DeviceMasks<D> toOn = masksOf<D>(to);
                    const __mmask8 there = _mm512_mask_test_epi64_mask(hopping, whereB, bitTo);
                    t = _mm512_mask_mov_pd(t, there, pick<D>(arrivalOf, toOn));
                    const __mmask8 fresh = hopping & static_cast<__mmask8>(~there);
                    const __mmask8 passedOn = fresh & copiedBefore;
                    copiedBefore = fresh;
                    if (fresh == 0) {
                        continue;
                    }
                    whereB = _mm512_mask_or_epi64(whereB, fresh, whereB, bitTo);
                    const __m512i queue = lookup16(l.hopQueue, hop);
                    // The lanes' entries differ (lane-interleaved rows): one gather and one
                    // scatter.
                    const __m512i queueEntry = entry(lane, queue);
                    const __m512d queueAt = gather(queueFree, fresh, queueEntry);
                    const __m512d begin = _mm512_max_pd(t, queueAt);
                    const __m512d moved = narrowable
                                              ? _mm512_div_pd(exactDoubles(bytesOf(b)),
                                                              lookup16(l.hopBytesPerUs, hop))
                                              : _mm512_permutex2var_pd(transferLo, hop, transferHi);
                    const __m512d end =
                        _mm512_add_pd(_mm512_add_pd(begin, lookup16(l.hopLatencyUs, hop)), moved);
                    scatter(queueFree, fresh, queueEntry, end);
                    const __m512i hopFrom = lookup16(l.hopFrom, hop);
                    const DeviceMasks<D> fromOn = restricted(masksOf<D>(hopFrom), fresh);
                    const __m512d outEndBefore = pick<D>(outEndOf, fromOn);
                    put<D>(outEndOf, fromOn, _mm512_max_pd(outEndBefore, end));
                    // Listed: the first transfer out of the buffer where it was produced (run()
                    // settles a repeated entry to no change: same range, +bytes -bytes) or out of
                    // a copy made for a consumer there (run() settles those as relay copies, to
                    // the same: they are held from their consumer's run on). A copy passed on at
                    // once is listed below.
                    const __mmask8 sent =
                        _mm512_mask_cmp_pd_mask(fresh & static_cast<__mmask8>(~passedOn),
                                                outEndBefore, zeroTime, _CMP_LT_OQ);
                    if (sent != 0) {
                        _mm512_storeu_si512(l.sentDevice.data() + sentRows * kLanes, hopFrom);
                        l.sentBuffer[sentRows] = b;
                        l.sentLanes[sentRows++] = sent;
                    }
                    const DeviceMasks<D> toFresh = restricted(toOn, fresh);
                    put<D>(arrivalOf, toFresh, end);
                    put<D>(outEndOf, toFresh, noTransfer);
                    // Held there from the first run that starts once the copy began.
                    const __m512i toRow = _mm512_add_epi64(lookup8(startBase, D, to), lane);
                    const __m512i lo = firstStartingAtOrAfterBack(
                        stepStart, toRow, pick<D>(stepCount, toOn), pick<D>(lastStart, toOn),
                        pick<D>(previousStart, toOn), begin, fresh);
                    put<D>(heldOf, toFresh, _mm512_sub_epi64(lo, one));
                    from = _mm512_mask_mov_epi64(from, fresh, lo); // the last hop's, to d
                    // A copy on the way, passed on from a relay device: settled in full at the end.
                    const __mmask8 relayed = _mm512_mask_cmpneq_epi64_mask(
                        _mm512_mask_test_epi64_mask(fresh, lookup8(relayOf, D, to), one), to, d);
                    if (relayed != 0) {
                        const std::size_t row = relayedRows * kLanes;
                        l.relayedBuffer[relayedRows] = b;
                        _mm512_storeu_si512(l.relayedDevice.data() + row, to);
                        _mm512_storeu_si512(l.relayedLo.data() + row, lo);
                        _mm512_storeu_pd(l.relayedBegin.data() + row, begin);
                        l.relayedLanes[relayedRows++] = relayed;
                    }
                    t = _mm512_mask_mov_pd(t, fresh, end);
                }
                _mm512_storeu_si512(where + b * marksRow, whereB);
            }
            // Held here up to this step.
            __m512i bytes = bytesOf(b);
            if (fused != 0 && bufferGroup[b] == step.group) { // between members: not in memory
                bytes = _mm512_maskz_mov_epi64(static_cast<__mmask8>(~fused), bytes);
            }
            const __mmask8 atK = _mm512_mask_cmpeq_epi64_mask(reached, from, k);
            ownDiff = _mm512_mask_add_epi64(ownDiff, atK, ownDiff, bytes);
            if (const __mmask8 before = reached & static_cast<__mmask8>(~atK); before != 0) {
                scatterAdd(diffs, before, entry(diffRowD, from), bytes);
            }
            released = _mm512_mask_add_epi64(released, reached, released, bytes);
            put<D>(heldOf, restricted(on, reached), k);
            ready = _mm512_mask_max_pd(ready, reached, ready, t);
        }
        // Fused lanes are in fp32, where the column is the device: their own weights.
        const __m512d exclusiveWeight = columnCell(l.exclusiveWeight.data() + i * K, K, column);
        for (int dd = 0; dd < D; ++dd) {
            weights[dd] = _mm512_mask_add_pd(weights[dd], on.on[dd], weights[dd], exclusiveWeight);
        }
        for (std::int32_t s = step.staticBegin; s != step.staticEnd; ++s) {
            std::int64_t* const mask = l.staticMask.data() + std::int64_t{staticIds[s]} * kLanes;
            const __m512i had = _mm512_loadu_si512(mask);
            const __mmask8 added = _mm512_testn_epi64_mask(had, bitD);
            _mm512_storeu_si512(mask, _mm512_or_si512(had, bitD));
            const __m512d bytes = splat(sim.m_staticBytes[static_cast<std::size_t>(staticIds[s])]);
            for (int dd = 0; dd < D; ++dd) {
                weights[dd] =
                    _mm512_mask_add_pd(weights[dd], on.on[dd] & added, weights[dd], bytes);
            }
        }
        if constexpr (Shared) {
            latency = _mm512_mask_mul_pd(latency, received & static_cast<__mmask8>(~turn), latency,
                                         lookup8(l.receiveFactor, D, d));
            latency = _mm512_add_pd(latency, _mm512_maskz_mov_pd(turn, lookup8(l.turnUs, D, d)));
        }
        __m512d duration = latency;
        if constexpr (Shared) { // contendedLatency() of simulator.cpp, operation for operation
            for (int dd = 0; dd < D; ++dd) {
                const __m512d f = lookup8(l.slowedBy + dd * D, D, d);
                const __m512d overlap = _mm512_sub_pd(deviceFree[dd], ready);
                const __mmask8 slowed = _mm512_mask_cmp_pd_mask(
                    _mm512_cmp_pd_mask(f, unit, _CMP_GT_OQ), overlap, zeroTime, _CMP_GT_OQ);
                if (slowed != 0) {
                    const __m512d scaled = _mm512_mul_pd(latency, f);
                    const __mmask8 within =
                        _mm512_mask_cmp_pd_mask(slowed, scaled, overlap, _CMP_LE_OQ);
                    const __m512d partly =
                        _mm512_add_pd(overlap, _mm512_sub_pd(latency, _mm512_div_pd(overlap, f)));
                    duration = _mm512_mask_max_pd(duration, slowed, duration,
                                                  _mm512_mask_mov_pd(partly, within, scaled));
                }
            }
        }
        const __m512d finish = _mm512_add_pd(ready, duration);
        for (int dd = 0; dd < D; ++dd) {
            stepCount[dd] = _mm512_mask_add_epi64(stepCount[dd], on.on[dd], stepCount[dd], one);
            deviceFree[dd] = _mm512_mask_mov_pd(deviceFree[dd], on.on[dd], finish);
            previousStart[dd] = _mm512_mask_mov_pd(previousStart[dd], on.on[dd], lastStart[dd]);
            lastStart[dd] = _mm512_mask_mov_pd(lastStart[dd], on.on[dd], ready);
            busy[dd] = _mm512_mask_add_pd(busy[dd], on.on[dd], busy[dd], duration);
        }
        scatter(stepStart, 0xFF, entry(_mm512_add_epi64(lookup8(startBase, D, d), lane), k), ready);
        if (hasWorkspace) {
            scatter(l.stepWorkspace.data(), 0xFF,
                    entry(_mm512_add_epi64(lookup8(workspaceBase, D, d), lane), k), workspaceHere);
        }
        energyUj = _mm512_add_pd(energyUj, energyHere);
        makespan = _mm512_max_pd(makespan, finish);
        // Its outputs are on d from its finish, held from its own start.
        std::int64_t produced = 0;
        std::int64_t producedInside = 0; // by a member of a fusion group, for the next member
        __m512i producedLanes = zero;    // the same per lane, where chains narrow buffers
        __m512i producedInsideLanes = zero;
        for (std::int32_t o = step.outBegin; o != step.outEnd; ++o) {
            const std::int64_t b = stepOutputs[o];
            put<D>(arrival + b * timesRow, on, finish);
            put<D>(outEnd + b * timesRow, on, noTransfer);
            put<D>(held + b * marksRow, on, k);
            _mm512_storeu_si512(home + b * marksRow, d);
            _mm512_storeu_si512(where + b * marksRow, bitD);
            const bool inside = fused != 0 && bufferGroup[b] == step.group;
            if (narrowing) {
                __m512i& sum = inside ? producedInsideLanes : producedLanes;
                sum = _mm512_add_epi64(sum, bytesOf(b));
            } else {
                (inside ? producedInside : produced) += bufferBytes[b];
            }
        }
        __m512i producedBytes = narrowing ? producedLanes : splat(produced);
        __m512i producedInsideBytes = narrowing ? producedInsideLanes : splat(producedInside);
        if (narrowing || producedInside != 0) {
            producedBytes = _mm512_mask_add_epi64(producedBytes, static_cast<__mmask8>(~fused),
                                                  producedBytes, producedInsideBytes);
        }
        scatter(diffs, 0xFF, entry(diffRowD, k), _mm512_add_epi64(ownDiff, producedBytes));
        const __m512i next = _mm512_sub_epi64(zero, _mm512_add_epi64(producedBytes, released));
        for (int dd = 0; dd < D; ++dd) {
            nextDiff[dd] = _mm512_mask_mov_epi64(nextDiff[dd], on.on[dd], next);
        }
    }
    for (int dd = 0; dd < D; ++dd) {
        scatter(diffs, 0xFF, entry(_mm512_add_epi64(splat(diffBase[dd]), lane), stepCount[dd]),
                nextDiff[dd]);
    }

    // What only the complete schedule tells (as in run()).
    for (int dd = 0; dd < D; ++dd) {
        const __m512i row = _mm512_add_epi64(splat(startBase[dd]), lane);
        for (std::int64_t p = 0; p < kPad; ++p) {
            scatter(stepStart, 0xFF, entry(row, _mm512_add_epi64(stepCount[dd], splat(p))),
                    splat(std::numeric_limits<double>::infinity()));
        }
    }
    // Copies on relay devices.
    for (std::size_t r = 0; r < relayedRows; ++r) {
        const std::int64_t b = l.relayedBuffer[r];
        const __m512i device = _mm512_loadu_si512(l.relayedDevice.data() + r * kLanes);
        const __mmask8 active = l.relayedLanes[r];
        const DeviceMasks<D> deviceOn = restricted(masksOf<D>(device), active);
        const __m512d stateOutEnd = pick<D>(outEnd + b * timesRow, deviceOn);
        const __m512i copyLo = _mm512_loadu_si512(l.relayedLo.data() + r * kLanes);
        const __m512i bytes = bytesOf(b);
        const __m512i steps = pick<D>(stepCount, deviceOn);
        const __m512i row = _mm512_add_epi64(lookup8(startBase, D, device), lane);
        const __m512i stateHeld = pick<D>(held + b * marksRow, deviceOn);
        // run() searches from max(lo, held); from held + 1 when that is lo or more, as the
        // answer held gives the same range as held + 1 (and the gallop starts one step later).
        const __m512i heldNext = _mm512_add_epi64(stateHeld, one);
        const __m512i lo = firstStartingAtOrAfter(
            stepStart, row, steps, _mm512_loadu_pd(l.relayedBegin.data() + r * kLanes), copyLo,
            active);
        const __m512i hi = _mm512_max_epi64(
            stateHeld,
            _mm512_sub_epi64(firstStartingAtOrAfter(stepStart, row, steps, stateOutEnd,
                                                    _mm512_max_epi64(lo, heldNext), active),
                             one));
        // run()'s four updates, leaving out the pairs that cancel.
        const __m512i diffRowOf = _mm512_add_epi64(lookup8(diffBase, D, device), lane);
        const __m512i minus = _mm512_sub_epi64(zero, bytes);
        const __mmask8 later = _mm512_mask_cmpneq_epi64_mask(active, lo, copyLo);
        if (later != 0) {
            scatterAdd(diffs, later, entry(diffRowOf, copyLo), minus);
            scatterAdd(diffs, later, entry(diffRowOf, lo), bytes);
        }
        const __mmask8 moved = later | _mm512_mask_cmpneq_epi64_mask(active, hi, stateHeld);
        if (moved != 0) {
            scatterAdd(diffs, moved,
                       entry(diffRowOf, _mm512_max_epi64(_mm512_add_epi64(stateHeld, one), copyLo)),
                       bytes);
            scatterAdd(diffs, moved,
                       entry(diffRowOf, _mm512_max_epi64(_mm512_add_epi64(hi, one), lo)), minus);
        }
        put<D>(held + b * marksRow, restricted(deviceOn, active),
               _mm512_max_epi64(hi, _mm512_sub_epi64(lo, one)));
    }
    // Buffers where they were produced, sent elsewhere.
    for (std::size_t s = 0; s < sentRows; ++s) {
        const std::int64_t b = l.sentBuffer[s];
        const __mmask8 active = l.sentLanes[s];
        const __m512i device = _mm512_loadu_si512(l.sentDevice.data() + s * kLanes);
        const DeviceMasks<D> deviceOn = restricted(masksOf<D>(device), active);
        const __m512i bytes = bytesOf(b);
        const __m512i steps = pick<D>(stepCount, deviceOn);
        const __m512i row = _mm512_add_epi64(lookup8(startBase, D, device), lane);
        const __m512i stateHeld = pick<D>(held + b * marksRow, deviceOn);
        const __m512i hi = _mm512_max_epi64(
            stateHeld,
            // run() searches from max(held, 0); from held + 1 here: an answer of held gives
            // the same range as held + 1.
            _mm512_sub_epi64(firstStartingAtOrAfter(stepStart, row, steps,
                                                    pick<D>(outEnd + b * timesRow, deviceOn),
                                                    _mm512_add_epi64(stateHeld, one), active),
                             one));
        const __mmask8 moved = _mm512_mask_cmpneq_epi64_mask(active, hi, stateHeld);
        if (moved != 0) {
            const __m512i diffRowOf = _mm512_add_epi64(lookup8(diffBase, D, device), lane);
            scatterAdd(diffs, moved, entry(diffRowOf, _mm512_add_epi64(stateHeld, one)), bytes);
            scatterAdd(diffs, moved, entry(diffRowOf, _mm512_add_epi64(hi, one)),
                       _mm512_sub_epi64(zero, bytes));
            put<D>(held + b * marksRow, restricted(deviceOn, moved), hi);
        }
    }
    // Graph outputs: held to the end where they were produced.
    for (const std::int32_t b : sim.m_outputBuffers) {
        const __m512i device = _mm512_loadu_si512(home + std::int64_t{b} * marksRow);
        const DeviceMasks<D> deviceOn = masksOf<D>(device);
        const __m512i stateHeld = pick<D>(held + std::int64_t{b} * marksRow, deviceOn);
        const __m512i bytes = bytesOf(b);
        const __m512i diffRowOf = _mm512_add_epi64(lookup8(diffBase, D, device), lane);
        const __m512i after = _mm512_add_epi64(stateHeld, one);
        scatterAdd(diffs, 0xFF, entry(diffRowOf, after), bytes);
        scatterAdd(diffs, 0xFF,
                   entry(diffRowOf, _mm512_max_epi64(pick<D>(stepCount, deviceOn), after)),
                   _mm512_sub_epi64(zero, bytes));
    }
    // Most bytes alive at a step, per device.
    __m512i mostLive[D];
    for (int dd = 0; dd < D; ++dd) {
        const std::int64_t steps = _mm512_reduce_max_epi64(stepCount[dd]);
        const std::int64_t* const diff = diffs + diffBase[dd];
        const std::int64_t* const ws = l.stepWorkspace.data() + workspaceBase[dd];
        __m512i live = zero;
        __m512i most = zero;
        for (std::int64_t k = 0; k < steps; ++k) {
            const __mmask8 active = _mm512_cmpgt_epi64_mask(stepCount[dd], splat(k));
            live = _mm512_mask_add_epi64(live, active, live, _mm512_loadu_si512(diff + k * kLanes));
            const __m512i now =
                hasWorkspace ? _mm512_add_epi64(live, _mm512_loadu_si512(ws + k * kLanes)) : live;
            most = _mm512_mask_max_epi64(most, active, most, now);
        }
        mostLive[dd] = most;
    }

    // Per lane, the objectives (scalar, shared with evaluate()).
    alignas(64) std::int64_t most[D][kLanes], steps[D][kLanes];
    alignas(64) double weight[D][kLanes], busyUs[D][kLanes];
    alignas(64) double makespanOf[kLanes], energyOf[kLanes];
    alignas(64) std::int64_t unsupportedOf[kLanes], unreachableOf[kLanes];
    for (int dd = 0; dd < D; ++dd) {
        _mm512_store_si512(most[dd], mostLive[dd]);
        _mm512_store_si512(steps[dd], stepCount[dd]);
        _mm512_store_pd(weight[dd], weights[dd]);
        _mm512_store_pd(busyUs[dd], busy[dd]);
    }
    _mm512_store_pd(makespanOf, makespan);
    _mm512_store_pd(energyOf, energyUj);
    _mm512_store_si512(unsupportedOf, unsupported);
    _mm512_store_si512(unreachableOf, unreachable);
    for (std::size_t g = 0; g < count; ++g) {
        std::int64_t laneMost[D];
        double laneWeights[D], laneBusy[D];
        std::int32_t laneSteps[D];
        for (int dd = 0; dd < D; ++dd) {
            laneMost[dd] = most[dd][g];
            laneWeights[dd] = weight[dd][g];
            laneBusy[dd] = busyUs[dd][g];
            laneSteps[dd] = static_cast<std::int32_t>(steps[dd][g]);
        }
        out[g] =
            sim.objectivesOf({laneMost, laneWeights, laneBusy, laneSteps, genomes[g], makespanOf[g],
                              energyOf[g], static_cast<std::int32_t>(unsupportedOf[g]),
                              static_cast<std::int32_t>(unreachableOf[g])},
                             nullptr);
    }
}

#include "avx512_end.h" // IWYU pragma: keep

void Simulator::evaluateBatch(std::span<const std::uint8_t* const> genomes,
                              std::span<Objectives> out) {
    if (!lanesApply()) {
        for (std::size_t i = 0; i < genomes.size(); ++i) {
            out[i] = evaluate({genomes[i], m_computeNodes.size()});
        }
        return;
    }
    prepareLanes();
    // The vector core for the device count, with or without shared resources (decided once).
    using Core = void (*)(Simulator&, const std::uint8_t* const*, Objectives*, std::size_t);
    const std::size_t devices = static_cast<std::size_t>(m_deviceCount) - 2;
    const Core core =
        m_sharedResources
            ? std::array<Core, 3>{&SimulatorLanes::run<2, true>, &SimulatorLanes::run<3, true>,
                                  &SimulatorLanes::run<4, true>}[devices]
            : std::array<Core, 3>{&SimulatorLanes::run<2, false>, &SimulatorLanes::run<3, false>,
                                  &SimulatorLanes::run<4, false>}[devices];
    constexpr auto L = static_cast<std::size_t>(kLanes);
    for (std::size_t first = 0; first < genomes.size(); first += L) {
        const std::size_t count = std::min(L, genomes.size() - first);
        const std::uint8_t* group[L];
        for (std::size_t l = 0; l < L; ++l) { // a short group repeats its last plan
            group[l] = genomes[first + std::min(l, count - 1)];
        }
        core(*this, group, out.data() + first, count);
    }
}

} // namespace paretune
