// SPDX-License-Identifier: GPL-3.0-or-later
// Simulator::evaluateBatch's setup: whether its vector core applies on this machine and table,
// and the tables and scratch it runs on (simulator_batch.cpp has the core).
#include "simulator.h"
#include "simulator_lanes.h"

#include <algorithm>
#include <limits>

namespace paretune {

using lanes::kLanes;
using lanes::kMaxColumns;
using lanes::kMaxQueues;
using lanes::kPad;

namespace {

bool cpuHasAvx512() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f");
}

template <class Vector> void fitTo(Vector& v, std::size_t size) {
    if (v.size() < size) {
        v.resize(size);
    }
}

} // namespace

bool Simulator::lanesApply() const {
    static const bool avx512 = cpuHasAvx512();
    return avx512 && m_deviceCount >= 2 && m_deviceCount <= 4 && m_columnCount <= kMaxColumns &&
           m_hopCount <= 16 && m_queueFree.size() <= static_cast<std::size_t>(kMaxQueues);
}

const char* Simulator::batchPath() const {
    return lanesApply() ? "avx512x8" : "scalar";
}

void Simulator::prepareLanes() {
    Lanes& l = m_lanes;
    if (l.stepsVersion == m_stepsVersion) {
        return;
    }
    l.stepsVersion = m_stepsVersion;
    const auto D = static_cast<std::size_t>(m_deviceCount);
    const auto K = static_cast<std::size_t>(m_columnCount);
    const std::size_t C = m_steps.size();
    const std::size_t B = m_bufferBytes.size();
    l.columnDevice.assign(m_columnDeviceOf.begin(),
                          m_columnDeviceOf.begin() + static_cast<std::ptrdiff_t>(K));
    l.columnVariant.assign(K, 0);
    for (std::size_t c = 0; c < K; ++c) {
        l.columnVariant[c] = m_columnVariantOf[c];
    }
    const auto lanes = static_cast<std::size_t>(kLanes);
    l.bufferBytes.resize(m_narrowings.empty() ? 0 : B * lanes);
    for (std::size_t b = 0; b < l.bufferBytes.size() / lanes; ++b) {
        std::fill_n(l.bufferBytes.begin() + static_cast<std::ptrdiff_t>(b * lanes), lanes,
                    m_bufferSize[b]);
    }
    const std::size_t links = m_chainLinks.size();
    l.chainSaveUs.resize(links * K);
    l.chainSaveUj.resize(links * K);
    for (std::size_t k = 0; k < links * K; ++k) {
        l.chainSaveUs[k] = m_chainSave[k].latencyUs;
        l.chainSaveUj[k] = m_chainSave[k].energyUj;
    }
    l.latencyUs.resize(C * K);
    l.energyUj.resize(C * K);
    l.exclusiveWeight.assign(m_stepWeight.begin(), m_stepWeight.end());
    l.workspaceBytes.resize(C * K);
    l.unsupported.resize(C * K);
    for (std::size_t k = 0; k < C * K; ++k) {
        l.latencyUs[k] = m_stepCells[k].latencyUs;
        l.energyUj[k] = m_stepCells[k].energyUj;
        l.workspaceBytes[k] = m_stepCells[k].workspaceBytes;
        l.unsupported[k] = m_stepCells[k].unsupported;
    }
    const std::size_t fusedCells = m_hasGroups ? C * D : 0;
    l.fusedLatencyUs.resize(fusedCells);
    l.fusedEnergyUj.resize(fusedCells);
    l.fusedWorkspaceBytes.resize(fusedCells);
    l.fusedUnsupported.resize(fusedCells);
    for (std::size_t k = 0; k < fusedCells; ++k) {
        l.fusedLatencyUs[k] = m_stepFusedCells[k].latencyUs;
        l.fusedEnergyUj[k] = m_stepFusedCells[k].energyUj;
        l.fusedWorkspaceBytes[k] = m_stepFusedCells[k].workspaceBytes;
        l.fusedUnsupported[k] = m_stepFusedCells[k].unsupported;
    }
    l.groupLanes.assign(m_groupTaken.size(), 0);
    std::fill(std::begin(l.pathFirst), std::end(l.pathFirst), 0);
    std::fill(std::begin(l.pathLength), std::end(l.pathLength), 0);
    l.maxHops = 0;
    for (std::size_t p = 0; p < D * D; ++p) {
        l.pathFirst[p] = m_pathOffsets[p];
        l.pathLength[p] = m_pathOffsets[p + 1] - m_pathOffsets[p];
        l.maxHops = std::max(l.maxHops, static_cast<std::int32_t>(l.pathLength[p]));
    }
    for (std::size_t h = 0; h < 16; ++h) {
        const TransferHop hop = h < m_hops.size() ? m_hops[h] : TransferHop{};
        l.hopTo[h] = hop.to;
        l.hopFrom[h] = hop.from;
        l.hopQueue[h] = hop.queue;
        l.hopLatencyUs[h] = hop.latencyUs;
        l.hopBytesPerUs[h] = hop.bytesPerUs;
    }
    std::fill(std::begin(l.exclusiveWith), std::end(l.exclusiveWith), 0);
    std::fill(std::begin(l.slowedBy), std::end(l.slowedBy), 1.0);
    std::fill(std::begin(l.turnUs), std::end(l.turnUs), 0.0);
    std::fill(std::begin(l.receiveFactor), std::end(l.receiveFactor), 1.0);
    for (std::size_t d = 0; d < D; ++d) {
        l.exclusiveWith[d] = m_exclusiveWith[d];
        l.turnUs[d] = m_turnUs[d];
        l.receiveFactor[d] = m_receiveFactor[d];
        for (std::size_t e = 0; e < D; ++e) {
            l.slowedBy[e * D + d] = m_contention[d * D + e];
        }
    }
    l.transferUs.assign(B * 16, 0.0);
    for (std::size_t b = 0; b < B; ++b) {
        std::copy_n(m_transferUs.begin() + static_cast<std::ptrdiff_t>(b * m_hops.size()),
                    m_hops.size(), l.transferUs.begin() + static_cast<std::ptrdiff_t>(b * 16));
    }
    constexpr auto L = static_cast<std::size_t>(kLanes);
    fitTo(l.genomes, C * L);
    fitTo(l.times, B * 2 * D * L);
    fitTo(l.marks, B * (D + 2) * L);
    const std::size_t startRow = C + 2 * static_cast<std::size_t>(kPad);
    l.stepStart.assign(D * startRow * L, -std::numeric_limits<double>::infinity());
    fitTo(l.stepWorkspace, D * std::max<std::size_t>(C, 1) * L);
    fitTo(l.diff, D * (C + 1) * L);
    fitTo(l.queueFree, m_queueFree.size() * L);
    fitTo(l.staticMask, m_staticMask.size() * L);
    // At most one row of each list per input of a step and hop.
    const std::size_t rows = m_stepInputs.size() * static_cast<std::size_t>(l.maxHops);
    for (auto* list : {&l.sentDevice, &l.relayedDevice, &l.relayedLo}) {
        fitTo(*list, rows * L);
    }
    fitTo(l.relayedBegin, rows * L);
    fitTo(l.sentBuffer, rows);
    fitTo(l.relayedBuffer, rows);
    fitTo(l.sentLanes, rows);
    fitTo(l.relayedLanes, rows);
}

} // namespace paretune
