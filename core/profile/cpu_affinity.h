// SPDX-License-Identifier: GPL-3.0-or-later
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

/// The system BLAS's own thread count, for the scope's lifetime. LibTorch runs MatMul, Gemm
/// and the convolutions it does not give to oneDNN (1×1 unstrided ones at one thread) through
/// the system BLAS, and OpenBLAS's pthread build keeps its own pool of one thread per core,
/// whatever LibTorch's intra-op thread count says. Without this scope a one-core device ran
/// those ops on two cores while the other core was idle, and behind spinning BLAS threads
/// (4–12 ms per call) while another process used it. Effective when the BLAS is OpenBLAS
/// (found by its symbols at run time); a no-op with another BLAS.
class ScopedBlasThreads {
public:
    explicit ScopedBlasThreads(int threads);
    ~ScopedBlasThreads();
    ScopedBlasThreads(const ScopedBlasThreads&) = delete;
    ScopedBlasThreads& operator=(const ScopedBlasThreads&) = delete;

    /// The BLAS's thread count now; 0 when the BLAS does not say (not OpenBLAS).
    static int current();

private:
    int m_previous = 0;
};

/// The calling thread's OpenMP thread count (omp_set_num_threads, which LibTorch's parallel
/// regions and oneDNN's kernels follow), for the scope's lifetime: a node's own intra-op threads
/// (Node::threads). Unlike at::set_num_threads, which also rebuilds LibTorch's pthreadpool (a
/// millisecond a call), it costs next to nothing. Effective where the OpenMP runtime is loaded
/// (found by its symbols at run time); available() says whether it is.
class ScopedOpenMpThreads {
public:
    explicit ScopedOpenMpThreads(int threads);
    ~ScopedOpenMpThreads();
    ScopedOpenMpThreads(const ScopedOpenMpThreads&) = delete;
    ScopedOpenMpThreads& operator=(const ScopedOpenMpThreads&) = delete;

    static bool available();

private:
    int m_previous = 0;
};

/// Pins the calling thread's OpenMP team one thread per CPU: one parallel region of
/// cpus.size() threads in which thread t pins itself to cpus[t] (the calling thread is
/// thread 0). The pins hold for the threads' lifetime; OpenMP keeps a thread's team between
/// regions, so its later regions run pinned alike. Nothing is pinned, and false returned, for
/// fewer than 2 CPUs, without an OpenMP runtime (libgomp's GOMP_parallel, found by its symbol at
/// run time), when the region got fewer threads, or when a pin was refused (a CPU outside the
/// calling thread's reach); a partial pin is undone.
///
/// Why: a plan's `cpu` (cores 0 and 1) takes turns with `cpu:0` and `cpu:1` (pinned to one core
/// each). Left to the scheduler, `cpu`'s two threads then mostly woke on the same core, the one
/// the pinned device had just left free: sampled during a ResNet-50 plan mixing the three,
/// both runnable on core 0 in 92 samples, on cores 0 and 1 in 18. Each of the team's barriers
/// then waited for a thread that could not run, and `cpu`'s nodes took 2.1–3.0× their time in
/// the all-on-`cpu` plan (1.08–1.12× pinned); the plan measured 56–73 ms, p90 78 ms (52–55 ms,
/// p90 54–58 ms pinned; all on `cpu` 27.5–28.8 ms either way; interleaved, 20 runs each).
bool pinOpenMpTeam(const std::vector<int>& cpus);

/// pinOpenMpTeam for the scope's lifetime: afterwards each team thread may run where it could
/// before. A scope that did not pin (see pinOpenMpTeam), or found the team pinned so already,
/// restores nothing. The profiler times an operator on `cpu` with two threads as the executor
/// runs it, each on a core of its own: unpinned, both often ran on one core for a whole
/// operator (a depthwise convolution stored at 1026 µs that ran 56 µs in plans).
class ScopedOpenMpTeamPin {
public:
    explicit ScopedOpenMpTeamPin(const std::vector<int>& cpus);
    ~ScopedOpenMpTeamPin();
    ScopedOpenMpTeamPin(const ScopedOpenMpTeamPin&) = delete;
    ScopedOpenMpTeamPin& operator=(const ScopedOpenMpTeamPin&) = delete;

    /// Whether this scope pinned the team (and will restore it).
    bool pinned() const { return !m_before.empty(); }

private:
    std::vector<std::vector<int>> m_before; ///< per team thread; empty: nothing pinned
};

/// The CPUs each thread of an OpenMP team of `threads` threads started by the calling thread may
/// run on, by thread number (the calling thread's team; empty without an OpenMP runtime).
std::vector<std::vector<int>> openMpTeamCpus(int threads);

} // namespace paretune
