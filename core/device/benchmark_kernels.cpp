// SPDX-License-Identifier: GPL-3.0-or-later
#include "benchmark_kernels.h"

#include <algorithm>

namespace paretune::kernels {

// --- fp32 GEMM ---------------------------------------------------------------------------------
// This kernel characterises the device (its cores, SIMD width, caches) with code we control, so
// the figure means the same thing on every machine and under every BLAS. It is *not* the BLAS
// figure LibTorch reaches; a tuned BLAS is usually several times faster.

namespace {

constexpr int kTileRows = 4;
constexpr int kTileCols = 64;
constexpr int kBlockK = 128;

} // namespace

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=skylake-avx512", "arch=haswell", "default")))
#endif
void gemmKernel(const float* a, const float* b, float* c, int n) {
    for (int kk = 0; kk < n; kk += kBlockK) {
        const int kEnd = std::min(kk + kBlockK, n);
        for (int i = 0; i < n; i += kTileRows) {
            for (int jj = 0; jj < n; jj += kTileCols) {
                float acc[kTileRows][kTileCols];
                for (int r = 0; r < kTileRows; ++r) {
                    for (int j = 0; j < kTileCols; ++j) {
                        acc[r][j] = c[(i + r) * n + jj + j];
                    }
                }
                for (int k = kk; k < kEnd; ++k) {
                    const float* bRow = b + k * n + jj;
                    const float a0 = a[(i + 0) * n + k];
                    const float a1 = a[(i + 1) * n + k];
                    const float a2 = a[(i + 2) * n + k];
                    const float a3 = a[(i + 3) * n + k];
                    for (int j = 0; j < kTileCols; ++j) {
                        acc[0][j] += a0 * bRow[j];
                        acc[1][j] += a1 * bRow[j];
                        acc[2][j] += a2 * bRow[j];
                        acc[3][j] += a3 * bRow[j];
                    }
                }
                for (int r = 0; r < kTileRows; ++r) {
                    for (int j = 0; j < kTileCols; ++j) {
                        c[(i + r) * n + jj + j] = acc[r][j];
                    }
                }
            }
        }
    }
}

/// a[i] = b[i] + s·c[i] over [begin, end).
void triadKernel(float* a, const float* b, const float* c, float s, std::int64_t begin,
                 std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
        a[i] = b[i] + s * c[i];
    }
}

} // namespace paretune::kernels
