#pragma once

#include <cstddef>

namespace paretune {

/// C = bias + A·B for the small float matrices of the predictor's training step (up to a few
/// hundred rows and columns), with AVX-512 or AVX2+FMA register-blocked loops chosen at run time.
/// Row-major B (row stride ldb) and C (row stride ldc); A's element (i, p) is at
/// a[i * aRow + p * aCol], so A may be a transposed view; `bias` (n values, added to every row)
/// may be null. The system BLAS is not used here because on CPUs it does not recognise it falls
/// back to SSE3 kernels several times slower.
///
/// `maxVectorBits` caps the instruction set (512: the best the CPU has, 256: AVX2 at most, 0:
/// none; tests use it to check every path). Returns false, writing nothing, when no allowed
/// instruction set is available or n is not a multiple of 8; the caller then uses another
/// product.
bool smallGemm(int m, int n, int k, const float* a, std::ptrdiff_t aRow, std::ptrdiff_t aCol,
               const float* b, std::ptrdiff_t ldb, const float* bias, float* c, std::ptrdiff_t ldc,
               int maxVectorBits = 512);

} // namespace paretune
