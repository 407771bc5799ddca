// SPDX-License-Identifier: GPL-3.0-or-later
#include "micro_benchmark.h"

#include "benchmark_kernels.h"
#include "common/input_error.h"
#include "device/device.h"

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

namespace paretune {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::int64_t kMiB = 1024 * 1024;

using kernels::gemmKernel;
using kernels::kGemmN;
using kernels::triadKernel;

/// Rounds of one measured phase, run by every worker in lock step: the barrier's completion
/// step (one thread, between rounds) takes the time and decides whether to go on.
struct Rounds {
    Clock::time_point last;
    Clock::time_point start;
    double bestSeconds = 0.0;
    int done = -1; ///< -1: before the first round
    int minRounds = 3;
    int maxRounds = 1000;
    double budgetSeconds = 0.1;
    bool stop = false;

    void completed() noexcept {
        const Clock::time_point now = Clock::now();
        if (done < 0) {
            start = now;
        } else {
            const double seconds = std::chrono::duration<double>(now - last).count();
            bestSeconds = done == 0 ? seconds : std::min(bestSeconds, seconds);
        }
        last = now;
        ++done;
        const double elapsed = std::chrono::duration<double>(now - start).count();
        stop = done >= maxRounds || (done >= minRounds && elapsed >= budgetSeconds);
    }
};

struct Completion {
    Rounds* rounds;
    void operator()() noexcept { rounds->completed(); }
};

std::string pinToCpu(std::int32_t cpu) {
    Device single;
    single.id = "cpu#" + std::to_string(cpu);
    single.kind = "cpu";
    single.cpus = {cpu};
    return pinCurrentThread(single);
}

} // namespace

