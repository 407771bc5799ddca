#include "cpu_affinity.h"

#include "common/input_error.h"

#include <sched.h>

#include <cerrno>
#include <cstring>

namespace paretune {
namespace {

bool applyMask(const std::vector<int>& cpus) {
    cpu_set_t mask;
    CPU_ZERO(&mask);
    for (int cpu : cpus) {
        CPU_SET(static_cast<std::size_t>(cpu), &mask);
    }
    return sched_setaffinity(0, sizeof(mask), &mask) == 0;
}

} // namespace

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
    for (int cpu : cpus) {
        if (cpu < 0 || cpu >= CPU_SETSIZE) {
            throw InputError("CPU set " + cpuSetText(cpus) + ": CPU id " + std::to_string(cpu) +
                             " is out of range");
        }
    }
    m_previous = current();
    if (!applyMask(cpus)) {
        throw InputError("CPU set " + cpuSetText(cpus) +
                         ": cannot pin the thread: " + std::strerror(errno));
    }
    m_active = true;
}

ScopedCpuAffinity::~ScopedCpuAffinity() {
    if (m_active && !m_previous.empty()) {
        applyMask(m_previous);
    }
}

} // namespace paretune
