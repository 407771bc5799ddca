// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace paretune {

struct DeviceFigures;

/// How well predicted latencies match measured ones over a set of operator rows.
struct AccuracyMetrics {
    std::size_t ops = 0;
    double mapePercent = 0.0; ///< mean |predicted − measured| / measured, in percent
    double within10 = 0.0;    ///< share of ops with |predicted − measured| ≤ 10% of measured
    double spearman = 0.0;    ///< rank correlation of predicted and measured latencies
    std::size_t groups = 0;   ///< (model, device) pairs
    double endToEndPercent = 0.0; ///< mean over pairs of |Σ predicted − Σ measured| / Σ measured
    double endToEndMaxPercent = 0.0;
};

/// Spearman rank correlation (average ranks for ties); 0 when either side is constant or
/// there are fewer than two values.
double spearmanCorrelation(std::span<const double> a, std::span<const double> b);

/// Metrics of `predicted` against `measured` (same length, measured > 0); `groups[i]` names the
/// (model, device) pair of row i for the end-to-end error of summed latencies.
AccuracyMetrics accuracyMetrics(std::span<const double> predicted, std::span<const double> measured,
                                std::span<const std::string> groups);

nlohmann::json toJson(const AccuracyMetrics& metrics);
/// The inverse of toJson; a field that is missing or not a number stays 0.
AccuracyMetrics accuracyMetricsFromJson(const nlohmann::json& json);

/// The baseline the predictor must beat: the roofline model (as the catalog computes it, see
/// DeviceSpec::rooflineLatencyUs) with the device's micro-benchmarked GEMM rate as peak and
/// its triad bandwidth, no launch overhead and efficiency 1. 0 without micro-benchmark figures.
double rooflineBaselineUs(const DeviceFigures& device, std::string_view opType, double flops,
                          double bytes);

} // namespace paretune
