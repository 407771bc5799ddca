// SPDX-License-Identifier: GPL-3.0-or-later
#include "cpu_affinity.h"

#include "common/input_error.h"
#include "device/device.h"

#include <algorithm>
#include <atomic>
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

namespace {

/// libgomp's entry for a parallel region (what `#pragma omp parallel` compiles to) and a team
/// thread's number and team size, when an OpenMP runtime is loaded (all three, or none).
struct TeamControls {
    using Parallel = void (*)(void (*)(void*), void*, unsigned, unsigned);
    Parallel parallel = nullptr;
    GetThreads threadNumber = nullptr;
    GetThreads teamSize = nullptr;
};

const TeamControls& openMpTeam() {
    static const TeamControls controls = [] {
        TeamControls c;
        c.parallel = reinterpret_cast<TeamControls::Parallel>(dlsym(RTLD_DEFAULT, "GOMP_parallel"));
        c.threadNumber = reinterpret_cast<GetThreads>(dlsym(RTLD_DEFAULT, "omp_get_thread_num"));
        c.teamSize = reinterpret_cast<GetThreads>(dlsym(RTLD_DEFAULT, "omp_get_num_threads"));
        if (c.parallel == nullptr || c.threadNumber == nullptr || c.teamSize == nullptr) {
            c = {};
        }
        return c;
    }();
    return controls;
}

/// Runs `body(thread number)` on every thread of a team of `threads` threads of the calling
/// thread; false, running nothing, when the team has fewer threads or there is no runtime.
template <typename Body> bool onEveryTeamThread(int threads, Body& body) {
    const TeamControls& c = openMpTeam();
    if (c.parallel == nullptr || threads < 1) {
        return false;
    }
    struct Region {
        Body* body;
        int threads;
        std::atomic<bool> complete{true};
    } region{&body, threads};
    c.parallel(
        [](void* data) {
            auto* r = static_cast<Region*>(data);
            const TeamControls& t = openMpTeam();
            if (t.teamSize() != r->threads) {
                r->complete = false;
                return;
            }
            (*r->body)(t.threadNumber());
        },
        &region, static_cast<unsigned>(threads), 0);
    return region.complete;
}

} // namespace

bool pinOpenMpTeam(const std::vector<int>& cpus) {
    if (cpus.size() < 2) {
        return false;
    }
    const int n = static_cast<int>(cpus.size());
    const std::vector<std::vector<int>> before = openMpTeamCpus(n);
    if (before.size() != cpus.size()) {
        return false;
    }
    std::atomic<int> refused{0};
    auto pin = [&](int t) {
        if (!pinCurrentThreadTo({cpus[static_cast<std::size_t>(t)]}).empty()) {
            ++refused;
        }
    };
    if (!onEveryTeamThread(n, pin)) {
        return false;
    }
    if (refused > 0) {
        auto undo = [&](int t) { pinCurrentThreadTo(before[static_cast<std::size_t>(t)]); };
        onEveryTeamThread(n, undo);
        return false;
    }
    return true;
}

ScopedOpenMpTeamPin::ScopedOpenMpTeamPin(const std::vector<int>& cpus) {
    if (cpus.size() < 2) {
        return;
    }
    std::vector<std::vector<int>> before = openMpTeamCpus(static_cast<int>(cpus.size()));
    if (before.size() != cpus.size()) {
        return;
    }
    bool already = true; // an enclosing scope pinned the team so (the profiler's per operator)
    for (std::size_t t = 0; t < cpus.size(); ++t) {
        already = already && before[t] == std::vector<int>{cpus[t]};
    }
    if (!already && pinOpenMpTeam(cpus)) {
        m_before = std::move(before);
    }
}

ScopedOpenMpTeamPin::~ScopedOpenMpTeamPin() {
    if (m_before.empty()) {
        return;
    }
    auto undo = [&](int t) { pinCurrentThreadTo(m_before[static_cast<std::size_t>(t)]); };
    onEveryTeamThread(static_cast<int>(m_before.size()), undo);
}

std::vector<std::vector<int>> openMpTeamCpus(int threads) {
    std::vector<std::vector<int>> cpus(static_cast<std::size_t>(std::max(threads, 0)));
    auto read = [&](int t) { cpus[static_cast<std::size_t>(t)] = ScopedCpuAffinity::current(); };
    if (!onEveryTeamThread(threads, read)) {
        return {};
    }
    return cpus;
}

} // namespace paretune
