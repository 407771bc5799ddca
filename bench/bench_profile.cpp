// SPDX-License-Identifier: GPL-3.0-or-later
// Profiling a real model on the CPU with LibTorch, twice, end to end.
// Usage: bench_profile MODEL.onnx [THREADS]   (THREADS: default all cores, i.e. device `cpu`)
// Prints one JSON object: wall time of each profiling run (every compute node measured with the
// full discipline, then the whole model), the run-to-run coefficient of variation of per-op
// medians for ops of at least 100 µs, and the layer-sum / end-to-end ratio.
#include "bench_cli.h"
#include "common/input_error.h"
#include "graph/onnx_importer.h"
#include "profile/profile_model.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <numeric>
#include <thread>

namespace {

double median(std::vector<double> v) {
    if (v.empty()) {
        return 0.0;
    }
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

} // namespace

int benchMain(int argc, char** argv) {
    using namespace paretune;
    const std::string where = argc > 2 ? argv[2] : "";
    const bool gpu = where.rfind("cuda:", 0) == 0; // a CUDA device (the CUDA flavour's module)
    const int threads = gpu ? 1
                        : argc > 2
                            ? paretune::bench::positiveInt(argv[2], "THREADS")
                            : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    try {
        const Graph graph = importOnnxFile(argv[1]).graph;
        ProfileOptions options;
        options.measure.threads = threads;
        if (gpu) {
            const std::string index = where.substr(5);
            if (index.empty() || index.size() > 3 ||
                index.find_first_not_of("0123456789") != std::string::npos) {
                throw InputError("'" + where + "' is not a CUDA device (cuda:K, K a number)");
            }
            options.measure.cudaIndex = std::stoi(index);
        }
        nlohmann::json out = {{"benchmark", "profile"},
                              {"model", argv[1]},
                              {"threads", threads},
                              {"device", gpu ? where : std::string("cpu")},
                              {"compute_nodes", graph.computeNodeCount()}};
        std::vector<ProfileResult> runs;
        for (int run = 0; run < 2; ++run) {
            runs.push_back(profileModel(graph, options));
            const ProfileResult& r = runs.back();
            out["runs"].push_back(
                {{"wall_s", r.wallSeconds},
                 {"ok", r.count(ProfileStatus::Ok)},
                 {"unsupported", r.count(ProfileStatus::Unsupported)},
                 {"failed", r.count(ProfileStatus::Failed)},
                 {"energy_source", r.energySource},
                 {"sum_of_ops_us", r.wholeModel.sumOfOpsUs},
                 {"end_to_end_us", r.wholeModel.endToEnd.medianUs},
                 {"end_to_end_p10_us", r.wholeModel.endToEnd.p10Us},
                 {"end_to_end_p90_us", r.wholeModel.endToEnd.p90Us},
                 {"layer_sum_over_end_to_end", r.wholeModel.ratio},
                 {"whole_model_status", std::string(profileStatusName(r.wholeModel.status))},
                 {"whole_model_message", r.wholeModel.message}});
        }
        // Run-to-run spread of each op's median: with two runs the sample standard deviation
        // is |a - b| / sqrt(2); CV = that over the mean.
        std::vector<double> cvs;
        nlohmann::json worst = nlohmann::json::array();
        std::vector<std::pair<double, std::string>> ranked;
        for (const auto& [id, a] : runs[0].nodes) {
            const auto it = runs[1].nodes.find(id);
            if (a.status != ProfileStatus::Ok || it == runs[1].nodes.end() ||
                it->second.status != ProfileStatus::Ok) {
                continue;
            }
            const double m1 = a.latency.medianUs;
            const double m2 = it->second.latency.medianUs;
            const double mean = 0.5 * (m1 + m2);
            if (mean < 100.0) {
                continue;
            }
            const double cv = std::abs(m1 - m2) / std::sqrt(2.0) / mean;
            cvs.push_back(cv);
            ranked.emplace_back(cv, a.name + " (" + a.opType + ") " + std::to_string(m1) + " / " +
                                        std::to_string(m2) + " us");
        }
        std::sort(ranked.rbegin(), ranked.rend());
        for (std::size_t i = 0; i < std::min<std::size_t>(5, ranked.size()); ++i) {
            worst.push_back({{"cv", ranked[i].first}, {"op", ranked[i].second}});
        }
        const auto within =
            std::count_if(cvs.begin(), cvs.end(), [](double c) { return c <= 0.05; });
        out["cv_ops_ge_100us"] = {
            {"ops", cvs.size()},
            {"median_cv", median(cvs)},
            {"mean_cv", cvs.empty() ? 0.0
                                    : std::accumulate(cvs.begin(), cvs.end(), 0.0) /
                                          static_cast<double>(cvs.size())},
            {"max_cv", cvs.empty() ? 0.0 : *std::max_element(cvs.begin(), cvs.end())},
            {"share_within_5pct",
             cvs.empty() ? 0.0 : static_cast<double>(within) / static_cast<double>(cvs.size())},
            {"worst", worst}};
        std::cout << out.dump(2) << "\n";
    } catch (const InputError& e) {
        std::cerr << "bench_profile: " << e.what() << "\n";
        return 2;
    }
    return 0;
}

int main(int argc, char** argv) {
    return paretune::bench::run(argc, argv,
                                {"bench_profile",
                                 "MODEL.onnx [THREADS | cuda:K]",
                                 "  Profiles MODEL twice with LibTorch (THREADS intra-op threads, "
                                 "default all cores, or on the\n  GPU cuda:K with the CUDA "
                                 "flavour's module) and reports wall times, run-to-run spread\n  "
                                 "of per-op medians and the layer-sum ratio. JSON.\n",
                                 1,
                                 2,
                                 {}},
                                benchMain);
}
