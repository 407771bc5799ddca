// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The kernels of the device micro-benchmarks (micro_benchmark.cpp, corun_benchmark.cpp): code we
// control, so a figure means the same thing on every machine and under every BLAS. Private to
// core/device.

#include <cstdint>

namespace paretune::kernels {

/// Side of the square GEMM matrices; A, B and C (768 KiB) stay in L2 or L3.
inline constexpr int kGemmN = 256;

/// C += A·B for n×n row-major matrices (n a multiple of 64), cache-blocked over k and
/// register-tiled 4×64. Cloned for AVX-512, AVX2 and baseline x86-64, chosen at load time.
void gemmKernel(const float* a, const float* b, float* c, int n);

/// a[i] = b[i] + s·c[i] over [begin, end): STREAM's triad.
void triadKernel(float* a, const float* b, const float* c, float s, std::int64_t begin,
                 std::int64_t end);

} // namespace paretune::kernels
