// SPDX-License-Identifier: GPL-3.0-or-later
// Device micro-benchmark: figures and wall time per real CPU device, quick and full mode, and the
// run-to-run spread of the quick mode (what a drift check sees between two runs).
// Usage: bench_devices [QUICK_RUNS]   (default 5; prints one JSON object)
#include "bench_cli.h"
#include "device/device.h"
#include "device/device_fingerprint.h"
#include "device/micro_benchmark.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Largest relative difference between two runs of the same component.
double spread(const std::vector<double>& values) {
    const auto [low, high] = std::minmax_element(values.begin(), values.end());
    return (*high - *low) / *low;
}

} // namespace

int benchMain(int argc, char** argv) {
    const int quickRuns =
        argc > 1 ? std::max(2, paretune::bench::positiveInt(argv[1], "QUICK_RUNS")) : 5;
    nlohmann::json devices = nlohmann::json::array();
    for (const paretune::Device& device : paretune::discoverDevices().devices) {
        if (!device.isCpu()) {
            continue;
        }
        std::vector<double> gemm;
        std::vector<double> bandwidth;
        double slowestQuick = 0.0;
        for (int run = 0; run < quickRuns; ++run) {
            const Clock::time_point start = Clock::now();
            const paretune::MicroBenchmark m = paretune::runMicroBenchmark(device, {true});
            slowestQuick = std::max(slowestQuick, secondsSince(start));
            gemm.push_back(m.gemmGflops);
            bandwidth.push_back(m.memoryBwGbs);
        }
        const Clock::time_point start = Clock::now();
        const paretune::MicroBenchmark full = paretune::runMicroBenchmark(device, {false});
        const double fullSeconds = secondsSince(start);
        devices.push_back({{"id", device.id},
                           {"fingerprint", paretune::deviceFingerprint(device)},
                           {"cpus", device.cpus},
                           {"quick_runs", quickRuns},
                           {"quick_gemm_gflops", gemm},
                           {"quick_memory_bw_gbs", bandwidth},
                           {"quick_gemm_spread", spread(gemm)},
                           {"quick_memory_bw_spread", spread(bandwidth)},
                           {"quick_slowest_s", slowestQuick},
                           {"full_gemm_gflops", full.gemmGflops},
                           {"full_memory_bw_gbs", full.memoryBwGbs},
                           {"full_s", fullSeconds}});
    }
    std::cout << nlohmann::json{{"benchmark", "devices"},
                                {"cpu", paretune::cpuTopology().name},
                                {"devices", devices}}
                     .dump(2)
              << "\n";
    return 0;
}

int main(int argc, char** argv) {
    return paretune::bench::run(argc, argv,
                                {"bench_devices",
                                 "[QUICK_RUNS]",
                                 "  Device micro-benchmark figures and wall time per real CPU "
                                 "device, quick and full mode, and\n  the run-to-run spread of "
                                 "QUICK_RUNS quick runs (default 5, at least 2). Prints JSON.\n",
                                 0,
                                 1,
                                 {}},
                                benchMain);
}
