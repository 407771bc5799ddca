// SPDX-License-Identifier: GPL-3.0-or-later
// Co-run (contention) benchmark: for each pair of real CPU devices with disjoint CPU sets, the
// slowdowns of each beside the other (four kernel pairs), the factor the simulator uses, and the
// wall time, over QUICK_RUNS quick runs and one full run.
// Usage: bench_corun [QUICK_RUNS]   (default 5; prints one JSON object)
#include "bench_cli.h"
#include "device/corun_benchmark.h"
#include "device/device.h"

#include <nlohmann/json.hpp>

#include <iostream>
#include <vector>

namespace {

nlohmann::json slowdownJson(const paretune::CoRunSlowdown& s) {
    return {{"gemm_beside_gemm", s.gemmBesideGemm},
            {"gemm_beside_triad", s.gemmBesideTriad},
            {"triad_beside_gemm", s.triadBesideGemm},
            {"triad_beside_triad", s.triadBesideTriad},
            {"factor", s.factor()}};
}

nlohmann::json runJson(const paretune::CoRunBenchmark& b) {
    return {{"first", slowdownJson(b.first)},
            {"second", slowdownJson(b.second)},
            {"seconds", b.seconds}};
}

} // namespace

int benchMain(int argc, char** argv) {
    const int quickRuns = argc > 1 ? paretune::bench::positiveInt(argv[1], "QUICK_RUNS") : 5;
    const std::vector<paretune::Device> devices = paretune::discoverDevices().devices;
    nlohmann::json pairs = nlohmann::json::array();
    for (std::size_t i = 0; i < devices.size(); ++i) {
        for (const paretune::Device* other : paretune::coRunPartners(devices[i], devices)) {
            if (other <= &devices[i]) {
                continue; // each unordered pair once: one run measures both directions
            }
            nlohmann::json quick = nlohmann::json::array();
            for (int run = 0; run < quickRuns; ++run) {
                quick.push_back(runJson(paretune::runCoRunBenchmark(devices[i], *other, {true})));
            }
            pairs.push_back(
                {{"first", devices[i].id},
                 {"second", other->id},
                 {"quick", quick},
                 {"full", runJson(paretune::runCoRunBenchmark(devices[i], *other, {false}))}});
        }
    }
    std::cout << nlohmann::json{{"benchmark", "corun"},
                                {"cpu", paretune::cpuTopology().name},
                                {"pairs", pairs}}
                     .dump(2)
              << "\n";
    return 0;
}

int main(int argc, char** argv) {
    return paretune::bench::run(
        argc, argv,
        {"bench_corun",
         "[QUICK_RUNS]",
         "  Co-run benchmark of each pair of real CPU devices with disjoint "
         "CPU sets: slowdowns beside\n  each other, the contention factor "
         "and the wall time; QUICK_RUNS quick runs (default 5) and one\n"
         "  full run. Prints JSON.\n",
         0,
         1,
         {}},
        benchMain);
}
