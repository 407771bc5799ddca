// SPDX-License-Identifier: GPL-3.0-or-later
#include "variation.h"

#include <algorithm>
#include <cmath>

namespace paretune::detail {

Variation::Variation(const GeneSpace& space, std::int32_t deviceCount, std::int32_t columnCount,
                     const SearchOptions& options, Random& random)
    : m_space(space), m_options(options), m_random(random), m_c(space.genes),
      m_deviceCount(deviceCount), m_columnCount(columnCount) {
    m_support = space.support;
    m_supportOffsets = space.supportOffsets;
    m_priority = space.priority;
    m_mutationRate = m_c > 0 ? 1.0 / static_cast<double>(m_c) : 0.0;
    m_logKeep = std::log1p(-std::min(m_mutationRate, 0.999999));
}

std::int32_t Variation::nearestSupported(std::size_t ci, std::uint8_t column) const {
    if (supports(ci, column)) {
        return column;
    }
    const auto fp32 = static_cast<std::uint8_t>(column % m_deviceCount);
    return fp32 != column && supports(ci, fp32) ? fp32 : -1;
}

std::uint8_t Variation::randomSupported(std::size_t ci) {
    const auto s = support(ci);
    return s[m_random.below(static_cast<std::uint32_t>(s.size()))];
}

void Variation::randomGenome(std::uint8_t* g) {
    for (std::size_t ci = 0; ci < m_c; ++ci) {
        g[ci] = randomSupported(ci);
    }
}

void Variation::blockGenome(std::uint8_t* g) {
    std::size_t k = 0;
    const std::uint32_t maxBlock = std::max<std::uint32_t>(2, static_cast<std::uint32_t>(m_c / 4));
    while (k < m_c) {
        const std::size_t length = 1 + m_random.below(maxBlock);
        const auto column =
            static_cast<std::uint8_t>(m_random.below(static_cast<std::uint32_t>(m_columnCount)));
        for (std::size_t j = 0; j < length && k < m_c; ++j, ++k) {
            const std::size_t ci = static_cast<std::size_t>(m_priority[k]);
            const std::int32_t near = nearestSupported(ci, column);
            g[ci] = near >= 0 ? static_cast<std::uint8_t>(near) : randomSupported(ci);
        }
    }
}

void Variation::crossover(std::uint8_t* a, std::uint8_t* b) {
    if (m_random.chance(m_options.segmentCrossoverShare)) {
        std::size_t i = m_random.below(static_cast<std::uint32_t>(m_c));
        std::size_t j = m_random.below(static_cast<std::uint32_t>(m_c));
        if (i > j) {
            std::swap(i, j);
        }
        for (std::size_t p = i; p <= j; ++p) {
            const auto ci = static_cast<std::size_t>(m_priority[p]);
            std::swap(a[ci], b[ci]);
        }
    } else {
        std::uint64_t bits = 0;
        for (std::size_t ci = 0; ci < m_c; ++ci) {
            if (ci % 64 == 0) {
                bits = m_random.next();
            }
            if (bits & 1u) {
                std::swap(a[ci], b[ci]);
            }
            bits >>= 1;
        }
    }
}

void Variation::mutate(std::uint8_t* g) {
    // Per-gene mutation at rate 1/C, by geometric skips between mutated genes.
    if (m_mutationRate > 0.0) {
        std::size_t k = 0;
        while (true) {
            const double u = 1.0 - m_random.uniform(); // (0, 1]
            k += static_cast<std::size_t>(std::log(u) / m_logKeep);
            if (k >= m_c) {
                break;
            }
            redrawGene(g, k);
            ++k;
        }
    }
    if (m_c > 0 && m_random.chance(m_options.chainMutationRate)) {
        chainMutation(g);
    }
}

void Variation::redrawGene(std::uint8_t* g, std::size_t k) {
    const auto s = support(k);
    if (s.size() > 1) {
        std::uint8_t d = g[k];
        while (d == g[k]) {
            d = s[m_random.below(static_cast<std::uint32_t>(s.size()))];
        }
        g[k] = d;
    }
}

void Variation::smallStep(std::uint8_t* g) {
    if (m_random.chance(0.5)) {
        const std::size_t k = m_random.below(static_cast<std::uint32_t>(m_c));
        redrawGene(g, k);
    } else {
        chainMutation(g);
    }
}

void Variation::chainMutation(std::uint8_t* g) {
    std::int32_t ci = static_cast<std::int32_t>(m_random.below(static_cast<std::uint32_t>(m_c)));
    const std::uint8_t d = randomSupported(static_cast<std::size_t>(ci));
    const std::uint32_t maxLength = std::max<std::uint32_t>(2, static_cast<std::uint32_t>(m_c / 8));
    const std::uint32_t length = 1 + m_random.below(maxLength);
    const bool forward = m_random.chance(0.5);
    for (std::uint32_t step = 0; step < length; ++step) {
        const std::int32_t near = nearestSupported(static_cast<std::size_t>(ci), d);
        if (near >= 0) {
            g[ci] = static_cast<std::uint8_t>(near);
        }
        const auto next = forward ? m_space.successors.row(ci) : m_space.predecessors.row(ci);
        if (next.empty()) {
            break;
        }
        ci = next[m_random.below(static_cast<std::uint32_t>(next.size()))];
    }
}

} // namespace paretune::detail
