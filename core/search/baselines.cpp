// SPDX-License-Identifier: GPL-3.0-or-later
#include "baselines.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

namespace paretune {

namespace {

std::int32_t fastestSupported(const Simulator& sim, std::int32_t ci) {
    std::int32_t best = -1;
    for (std::int32_t d = 0; d < sim.deviceCount(); ++d) {
        if (sim.supported(ci, d) && (best < 0 || sim.latencyUs(ci, d) < sim.latencyUs(ci, best))) {
            best = d;
        }
    }
    return best < 0 ? sim.costs().host() : best;
}

} // namespace

std::vector<std::uint8_t> allOnDevice(const Simulator& sim, std::int32_t d) {
    std::vector<std::uint8_t> genome(static_cast<std::size_t>(sim.computeCount()));
    const std::int32_t host = sim.costs().host();
    for (std::int32_t ci = 0; ci < sim.computeCount(); ++ci) {
        std::int32_t device = d;
        if (!sim.supported(ci, device)) {
            device = sim.supported(ci, host) ? host : fastestSupported(sim, ci);
        }
        genome[static_cast<std::size_t>(ci)] = static_cast<std::uint8_t>(device);
    }
    return genome;
}

std::vector<std::uint8_t> allOnDeviceIn(const Simulator& sim, std::int32_t d, std::int32_t v) {
    std::vector<std::uint8_t> genome = allOnDevice(sim, d);
    const std::int32_t column = sim.column(d, v);
    bool any = false;
    for (std::int32_t ci = 0; ci < sim.computeCount(); ++ci) {
        if (sim.columnSupported(ci, column)) {
            genome[static_cast<std::size_t>(ci)] = static_cast<std::uint8_t>(column);
            any = true;
        }
    }
    return any ? genome : std::vector<std::uint8_t>{};
}

std::vector<std::uint8_t> greedyFastest(const Simulator& sim) {
    std::vector<std::uint8_t> genome(static_cast<std::size_t>(sim.computeCount()));
    for (std::int32_t ci = 0; ci < sim.computeCount(); ++ci) {
        genome[static_cast<std::size_t>(ci)] = static_cast<std::uint8_t>(fastestSupported(sim, ci));
    }
    return genome;
}

std::vector<std::int32_t> upwardRankOrder(const Simulator& sim) {
    const std::int32_t C = sim.computeCount();
    const std::int32_t D = sim.deviceCount();
    const CostTable& costs = sim.costs();
    // Mean uncontended transfer time per byte and fixed latency over ordered device pairs.
    double meanLatency = 0.0;
    double meanPerByte = 0.0;
    if (D > 1) {
        for (std::int32_t s = 0; s < D; ++s) {
            for (std::int32_t t = 0; t < D; ++t) {
                if (s != t) {
                    meanLatency += costs.transferUs(s, t, 0.0);
                    meanPerByte += costs.transferUs(s, t, 1e6) - costs.transferUs(s, t, 0.0);
                }
            }
        }
        const double pairs = static_cast<double>(D) * (D - 1);
        meanLatency /= pairs;
        meanPerByte /= pairs * 1e6;
    }
    std::vector<double> rank(static_cast<std::size_t>(C), 0.0);
    const auto priority = sim.priority();
    std::vector<std::int32_t> position(static_cast<std::size_t>(C));
    for (std::int32_t i = 0; i < C; ++i) {
        position[static_cast<std::size_t>(priority[static_cast<std::size_t>(i)])] = i;
    }
    for (std::int32_t i = C - 1; i >= 0; --i) {
        const std::int32_t ci = priority[static_cast<std::size_t>(i)];
        double sum = 0.0;
        int count = 0;
        for (std::int32_t d = 0; d < D; ++d) {
            if (sim.supported(ci, d)) {
                sum += sim.latencyUs(ci, d);
                ++count;
            }
        }
        const double comm = meanLatency + meanPerByte * sim.outputBytes(ci);
        double tail = 0.0;
        for (const std::int32_t s : sim.computeSuccessors(ci)) {
            tail = std::max(tail, comm + rank[static_cast<std::size_t>(s)]);
        }
        rank[static_cast<std::size_t>(ci)] = (count > 0 ? sum / count : 0.0) + tail;
    }
    std::vector<std::int32_t> order(static_cast<std::size_t>(C));
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
        const double ra = rank[static_cast<std::size_t>(a)];
        const double rb = rank[static_cast<std::size_t>(b)];
        return ra != rb
                   ? ra > rb
                   : position[static_cast<std::size_t>(a)] < position[static_cast<std::size_t>(b)];
    });
    return order;
}

std::vector<std::uint8_t> heftPlacement(const Simulator& sim) {
    const std::int32_t C = sim.computeCount();
    const std::int32_t D = sim.deviceCount();
    const CostTable& costs = sim.costs();
    std::vector<std::uint8_t> genome(static_cast<std::size_t>(C), 0);
    std::vector<double> finish(static_cast<std::size_t>(C), 0.0);
    std::vector<double> available(static_cast<std::size_t>(D), 0.0);
    for (const std::int32_t ci : upwardRankOrder(sim)) {
        std::int32_t best = -1;
        double bestFinish = std::numeric_limits<double>::infinity();
        for (std::int32_t d = 0; d < D; ++d) {
            if (!sim.supported(ci, d)) {
                continue;
            }
            double start = available[static_cast<std::size_t>(d)];
            for (const std::int32_t p : sim.computePredecessors(ci)) {
                const std::int32_t pd = genome[static_cast<std::size_t>(p)];
                const double arrival =
                    finish[static_cast<std::size_t>(p)] +
                    (pd == d ? 0.0 : costs.transferUs(pd, d, sim.outputBytes(p)));
                start = std::max(start, arrival);
            }
            const double end = start + sim.latencyUs(ci, d);
            if (end < bestFinish) {
                bestFinish = end;
                best = d;
            }
        }
        if (best < 0) {
            best = costs.host();
            bestFinish = available[static_cast<std::size_t>(best)] + sim.latencyUs(ci, best);
        }
        genome[static_cast<std::size_t>(ci)] = static_cast<std::uint8_t>(best);
        finish[static_cast<std::size_t>(ci)] = bestFinish;
        available[static_cast<std::size_t>(best)] = bestFinish;
    }
    return genome;
}

std::vector<Solution> evaluateBaselines(Simulator& sim) {
    std::vector<Solution> baselines;
    for (std::int32_t d = 0; d < sim.deviceCount(); ++d) {
        // A device that runs none of the operators has no all-on plan: it would be another
        // device's plan under its name.
        bool runsAny = false;
        for (std::int32_t ci = 0; ci < sim.computeCount() && !runsAny; ++ci) {
            runsAny = sim.supported(ci, d);
        }
        if (runsAny) {
            baselines.push_back({allOnDevice(sim, d), {}, "all:" + sim.costs().device(d).id});
        }
    }
    baselines.push_back({heftPlacement(sim), {}, "heft"});
    baselines.push_back({greedyFastest(sim), {}, "greedy"});
    for (std::int32_t v = 1; v < sim.variantCount(); ++v) {
        for (std::int32_t d = 0; d < sim.deviceCount(); ++d) {
            std::vector<std::uint8_t> genome = allOnDeviceIn(sim, d, v);
            if (!genome.empty()) {
                baselines.push_back({std::move(genome),
                                     {},
                                     "all:" + sim.costs().device(d).id + ":" +
                                         std::string(variantName(sim.costs().variant(v)))});
            }
        }
    }
    for (Solution& s : baselines) {
        s.objectives = sim.evaluate(s.genome);
    }
    return baselines;
}

} // namespace paretune
