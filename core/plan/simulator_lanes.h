// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to Simulator::evaluateBatch (plan/simulator_batch.cpp): the operations its vector core
// is written in, on eight plans at once, one per AVX-512 lane. They are compiled for AVX-512
// (this header sets the target) and inlined into that core; nothing else may call them.

#include <immintrin.h>

#include <cstdint>

namespace paretune::lanes {

constexpr std::int64_t kLanes = 8;
constexpr std::int64_t kPad = 4; // sentinel steps on each side of a row of step starts
constexpr std::int64_t kMaxQueues = 16;
constexpr std::int64_t kMaxColumns = 16; // devices × variants

} // namespace paretune::lanes

#include "avx512_begin.h" // IWYU pragma: keep

namespace paretune::lanes {

#define PARETUNE_LANES inline __attribute__((always_inline))

PARETUNE_LANES __m512i splat(std::int64_t v) {
    return _mm512_set1_epi64(v);
}
PARETUNE_LANES __m512d splat(double v) {
    return _mm512_set1_pd(v);
}

/// Whole numbers 0 ≤ v < 2^52 as doubles, exactly (what static_cast<double> gives them): v's bits
/// as the mantissa of 2^52, less 2^52 (AVX-512F has no 64-bit integer conversion).
PARETUNE_LANES __m512d exactDoubles(__m512i v) {
    const __m512d twoTo52 = splat(4503599627370496.0);
    return _mm512_sub_pd(_mm512_castsi512_pd(_mm512_or_si512(v, _mm512_castpd_si512(twoTo52))),
                         twoTo52);
}
PARETUNE_LANES __m512i laneIndex() {
    return _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
}

/// Per device dd, the lanes whose `device` is dd.
template <int D> struct DeviceMasks { __mmask8 on[D]; };
template <int D> PARETUNE_LANES DeviceMasks<D> masksOf(__m512i device) {
    DeviceMasks<D> m;
    for (int dd = 0; dd < D; ++dd) {
        m.on[dd] = _mm512_cmpeq_epi64_mask(device, splat(std::int64_t{dd}));
    }
    return m;
}
template <int D> PARETUNE_LANES DeviceMasks<D> restricted(DeviceMasks<D> m, __mmask8 keep) {
    for (int dd = 0; dd < D; ++dd) {
        m.on[dd] &= keep;
    }
    return m;
}

/// Per lane, rows[device · 8 + lane]: rows is a [D][8] block (the entries of one buffer).
template <int D> PARETUNE_LANES __m512d pick(const double* rows, const DeviceMasks<D>& m) {
    __m512d v = _mm512_loadu_pd(rows);
    for (int dd = 1; dd < D; ++dd) {
        v = _mm512_mask_loadu_pd(v, m.on[dd], rows + dd * kLanes);
    }
    return v;
}
template <int D> PARETUNE_LANES __m512i pick(const std::int64_t* rows, const DeviceMasks<D>& m) {
    __m512i v = _mm512_loadu_si512(rows);
    for (int dd = 1; dd < D; ++dd) {
        v = _mm512_mask_loadu_epi64(v, m.on[dd], rows + dd * kLanes);
    }
    return v;
}
/// Per lane, the register of its device.
template <int D> PARETUNE_LANES __m512d pick(const __m512d* regs, const DeviceMasks<D>& m) {
    __m512d v = regs[0];
    for (int dd = 1; dd < D; ++dd) {
        v = _mm512_mask_mov_pd(v, m.on[dd], regs[dd]);
    }
    return v;
}
template <int D> PARETUNE_LANES __m512i pick(const __m512i* regs, const DeviceMasks<D>& m) {
    __m512i v = regs[0];
    for (int dd = 1; dd < D; ++dd) {
        v = _mm512_mask_mov_epi64(v, m.on[dd], regs[dd]);
    }
    return v;
}
/// rows[device · 8 + lane] = v for the lanes of the masks.
template <int D> PARETUNE_LANES void put(double* rows, const DeviceMasks<D>& m, __m512d v) {
    for (int dd = 0; dd < D; ++dd) {
        _mm512_mask_storeu_pd(rows + dd * kLanes, m.on[dd], v);
    }
}
template <int D> PARETUNE_LANES void put(std::int64_t* rows, const DeviceMasks<D>& m, __m512i v) {
    for (int dd = 0; dd < D; ++dd) {
        _mm512_mask_storeu_epi64(rows + dd * kLanes, m.on[dd], v);
    }
}

/// x · D for small non-negative x.
template <int D> PARETUNE_LANES __m512i timesDevices(__m512i x) {
    __m512i r = x;
    for (int i = 1; i < D; ++i) {
        r = _mm512_add_epi64(r, x);
    }
    return r;
}

/// Entry `index` of a table of up to 16 values (two registers).
PARETUNE_LANES __m512i lookup16(const std::int64_t* table, __m512i index) {
    return _mm512_permutex2var_epi64(_mm512_loadu_si512(table), index,
                                     _mm512_loadu_si512(table + kLanes));
}
PARETUNE_LANES __m512d lookup16(const double* table, __m512i index) {
    return _mm512_permutex2var_pd(_mm512_loadu_pd(table), index, _mm512_loadu_pd(table + kLanes));
}
/// Entry `index` of a table of at most 8 values.
PARETUNE_LANES __m512i lookup8(const std::int64_t* table, std::int64_t size, __m512i index) {
    return _mm512_permutexvar_epi64(
        index, _mm512_maskz_loadu_epi64(static_cast<__mmask8>((1u << size) - 1), table));
}
PARETUNE_LANES __m512d lookup8(const double* table, std::int64_t size, __m512i index) {
    return _mm512_permutexvar_pd(
        index, _mm512_maskz_loadu_pd(static_cast<__mmask8>((1u << size) - 1), table));
}

/// Entry `index` of a row of `size` ≤ 16 values (a step's cells, one per column of device and
/// variant), for each lane: a permutation of one register up to 8 values, of two beyond (every
/// load stays inside the row).
PARETUNE_LANES __m512d columnCell(const double* row, std::int64_t size, __m512i index) {
    if (size <= kLanes) {
        return lookup8(row, size, index);
    }
    const auto upper = static_cast<__mmask8>((1u << (size - kLanes)) - 1);
    return _mm512_permutex2var_pd(_mm512_loadu_pd(row), index,
                                  _mm512_maskz_loadu_pd(upper, row + kLanes));
}
PARETUNE_LANES __m512i columnCell(const std::int64_t* row, std::int64_t size, __m512i index) {
    if (size <= kLanes) {
        return lookup8(row, size, index);
    }
    const auto upper = static_cast<__mmask8>((1u << (size - kLanes)) - 1);
    return _mm512_permutex2var_epi64(_mm512_loadu_si512(row), index,
                                     _mm512_maskz_loadu_epi64(upper, row + kLanes));
}

PARETUNE_LANES __m512d gather(const double* base, __mmask8 m, __m512i index) {
    return _mm512_mask_i64gather_pd(_mm512_setzero_pd(), m, index, base, 8);
}
PARETUNE_LANES __m512i gather(const std::int64_t* base, __mmask8 m, __m512i index) {
    return _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), m, index, base, 8);
}
PARETUNE_LANES void scatter(double* base, __mmask8 m, __m512i index, __m512d v) {
    _mm512_mask_i64scatter_pd(base, m, index, v, 8);
}
PARETUNE_LANES void scatter(std::int64_t* base, __mmask8 m, __m512i index, __m512i v) {
    _mm512_mask_i64scatter_epi64(base, m, index, v, 8);
}
/// base[index] += v: the lanes' indices differ (each lane has its own entries).
PARETUNE_LANES void scatterAdd(std::int64_t* base, __mmask8 m, __m512i index, __m512i v) {
    scatter(base, m, index, _mm512_add_epi64(gather(base, m, index), v));
}

