// SPDX-License-Identifier: GPL-3.0-or-later
#include "benchmark_drift.h"

#include "common/input_error.h"
#include "sample_library.h"

#include <cmath>

namespace paretune {

DriftOutcome recordBenchmark(SampleLibrary& library, std::string_view deviceFingerprint,
                             const MicroBenchmark& now, double threshold) {
    if (!std::isfinite(threshold) || threshold <= 0.0 || threshold > 10.0) {
        throw InputError("drift threshold must be a positive fraction (0.15 is 15%), got " +
                         std::to_string(threshold));
    }
    const auto positive = [](double v) { return std::isfinite(v) && v > 0.0; };
    if (!positive(now.gemmGflops) || !positive(now.memoryBwGbs) ||
        !(now.dispatchUs == 0.0 || positive(now.dispatchUs))) {
        throw InputError("a micro-benchmark needs positive finite figures (GEMM " +
                         std::to_string(now.gemmGflops) + " GFLOP/s, memory " +
                         std::to_string(now.memoryBwGbs) + " GB/s, dispatch " +
                         std::to_string(now.dispatchUs) + " µs)");
    }
    DriftOutcome outcome;
    outcome.threshold = threshold;
    BenchmarkRecord record;
    record.deviceFingerprint = std::string(deviceFingerprint);
    record.gemmGflops = now.gemmGflops;
    record.memoryBwGbs = now.memoryBwGbs;
    if (now.dispatchUs > 0.0) {
        record.dispatchUs = now.dispatchUs;
    }
    record.hostLink = now.hostLink;
    const auto reference = library.referenceBenchmark(deviceFingerprint);
    if (!reference) {
        outcome.firstBenchmark = true;
    } else {
        const MicroBenchmark stored{reference->gemmGflops, reference->memoryBwGbs,
                                    reference->dispatchUs.value_or(0.0)};
        outcome.drifted = drifted(stored, now, threshold, &outcome.why);
    }
    // Stale first, then the new reference: interrupted in between, the next check still
    // compares with the old reference and finds the drift again.
    if (outcome.drifted) {
        outcome.samplesMarkedStale =
            library.markDeviceStale(deviceFingerprint, "micro-benchmark drift: " + outcome.why);
    }
    record.reference = outcome.firstBenchmark || outcome.drifted;
    library.addBenchmark(record);
    return outcome;
}

} // namespace paretune
