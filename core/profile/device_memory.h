// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to the LibTorch module: the bytes LibTorch's CPU allocator holds for each device of a
// plan while it runs (profile/plan_executor.cpp), and for one operator (the profiler's memory
// probe, profile/op_runner.cpp).

#include <cstddef>
#include <cstdint>
#include <vector>

namespace paretune::detail {

/// Memory counters for the devices of one plan executor. The first instance installs a
/// counting CPU allocator in front of LibTorch's own: what a thread tagged for a device
/// allocates (tensors, and oneDNN's scratch memory, which LibTorch routes through the same
/// allocator) counts for that device until it is freed, by whichever thread frees it. Untagged
/// threads (every other thread, and the OpenMP helpers of a multi-threaded device) allocate as
/// before, uncounted. Allocations made before the allocator was installed are freed by
/// LibTorch's allocator as before.
///
/// Counters come from a fixed pool (256 devices over all executors alive at once); when it is
/// exhausted, valid() is false and nothing is counted.
class DeviceMemoryCounters {
public:
    explicit DeviceMemoryCounters(std::size_t devices);
    ~DeviceMemoryCounters();
    DeviceMemoryCounters(const DeviceMemoryCounters&) = delete;
    DeviceMemoryCounters& operator=(const DeviceMemoryCounters&) = delete;

    bool valid() const { return !m_slots.empty(); }

    /// Tags the calling thread for `device` for the scope's lifetime.
    class ThreadTag {
    public:
        ThreadTag(const DeviceMemoryCounters& counters, std::size_t device);
        ~ThreadTag();
        ThreadTag(const ThreadTag&) = delete;
        ThreadTag& operator=(const ThreadTag&) = delete;

    private:
        int m_previous;
    };

    /// Starts a new peak: each device's peak becomes the bytes it holds now.
    void resetPeaks();
    /// The most bytes the device held at once since resetPeaks (0 when not valid()).
    std::int64_t peakBytes(std::size_t device) const;
    /// The bytes the device holds now.
    std::int64_t currentBytes(std::size_t device) const;

private:
    std::vector<int> m_slots; ///< per device: its counter in the pool
};

} // namespace paretune::detail
