// SPDX-License-Identifier: GPL-3.0-or-later
// How steady this machine's speed is: the devices' quick micro-benchmark (the figure the profiler's
// drift check uses), run again and again on each per-core CPU device for SECONDS, nothing else of
// Paretune running. Tells whether measured latencies can be compared with predictions made from
// samples taken minutes earlier: a tolerance smaller than the spread printed here cannot be met.
// Usage: bench_machine_speed [SECONDS]   (default 60; prints one JSON object)
#include "bench_cli.h"
#include "device/device.h"
#include "device/micro_benchmark.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

/// Seconds the hypervisor ran other work on this machine's CPUs (steal, /proc/stat), or -1.
double stealSeconds() {
    std::ifstream stat("/proc/stat");
    std::string label;
    std::vector<long long> fields(8, 0);
    if (!(stat >> label) || label != "cpu") {
        return -1.0;
    }
    for (long long& f : fields) {
        stat >> f;
    }
    return stat ? static_cast<double>(fields[7]) / 100.0 : -1.0; // USER_HZ is 100 on Linux
}

double quantile(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    const auto i = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
    return v[std::min(i, v.size() - 1)];
}

nlohmann::json spread(const std::vector<double>& v) {
    if (v.empty()) {
        return nullptr;
    }
    const double best = *std::max_element(v.begin(), v.end());
    const auto slow = std::count_if(v.begin(), v.end(), [&](double x) { return x < 0.9 * best; });
    return {
        {"min", quantile(v, 0.0)},
        {"p10", quantile(v, 0.1)},
        {"median", quantile(v, 0.5)},
        {"p90", quantile(v, 0.9)},
        {"max", best},
        {"max_over_min", best / quantile(v, 0.0)},
        {"share_over_10pct_below_max", static_cast<double>(slow) / static_cast<double>(v.size())}};
}

} // namespace

int benchMain(int argc, char** argv) {
    using Clock = std::chrono::steady_clock;
    const int seconds = argc > 1 ? paretune::bench::positiveInt(argv[1], "SECONDS") : 60;
    std::vector<paretune::Device> cores;
    for (const paretune::Device& d : paretune::discoverDevices().devices) {
        if (d.kind == "cpu" && d.tag == paretune::DeviceTag::Real && d.id != "cpu") {
            cores.push_back(d);
        }
    }
    if (cores.empty()) {
        throw paretune::InputError("no per-core CPU device (cpu:N) on this machine");
    }
    std::vector<std::vector<double>> gemm(cores.size());
    std::vector<std::vector<double>> triad(cores.size());
    nlohmann::json series = nlohmann::json::array();
    const double stealBefore = stealSeconds();
    const auto start = Clock::now();
    const auto elapsed = [&] {
        return std::chrono::duration<double>(Clock::now() - start).count();
    };
    while (elapsed() < seconds) {
        for (std::size_t i = 0; i < cores.size(); ++i) {
            const double at = elapsed();
            const paretune::MicroBenchmark m = paretune::runMicroBenchmark(cores[i], {true});
            gemm[i].push_back(m.gemmGflops);
            triad[i].push_back(m.memoryBwGbs);
            series.push_back({{"device", cores[i].id},
                              {"t_s", at},
                              {"gemm_gflops", m.gemmGflops},
                              {"triad_gbs", m.memoryBwGbs}});
        }
    }
    const double stealAfter = stealSeconds();
    nlohmann::json devices = nlohmann::json::array();
    for (std::size_t i = 0; i < cores.size(); ++i) {
        devices.push_back({{"device", cores[i].id},
                           {"runs", gemm[i].size()},
                           {"gemm_gflops", spread(gemm[i])},
                           {"triad_gbs", spread(triad[i])}});
    }
    std::cout << nlohmann::json{{"benchmark", "machine_speed"},
                                {"cpu", paretune::cpuTopology().name},
                                {"seconds", elapsed()},
                                {"steal_s", stealBefore >= 0 && stealAfter >= 0
                                                ? nlohmann::json(stealAfter - stealBefore)
                                                : nlohmann::json(nullptr)},
                                {"devices", devices},
                                {"series", series}}
                     .dump(2)
              << "\n";
    return 0;
}

int main(int argc, char** argv) {
    return paretune::bench::run(
        argc, argv,
        {"bench_machine_speed",
         "[SECONDS]",
         "  The quick micro-benchmark (GEMM GFLOP/s, triad GB/s) of each per-core CPU device, "
         "again and\n  again for SECONDS (default 60): the spread of this machine's speed with "
         "nothing else\n  running, and the hypervisor's steal time. Prints JSON.\n",
         0,
         1,
         {}},
        benchMain);
}
