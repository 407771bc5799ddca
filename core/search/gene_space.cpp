// SPDX-License-Identifier: GPL-3.0-or-later
#include "gene_space.h"

#include "plan/simulator.h"

#include <algorithm>

namespace paretune::detail {

GeneSpace flatSpace(const Simulator& sim) {
    GeneSpace space;
    space.genes = static_cast<std::size_t>(sim.computeCount());
    for (std::int32_t ci = 0; ci < sim.computeCount(); ++ci) {
        space.supportOffsets.push_back(static_cast<std::int32_t>(space.support.size()));
        for (std::int32_t c = 0; c < sim.columnCount(); ++c) {
            if (sim.columnSupported(ci, c)) {
                space.support.push_back(static_cast<std::uint8_t>(c));
            }
        }
        if (space.support.size() == static_cast<std::size_t>(space.supportOffsets.back())) {
            space.support.push_back(static_cast<std::uint8_t>(sim.costs().host()));
        }
        space.successors.appendRow(sim.computeSuccessors(ci));
        space.predecessors.appendRow(sim.computePredecessors(ci));
    }
    space.supportOffsets.push_back(static_cast<std::int32_t>(space.support.size()));
    const auto priority = sim.priority();
    space.priority.assign(priority.begin(), priority.end());
    return space;
}

GeneSpace chainSpace(const Simulator& sim, std::int32_t maxLength) {
    const std::int32_t C = sim.computeCount();
    const std::int32_t D = sim.deviceCount();
    const std::int32_t K = sim.columnCount();
    GeneSpace space;
    space.geneOf.assign(static_cast<std::size_t>(C), -1);
    std::vector<std::int32_t> length;
    for (const std::int32_t ci : sim.priority()) {
        const auto pred = sim.computePredecessors(ci);
        std::int32_t gene = -1;
        if (pred.size() == 1 && sim.computeSuccessors(pred[0]).size() == 1) {
            const std::int32_t g = space.geneOf[static_cast<std::size_t>(pred[0])];
            if (length[static_cast<std::size_t>(g)] < maxLength) {
                gene = g;
            }
        }
        if (gene < 0) {
            gene = static_cast<std::int32_t>(length.size());
            length.push_back(0);
            space.priority.push_back(gene);
        }
        space.geneOf[static_cast<std::size_t>(ci)] = gene;
        ++length[static_cast<std::size_t>(gene)];
    }
    space.genes = length.size();
    const std::int32_t host = sim.costs().host();
    space.nodeDevice.resize(static_cast<std::size_t>(C) * static_cast<std::size_t>(K));
    std::vector<std::vector<std::uint8_t>> geneSupport(space.genes,
                                                       std::vector<std::uint8_t>(K, 0));
    for (std::int32_t ci = 0; ci < C; ++ci) {
        std::int32_t fallback = sim.supported(ci, host) ? host : -1;
        for (std::int32_t d = 0; d < D && !sim.supported(ci, host); ++d) {
            if (sim.supported(ci, d) &&
                (fallback < 0 || sim.latencyUs(ci, d) < sim.latencyUs(ci, fallback))) {
                fallback = d;
            }
        }
        for (std::int32_t c = 0; c < K; ++c) {
            const bool ok = sim.columnSupported(ci, c);
            const std::int32_t d = sim.columnDevice(c); // the column's device in fp32
            const std::int32_t node =
                ok ? c : (sim.supported(ci, d) || fallback < 0 ? d : fallback);
            space.nodeDevice[static_cast<std::size_t>(ci * K + c)] =
                static_cast<std::uint8_t>(node);
            if (ok) {
                geneSupport[static_cast<std::size_t>(space.geneOf[static_cast<std::size_t>(ci)])]
                           [static_cast<std::size_t>(c)] = 1;
            }
        }
    }
    std::vector<std::vector<std::int32_t>> succ(space.genes), pred(space.genes);
    for (std::int32_t ci = 0; ci < C; ++ci) {
        const std::int32_t g = space.geneOf[static_cast<std::size_t>(ci)];
        for (const std::int32_t cs : sim.computeSuccessors(ci)) {
            const std::int32_t h = space.geneOf[static_cast<std::size_t>(cs)];
            auto& row = succ[static_cast<std::size_t>(g)];
            if (h != g && std::find(row.begin(), row.end(), h) == row.end()) {
                row.push_back(h);
                pred[static_cast<std::size_t>(h)].push_back(g);
            }
        }
    }
    for (std::size_t g = 0; g < space.genes; ++g) {
        space.supportOffsets.push_back(static_cast<std::int32_t>(space.support.size()));
        for (std::int32_t c = 0; c < K; ++c) {
            if (geneSupport[g][static_cast<std::size_t>(c)] != 0) {
                space.support.push_back(static_cast<std::uint8_t>(c));
            }
        }
        if (space.support.size() == static_cast<std::size_t>(space.supportOffsets.back())) {
            space.support.push_back(static_cast<std::uint8_t>(host));
        }
        space.successors.appendRow(succ[g]);
        space.predecessors.appendRow(pred[g]);
    }
    space.supportOffsets.push_back(static_cast<std::int32_t>(space.support.size()));
    return space;
}

std::vector<std::uint8_t> projectToGroups(const GeneSpace& space, std::int32_t columnCount,
                                          std::span<const std::uint8_t> genome) {
    std::vector<std::int32_t> votes(space.genes * static_cast<std::size_t>(columnCount), 0);
    for (std::size_t ci = 0; ci < genome.size(); ++ci) {
        ++votes[static_cast<std::size_t>(space.geneOf[ci]) * static_cast<std::size_t>(columnCount) +
                genome[ci]];
    }
    std::vector<std::uint8_t> out(space.genes, 0);
    for (std::size_t g = 0; g < space.genes; ++g) {
        const auto row = votes.begin() + static_cast<std::ptrdiff_t>(g) * columnCount;
        out[g] = static_cast<std::uint8_t>(std::max_element(row, row + columnCount) - row);
    }
    return out;
}
} // namespace paretune::detail
