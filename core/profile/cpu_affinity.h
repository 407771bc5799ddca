#pragma once

#include <string>
#include <vector>

namespace paretune {

/// Pins the calling thread to a set of CPUs for its lifetime and restores the previous mask
/// afterwards (sched_setaffinity on the calling thread only; threads it starts later inherit
/// the mask). An empty set leaves the thread as it is. An id outside the machine's CPUs, or a
/// set the kernel refuses, throws InputError naming the set.
class ScopedCpuAffinity {
public:
    explicit ScopedCpuAffinity(const std::vector<int>& cpus);
    ~ScopedCpuAffinity();
    ScopedCpuAffinity(const ScopedCpuAffinity&) = delete;
    ScopedCpuAffinity& operator=(const ScopedCpuAffinity&) = delete;

    /// The CPUs the calling thread may run on now.
    static std::vector<int> current();

private:
    std::vector<int> m_previous;
    bool m_active = false;
};

std::string cpuSetText(const std::vector<int>& cpus);

} // namespace paretune
