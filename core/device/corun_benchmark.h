// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <vector>

namespace paretune {

struct Device;

/// How much one device's kernels slow down while another device runs a kernel at the same
/// time: for each kernel pair, the median time per round beside the other device divided by
/// the median time per round alone (measured close together). Raw ratios: noise can put one a
/// little under 1.
struct CoRunSlowdown {
    double gemmBesideGemm = 1.0;   ///< this device's GEMM while the other runs the GEMM
    double gemmBesideTriad = 1.0;  ///< this device's GEMM while the other runs the triad
    double triadBesideGemm = 1.0;  ///< this device's triad while the other runs the GEMM
    double triadBesideTriad = 1.0; ///< this device's triad while the other runs the triad

    /// The one factor the simulator applies to every node of this device while a node runs on
    /// the other (CostTable::setContention): the mean of the four slowdowns, clamped at 1. A
    /// plan's nodes are a mix of compute-bound (Conv, MatMul) and bandwidth-bound (elementwise,
    /// pooling, normalisation) work on both devices, and the simulator does not know which kind
    /// overlaps which; the mean is the expected slowdown when either kind is equally likely on
    /// either side. It keeps the GEMM-beside-GEMM term, which is not 1 where two "cores" are
    /// SMT siblings or a hypervisor's vCPUs on one physical core.
    double factor() const;
};

struct CoRunBenchmarkOptions {
    /// Quick mode (under a second per pair on a quiet machine) for `paretune profile`: four
    /// repetitions of short phases, two of them mirrored, the median kept; the full mode
    /// measures longer phases six times.
    bool quick = true;
};

/// A co-run of two devices: `first` is the first device slowed by the second, `second` the
/// second slowed by the first (one run measures both directions).
struct CoRunBenchmark {
    CoRunSlowdown first;
    CoRunSlowdown second;
    double seconds = 0.0; ///< wall time of the whole benchmark, set-up included
};

/// Measures the contention between two real CPU devices with disjoint CPU sets. One worker
/// thread per CPU of each device, pinned to it, runs the micro-benchmark's kernels (the blocked
/// fp32 GEMM on each worker's own matrices, the STREAM-like triad split across the device's
/// workers over the device's own arrays, beyond a core's own caches): each device alone with
/// each kernel, then the four kernel pairs at the same time, four times over (quick mode),
/// every second time with the devices' roles swapped.
/// Rounds are timed in the workers' thread CPU time, so other processes sharing the CPUs do
/// not read as contention; the first rounds of each phase are a warm-up, and a round of one
/// device counts beside the other only when it ended before either stopped. Throws InputError
/// when a device is not a real CPU device or the CPU sets intersect (such devices never run at
/// once), std::runtime_error when pinning fails or a phase completed no round, and
/// std::logic_error when a kernel computed a wrong result; nothing escapes the worker threads.
CoRunBenchmark runCoRunBenchmark(const Device& first, const Device& second,
                                 const CoRunBenchmarkOptions& options = {});

/// The devices of `devices` that can run beside `device` at the same time: real CPU devices
/// other than it whose CPU sets do not intersect its own (cpu:1 for cpu:0; none for cpu, which
/// holds every core). Pointers into `devices`, in its order.
std::vector<const Device*> coRunPartners(const Device& device, const std::vector<Device>& devices);

} // namespace paretune
