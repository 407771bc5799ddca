// SPDX-License-Identifier: GPL-3.0-or-later
#include "measurement.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

namespace paretune {

double medianOf(std::vector<double> values) {
    return percentileOf(std::move(values), 0.5);
}

double trimmedMeanOf(std::vector<double> values, double share) {
    if (values.empty()) {
        return 0.0;
    }
    std::sort(values.begin(), values.end());
    const auto drop = static_cast<std::size_t>(
        std::floor(std::clamp(share, 0.0, 0.4999) * static_cast<double>(values.size())));
    const auto kept = values.size() - 2 * drop;
    return std::accumulate(values.begin() + static_cast<std::ptrdiff_t>(drop),
                           values.end() - static_cast<std::ptrdiff_t>(drop), 0.0) /
           static_cast<double>(kept);
}

double percentileOf(std::vector<double> values, double q) {
    if (values.empty()) {
        return 0.0;
    }
    std::sort(values.begin(), values.end());
    const double position = std::clamp(q, 0.0, 1.0) * static_cast<double>(values.size() - 1);
    const auto lower = static_cast<std::size_t>(std::floor(position));
    const std::size_t upper = std::min(lower + 1, values.size() - 1);
    const double weight = position - static_cast<double>(lower);
    // std::lerp, not a·(1−w) + b·w: between equal timings that sum can round one ulp below them,
    // and a p90 then reads below its median (tied microsecond timings are common for tiny ops).
    // lerp is exact at equal ends and monotone in w, so percentiles keep their order.
    return std::lerp(values[lower], values[upper], weight);
}

std::vector<double> rejectOutliersMad(const std::vector<double>& samples, double cutoff) {
    if (samples.size() < 3) {
        return samples;
    }
    const double median = medianOf(samples);
    std::vector<double> deviations;
    deviations.reserve(samples.size());
    for (double s : samples) {
        deviations.push_back(std::abs(s - median));
    }
    const double mad = medianOf(deviations);
    const double band = std::max(cutoff * 1.4826 * mad, 0.01 * std::abs(median));
    std::vector<double> kept;
    kept.reserve(samples.size());
    for (double s : samples) {
        if (std::abs(s - median) <= band) {
            kept.push_back(s);
        }
    }
    return kept;
}

LatencyStats summariseRound(const std::vector<double>& samplesUs, double cutoff) {
    const std::vector<double> kept = rejectOutliersMad(samplesUs, cutoff);
    LatencyStats stats;
    stats.medianUs = medianOf(kept);
    stats.p10Us = percentileOf(kept, 0.1);
    stats.p90Us = percentileOf(kept, 0.9);
    stats.repeats = static_cast<int>(kept.size());
    stats.rejected = static_cast<int>(samplesUs.size() - kept.size());
    stats.rounds = 1;
    return stats;
}

LatencyStats combineRounds(const std::vector<LatencyStats>& rounds) {
    LatencyStats out;
    std::vector<double> medians;
    std::vector<double> p10;
    std::vector<double> p90;
    for (const LatencyStats& r : rounds) {
        medians.push_back(r.medianUs);
        p10.push_back(r.p10Us);
        p90.push_back(r.p90Us);
        out.repeats += r.repeats;
        out.rejected += r.rejected;
        out.rounds += r.rounds;
    }
    out.medianUs = medianOf(medians);
    out.p10Us = medianOf(p10);
    out.p90Us = medianOf(p90);
    return out;
}

int repeatsFor(double estimateUs, const MeasureOptions& options) {
    const double estimate = std::max(estimateUs, 0.01);
    const double forTime = std::ceil(options.minMeasureMs * 1000.0 / estimate);
    double repeats = std::max(forTime, static_cast<double>(options.minRepeats));
    // Very slow ops: keep a round under maxRoundMs, but never fewer than 3 samples (a median
    // needs them).
    const double affordable = std::floor(options.maxRoundMs * 1000.0 / estimate);
    repeats = std::min(repeats, std::max(affordable, 3.0));
    repeats = std::min(repeats, static_cast<double>(std::max(options.maxRepeats, 3)));
    return static_cast<int>(repeats);
}

LatencyStats measureLatency(const std::function<void()>& run, const MeasureOptions& options) {
    using Clock = std::chrono::steady_clock;
    return measureLatency(run, options, [](const std::function<void()>& once) {
        const auto start = Clock::now();
        once();
        return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
    });
}

LatencyStats measureLatency(const std::function<void()>& run, const MeasureOptions& options,
                            const RunTimer& timer) {
    auto timeOnce = [&run, &timer] { return timer(run); };
    std::vector<LatencyStats> rounds;
    const int roundCount = std::max(options.rounds, 1);
    std::vector<double> samples;
    for (int round = 0; round < roundCount; ++round) {
        double estimate = 0.0;
        for (int i = 0; i < std::max(options.warmupRuns, 1); ++i) {
            const double t = timeOnce();
            estimate = i == 0 ? t : std::min(estimate, t);
        }
        const int repeats = repeatsFor(estimate, options);
        samples.clear();
        samples.reserve(static_cast<std::size_t>(repeats));
        for (int i = 0; i < repeats; ++i) {
            samples.push_back(timeOnce());
        }
        rounds.push_back(summariseRound(samples, options.madCutoff));
    }
    return combineRounds(rounds);
}

} // namespace paretune
