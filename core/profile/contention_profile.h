// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "device/corun_benchmark.h"
#include "store/records.h"

#include <string>
#include <vector>

namespace paretune {

struct Device;
struct Progress;
class SampleLibrary;

/// A pair of devices whose contention measureMissingContention measured and stored now.
struct ContentionMeasurement {
    std::string deviceId;          ///< the profiled device
    std::string besideId;          ///< the device that can run beside it
    ContentionRecord deviceSlowed; ///< the device slowed by the other, as stored
    ContentionRecord besideSlowed; ///< the other slowed by the device, as stored
    double seconds = 0.0;          ///< wall time of the co-run
    /// Why the pair could not be measured (the co-run found the machine too busy): nothing was
    /// stored for it, and the next profile measures it. Empty when measured.
    std::string notMeasured;
};

/// The record of one direction of a co-run (measuredAt left empty: the time it is stored).
ContentionRecord contentionRecordOf(const CoRunSlowdown& slowdown, std::string deviceFingerprint,
                                    std::string besideFingerprint);

/// For each device of `devices` that can run beside `device` (coRunPartners: real CPU devices
/// with CPU sets disjoint from its own) and whose contention with it the library holds in
/// neither direction or only one, runs the co-run benchmark (quick unless told otherwise) and
/// stores both directions, recording both devices. A pair stored in both directions is never
/// measured again: once per pair and library. Stops before the next pair when `progress` says
/// cancelled. Returns what it measured now, and the pairs it could not measure with the reason
/// (notMeasured; the benchmark's std::runtime_error: pinning failed, or no round completed on a
/// machine too busy). InputError (a device that is not a real CPU device) and the library's
/// exceptions pass through.
std::vector<ContentionMeasurement>
measureMissingContention(SampleLibrary& library, const Device& device,
                         const std::vector<Device>& devices,
                         const CoRunBenchmarkOptions& options = {}, Progress* progress = nullptr);

} // namespace paretune
