// SPDX-License-Identifier: GPL-3.0-or-later
#include "pareto_archive.h"

#include "search/hypervolume.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>

namespace paretune::detail {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

} // namespace

ParetoArchive::ParetoArchive(std::size_t genes, std::size_t population,
                             std::span<const Objective> objectives)
    : m_c(genes), m_n(population), m_objectives(objectives), m_m(objectives.size()) {
    const std::size_t capacity = 10 * m_n;
    m_genomes.resize((capacity + m_n) * m_c);
    m_values.resize((capacity + m_n) * 3);
    m_full.resize(capacity + m_n);
}

void ParetoArchive::add(const std::uint8_t* g, const Objectives& full) {
    if (!full.feasible()) {
        return;
    }
    const std::size_t capacity = 10 * m_n;
    {
        // Archive values are stored three per entry (zero-padded), so these scans are
        // branch-free over fixed-size rows.
        double v[3] = {0.0, 0.0, 0.0};
        for (std::size_t k = 0; k < m_m; ++k) {
            v[k] = objectiveValue(full, m_objectives[k]);
        }
        const double* w = m_values.data();
        bool dominated = false;
        for (std::size_t a = 0; a < m_size && !dominated; a += 8) {
            const std::size_t end = std::min(a + 8, m_size);
            bool any = false;
            for (std::size_t j = a; j < end; ++j) {
                any |= (w[3 * j] <= v[0]) & (w[3 * j + 1] <= v[1]) & (w[3 * j + 2] <= v[2]);
            }
            dominated = any;
        }
        if (dominated) {
            return;
        }
        for (std::size_t a = 0; a < m_size;) {
            if ((v[0] <= w[3 * a]) & (v[1] <= w[3 * a + 1]) & (v[2] <= w[3 * a + 2])) {
                moveEntry(--m_size, a);
            } else {
                ++a;
            }
        }
        std::memcpy(mutableGenome(m_size), g, m_c);
        std::copy_n(v, 3, m_values.data() + m_size * 3);
        m_full[m_size] = full;
        ++m_size;
        m_changed = true;
        if (m_size >= capacity + m_n) {
            prune(capacity);
        }
    }
}

void ParetoArchive::moveEntry(std::size_t from, std::size_t to) {
    if (from != to) {
        std::memcpy(mutableGenome(to), genome(from), m_c);
        std::copy_n(m_values.data() + from * 3, 3, m_values.data() + to * 3);
        m_full[to] = m_full[from];
    }
}

void ParetoArchive::prune(std::size_t capacity) {
    std::vector<double> distance(m_size, 0.0);
    std::vector<std::uint32_t> order(m_size);
    for (std::size_t k = 0; k < m_m; ++k) {
        std::iota(order.begin(), order.end(), 0u);
        std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
            return m_values[a * 3 + k] < m_values[b * 3 + k];
        });
        const double lo = m_values[order.front() * 3 + k];
        const double hi = m_values[order.back() * 3 + k];
        distance[order.front()] = kInfinity;
        distance[order.back()] = kInfinity;
        for (std::size_t j = 1; j + 1 < order.size() && hi > lo; ++j) {
            distance[order[j]] +=
                (m_values[order[j + 1] * 3 + k] - m_values[order[j - 1] * 3 + k]) / (hi - lo);
        }
    }
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return distance[a] > distance[b]; });
    order.resize(capacity);
    std::sort(order.begin(), order.end());
    for (std::size_t j = 0; j < order.size(); ++j) {
        moveEntry(order[j], j); // order[j] >= j: entries only move down
    }
    m_size = capacity;
}

double ParetoArchive::hypervolume(const std::vector<double>& reference) {
    if (!m_changed) {
        return m_lastHypervolume;
    }
    m_changed = false;
    m_points.clear();
    for (std::size_t a = 0; a < m_size; ++a) {
        for (std::size_t k = 0; k < m_m; ++k) {
            m_points.push_back(m_values[a * 3 + k] / reference[k]);
        }
    }
    const std::vector<double> unit(m_m, 1.0);
    m_lastHypervolume = paretune::hypervolume(m_points, unit);
    return m_lastHypervolume;
}

} // namespace paretune::detail
