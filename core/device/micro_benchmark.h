// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "device/host_link.h"

#include <optional>
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
    /// A CUDA device's link to the host (GpuMicroBenchmark's pinned figures); none for a CPU.
    /// Stored with the vector; not part of the drift check.
    std::optional<HostLinkFigures> hostLink{};
};

/// A CUDA device's micro-benchmark, measured by the LibTorch module of the CUDA flavour on the
/// device's current stream with CUDA events. Its GEMM rate, memory bandwidth and launch
/// overhead are stored like a CPU's (MicroBenchmark: gemm_gflops, memory_bw_gbs, dispatch_us);
/// the copy bandwidths are the device's measured link to the host.
struct GpuMicroBenchmark {
    double gemmGflops = 0.0;     ///< fp32 matrix product (cuBLAS through LibTorch), best round
    double memoryBwGbs = 0.0;    ///< device-to-device copy: bytes read + written per second
    double launchUs = 0.0;       ///< one-element add, per launch, queued back to back
    double h2dPinnedGbs = 0.0;   ///< host to device, from page-locked memory
    double h2dPageableGbs = 0.0; ///< host to device, from ordinary (pageable) memory
    double d2hPinnedGbs = 0.0;   ///< device to host, into page-locked memory
    double d2hPageableGbs = 0.0; ///< device to host, into ordinary memory
    double linkLatencyUs = 0.0;  ///< a 4-byte host-to-device copy, pinned
};

struct MicroBenchmarkOptions {
    /// Quick mode (< 0.5 s per device) for drift checks; the full mode measures longer.
    bool quick = true;
};

/// Runs the micro-benchmark on a real device. A CUDA device is measured by the LibTorch module
/// (runGpuMicroBenchmark; needs the CUDA flavour, else InputError naming the flavour) and its
/// GEMM, bandwidth and launch figures returned. A CPU device: a worker thread pinned to the
/// device's CPUs runs the GEMM on each of them at once and the triad split across them; the best of
/// a few rounds is kept. Throws InputError when the device is not a real CPU device, and
/// std::runtime_error when pinning fails; nothing escapes the worker threads.
MicroBenchmark runMicroBenchmark(const Device& device, const MicroBenchmarkOptions& options = {});

/// The GPU micro-benchmark of a CUDA device (`cudaIndex` from Device::cudaIndex) through the
/// LibTorch module. Throws InputError when the module has no CUDA or the device is not usable
/// (the message names the flavour and how to get the CUDA one), TorchUnavailable when there is
/// no module.
GpuMicroBenchmark runGpuMicroBenchmark(int cudaIndex, const MicroBenchmarkOptions& options = {});

/// true when any component of `now` differs from `stored` by more than `threshold` relative to
/// the stored value (|now − stored| / stored), or when a component is not a positive finite
/// number in either. `why` (optional) gets the first offending component, e.g.
/// "gemm_gflops drifted by 23.4% (stored 41.2, now 31.6; threshold 15%)"; it is cleared when
/// nothing drifted. The dispatch overhead counts only when both vectors have one.
bool drifted(const MicroBenchmark& stored, const MicroBenchmark& now, double threshold,
             std::string* why);

} // namespace paretune
