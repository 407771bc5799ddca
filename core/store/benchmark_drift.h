// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "device/micro_benchmark.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace paretune {

class SampleLibrary;

/// Default relative drift of a micro-benchmark figure beyond which a device's samples are stale.
inline constexpr double kDefaultDriftThreshold = 0.15;

struct DriftOutcome {
    bool firstBenchmark = false; ///< nothing stored before: this vector became the reference
    bool drifted = false;        ///< beyond the threshold: samples marked stale, new reference
    std::string why;             ///< the component that drifted, as drifted() words it
    std::int64_t samplesMarkedStale = 0;
    double threshold = kDefaultDriftThreshold;
};

/// Stores a freshly measured micro-benchmark vector of a device (already in the library) and
/// compares it with the device's reference vector. The first vector becomes the reference; a
/// drift beyond `threshold` (relative, e.g. 0.15) marks every sample of the device stale (kept,
/// never deleted; reason recorded in stale_marks) and makes the new vector the reference;
/// otherwise the reference stays, so slow creep is still measured against the same figures.
/// Throws InputError for a threshold outside (0, 10] or a device not in the library.
DriftOutcome recordBenchmark(SampleLibrary& library, std::string_view deviceFingerprint,
                             const MicroBenchmark& now, double threshold = kDefaultDriftThreshold);

} // namespace paretune
