// SPDX-License-Identifier: GPL-3.0-or-later
#include "nondominated_sort.h"

#include <algorithm>
#include <limits>

namespace paretune::detail {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

} // namespace

NondominatedSort::NondominatedSort(std::size_t capacity) : m_capacity(capacity) {
    m_feasible.reserve(capacity);
    m_infeasible.reserve(capacity);
    m_remaining.reserve(capacity);
    m_next.reserve(capacity);
    m_secondValues.reserve(capacity);
    m_secondRank.resize(capacity);
    m_fenwick.resize(capacity + 1);
}

std::size_t NondominatedSort::sort(std::size_t count, std::size_t needed,
                                   std::span<const double> objectiveValues,
                                   std::span<const Objectives> full,
                                   std::span<const std::uint8_t> duplicate) {
    auto values = [&](std::uint32_t a) { return objectiveValues.data() + a * kStride; };
    // Non-dominated sort of the distinct individuals. Feasible ones by front peeling with a
    // dimension sweep: in lexicographic order a plan can only be dominated by plans before
    // it, and one before it dominates it exactly when its second and third objectives are
    // no larger; a Fenwick tree over the ranks of the second objective keeps the smallest
    // third objective seen, so each front costs O(R log R) for R remaining plans. Only the
    // fronts needed to fill the population are peeled. Infeasible plans follow, one front
    // per violation value.
    m_feasible.clear();
    m_infeasible.clear();
    for (std::uint32_t a = 0; a < count; ++a) {
        if (!duplicate[a]) {
            (full[a].feasible() ? m_feasible : m_infeasible).push_back(a);
        }
    }
    auto sameValues = [&](std::uint32_t a, std::uint32_t b) {
        const double* x = values(a);
        const double* y = values(b);
        return x[0] == y[0] && x[1] == y[1] && x[2] == y[2];
    };
    std::sort(m_feasible.begin(), m_feasible.end(), [&](std::uint32_t a, std::uint32_t b) {
        const double* x = values(a);
        const double* y = values(b);
        for (std::size_t k = 0; k < kStride; ++k) {
            if (x[k] != y[k]) {
                return x[k] < y[k];
            }
        }
        return a < b;
    });
    std::sort(m_infeasible.begin(), m_infeasible.end(), [&](std::uint32_t a, std::uint32_t b) {
        return full[a].violation != full[b].violation ? full[a].violation < full[b].violation
                                                      : a < b;
    });
    std::size_t fronts = 0;
    auto newFront = [&]() -> std::vector<std::uint32_t>& {
        if (fronts == m_fronts.size()) {
            m_fronts.emplace_back();
            m_fronts.back().reserve(m_capacity);
        }
        m_fronts[fronts].clear();
        return m_fronts[fronts++];
    };
    // Ranks (1-based) of the second objective.
    m_secondValues.clear();
    for (const std::uint32_t a : m_feasible) {
        m_secondValues.push_back(values(a)[1]);
    }
    std::sort(m_secondValues.begin(), m_secondValues.end());
    m_secondValues.erase(std::unique(m_secondValues.begin(), m_secondValues.end()),
                         m_secondValues.end());
    const std::size_t ranks = m_secondValues.size();
    for (const std::uint32_t a : m_feasible) {
        m_secondRank[a] = static_cast<std::uint32_t>(
            std::lower_bound(m_secondValues.begin(), m_secondValues.end(), values(a)[1]) -
            m_secondValues.begin() + 1);
    }
    m_remaining.assign(m_feasible.begin(), m_feasible.end());
    std::size_t ranked = 0;
    while (!m_remaining.empty() && ranked < needed) {
        std::fill_n(m_fenwick.begin(), ranks + 1, kInfinity);
        std::vector<std::uint32_t>& front = newFront();
        m_next.clear();
        for (std::size_t j = 0; j < m_remaining.size();) {
            const std::uint32_t p = m_remaining[j];
            std::size_t g = j + 1;
            while (g < m_remaining.size() && sameValues(m_remaining[g], p)) {
                ++g;
            }
            const double third = values(p)[2];
            double smallest = kInfinity;
            for (std::size_t i = m_secondRank[p]; i > 0; i &= i - 1) {
                smallest = std::min(smallest, m_fenwick[i]);
            }
            std::vector<std::uint32_t>& target = smallest <= third ? m_next : front;
            target.insert(target.end(), m_remaining.begin() + static_cast<std::ptrdiff_t>(j),
                          m_remaining.begin() + static_cast<std::ptrdiff_t>(g));
            for (std::size_t i = m_secondRank[p]; i <= ranks; i += i & (~i + 1)) {
                m_fenwick[i] = std::min(m_fenwick[i], third);
            }
            j = g;
        }
        ranked += front.size();
        std::swap(m_remaining, m_next);
    }
    for (std::size_t j = 0; j < m_infeasible.size(); ++j) {
        if (j == 0 || full[m_infeasible[j]].violation != full[m_infeasible[j - 1]].violation) {
            newFront();
        }
        m_fronts[fronts - 1].push_back(m_infeasible[j]);
    }
    return fronts;
}

void NondominatedSort::crowding(std::span<const std::uint32_t> front,
                                std::span<const double> values, std::size_t objectives,
                                std::span<double> distance) {
    for (const std::uint32_t i : front) {
        distance[i] = 0.0;
    }
    if (front.size() <= 2) {
        for (const std::uint32_t i : front) {
            distance[i] = kInfinity;
        }
        return;
    }
    m_sortBuffer.assign(front.begin(), front.end());
    for (std::size_t k = 0; k < objectives; ++k) {
        std::sort(m_sortBuffer.begin(), m_sortBuffer.end(), [&](std::uint32_t a, std::uint32_t b) {
            return values[a * kStride + k] < values[b * kStride + k];
        });
        const double lo = values[m_sortBuffer.front() * kStride + k];
        const double hi = values[m_sortBuffer.back() * kStride + k];
        distance[m_sortBuffer.front()] = kInfinity;
        distance[m_sortBuffer.back()] = kInfinity;
        if (hi <= lo) {
            continue;
        }
        for (std::size_t j = 1; j + 1 < m_sortBuffer.size(); ++j) {
            distance[m_sortBuffer[j]] += (values[m_sortBuffer[j + 1] * kStride + k] -
                                          values[m_sortBuffer[j - 1] * kStride + k]) /
                                         (hi - lo);
        }
    }
}

} // namespace paretune::detail
