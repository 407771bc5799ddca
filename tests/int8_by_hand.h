// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// ONNX's quantized operators worked by hand for tst_int8: integer inputs spread by a fixed rule,
// and QLinearConv and QLinearMatMul computed by their definitions.
#include "profile/graph_executor.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace int8_by_hand {

using paretune::DType;
using paretune::HostTensor;

/// Integers in [lo, hi], spread by a fixed rule.
inline std::vector<std::int64_t> integers(int n, std::int64_t lo, std::int64_t hi) {
    std::vector<std::int64_t> v;
    for (int i = 0; i < n; ++i) {
        v.push_back(lo + (i * 53 + 11) % (hi - lo + 1));
    }
    return v;
}

inline std::string text(const std::vector<std::int64_t>& v) {
    std::string t;
    for (std::size_t i = 0; i < v.size(); ++i) {
        t += (i ? ", " : "") + std::to_string(v[i]);
    }
    return t;
}

inline HostTensor integerTensor(DType type, std::vector<std::int64_t> dims,
                                std::vector<std::int64_t> ints) {
    HostTensor t;
    t.dtype = type;
    t.dims = std::move(dims);
    t.ints = std::move(ints);
    return t;
}

/// QLinearConv over x [1, 2, 4, 4] with w [3, 2, 3, 3], pads 1, by its definition: the integer
/// sum of (x − x_zero) · (w − w_zero) plus the int32 bias, at scale x_scale · w_scale, requantized
/// to y_scale and y_zero (round half to even, saturated to uint8).
inline std::vector<std::int64_t>
qlinearConvByHand(const std::vector<std::int64_t>& x, double xs, std::int64_t xz,
                  const std::vector<std::int64_t>& w, const std::vector<double>& ws,
                  const std::vector<std::int64_t>& wz, double ys, std::int64_t yz,
                  const std::vector<std::int64_t>& b) {
    std::vector<std::int64_t> y;
    for (int m = 0; m < 3; ++m) {
        for (int i = 0; i < 4; ++i) {
            for (int j = 0; j < 4; ++j) {
                std::int64_t acc = b[static_cast<std::size_t>(m)];
                for (int c = 0; c < 2; ++c) {
                    for (int ki = 0; ki < 3; ++ki) {
                        for (int kj = 0; kj < 3; ++kj) {
                            const int r = i + ki - 1;
                            const int s = j + kj - 1;
                            if (r < 0 || r >= 4 || s < 0 || s >= 4) {
                                continue; // padding holds the zero point: contributes 0
                            }
                            const std::int64_t xv =
                                x[static_cast<std::size_t>((c * 4 + r) * 4 + s)];
                            const std::int64_t wv =
                                w[static_cast<std::size_t>(((m * 2 + c) * 3 + ki) * 3 + kj)];
                            acc += (xv - xz) * (wv - wz[static_cast<std::size_t>(m)]);
                        }
                    }
                }
                const double real = static_cast<double>(acc) * xs * ws[static_cast<std::size_t>(m)];
                const double q = std::nearbyint(real / ys) + static_cast<double>(yz);
                y.push_back(static_cast<std::int64_t>(std::clamp(q, 0.0, 255.0)));
            }
        }
    }
    return y;
}

/// QLinearMatMul of a [M, K] (uint8) by b [K, N] (int8) by its definition: the integer sum of
/// (a − a_zero) · (b − b_zero[n]) at scale a_scale · b_scale[n], requantized to y_scale and
/// y_zero (round half to even, saturated to uint8). Row-major, batches of a stacked on M.
inline std::vector<std::int64_t>
qlinearMatMulByHand(int m, int k, int n, const std::vector<std::int64_t>& a, double as,
                    std::int64_t az, const std::vector<std::int64_t>& b,
                    const std::vector<double>& bs, const std::vector<std::int64_t>& bz, double ys,
                    std::int64_t yz) {
    std::vector<std::int64_t> y;
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
            std::int64_t acc = 0;
            for (int l = 0; l < k; ++l) {
                acc += (a[static_cast<std::size_t>(i * k + l)] - az) *
                       (b[static_cast<std::size_t>(l * n + j)] - bz[static_cast<std::size_t>(j)]);
            }
            const double real = static_cast<double>(acc) * as * bs[static_cast<std::size_t>(j)];
            const double q = std::nearbyint(real / ys) + static_cast<double>(yz);
            y.push_back(static_cast<std::int64_t>(std::clamp(q, 0.0, 255.0)));
        }
    }
    return y;
}

} // namespace int8_by_hand
