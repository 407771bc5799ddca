// SPDX-License-Identifier: GPL-3.0-or-later
#include "corun_benchmark.h"

#include "benchmark_kernels.h"
#include "common/input_error.h"
#include "device/device.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <functional>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <sys/mman.h>
#include <time.h>

namespace paretune {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::int64_t kMiB = 1024 * 1024;
/// Rounds one phase records at most (a GEMM round takes a millisecond or more: room for
/// seconds); reserved up front, so the barrier's completion step never allocates.
constexpr std::size_t kMaxRounds = 8192;
/// Rounds of each phase not recorded: the first passes over the triad's arrays after another
/// phase ran about twice as slow as the later ones here (their lines had left the caches), and
/// a phase with three rounds kept a warm-up round as its median, beside phases with thirty.
constexpr int kWarmupRounds = 3;

enum class Kernel : std::uint8_t { Idle, Gemm, Triad };

struct FreeBuffer {
    void operator()(float* p) const noexcept { std::free(p); }
};
using Buffer = std::unique_ptr<float[], FreeBuffer>;

/// A triad array on transparent huge pages where the kernel offers them on request (THP
/// "madvise"): first touching 2 MiB pages took a third of the time of 4 KiB ones here, and the
/// set-up is a good part of a quick co-run.
Buffer hugePageBuffer(std::int64_t bytes) {
    constexpr std::size_t kHugePage = 2 * 1024 * 1024;
    const std::size_t size =
        (static_cast<std::size_t>(bytes) + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(kHugePage, size);
    if (p == nullptr) {
        throw std::bad_alloc();
    }
    madvise(p, size, MADV_HUGEPAGE); // advice: where huge pages are off, ordinary pages
    return Buffer(static_cast<float*>(p));
}

struct Side;

/// The completion step of a side's barrier (one thread, between two rounds of that side):
/// records the round's time after the warm-up, and ends the side's phase once the controller
/// said stop. A round that ended after the stop is not recorded: the other side may have
/// stopped during it.
struct SideClock {
    Side* side;
    void operator()() noexcept;
};

/// One device of the co-run: its workers' buffers and the clock of its rounds. The controller
/// sets `kernel` and resets the phase state while every worker waits at the phase barrier.
struct Side {
    Side(const Device& d, std::int64_t arrayBytes, const std::atomic<bool>& stopFlag)
        : device(&d), workers(static_cast<int>(d.cpus.size())),
          elements(arrayBytes / static_cast<std::int64_t>(sizeof(float))),
          ta(hugePageBuffer(arrayBytes)), tb(hugePageBuffer(arrayBytes)),
          tc(hugePageBuffer(arrayBytes)), gemm(static_cast<std::size_t>(workers) * 3),
          stop(&stopFlag), barrier(workers, SideClock{this}) {
        roundSeconds.reserve(kMaxRounds);
        workerSeconds.assign(static_cast<std::size_t>(workers), 0.0);
    }

    void beginPhase(Kernel k) {
        kernel = k;
        started = false;
        passes = 0;
        done = false;
        roundSeconds.clear();
        rounds.store(0);
    }
    bool behind(int minRounds) const {
        return kernel != Kernel::Idle && rounds.load(std::memory_order_acquire) < minRounds;
    }
    std::int64_t sliceBegin(int w) const { return elements * w / workers; }
    std::int64_t sliceEnd(int w) const { return elements * (w + 1) / workers; }
    float* gemmMatrix(int w, int m) { return gemm[static_cast<std::size_t>(w) * 3 + m].data(); }

    const Device* device;
    int workers;
    std::int64_t elements; ///< per triad array
    Buffer ta, tb, tc;
    std::vector<std::vector<float>> gemm; ///< A, B, C of each worker
    const std::atomic<bool>* stop;

    Kernel kernel = Kernel::Idle;
    bool started = false;
    int passes = 0; ///< rounds completed this phase, warm-up included
    bool done = false;
    std::vector<double> workerSeconds; ///< each worker's CPU time in this round's kernel
    std::vector<double> roundSeconds;
    std::atomic<int> rounds{0};  ///< recorded this phase; the controller polls it
    std::int64_t gemmPasses = 0; ///< GEMM passes of every worker so far, for the check
    std::barrier<SideClock> barrier;
};

void SideClock::operator()() noexcept {
    Side& s = *side;
    const bool stopped = s.stop->load(std::memory_order_acquire);
    if (!s.started) {
        s.started = true; // every worker of the side is about to begin
    } else {
        s.gemmPasses += s.kernel == Kernel::Gemm ? 1 : 0;
        if (!stopped && ++s.passes > kWarmupRounds && s.roundSeconds.size() < kMaxRounds) {
            // The round lasts as long as its slowest worker.
            s.roundSeconds.push_back(
                *std::max_element(s.workerSeconds.begin(), s.workerSeconds.end()));
            s.rounds.fetch_add(1, std::memory_order_release);
        }
    }
    s.done = stopped;
}

/// CPU time of the calling thread. Rounds are timed in it, not in wall time: on a shared
/// machine another process's time slices on the same CPU would read as contention (ratios from
/// 0.4 to 3.8 between runs here at a load of 6 on 2 CPUs), while the stalls the other device
/// causes through shared caches and memory are CPU time of the stalled thread.
double threadCpuSeconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double median(std::vector<double> values) {
    if (values.empty()) {
        return 0.0;
    }
    const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
    std::nth_element(values.begin(), middle, values.end());
    return *middle;
}

/// First touch on the worker's own CPU (pages land on its NUMA node), and the inputs.
void prepare(Side& s, int w) {
    const std::size_t n = static_cast<std::size_t>(kernels::kGemmN) * kernels::kGemmN;
    for (int m = 0; m < 3; ++m) {
        s.gemm[static_cast<std::size_t>(w) * 3 + static_cast<std::size_t>(m)].assign(n, 0.0f);
    }
    float* a = s.gemmMatrix(w, 0);
    float* b = s.gemmMatrix(w, 1);
    for (std::size_t i = 0; i < n; ++i) {
        a[i] = static_cast<float>((i * 7 + static_cast<std::size_t>(w)) % 13) * 0.01f;
        b[i] = static_cast<float>((i * 5 + 3) % 11) * 0.01f;
    }
    for (std::int64_t i = s.sliceBegin(w); i < s.sliceEnd(w); ++i) {
        s.ta[static_cast<std::size_t>(i)] = 0.0f;
        s.tb[static_cast<std::size_t>(i)] = 1.0f;
        s.tc[static_cast<std::size_t>(i)] = 2.0f;
    }
}

/// One round of the side's kernel on worker w. The triad gives up between chunks once the
/// controller said stop: that round is not recorded anyway, and the phase ends sooner.
void runKernel(Side& s, int w) {
    if (s.kernel == Kernel::Gemm) {
        kernels::gemmKernel(s.gemmMatrix(w, 0), s.gemmMatrix(w, 1), s.gemmMatrix(w, 2),
                            kernels::kGemmN);
        return;
    }
    constexpr std::int64_t kChunk = 256 * 1024; // elements: 3 MiB of traffic
    const std::int64_t end = s.sliceEnd(w);
    for (std::int64_t begin = s.sliceBegin(w); begin < end; begin += kChunk) {
        if (s.stop->load(std::memory_order_relaxed)) {
            return;
        }
        kernels::triadKernel(s.ta.get(), s.tb.get(), s.tc.get(), 3.0f, begin,
                             std::min(begin + kChunk, end));
    }
}

/// The products only count if the kernels computed them: every GEMM pass added A·B to C = 0,
/// and the triad wrote b + 3c = 7. Checking also keeps the results observable, so the kernels
/// cannot be optimised away.
void checkResults(Side& s) {
    for (int w = 0; w < s.workers; ++w) {
        const float* a = s.gemmMatrix(w, 0);
        const float* b = s.gemmMatrix(w, 1);
        const int n = kernels::kGemmN;
        const int i = 17 + w % 100;
        const int j = 101;
        double expected = 0.0;
        for (int k = 0; k < n; ++k) {
            expected += static_cast<double>(a[i * n + k]) * b[k * n + j];
        }
        expected *= static_cast<double>(s.gemmPasses);
        const double got = s.gemmMatrix(w, 2)[i * n + j];
        if (!(std::abs(got - expected) <= 1e-3 * std::abs(expected))) {
            throw std::logic_error("co-run benchmark on device '" + s.device->id +
                                   "': the GEMM kernel computed a wrong product");
        }
    }
    if (s.ta[static_cast<std::size_t>(s.elements / 2)] != 7.0f) {
        throw std::logic_error("co-run benchmark on device '" + s.device->id +
                               "': the triad kernel computed a wrong result");
    }
}

void requireCpuDevice(const Device& d) {
    if (!d.isCpu() || d.cpus.empty()) {
        throw InputError("device '" + d.id +
                         "': the co-run benchmark runs on real CPU devices only");
    }
}

struct Phase {
    std::array<Kernel, 2> kernel;
};

/// One repetition: each device alone with each kernel, then the four pairs at once. Alone
/// phases first, so a pair's ratio compares figures taken within a second of each other.
/// Every second repetition runs the mirror image (the devices' roles swapped): the order of
/// the phases biased the triad's ratios by up to ±30% here, the device measured first reading
/// faster beside the other than alone (what the caches held from the phase before), and the
/// median over both orders cancels that.
constexpr Phase kSchedule[] = {
    {{Kernel::Gemm, Kernel::Idle}},  {{Kernel::Triad, Kernel::Idle}},
    {{Kernel::Idle, Kernel::Gemm}},  {{Kernel::Idle, Kernel::Triad}},
    {{Kernel::Gemm, Kernel::Gemm}},  {{Kernel::Gemm, Kernel::Triad}},
    {{Kernel::Triad, Kernel::Gemm}}, {{Kernel::Triad, Kernel::Triad}},
};
constexpr std::size_t kPhases = std::size(kSchedule);

int kernelIndex(Kernel k) {
    return k == Kernel::Gemm ? 0 : 1;
}

} // namespace

double CoRunSlowdown::factor() const {
    const double mean = (gemmBesideGemm + gemmBesideTriad + triadBesideGemm + triadBesideTriad) / 4;
    return std::isfinite(mean) ? std::max(1.0, mean) : 1.0;
}

std::vector<const Device*> coRunPartners(const Device& device, const std::vector<Device>& devices) {
    std::vector<const Device*> partners;
    if (!device.isCpu()) {
        return partners;
    }
    for (const Device& other : devices) {
        if (other.isCpu() && other.id != device.id && !other.cpus.empty() &&
            sharedCpus(device, other).empty()) {
            partners.push_back(&other);
        }
    }
    return partners;
}

CoRunBenchmark runCoRunBenchmark(const Device& first, const Device& second,
                                 const CoRunBenchmarkOptions& options) {
    requireCpuDevice(first);
    requireCpuDevice(second);
    if (const std::vector<std::int32_t> shared = sharedCpus(first, second); !shared.empty()) {
        throw InputError("devices '" + first.id + "' and '" + second.id + "' share CPU " +
                         std::to_string(shared.front()) +
                         ": they never run at the same time, so there is no co-run to measure");
    }
    const Clock::time_point began = Clock::now();
    // Triad arrays: three per device, beyond a core's own caches, so that the triad is bound by
    // what the two devices share: the last-level cache's bandwidth (where it holds them, as a
    // large server's does, and as it holds a DNN's activations) or the memory's. Small enough
    // for short rounds (a few ms) and a quick first touch: four repetitions of short phases,
    // so that a slower spell of a shared machine shows in one repetition's ratios and the
    // median drops it.
    const auto arrayBytes = [&](const Device& d) {
        const std::int64_t llc = std::max(d.l3Bytes, d.l2Bytes);
        return options.quick ? std::clamp<std::int64_t>(llc / 4, 8 * kMiB, 16 * kMiB)
                             : std::clamp<std::int64_t>(llc, 64 * kMiB, 128 * kMiB);
    };
    const auto budget = std::chrono::milliseconds(options.quick ? 15 : 100);
    const auto cap = budget * 25; // a phase on a very slow machine still ends
    // ...but not before each side has one round: on a machine busy with other work (or under
    // a sanitizer) a phase may need far longer for its first; only then is it too busy.
    const auto hardCap = std::chrono::seconds(30);
    const int minRounds = options.quick ? 3 : 5;
    const int repetitions = options.quick ? 4 : 6; // even: as many mirrored as not

    std::atomic<bool> stop{false};
    Side sideA(first, arrayBytes(first), stop);
    Side sideB(second, arrayBytes(second), stop);
    const std::array<Side*, 2> sides = {&sideA, &sideB};
    const int workers = sideA.workers + sideB.workers;
    std::barrier<> setup(workers + 1); // the workers and this thread, the controller
    std::barrier<> phaseBarrier(workers + 1);
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(workers));
    std::atomic<bool> failed{false};
    const int phaseCount = static_cast<int>(kPhases) * repetitions;