/// Index of step k in a row of a lane-interleaved table whose entry 0 is at `row`.
PARETUNE_LANES __m512i entry(__m512i row, __m512i k) {
    return _mm512_add_epi64(row, _mm512_slli_epi64(k, 3));
}

/// firstStartingAtOrAfterBack of step_starts.h per lane: smallest k in [0, upTo] with
/// starts[k .. upTo - 1] all >= t (-inf sentinels before each row). The last two starts,
/// starts[upTo - 1] and starts[upTo - 2] (-inf where there are none), come from registers: they
/// were stored only a few steps ago, and a load from what a scatter just wrote waits for it.
PARETUNE_LANES __m512i firstStartingAtOrAfterBack(const double* starts, __m512i row, __m512i upTo,
                                                  __m512d lastStart, __m512d previousStart,
                                                  __m512d t, __mmask8 active) {
    const __m512i one = splat(std::int64_t{1});
    const __mmask8 lastAfter = _mm512_mask_cmp_pd_mask(active, lastStart, t, _CMP_GE_OQ);
    active = _mm512_mask_cmp_pd_mask(lastAfter, previousStart, t, _CMP_GE_OQ);
    upTo = _mm512_mask_sub_epi64(upTo, lastAfter, upTo, one);
    upTo = _mm512_mask_sub_epi64(upTo, active, upTo, one);
    while (active != 0) {
        const __m512i last = entry(row, _mm512_sub_epi64(upTo, one));
        const __mmask8 a =
            _mm512_mask_cmp_pd_mask(active, gather(starts, active, last), t, _CMP_GE_OQ);
        const __mmask8 b = _mm512_mask_cmp_pd_mask(
            a, gather(starts, a, _mm512_sub_epi64(last, splat(kLanes))), t, _CMP_GE_OQ);
        upTo = _mm512_mask_sub_epi64(upTo, a, upTo, one);
        upTo = _mm512_mask_sub_epi64(upTo, b, upTo, one);
        active = b;
    }
    return upTo;
}

