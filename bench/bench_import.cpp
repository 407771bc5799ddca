// SPDX-License-Identifier: GPL-3.0-or-later
// Import time of real models (parse + checker + shape inference + folding + metrics).
// Usage: bench_import MODEL_DIR [REPEATS]   (MODEL_DIR from tools/export_models.py)
// Prints one JSON object with per-model median, min and max import time in milliseconds.
#include "bench_cli.h"
#include "common/input_error.h"
#include "graph/onnx_importer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>

int benchMain(int argc, char** argv) {
    const std::filesystem::path folder = argv[1];
    const int repeats = argc > 2 ? paretune::bench::positiveInt(argv[2], "REPEATS") : 5;
    const char* models[] = {"resnet50", "bert_base", "vit_b_16", "resnet18", "mobilenet_v2"};
    nlohmann::json out = {{"benchmark", "import"}, {"repeats", repeats}, {"unit", "ms"}};
    for (const char* name : models) {
        const auto path = folder / (std::string(name) + ".onnx");
        if (!std::filesystem::exists(path)) {
            out["models"][name] = {{"error", "missing: " + path.string()}};
            continue;
        }
        std::vector<double> times;
        int nodes = 0;
        int unknown = 0;
        double flops = 0;
        try {
            for (int r = 0; r < repeats; ++r) {
                const auto start = std::chrono::steady_clock::now();
                const paretune::ImportResult result = paretune::importOnnxFile(path.string());
                const auto stop = std::chrono::steady_clock::now();
                times.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
                nodes = static_cast<int>(result.graph.nodes.size());
                unknown = result.graph.unknownShapeCount();
                flops = result.graph.totalFlops();
            }
        } catch (const std::exception& e) {
            out["models"][name] = {{"error", e.what()}};
            continue;
        }
        std::sort(times.begin(), times.end());
        out["models"][name] = {
            {"median_ms", times[times.size() / 2]},
            {"min_ms", times.front()},
            {"max_ms", times.back()},
            {"file_mb", static_cast<double>(std::filesystem::file_size(path)) / (1 << 20)},
            {"nodes", nodes},
            {"unknown_shapes", unknown},
            {"gflops", flops / 1e9}};
    }
    std::cout << out.dump(2) << "\n";
    return 0;
}

int main(int argc, char** argv) {
    return paretune::bench::run(
        argc, argv,
        {"bench_import",
         "MODEL_DIR [REPEATS]",
         "  Import time of the test models in MODEL_DIR (tools/export_models.py): median, min "
         "and\n  max over REPEATS (default 5). Prints JSON.\n",
         1,
         2,
         {}},
        benchMain);
}
