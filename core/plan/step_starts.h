// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to Simulator (plan/simulator*.cpp): the start times of the runs on each device, a row
// per device with sentinels on each side, and the searches over a row that the sentinels let
// go without bounds checks.

#include <algorithm>
#include <cstdint>

namespace paretune::detail {

constexpr std::int32_t kStartPad = 4; // sentinels on each side of a row of step starts

/// Galloping part of firstStartingAtOrAfter, for starts[from] < t.
[[gnu::noinline]] inline std::int32_t gallop(const double* starts, std::int32_t n, double t,
                                             std::int32_t from) {
    std::int32_t below = from;
    std::int32_t step = 1;
    while (below + step < n && starts[below + step] < t) {
        below += step;
        step *= 2;
    }
    std::int32_t above = std::min(below + step, n);
    while (above - below > 1) {
        const std::int32_t mid = below + (above - below) / 2;
        if (starts[mid] < t) {
            below = mid;
        } else {
            above = mid;
        }
    }
    return above;
}

/// Smallest k in [from, n] with starts[k] >= t (starts ascending, from <= n, +inf sentinels at
/// starts[n], starts[n + 1]). The answer is nearly always `from` or the step after: those two
/// are counted without a branch; further on it gallops.
inline std::int32_t firstStartingAtOrAfter(const double* starts, std::int32_t n, double t,
                                           std::int32_t from) {
    const int before = static_cast<int>(starts[from] < t) + static_cast<int>(starts[from + 1] < t);
    if (before == 2) [[unlikely]] {
        return gallop(starts, n, t, from + 1);
    }
    return from + before;
}

/// Smallest k in [0, upTo] with starts[k .. upTo - 1] all >= t (starts ascending, -inf
/// sentinels at starts[-2], starts[-1]): searching back from upTo, two steps at a time.
inline std::int32_t firstStartingAtOrAfterBack(const double* starts, std::int32_t upTo, double t) {
    for (;;) {
        const int after =
            static_cast<int>(starts[upTo - 1] >= t) + static_cast<int>(starts[upTo - 2] >= t);
        upTo -= after;
        if (after < 2) [[likely]] {
            return upTo;
        }
    }
}

} // namespace paretune::detail