/// firstStartingAtOrAfter of step_starts.h per lane: smallest k in [from, n] with
/// starts[k] >= t (+inf sentinels after each row's last step), galloping past the next two.
PARETUNE_LANES __m512i firstStartingAtOrAfter(const double* starts, __m512i row, __m512i n,
                                              __m512d t, __m512i from, __mmask8 active) {
    const __m512i one = splat(std::int64_t{1});
    const __m512i at = entry(row, from);
    const __mmask8 first =
        _mm512_mask_cmp_pd_mask(active, gather(starts, active, at), t, _CMP_LT_OQ);
    if (first == 0) { // most often: nothing to settle
        return from;
    }
    const __mmask8 second = _mm512_mask_cmp_pd_mask(
        first, gather(starts, first, _mm512_add_epi64(at, splat(kLanes))), t, _CMP_LT_OQ);
    __m512i result = _mm512_mask_add_epi64(from, first, from, one);
    result = _mm512_mask_add_epi64(result, second, result, one);
    if (second == 0) [[likely]] {
        return result;
    }
    // Gallop from from + 1, then bisect (as gallop() in step_starts.h).
    __m512i below = _mm512_add_epi64(from, one);
    __m512i step = one;
    for (__mmask8 going = second; going != 0;) {
        const __m512i probe = _mm512_add_epi64(below, step);
        going = _mm512_mask_cmpgt_epi64_mask(going, n, probe);
        going =
            _mm512_mask_cmp_pd_mask(going, gather(starts, going, entry(row, probe)), t, _CMP_LT_OQ);
        below = _mm512_mask_add_epi64(below, going, below, step);
        step = _mm512_mask_slli_epi64(step, going, step, 1);
    }
    __m512i above = _mm512_min_epi64(_mm512_add_epi64(below, step), n);
    for (;;) {
        const __mmask8 wide =
            _mm512_mask_cmpgt_epi64_mask(second, _mm512_sub_epi64(above, below), one);
        if (wide == 0) {
            break;
        }
        const __m512i mid =
            _mm512_add_epi64(below, _mm512_srli_epi64(_mm512_sub_epi64(above, below), 1));
        const __mmask8 lower =
            _mm512_mask_cmp_pd_mask(wide, gather(starts, wide, entry(row, mid)), t, _CMP_LT_OQ);
        below = _mm512_mask_mov_epi64(below, lower, mid);
        above = _mm512_mask_mov_epi64(above, wide & ~lower, mid);
    }
    return _mm512_mask_mov_epi64(result, second, above);
}

#undef PARETUNE_LANES

} // namespace paretune::lanes

#include "avx512_end.h" // IWYU pragma: keep
