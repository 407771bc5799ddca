// SPDX-License-Identifier: GPL-3.0-or-later
#include "solution.h"

#include "search/hypervolume.h"

#include <algorithm>
#include <limits>

namespace paretune {

std::vector<Solution> nonDominated(std::span<const Solution> solutions,
                                   std::span<const Objective> objectives) {
    // In lexicographic order a solution can only be dominated (or equalled) by one before it,
    // so one sweep against the kept ones suffices.
    const std::size_t m = objectives.size();
    std::vector<double> values;
    std::vector<std::uint32_t> order;
    for (std::size_t i = 0; i < solutions.size(); ++i) {
        if (solutions[i].objectives.feasible()) {
            order.push_back(static_cast<std::uint32_t>(i));
        }
    }
    values.resize(solutions.size() * m);
    for (const std::uint32_t i : order) {
        for (std::size_t k = 0; k < m; ++k) {
            values[i * m + k] = objectiveValue(solutions[i].objectives, objectives[k]);
        }
    }
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        for (std::size_t k = 0; k < m; ++k) {
            if (values[a * m + k] != values[b * m + k]) {
                return values[a * m + k] < values[b * m + k];
            }
        }
        return a < b;
    });
    std::vector<std::uint32_t> kept;
    for (const std::uint32_t p : order) {
        bool covered = false;
        for (std::size_t j = kept.size(); j-- > 0 && !covered;) {
            const std::uint32_t q = kept[j];
            bool noWorse = true;
            for (std::size_t k = 0; k < m; ++k) {
                noWorse = noWorse && values[q * m + k] <= values[p * m + k];
            }
            covered = noWorse;
        }
        if (!covered) {
            kept.push_back(p);
        }
    }
    std::vector<Solution> front;
    front.reserve(kept.size());
    for (const std::uint32_t i : kept) {
        front.push_back(solutions[i]);
    }
    return front;
}

std::vector<Solution> spreadSubset(std::span<const Solution> front,
                                   std::span<const Objective> objectives, std::size_t maxCount) {
    const std::size_t n = front.size();
    if (n <= maxCount) {
        return std::vector<Solution>(front.begin(), front.end());
    }
    const std::size_t m = objectives.size();
    std::vector<double> values(n * m);
    std::vector<double> lo(m, std::numeric_limits<double>::infinity());
    std::vector<double> hi(m, -std::numeric_limits<double>::infinity());
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t k = 0; k < m; ++k) {
            const double v = objectiveValue(front[i].objectives, objectives[k]);
            values[i * m + k] = v;
            lo[k] = std::min(lo[k], v);
            hi[k] = std::max(hi[k], v);
        }
    }
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t k = 0; k < m; ++k) {
            values[i * m + k] = hi[k] > lo[k] ? (values[i * m + k] - lo[k]) / (hi[k] - lo[k]) : 0.0;
        }
    }
    std::vector<bool> chosen(n, false);
    std::vector<double> distance(n, std::numeric_limits<double>::infinity());
    std::size_t count = 0;
    auto choose = [&](std::size_t c) {
        if (chosen[c] || count >= maxCount) {
            return;
        }
        chosen[c] = true;
        ++count;
        for (std::size_t i = 0; i < n; ++i) {
            double d2 = 0.0;
            for (std::size_t k = 0; k < m; ++k) {
                const double diff = values[i * m + k] - values[c * m + k];
                d2 += diff * diff;
            }
            distance[i] = std::min(distance[i], d2);
        }
    };
    for (std::size_t k = 0; k < m; ++k) {
        std::size_t best = 0;
        for (std::size_t i = 1; i < n; ++i) {
            if (values[i * m + k] < values[best * m + k]) {
                best = i;
            }
        }
        choose(best);
    }
    for (std::size_t i = 0; i < n; ++i) {
        if (!front[i].baseline.empty()) {
            choose(i);
        }
    }
    while (count < maxCount) {
        std::size_t far = n;
        for (std::size_t i = 0; i < n; ++i) {
            if (!chosen[i] && (far == n || distance[i] > distance[far])) {
                far = i;
            }
        }
        if (far == n) {
            break;
        }
        choose(far);
    }
    std::vector<Solution> subset;
    subset.reserve(count);
    for (std::size_t i = 0; i < n; ++i) {
        if (chosen[i]) {
            subset.push_back(front[i]);
        }
    }
    return subset;
}

double normalisedHypervolume(std::span<const Solution> solutions,
                             std::span<const Objective> objectives,
                             std::span<const double> reference) {
    std::vector<double> points;
    for (const Solution& s : solutions) {
        if (!s.objectives.feasible()) {
            continue;
        }
        for (std::size_t k = 0; k < objectives.size(); ++k) {
            points.push_back(objectiveValue(s.objectives, objectives[k]) / reference[k]);
        }
    }
    const std::vector<double> unit(objectives.size(), 1.0);
    return hypervolume(points, unit);
}

} // namespace paretune
