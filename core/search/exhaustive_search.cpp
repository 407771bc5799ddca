// SPDX-License-Identifier: GPL-3.0-or-later
#include "exhaustive_search.h"

#include "common/input_error.h"

#include <algorithm>

namespace paretune {

std::vector<Solution> exhaustiveFront(Simulator& sim, std::span<const Objective> objectives,
                                      std::int32_t maxComputeNodes) {
    const std::int32_t C = sim.computeCount();
    if (C > maxComputeNodes || maxComputeNodes > 12) {
        throw InputError("exhaustive search: the graph has " + std::to_string(C) +
                         " compute nodes, at most " +
                         std::to_string(std::min(maxComputeNodes, 12)) + " are allowed");
    }
    std::vector<std::vector<std::uint8_t>> choices(static_cast<std::size_t>(C));
    for (std::int32_t ci = 0; ci < C; ++ci) {
        for (std::int32_t c = 0; c < sim.columnCount(); ++c) { // devices and variants
            if (sim.columnSupported(ci, c)) {
                choices[static_cast<std::size_t>(ci)].push_back(static_cast<std::uint8_t>(c));
            }
        }
        if (choices[static_cast<std::size_t>(ci)].empty()) {
            return {}; // no feasible plan
        }
    }
    std::vector<std::size_t> digit(static_cast<std::size_t>(C), 0);
    std::vector<std::uint8_t> genome(static_cast<std::size_t>(C));
    for (std::size_t ci = 0; ci < genome.size(); ++ci) {
        genome[ci] = choices[ci][0];
    }
    std::vector<Solution> archive;
    while (true) {
        const Objectives o = sim.evaluate(genome);
        if (o.feasible()) {
            bool dominated = false;
            for (const Solution& s : archive) {
                if (weaklyDominates(s.objectives, o, objectives)) {
                    dominated = true;
                    break;
                }
            }
            if (!dominated) {
                std::erase_if(archive, [&](const Solution& s) {
                    return weaklyDominates(o, s.objectives, objectives);
                });
                archive.push_back({genome, o, std::string()});
            }
        }
        // Next placement, mixed radix.
        std::size_t k = 0;
        while (k < digit.size()) {
            if (++digit[k] < choices[k].size()) {
                genome[k] = choices[k][digit[k]];
                break;
            }
            digit[k] = 0;
            genome[k] = choices[k][0];
            ++k;
        }
        if (k == digit.size()) {
            break;
        }
    }
    const Objective first = objectives.front();
    std::sort(archive.begin(), archive.end(), [&](const Solution& x, const Solution& y) {
        return objectiveValue(x.objectives, first) < objectiveValue(y.objectives, first);
    });
    return archive;
}

} // namespace paretune
