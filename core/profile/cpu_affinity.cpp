// SPDX-License-Identifier: GPL-3.0-or-later
#include "cpu_affinity.h"

#include "common/input_error.h"
#include "device/device.h"

#include <dlfcn.h>
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

namespace {

using SetThreads = void (*)(int);
using GetThreads = int (*)();

/// A runtime's thread-count setter and getter, found by their symbols in the process (both, or
/// neither).
struct ThreadControls {
    SetThreads set = nullptr;
    GetThreads get = nullptr;
};

ThreadControls findThreadControls(const char* setter, const char* getter) {
    ThreadControls c;
    c.set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, setter));
    c.get = reinterpret_cast<GetThreads>(dlsym(RTLD_DEFAULT, getter));
    if (c.set == nullptr || c.get == nullptr) {
        c = {};
    }
    return c;
}

/// OpenBLAS's thread controls, when the process's BLAS is OpenBLAS.
const ThreadControls& openBlas() {
    static const ThreadControls controls =
        findThreadControls("openblas_set_num_threads", "openblas_get_num_threads");
    return controls;
}

/// The OpenMP runtime's thread controls, when one is loaded (LibTorch's libgomp).
const ThreadControls& openMp() {
    static const ThreadControls controls =
        findThreadControls("omp_set_num_threads", "omp_get_max_threads");
    return controls;
}

} // namespace

ScopedOpenMpThreads::ScopedOpenMpThreads(int threads) {
    if (openMp().set != nullptr && threads > 0) {
        m_previous = openMp().get();
        openMp().set(threads);
    }
}

ScopedOpenMpThreads::~ScopedOpenMpThreads() {
    if (m_previous > 0) {
        openMp().set(m_previous);
    }
}

bool ScopedOpenMpThreads::available() {
    return openMp().set != nullptr;
}

ScopedBlasThreads::ScopedBlasThreads(int threads) {
    if (openBlas().set != nullptr && threads > 0) {
        m_previous = openBlas().get();
        openBlas().set(threads);
    }
}

ScopedBlasThreads::~ScopedBlasThreads() {
    if (m_previous > 0) {
        openBlas().set(m_previous);
    }
}

int ScopedBlasThreads::current() {
    return openBlas().get != nullptr ? openBlas().get() : 0;
}

} // namespace paretune