MicroBenchmark runMicroBenchmark(const Device& device, const MicroBenchmarkOptions& options) {
    if (device.tag == DeviceTag::Real && device.cudaIndex >= 0) {
        const GpuMicroBenchmark gpu = runGpuMicroBenchmark(device.cudaIndex, options);
        MicroBenchmark b;
        b.gemmGflops = gpu.gemmGflops;
        b.memoryBwGbs = gpu.memoryBwGbs;
        b.dispatchUs = gpu.launchUs;
        b.hostLink = HostLinkFigures{gpu.h2dPinnedGbs, gpu.d2hPinnedGbs, gpu.linkLatencyUs,
                                     gpu.h2dPageableGbs, gpu.d2hPageableGbs};
        return b;
    }
    if (!device.isCpu() || device.cpus.empty()) {
        throw InputError("device '" + device.id +
                         "': the micro-benchmark runs on real CPU devices only");
    }
    const int workers = static_cast<int>(device.cpus.size());

    // Triad buffers: STREAM asks for each array ≥ 4× the last-level cache. The full mode follows
    // that (capped at 512 MiB per array); the quick mode uses 2× the LLC for all three arrays
    // (32 MiB ≤ each ≤ 96 MiB) to stay under half a second. On a VM reporting the host's LLC
    // the cap can leave the arrays near the LLC size; the figure then overstates DRAM
    // bandwidth, consistently, which is what a drift check needs.
    const std::int64_t llc = std::max<std::int64_t>(device.l3Bytes, device.l2Bytes);
    const std::int64_t arrayBytes =
        options.quick ? std::clamp<std::int64_t>(2 * llc / 3, 32 * kMiB, 96 * kMiB)
                      : std::clamp<std::int64_t>(4 * llc, 64 * kMiB, 512 * kMiB);
    const std::int64_t elements = arrayBytes / static_cast<std::int64_t>(sizeof(float));
    std::unique_ptr<float[]> ta(new float[static_cast<std::size_t>(elements)]);
    std::unique_ptr<float[]> tb(new float[static_cast<std::size_t>(elements)]);
    std::unique_ptr<float[]> tc(new float[static_cast<std::size_t>(elements)]);

    const std::size_t gemmElements = static_cast<std::size_t>(kGemmN) * kGemmN;
    std::vector<std::vector<float>> gemmBuffers(static_cast<std::size_t>(workers) * 3);

    Rounds gemmRounds;
    gemmRounds.budgetSeconds = options.quick ? 0.08 : 1.0;
    gemmRounds.minRounds = options.quick ? 3 : 10;
    Rounds triadRounds;
    triadRounds.budgetSeconds = options.quick ? 0.12 : 1.5;
    triadRounds.minRounds = options.quick ? 3 : 10;
    Rounds setupRounds; // only synchronises the set-up
    std::barrier setupBarrier(workers, Completion{&setupRounds});
    std::barrier gemmBarrier(workers, Completion{&gemmRounds});
    std::barrier triadBarrier(workers, Completion{&triadRounds});

    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(workers));
    std::atomic<bool> failed{false};
    auto work = [&](int w) {
        try {
            const std::string pinError = pinToCpu(device.cpus[static_cast<std::size_t>(w)]);
            if (!pinError.empty()) {
                throw std::runtime_error(pinError);
            }
            // First touch on the worker's own CPU, so pages land on its NUMA node.
            std::vector<float>& a = gemmBuffers[static_cast<std::size_t>(w) * 3];
            std::vector<float>& b = gemmBuffers[static_cast<std::size_t>(w) * 3 + 1];
            std::vector<float>& c = gemmBuffers[static_cast<std::size_t>(w) * 3 + 2];
            a.assign(gemmElements, 0.0f);
            b.assign(gemmElements, 0.0f);
            c.assign(gemmElements, 0.0f);
            for (std::size_t i = 0; i < gemmElements; ++i) {
                a[i] = static_cast<float>((i * 7 + static_cast<std::size_t>(w)) % 13) * 0.01f;
                b[i] = static_cast<float>((i * 5 + 3) % 11) * 0.01f;
            }
            const std::int64_t begin = elements * w / workers;
            const std::int64_t end = elements * (w + 1) / workers;
            for (std::int64_t i = begin; i < end; ++i) {
                ta[static_cast<std::size_t>(i)] = 0.0f;
                tb[static_cast<std::size_t>(i)] = 1.0f;
                tc[static_cast<std::size_t>(i)] = 2.0f;
            }
        } catch (...) {
            errors[static_cast<std::size_t>(w)] = std::current_exception();
            failed = true;
        }
        // Every worker goes through every barrier, failed or not, so none waits forever.
        setupBarrier.arrive_and_wait();
        const bool skip = failed.load();
        gemmBarrier.arrive_and_wait(); // starts the clock
        while (!gemmRounds.stop) {
            if (!skip) {
                std::vector<float>* m = &gemmBuffers[static_cast<std::size_t>(w) * 3];
                gemmKernel(m[0].data(), m[1].data(), m[2].data(), kGemmN);
            }
            gemmBarrier.arrive_and_wait();
        }
        triadBarrier.arrive_and_wait();
        const std::int64_t begin = elements * w / workers;
        const std::int64_t end = elements * (w + 1) / workers;
        while (!triadRounds.stop) {
            if (!skip) {
                triadKernel(ta.get(), tb.get(), tc.get(), 3.0f, begin, end);
            }
            triadBarrier.arrive_and_wait();
        }
    };

    std::vector<std::thread> threads;
    threads.reserve(static_cast<std::size_t>(workers));
    for (int w = 0; w < workers; ++w) {
        threads.emplace_back(work, w);
    }
    for (std::thread& t : threads) {
        t.join();
    }
    for (const std::exception_ptr& error : errors) {
        if (error) {
            std::rethrow_exception(error);
        }
    }
    // The figure only counts if the kernel computed the product: every worker ran `done` rounds
    // of C += A·B from C = 0, so C = done · A·B. Checking one element of each worker's C also
    // keeps the results observable, so the kernels cannot be optimised away.
    for (int w = 0; w < workers; ++w) {
        const std::vector<float>* m = &gemmBuffers[static_cast<std::size_t>(w) * 3];
        const int i = 17 + w % 100;
        const int j = 101;
        double expected = 0.0;
        for (int k = 0; k < kGemmN; ++k) {
            expected += static_cast<double>(m[0][static_cast<std::size_t>(i * kGemmN + k)]) *
                        m[1][static_cast<std::size_t>(k * kGemmN + j)];
        }
        expected *= gemmRounds.done;
        const double got = m[2][static_cast<std::size_t>(i * kGemmN + j)];
        if (!(std::abs(got - expected) <= 1e-3 * std::abs(expected))) {
            throw std::logic_error("micro-benchmark GEMM kernel computed a wrong product (C[" +
                                   std::to_string(i) + "][" + std::to_string(j) +
                                   "] = " + std::to_string(got) + ", expected " +
                                   std::to_string(expected) + ")");
        }
    }
    // Same for the triad: a = b + 3c with b = 1, c = 2.
    if (ta[static_cast<std::size_t>(elements / 2)] != 7.0f) {
        throw std::logic_error("micro-benchmark triad kernel computed a wrong result");
    }

    MicroBenchmark result;
    const double gemmFlops = 2.0 * kGemmN * kGemmN * kGemmN * workers;
    result.gemmGflops = gemmFlops / gemmRounds.bestSeconds / 1e9;
    // STREAM convention: two reads and one write per element, write-allocate not counted.
    const double triadBytes = 3.0 * static_cast<double>(elements) * sizeof(float);
    result.memoryBwGbs = triadBytes / triadRounds.bestSeconds / 1e9;
    return result;
}

bool drifted(const MicroBenchmark& stored, const MicroBenchmark& now, double threshold,
             std::string* why) {
    struct Component {
        const char* name;
        double stored;
        double now;
    };
    std::vector<Component> components = {{"gemm_gflops", stored.gemmGflops, now.gemmGflops},
                                         {"memory_bw_gbs", stored.memoryBwGbs, now.memoryBwGbs}};
    if (stored.dispatchUs > 0.0 && now.dispatchUs > 0.0) {
        components.push_back({"dispatch_us", stored.dispatchUs, now.dispatchUs});
    }
    if (why != nullptr) {
        why->clear();
    }
    for (const Component& c : components) {
        char text[256];
        const auto valid = [](double v) { return std::isfinite(v) && v > 0.0; };
        if (!valid(c.stored) || !valid(c.now)) {
            if (why != nullptr) {
                std::snprintf(text, sizeof(text),
                              "%s is not a positive finite number (stored %g, now %g)", c.name,
                              c.stored, c.now);
                *why = text;
            }
            return true;
        }
        const double relative = std::abs(c.now - c.stored) / c.stored;
        if (relative > threshold) {
            if (why != nullptr) {
                std::snprintf(text, sizeof(text),
                              "%s drifted by %.1f%% (stored %.3g, now %.3g; threshold %.0f%%)",
                              c.name, relative * 100.0, c.stored, c.now, threshold * 100.0);
                *why = text;
            }
            return true;
        }
    }
    return false;
}

} // namespace paretune
