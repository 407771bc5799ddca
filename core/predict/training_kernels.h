// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Raw-float kernels of the predictor's training step (predictor_network.cpp): at this
// network's size, one LibTorch call per small operation costs more in dispatch, temporaries and
// generic strided loops than the arithmetic itself.

#include <cstddef>
#include <cstdint>

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

/// dst[cols × rows] = srcᵀ, src [rows × cols] with row stride srcStride, dst contiguous.
void transposeInto(float* dst, const float* src, int rows, int cols, std::ptrdiff_t srcStride);

/// rows[i, :] += a[ia[i], :] + b[ib[i], :] for i < n, then max(·, 0): the first hidden layer's
/// gathered embedding terms and its relu. All contiguous with `width` columns.
void addGatheredRowsRelu(float* rows, const float* a, const std::int64_t* ia, const float* b,
                         const std::int64_t* ib, int n, int width);

/// table[index[i], :] = Σ rows[i, :] over i < n (table zeroed first, tableRows × width).
void sumRowsByIndex(float* table, int tableRows, const float* rows, const std::int64_t* index,
                    int n, int width);

/// One Adam step (torch::optim::Adam's update, no weight decay) over `count` parameters:
/// first = β1·first + (1-β1)·g; second = β2·second + (1-β2)·g²;
/// value -= lr / (1-β1^t) · first / (sqrt(second) / sqrt(1-β2^t) + eps), t = step ≥ 1.
/// `maxVectorBits` caps the instruction set as for smallGemm (0: plain loop).
void adamStep(float* value, const float* gradient, float* first, float* second, std::int64_t count,
              double learningRate, double beta1, double beta2, double eps, int step,
              int maxVectorBits = 512);

} // namespace paretune
