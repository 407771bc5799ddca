#include "small_gemm.h"

#include <cstring>

namespace paretune {

namespace {

using Vec16 = float __attribute__((vector_size(64)));
using Vec8 = float __attribute__((vector_size(32)));

// By reference: vectors passed by value would change the ABI with the instruction set.
template <typename V> inline __attribute__((always_inline)) void load(V& v, const float* p) {
    std::memcpy(&v, p, sizeof v);
}

/// All lanes *x, as one broadcast load: lane 0 loaded, then shuffled to every lane (a vector
/// constructor, scalar × vector or 0 + x give lane-by-lane inserts or an extra add instead).
inline __attribute__((always_inline)) void splat(Vec16& v, const float* x) {
    Vec16 t{};
    t[0] = *x;
    v = __builtin_shufflevector(t, t, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
}
inline __attribute__((always_inline)) void splat(Vec8& v, const float* x) {
    Vec8 t{};
    t[0] = *x;
    v = __builtin_shufflevector(t, t, 0, 0, 0, 0, 0, 0, 0, 0);
}

template <typename V> inline __attribute__((always_inline)) void store(float* p, const V& v) {
    std::memcpy(p, &v, sizeof v);
}

/// Columns [j, j + C·W) of C for all rows, R rows at a time: R × C accumulators stay in
/// registers over the whole k loop, each step one row of B (C vectors) and R broadcasts of A.
template <typename V, int R, int C>
inline __attribute__((always_inline)) void
columnBlock(int m, int k, const float* a, std::ptrdiff_t aRow, std::ptrdiff_t aCol, const float* b,
            std::ptrdiff_t ldb, const float* bias, float* c, std::ptrdiff_t ldc) {
    constexpr int W = sizeof(V) / sizeof(float);
    V start[C];
#pragma GCC unroll 16
    for (int v = 0; v < C; ++v) {
        start[v] = V{};
        if (bias != nullptr) {
            load(start[v], bias + v * W);
        }
    }
    int i = 0;
    for (; i + R <= m; i += R) {
        V acc[R][C];
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) {
#pragma GCC unroll 16
            for (int v = 0; v < C; ++v) {
                acc[r][v] = start[v];
            }
        }
        const float* row = a + i * aRow;
        for (int p = 0; p < k; ++p) {
            V bv[C];
#pragma GCC unroll 16
            for (int v = 0; v < C; ++v) {
                load(bv[v], b + p * ldb + v * W);
            }
#pragma GCC unroll 16
            for (int r = 0; r < R; ++r) {
                V s;
                splat(s, row + r * aRow + p * aCol);
#pragma GCC unroll 16
                for (int v = 0; v < C; ++v) {
                    acc[r][v] += s * bv[v];
                }
            }
        }
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) {
#pragma GCC unroll 16
            for (int v = 0; v < C; ++v) {
                store(c + (i + r) * ldc + v * W, acc[r][v]);
            }
        }
    }
    for (; i < m; ++i) {
        V acc[C];
#pragma GCC unroll 16
        for (int v = 0; v < C; ++v) {
            acc[v] = start[v];
        }
        for (int p = 0; p < k; ++p) {
            V s;
            splat(s, a + i * aRow + p * aCol);
#pragma GCC unroll 16
            for (int v = 0; v < C; ++v) {
                V bv;
                load(bv, b + p * ldb + v * W);
                acc[v] += s * bv;
            }
        }
#pragma GCC unroll 16
        for (int v = 0; v < C; ++v) {
            store(c + i * ldc + v * W, acc[v]);
        }
    }
}

template <typename V, int R>
inline __attribute__((always_inline)) void
gemm(int m, int n, int k, const float* a, std::ptrdiff_t aRow, std::ptrdiff_t aCol, const float* b,
     std::ptrdiff_t ldb, const float* bias, float* c, std::ptrdiff_t ldc) {
    constexpr int W = sizeof(V) / sizeof(float);
    int j = 0;
    for (; j + 2 * W <= n; j += 2 * W) {
        columnBlock<V, R, 2>(m, k, a, aRow, aCol, b + j, ldb, bias != nullptr ? bias + j : nullptr,
                             c + j, ldc);
    }
    for (; j + W <= n; j += W) {
        columnBlock<V, R, 1>(m, k, a, aRow, aCol, b + j, ldb, bias != nullptr ? bias + j : nullptr,
                             c + j, ldc);
    }
}

__attribute__((target("avx512f"))) void
gemmAvx512(int m, int n, int k, const float* a, std::ptrdiff_t aRow, std::ptrdiff_t aCol,
           const float* b, std::ptrdiff_t ldb, const float* bias, float* c, std::ptrdiff_t ldc) {
    gemm<Vec16, 8>(m, n, k, a, aRow, aCol, b, ldb, bias, c, ldc);
}

__attribute__((target("avx2,fma"))) void gemmAvx2(int m, int n, int k, const float* a,
                                                  std::ptrdiff_t aRow, std::ptrdiff_t aCol,
                                                  const float* b, std::ptrdiff_t ldb,
                                                  const float* bias, float* c, std::ptrdiff_t ldc) {
    gemm<Vec8, 4>(m, n, k, a, aRow, aCol, b, ldb, bias, c, ldc);
}

enum class Isa { None, Avx2, Avx512 };

Isa detectIsa() {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) {
        return Isa::Avx512;
    }
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        return Isa::Avx2;
    }
    return Isa::None;
}

} // namespace

bool smallGemm(int m, int n, int k, const float* a, std::ptrdiff_t aRow, std::ptrdiff_t aCol,
               const float* b, std::ptrdiff_t ldb, const float* bias, float* c, std::ptrdiff_t ldc,
               int maxVectorBits) {
    static const Isa isa = detectIsa();
    if (maxVectorBits < 256 || n % 8 != 0 || isa == Isa::None) {
        return false;
    }
    if (isa == Isa::Avx512 && maxVectorBits >= 512 && n % 16 == 0) {
        gemmAvx512(m, n, k, a, aRow, aCol, b, ldb, bias, c, ldc);
    } else {
        gemmAvx2(m, n, k, a, aRow, aCol, b, ldb, bias, c, ldc);
    }
    return true;
}

} // namespace paretune
