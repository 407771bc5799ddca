// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>

namespace paretune {

/// Small, fast, deterministic generator (xoshiro256**, seeded through SplitMix64). The search
/// uses it instead of <random> distributions, whose results differ between standard libraries,
/// so that a seed gives the same front everywhere.
class Random {
public:
    explicit Random(std::uint64_t seed) {
        for (std::uint64_t& word : m_state) {
            seed += 0x9e3779b97f4a7c15ull;
            std::uint64_t z = seed;
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
            word = z ^ (z >> 31);
        }
    }

    std::uint64_t next() {
        const std::uint64_t result = rotl(m_state[1] * 5, 7) * 9;
        const std::uint64_t t = m_state[1] << 17;
        m_state[2] ^= m_state[0];
        m_state[3] ^= m_state[1];
        m_state[1] ^= m_state[2];
        m_state[0] ^= m_state[3];
        m_state[2] ^= t;
        m_state[3] = rotl(m_state[3], 45);
        return result;
    }

    /// Uniform in [0, bound), bound > 0 (Lemire's multiply-shift; the bias is below 2^-32 for
    /// the bounds used here).
    std::uint32_t below(std::uint32_t bound) {
        return static_cast<std::uint32_t>(((next() >> 32) * static_cast<std::uint64_t>(bound)) >>
                                          32);
    }

    /// Uniform in [0, 1).
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

    bool chance(double p) { return uniform() < p; }

private:
    static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

    std::uint64_t m_state[4];
};

} // namespace paretune
