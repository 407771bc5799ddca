// SPDX-License-Identifier: GPL-3.0-or-later
#include "training_kernels.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
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

void transposeInto(float* dst, const float* src, int rows, int cols, std::ptrdiff_t srcStride) {
    constexpr int kBlock = 16; // a 16 × 16 tile of both stays in L1
    for (int i0 = 0; i0 < rows; i0 += kBlock) {
        for (int j0 = 0; j0 < cols; j0 += kBlock) {
            const int i1 = std::min(rows, i0 + kBlock);
            const int j1 = std::min(cols, j0 + kBlock);
            for (int j = j0; j < j1; ++j) {
                for (int i = i0; i < i1; ++i) {
                    dst[static_cast<std::ptrdiff_t>(j) * rows + i] = src[i * srcStride + j];
                }
            }
        }
    }
}

void addGatheredRowsRelu(float* rows, const float* a, const std::int64_t* ia, const float* b,
                         const std::int64_t* ib, int n, int width) {
    for (int i = 0; i < n; ++i) {
        float* row = rows + static_cast<std::ptrdiff_t>(i) * width;
        const float* x = a + ia[i] * width;
        const float* y = b + ib[i] * width;
        for (int j = 0; j < width; ++j) {
            row[j] = std::max(row[j] + x[j] + y[j], 0.0f);
        }
    }
}

void sumRowsByIndex(float* table, int tableRows, const float* rows, const std::int64_t* index,
                    int n, int width) {
    std::fill(table, table + static_cast<std::ptrdiff_t>(tableRows) * width, 0.0f);
    for (int i = 0; i < n; ++i) {
        float* out = table + index[i] * width;
        const float* row = rows + static_cast<std::ptrdiff_t>(i) * width;
        for (int j = 0; j < width; ++j) {
            out[j] += row[j];
        }
    }
}

namespace {

struct AdamFactors {
    float beta1, beta2, oneMinusBeta1, oneMinusBeta2, inverseRootCorrection2, eps, stepSize;
};

inline __attribute__((always_inline)) void adamScalar(float& value, float gradient, float& first,
                                                      float& second, const AdamFactors& f) {
    first = f.beta1 * first + f.oneMinusBeta1 * gradient;
    second = f.beta2 * second + f.oneMinusBeta2 * gradient * gradient;
    value -= f.stepSize * first / (std::sqrt(second) * f.inverseRootCorrection2 + f.eps);
}

/// Lane-wise square root (the ISA builtins; used only inlined into functions of that target, so
/// the ABI note about vector returns outside those targets does not apply).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
#if defined(__clang__)
// clang checks a builtin's ISA where it is written, not where it is inlined (into the generic
// template between it and the ISA's kernels): lane by lane, which it vectorises there.
template <typename V> inline __attribute__((always_inline)) void squareRoot(V& v) {
    for (int lane = 0; lane < static_cast<int>(sizeof(V) / sizeof(float)); ++lane) {
        v[lane] = __builtin_sqrtf(v[lane]);
    }
}
#else
inline __attribute__((always_inline)) void squareRoot(Vec16& v) {
    v = __builtin_ia32_sqrtps512_mask(v, v, static_cast<unsigned short>(0xFFFF),
                                      _MM_FROUND_CUR_DIRECTION);
}
inline __attribute__((always_inline)) void squareRoot(Vec8& v) {
    v = __builtin_ia32_sqrtps256(v);
}
#endif
#pragma GCC diagnostic pop

template <typename V>
inline __attribute__((always_inline)) void adamVector(float* value, const float* gradient,
                                                      float* first, float* second,
                                                      std::int64_t count, const AdamFactors& f) {
    constexpr int W = sizeof(V) / sizeof(float);
    std::int64_t i = 0;
    for (; i + W <= count; i += W) {
        V g, m, v, p;
        load(g, gradient + i);
        load(m, first + i);
        load(v, second + i);
        load(p, value + i);
        m = f.beta1 * m + f.oneMinusBeta1 * g;
        v = f.beta2 * v + f.oneMinusBeta2 * g * g;
        V root = v;
        squareRoot(root);
        p -= f.stepSize * m / (root * f.inverseRootCorrection2 + f.eps);
        store(first + i, m);
        store(second + i, v);
        store(value + i, p);
    }
    for (; i < count; ++i) {
        adamScalar(value[i], gradient[i], first[i], second[i], f);
    }
}

__attribute__((target("avx512f"))) void adamAvx512(float* value, const float* gradient,
                                                   float* first, float* second, std::int64_t count,
                                                   const AdamFactors& f) {
    adamVector<Vec16>(value, gradient, first, second, count, f);
}

__attribute__((target("avx2"))) void adamAvx2(float* value, const float* gradient, float* first,
                                              float* second, std::int64_t count,
                                              const AdamFactors& f) {
    adamVector<Vec8>(value, gradient, first, second, count, f);
}

} // namespace

void adamStep(float* value, const float* gradient, float* first, float* second, std::int64_t count,
              double learningRate, double beta1, double beta2, double eps, int step,
              int maxVectorBits) {
    const double correction1 = 1.0 - std::pow(beta1, step);
    const double correction2 = 1.0 - std::pow(beta2, step);
    const AdamFactors f{static_cast<float>(beta1),
                        static_cast<float>(beta2),
                        static_cast<float>(1.0 - beta1),
                        static_cast<float>(1.0 - beta2),
                        static_cast<float>(1.0 / std::sqrt(correction2)),
                        static_cast<float>(eps),
                        static_cast<float>(learningRate / correction1)};
    static const Isa isa = detectIsa();
    if (isa == Isa::Avx512 && maxVectorBits >= 512) {
        adamAvx512(value, gradient, first, second, count, f);
    } else if (isa != Isa::None && maxVectorBits >= 256) {
        adamAvx2(value, gradient, first, second, count, f);
    } else {
        for (std::int64_t i = 0; i < count; ++i) {
            adamScalar(value[i], gradient[i], first[i], second[i], f);
        }
    }
}

} // namespace paretune