    auto work = [&](Side& s, int w, std::size_t slot) {
        try {
            const std::string pinError =
                pinCurrentThreadTo({static_cast<int>(s.device->cpus[static_cast<std::size_t>(w)])});
            if (!pinError.empty()) {
                throw std::runtime_error("device '" + s.device->id + "': " + pinError);
            }
            prepare(s, w);
        } catch (...) {
            errors[slot] = std::current_exception();
            failed = true;
        }
        setup.arrive_and_wait();
        if (failed.load()) { // read by every thread after the same barrier: all agree
            return;
        }
        for (int p = 0; p < phaseCount; ++p) {
            phaseBarrier.arrive_and_wait(); // the controller has set the phase
            if (s.kernel != Kernel::Idle) {
                s.barrier.arrive_and_wait(); // the side's workers begin together
                while (!s.done) {
                    const double begin = threadCpuSeconds();
                    runKernel(s, w);
                    s.workerSeconds[static_cast<std::size_t>(w)] = threadCpuSeconds() - begin;
                    s.barrier.arrive_and_wait();
                }
            }
            phaseBarrier.arrive_and_wait(); // the controller reads the rounds
        }
    };

    std::vector<std::thread> threads;
    threads.reserve(static_cast<std::size_t>(workers));
    std::size_t slot = 0;
    for (Side* s : sides) {
        for (int w = 0; w < s->workers; ++w, ++slot) {
            try {
                threads.emplace_back(work, std::ref(*s), w, slot);
            } catch (...) {
                // No thread for this worker: stand in for it at the set-up barrier and fail
                // the run there, so the threads already started return instead of waiting.
                errors[slot] = std::current_exception();
                failed = true;
                setup.arrive_and_drop();
            }
        }
    }

