// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace paretune {

/// How one operator (or one whole-model run) is timed. The defaults follow the profiling
/// discipline of the sample library: warm-up runs, then per round as many timed repeats as
/// give at least `minMeasureMs` of measurement and at least `minRepeats` runs (fewer only for
/// runs slower than `maxRoundMs / minRepeats`), outliers rejected by MAD, and the median of
/// `rounds` rounds kept.
struct MeasureOptions {
    int threads = 1;          ///< intra-op threads, set explicitly (1 for a one-core device)
    std::vector<int> cpuSet;  ///< CPU ids the calling thread is pinned to; empty: not pinned
    int warmupRuns = 2;       ///< untimed runs before each round
    int rounds = 3;           ///< whole measurement repeated; the median round is kept
    double minMeasureMs = 50; ///< per round, timed runs add up to at least this
    int minRepeats = 5;       ///< per round, at least this many timed runs...
    double maxRoundMs = 3000; ///< ...unless a round would exceed this (very slow ops)
    int maxRepeats = 20000;   ///< per round, cap for very fast ops
    double madCutoff =
        3.0; ///< a sample further than this many scaled MADs from the median is rejected
    bool measureEnergy = true;   ///< read RAPL when readable
    double energyWindowMs = 200; ///< RAPL window per op (its counters update every ~1 ms)
    std::uint64_t seed = 0x5eed; ///< random inputs are reproducible
    /// A CUDA device (its index): inputs live there and runs are timed with CUDA events on its
    /// current stream; -1: the CPU, timed with the steady clock.
    int cudaIndex = -1;
};

/// Robust summary of one set of timings (microseconds).
struct LatencyStats {
    double medianUs = 0;
    double p10Us = 0;
    double p90Us = 0;
    int repeats = 0;  ///< samples kept after outlier rejection, all rounds together
    int rejected = 0; ///< samples rejected as outliers, all rounds together
    int rounds = 0;
};

/// Median of the values (by copy); 0 for none.
double medianOf(std::vector<double> values);
/// Percentile q in [0,1] with linear interpolation between order statistics; 0 for none.
double percentileOf(std::vector<double> values, double q);
/// Mean of the values (by copy) less floor(share · n) of the lowest and as many of the highest
/// (share in [0, 0.5)); 0 for none. Unlike medians, means add up: a plan's run is the sum of its
/// nodes, so the sum of the nodes' means is its mean, while the sum of their medians falls short
/// of it wherever their times skew to the slow side. The trim keeps a rare stall (one run in
/// twenty) out.
double trimmedMeanOf(std::vector<double> values, double share);
/// Drops the samples further than cutoff * 1.4826 * MAD from the median (MAD: median absolute
/// deviation; 1.4826 makes it a standard-deviation estimate for normal noise). When the MAD is
/// zero the band is 1% of the median, so identical timings are all kept.
std::vector<double> rejectOutliersMad(const std::vector<double>& samples, double cutoff = 3.0);
/// Summarises one round of samples: outliers rejected, then median, p10, p90.
LatencyStats summariseRound(const std::vector<double>& samplesUs, double cutoff = 3.0);
/// Combines rounds: the median of the rounds' medians, p10 and p90 likewise; repeats summed.
LatencyStats combineRounds(const std::vector<LatencyStats>& rounds);

/// Times `run` with the discipline of `options` (threads and pinning are the caller's job):
/// warm-up, adaptive repeat count, MAD rejection, median of rounds. `run` may throw; the
/// exception propagates.
LatencyStats measureLatency(const std::function<void()>& run, const MeasureOptions& options);

/// Times one call of the function it is given, in microseconds: the steady clock around it on
/// the CPU, CUDA events around it on a GPU's stream (the LibTorch module's timer).
using RunTimer = std::function<double(const std::function<void()>&)>;

/// measureLatency with another timer for each run (warm-up runs included).
LatencyStats measureLatency(const std::function<void()>& run, const MeasureOptions& options,
                            const RunTimer& timer);

/// Number of timed repeats for one round given one run's estimated duration.
int repeatsFor(double estimateUs, const MeasureOptions& options);

} // namespace paretune
