// SPDX-License-Identifier: GPL-3.0-or-later
#include "accuracy_metrics.h"

#include "cost/device_catalog.h"
#include "op_features.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <vector>

namespace paretune {

namespace {

std::vector<double> averageRanks(std::span<const double> values) {
    std::vector<std::size_t> order(values.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
    std::vector<double> ranks(values.size());
    for (std::size_t i = 0; i < order.size();) {
        std::size_t j = i;
        while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) {
            ++j;
        }
        const double rank = (static_cast<double>(i) + static_cast<double>(j)) / 2.0;
        for (std::size_t k = i; k <= j; ++k) {
            ranks[order[k]] = rank;
        }
        i = j + 1;
    }
    return ranks;
}

} // namespace

double spearmanCorrelation(std::span<const double> a, std::span<const double> b) {
    const std::size_t n = std::min(a.size(), b.size());
    if (n < 2) {
        return 0.0;
    }
    const std::vector<double> ra = averageRanks(a.first(n));
    const std::vector<double> rb = averageRanks(b.first(n));
    const double mean = (static_cast<double>(n) - 1.0) / 2.0;
    double cov = 0.0;
    double va = 0.0;
    double vb = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        cov += (ra[i] - mean) * (rb[i] - mean);
        va += (ra[i] - mean) * (ra[i] - mean);
        vb += (rb[i] - mean) * (rb[i] - mean);
    }
    return va > 0.0 && vb > 0.0 ? cov / std::sqrt(va * vb) : 0.0;
}

AccuracyMetrics accuracyMetrics(std::span<const double> predicted, std::span<const double> measured,
                                std::span<const std::string> groups) {
    AccuracyMetrics m;
    m.ops = std::min(predicted.size(), measured.size());
    if (m.ops == 0) {
        return m;
    }
    std::map<std::string, std::pair<double, double>> sums; // predicted, measured
    std::size_t within = 0;
    double errorSum = 0.0;
    for (std::size_t i = 0; i < m.ops; ++i) {
        const double error = std::abs(predicted[i] - measured[i]) / measured[i];
        errorSum += error;
        within += error <= 0.10 ? 1 : 0;
        auto& sum = sums[i < groups.size() ? groups[i] : std::string()];
        sum.first += predicted[i];
        sum.second += measured[i];
    }
    m.mapePercent = 100.0 * errorSum / static_cast<double>(m.ops);
    m.within10 = static_cast<double>(within) / static_cast<double>(m.ops);
    m.spearman = spearmanCorrelation(predicted.first(m.ops), measured.first(m.ops));
    m.groups = sums.size();
    for (const auto& [group, sum] : sums) {
        const double error = 100.0 * std::abs(sum.first - sum.second) / sum.second;
        m.endToEndPercent += error / static_cast<double>(sums.size());
        m.endToEndMaxPercent = std::max(m.endToEndMaxPercent, error);
    }
    return m;
}

nlohmann::json toJson(const AccuracyMetrics& m) {
    return {{"ops", m.ops},
            {"mape_percent", m.mapePercent},
            {"within_10_percent", m.within10},
            {"spearman", m.spearman},
            {"pairs", m.groups},
            {"end_to_end_error_percent", m.endToEndPercent},
            {"end_to_end_max_error_percent", m.endToEndMaxPercent}};
}

AccuracyMetrics accuracyMetricsFromJson(const nlohmann::json& json) {
    const auto number = [&json](const char* key) {
        const auto it = json.is_object() ? json.find(key) : json.end();
        return it != json.end() && it->is_number() ? it->get<double>() : 0.0;
    };
    const auto count = [&number](const char* key) {
        const double n = number(key);
        return n > 0.0 ? static_cast<std::size_t>(n) : std::size_t{0};
    };
    AccuracyMetrics m;
    m.ops = count("ops");
    m.mapePercent = number("mape_percent");
    m.within10 = number("within_10_percent");
    m.spearman = number("spearman");
    m.groups = count("pairs");
    m.endToEndPercent = number("end_to_end_error_percent");
    m.endToEndMaxPercent = number("end_to_end_max_error_percent");
    return m;
}

double rooflineBaselineUs(const DeviceFigures& device, std::string_view opType, double flops,
                          double bytes) {
    if (!device.hasMicroBenchmark()) {
        return 0.0;
    }
    DeviceSpec spec;
    spec.peakGflops = device.gemmGflops;
    spec.memBwGbs = device.memoryBwGbs;
    return spec.rooflineLatencyUs(opType, flops, bytes);
}

} // namespace paretune
