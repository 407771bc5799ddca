// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace paretune {

struct Device;

/// A device's micro-benchmark vector, measured on its own pinned cores. Stored with samples;
/// when a new vector drifts from the stored one the device's samples are stale.
struct MicroBenchmark {
    double gemmGflops = 0.0;  ///< fp32 GEMM, our own blocked kernel (not the BLAS figure)
    double memoryBwGbs = 0.0; ///< STREAM-like triad over buffers far larger than the LLC
    /// Per-op dispatch overhead of the execution framework (a one-element add through
    /// LibTorch, median), µs; 0 when not measured (built without LibTorch).
    double dispatchUs = 0.0;
};

struct MicroBenchmarkOptions {
    /// Quick mode (< 0.5 s per device) for drift checks; the full mode measures longer.
    bool quick = true;
};

/// Runs the micro-benchmark on a real CPU device: a worker thread pinned to the device's CPUs
/// runs the GEMM on each of them at once and the triad split across them; the best of a few
/// rounds is kept. Throws InputError when the device is not a real CPU device, and
/// std::runtime_error when pinning fails; nothing escapes the worker threads.
MicroBenchmark runMicroBenchmark(const Device& device, const MicroBenchmarkOptions& options = {});

/// true when any component of `now` differs from `stored` by more than `threshold` relative to
/// the stored value (|now − stored| / stored), or when a component is not a positive finite
/// number in either. `why` (optional) gets the first offending component, e.g.
/// "gemm_gflops drifted by 23.4% (stored 41.2, now 31.6; threshold 15%)"; it is cleared when
/// nothing drifted. The dispatch overhead counts only when both vectors have one.
bool drifted(const MicroBenchmark& stored, const MicroBenchmark& now, double threshold,
             std::string* why);

} // namespace paretune
