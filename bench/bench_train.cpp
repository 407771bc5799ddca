// SPDX-License-Identifier: GPL-3.0-or-later
// Predictor training speed: the C++ (LibTorch) training of one network on 50,000 samples for
// 60 epochs on one thread, against the same network trained from PyTorch's Python API
// (tools/reference_train.py with /usr/bin/python3, one thread), measured in the same run.
// Usage: bench_train [SAMPLES] [EPOCHS] [REPEATS]   (defaults 50000 60 1; prints one JSON object)
// Data: random features and targets of the predictor's shapes (the time does not depend on the
// values); one ensemble member, batch 128, Adam lr 1e-3, as the design.
// REPEATS > 1 alternates C++ and Python runs and compares the fastest of each (on a shared,
// loaded machine the fastest run is the one least disturbed). The Python process inherits the
// environment, so OPENBLAS_CORETYPE set for this program applies to both; "blas_core" in the
// output says which OpenBLAS kernels each side's library used (the C++ training's matrix
// products do not go through it where smallGemm applies; Python's all do).
#include "bench_cli.h"
#include "predict/performance_predictor.h"

#include <nlohmann/json.hpp>

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>
#include <string>

namespace {

using Clock = std::chrono::steady_clock;
using namespace paretune;

PredictorDataset randomDataset(int samples) {
    PredictorDataset d;
    std::mt19937 random(3);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_real_distribution<double> latency(1.0, 1000.0);
    for (int k = 0; k < 4; ++k) {
        DeviceFigures f;
        f.fingerprint = "device" + std::to_string(k);
        f.kind = "cpu";
        f.cores = 1 + k;
        f.gemmGflops = 20.0 * (k + 1);
        f.memoryBwGbs = 5.0;
        d.devices[f.fingerprint] = f;
    }
    d.rows.resize(static_cast<std::size_t>(samples));
    for (int i = 0; i < samples; ++i) {
        PredictorRow& r = d.rows[static_cast<std::size_t>(i)];
        r.modelFingerprint = "model";
        r.deviceFingerprint = "device" + std::to_string(i % 4);
        r.signature = std::to_string(i); // every row its own measurement
        r.opType = "Op" + std::to_string(i % 40);
        for (float& v : r.features) {
            v = normal(random);
        }
        r.flops = 1e6;
        r.bytes = 1e5;
        r.latencyUs = latency(random);
        r.peakMemoryMb = latency(random) / 100.0;
    }
    return d;
}

std::string blasCore() {
    using CoreName = char* (*)();
    const auto name = reinterpret_cast<CoreName>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
    return name != nullptr ? std::string(name()) : std::string("not OpenBLAS");
}

std::string loadAverage() {
    std::ifstream in("/proc/loadavg");
    std::string one, five, fifteen;
    in >> one >> five >> fifteen;
    return one + " " + five + " " + fifteen;
}

nlohmann::json pythonReference(int samples, int epochs) {
    const std::string command = "/usr/bin/python3 " PARETUNE_REFERENCE_TRAIN " --samples " +
                                std::to_string(samples) + " --epochs " + std::to_string(epochs);
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
    if (!pipe) {
        return {{"error", "cannot run " + command}};
    }
    std::string output;
    char buffer[4096];
    while (std::fgets(buffer, sizeof buffer, pipe.get()) != nullptr) {
        output += buffer;
    }
    try {
        return nlohmann::json::parse(output);
    } catch (const nlohmann::json::exception&) {
        return {{"error", "unexpected output of " + command + ": " + output}};
    }
}

} // namespace

int benchMain(int argc, char** argv) {
    const int samples = argc > 1 ? paretune::bench::positiveInt(argv[1], "SAMPLES") : 50000;
    const int epochs = argc > 2 ? paretune::bench::positiveInt(argv[2], "EPOCHS") : 60;
    const PredictorDataset dataset = randomDataset(samples);
    std::vector<std::size_t> rows(dataset.rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
        rows[i] = i;
    }
    const int repeats = argc > 3 ? paretune::bench::positiveInt(argv[3], "REPEATS") : 1;
    PredictorOptions options;
    options.epochs = epochs;
    options.members = 1;
    const std::string loadBefore = loadAverage();
    nlohmann::json cppRuns = nlohmann::json::array(), pythonRuns = nlohmann::json::array();
    double cppBest = 0.0, pythonBest = 0.0, finalLoss = 0.0;
    std::size_t trainingRows = 0;
    nlohmann::json python;
    for (int r = 0; r < repeats; ++r) {
        const auto start = Clock::now();
        const PerformancePredictor predictor = PerformancePredictor::train(
            dataset, rows, options, [&](int, double loss) { finalLoss = loss; });
        const double cppSeconds = std::chrono::duration<double>(Clock::now() - start).count();
        trainingRows = predictor.trainingRows();
        cppRuns.push_back(cppSeconds);
        cppBest = r == 0 ? cppSeconds : std::min(cppBest, cppSeconds);

        python = pythonReference(samples, epochs);
        if (python.contains("seconds")) {
            const double seconds = python["seconds"].get<double>();
            pythonRuns.push_back(seconds);
            pythonBest = pythonRuns.size() == 1 ? seconds : std::min(pythonBest, seconds);
        }
    }
    nlohmann::json doc = {{"bench", "train"},
                          {"samples", samples},
                          {"epochs", epochs},
                          {"batch_size", options.batchSize},
                          {"threads", 1},
                          {"repeats", repeats},
                          {"cpp_seconds", cppBest},
                          {"cpp_runs_seconds", cppRuns},
                          {"cpp_final_epoch_loss", finalLoss},
                          {"cpp_training_rows", trainingRows},
                          {"cpp_blas_core", blasCore()},
                          {"python", python},
                          {"python_runs_seconds", pythonRuns},
                          {"load_average_before", loadBefore},
                          {"load_average_after", loadAverage()}};
    if (!pythonRuns.empty()) {
        doc["python_seconds"] = pythonBest;
        doc["cpp_over_python"] = cppBest / pythonBest;
    }
    std::cout << doc.dump(2) << "\n";
    return 0;
}

int main(int argc, char** argv) {
    return paretune::bench::run(
        argc, argv,
        {"bench_train",
         "[SAMPLES] [EPOCHS] [REPEATS]",
         "  Predictor training speed on random data of the predictor's shapes (defaults 50000 60 "
         "1),\n  against PyTorch's Python API in the same run. Prints JSON.\n",
         0,
         3,
         {}},
        benchMain);
}
