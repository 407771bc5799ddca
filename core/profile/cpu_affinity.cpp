#include "cpu_affinity.h"

#include "common/input_error.h"
#include "device/device.h"

#include <sched.h>

namespace paretune {

std::string cpuSetText(const std::vector<int>& cpus) {
    std::string text = "{";
    for (std::size_t i = 0; i < cpus.size(); ++i) {
        text += (i ? "," : "") + std::to_string(cpus[i]);
    }
    return text + "}";
}

std::vector<int> ScopedCpuAffinity::current() {
    cpu_set_t mask;
    CPU_ZERO(&mask);
    std::vector<int> cpus;
    if (sched_getaffinity(0, sizeof(mask), &mask) != 0) {
        return cpus;
    }
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
        if (CPU_ISSET(static_cast<std::size_t>(cpu), &mask)) {
            cpus.push_back(cpu);
        }
    }
    return cpus;
}

ScopedCpuAffinity::ScopedCpuAffinity(const std::vector<int>& cpus) {
    if (cpus.empty()) {
        return;
    }
    m_previous = current();
    const std::string error = pinCurrentThreadTo(cpus);
    if (!error.empty()) {
        throw InputError("CPU set " + cpuSetText(cpus) + ": " + error);
    }
    m_active = true;
}

ScopedCpuAffinity::~ScopedCpuAffinity() {
    if (m_active && !m_previous.empty()) {
        pinCurrentThreadTo(m_previous);
    }
}

} // namespace paretune