    // median seconds per round: alone[side][kernel], beside[side][own kernel][other's kernel]
    std::vector<std::array<std::array<double, 2>, 2>> alone(static_cast<std::size_t>(repetitions));
    std::vector<std::array<std::array<std::array<double, 2>, 2>, 2>> beside(
        static_cast<std::size_t>(repetitions));
    setup.arrive_and_wait();
    if (!failed.load()) {
        for (int p = 0; p < phaseCount; ++p) {
            const std::size_t rep = static_cast<std::size_t>(p) / kPhases;
            Phase phase = kSchedule[static_cast<std::size_t>(p) % kPhases];
            if (rep % 2 == 1) { // the mirror image: the second device's phases first
                std::swap(phase.kernel[0], phase.kernel[1]);
            }
            sideA.beginPhase(phase.kernel[0]);
            sideB.beginPhase(phase.kernel[1]);
            stop.store(false);
            phaseBarrier.arrive_and_wait();
            const Clock::time_point start = Clock::now();
            std::this_thread::sleep_for(budget);
            while ((sideA.behind(minRounds) || sideB.behind(minRounds)) &&
                   Clock::now() - start < cap) {
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
            }
            while ((sideA.behind(1) || sideB.behind(1)) && Clock::now() - start < hardCap) {
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
            }
            stop.store(true, std::memory_order_release);
            phaseBarrier.arrive_and_wait();
            for (std::size_t i = 0; i < 2; ++i) {
                const Side& s = *sides[i];
                const Kernel other = phase.kernel[1 - i];
                if (s.kernel == Kernel::Idle) {
                    continue;
                }
                const double seconds = median(s.roundSeconds);
                const int own = kernelIndex(s.kernel);
                if (other == Kernel::Idle) {
                    alone[rep][i][static_cast<std::size_t>(own)] = seconds;
                } else {
                    beside[rep][i][static_cast<std::size_t>(own)]
                          [static_cast<std::size_t>(kernelIndex(other))] = seconds;
                }
            }
        }
    }
    for (std::thread& t : threads) {
        t.join();
    }
    for (const std::exception_ptr& error : errors) {
        if (error) {
            std::rethrow_exception(error);
        }
    }
    // Each kernel pair's slowdown per repetition, then the median over the repetitions.
    const auto slowdown = [&](std::size_t side, int own, int other) {
        std::vector<double> ratios;
        for (int rep = 0; rep < repetitions; ++rep) {
            const std::size_t r = static_cast<std::size_t>(rep);
            const double alone1 = alone[r][side][static_cast<std::size_t>(own)];
            const double together =
                beside[r][side][static_cast<std::size_t>(own)][static_cast<std::size_t>(other)];
            if (alone1 > 0.0 && together > 0.0) {
                ratios.push_back(together / alone1);
            }
        }
        if (ratios.empty()) {
            throw std::runtime_error(
                "co-run benchmark of '" + first.id + "' and '" + second.id +
                "': a phase completed no round in 30 s (the machine is too busy)");
        }
        return median(std::move(ratios));
    };
    CoRunBenchmark result;
    for (std::size_t i = 0; i < 2; ++i) {
        CoRunSlowdown& s = i == 0 ? result.first : result.second;
        s.gemmBesideGemm = slowdown(i, 0, 0);
        s.gemmBesideTriad = slowdown(i, 0, 1);
        s.triadBesideGemm = slowdown(i, 1, 0);
        s.triadBesideTriad = slowdown(i, 1, 1);
    }
    checkResults(sideA);
    checkResults(sideB);
    result.seconds = std::chrono::duration<double>(Clock::now() - began).count();
    return result;
}

} // namespace paretune
