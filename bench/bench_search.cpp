// Simulator and NSGA-II speed on real models with the example three-device catalog.
// Usage: bench_search MODEL_DIR [CATALOG]   (one thread; prints one JSON object)
// Figures: simulator ns per compute node and per graph node (random support-feasible plans,
// and single-device plans), search time for population 200 × 300 generations, final
// normalised hypervolume, and the same search in coarse-to-fine mode (its front's hypervolume
// on the flat search's reference point). Models: resnet50, bert_base, and swin_t when it is
// there. Times are this thread's CPU time (wall time is given for the search too), so that
// other processes on the machine distort them less.
#include "common/input_error.h"
#include "cost/cost_table.h"
#include "cost/device_catalog.h"
#include "graph/onnx_importer.h"
#include "plan/simulator.h"
#include "search/baselines.h"
#include "search/pareto_search.h"
#include "search/random.h"
#include "search/solution.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <iostream>

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point since) {
    return std::chrono::duration<double>(Clock::now() - since).count();
}

/// CPU time of this thread: robust against other processes sharing the machine.
double threadSeconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

nlohmann::json benchModel(const std::string& path, const paretune::DeviceCatalog& catalog) {
    using namespace paretune;
    const ImportResult imported = importOnnxFile(path);
    const Graph& g = imported.graph;
    const CostTable table = buildCostTable(g, catalog, {"cpu", "gpu", "npu"});
    Simulator sim(g, table);
    sim.setPriority(upwardRankOrder(sim));
    const auto C = static_cast<std::size_t>(sim.computeCount());

    // Simulator: 256 random support-feasible plans, evaluated round-robin for about 1 s.
    Random random(7);
    std::vector<std::vector<std::uint8_t>> genomes(256, std::vector<std::uint8_t>(C));
    for (auto& genome : genomes) {
        for (std::size_t ci = 0; ci < C; ++ci) {
            std::uint8_t d = 0;
            do {
                d = static_cast<std::uint8_t>(
                    random.below(static_cast<std::uint32_t>(sim.deviceCount())));
            } while (!sim.supported(static_cast<std::int32_t>(ci), d));
            genome[ci] = d;
        }
    }
    double sink = 0.0;
    std::int64_t evaluations = 0;
    const auto simStart = Clock::now();
    const double simCpuStart = threadSeconds();
    while (seconds(simStart) < 1.0) {
        for (const auto& genome : genomes) {
            sink += sim.evaluate(genome).latencyUs;
        }
        evaluations += static_cast<std::int64_t>(genomes.size());
    }
    const double simSeconds = threadSeconds() - simCpuStart;
    const double nsPerEvaluation = simSeconds * 1e9 / static_cast<double>(evaluations);

    // The same on single-device plans (no transfers): the cheapest case.
    const std::vector<std::uint8_t> single = allOnDevice(sim, table.findDevice("gpu"));
    std::int64_t singleEvaluations = 0;
    const auto singleStart = Clock::now();
    const double singleCpuStart = threadSeconds();
    while (seconds(singleStart) < 0.5) {
        for (int r = 0; r < 256; ++r) {
            sink += sim.evaluate(single).latencyUs;
        }
        singleEvaluations += 256;
    }
    const double nsSingle =
        (threadSeconds() - singleCpuStart) * 1e9 / static_cast<double>(singleEvaluations);

    SearchOptions options; // population 200, 300 generations, latency/energy/memory
    const auto searchStart = Clock::now();
    const double searchCpuStart = threadSeconds();
    const SearchResult result = searchPareto(sim, options);
    const double searchCpuSeconds = threadSeconds() - searchCpuStart;
    const double searchSeconds = seconds(searchStart);

    // The simulator on the plans of the final front (what the search evaluates late on).
    std::int64_t frontEvaluations = 0;
    const auto frontStart = Clock::now();
    const double frontCpuStart = threadSeconds();
    while (seconds(frontStart) < 0.5) {
        for (const Solution& s : result.front) {
            sink += sim.evaluate(s.genome).latencyUs;
        }
        frontEvaluations += static_cast<std::int64_t>(result.front.size());
    }
    const double nsFront =
        (threadSeconds() - frontCpuStart) * 1e9 / static_cast<double>(frontEvaluations);

    // Coarse-to-fine with the same population and generations; its front's hypervolume is
    // given on the flat search's reference point so that the two compare.
    SearchOptions staged = options;
    staged.coarseToFine = true;
    const auto stagedStart = Clock::now();
    const double stagedCpuStart = threadSeconds();
    const SearchResult stagedResult = searchPareto(sim, staged);
    const double stagedCpuSeconds = threadSeconds() - stagedCpuStart;
    const double stagedSeconds = seconds(stagedStart);
    const double flatHypervolume =
        normalisedHypervolume(result.front, options.objectives, result.reference);
    const double stagedHypervolume =
        normalisedHypervolume(stagedResult.front, options.objectives, result.reference);

    nlohmann::json baselines = nlohmann::json::object();
    for (const Solution& b : result.baselines) {
        bool covered = false;
        for (const Solution& s : result.front) {
            covered = covered || weaklyDominates(s.objectives, b.objectives, options.objectives);
        }
        baselines[b.baseline] = {{"latency_us", b.objectives.latencyUs},
                                 {"energy_mj", b.objectives.energyMj},
                                 {"peak_memory_mb", b.objectives.peakMemoryBytes / 1048576.0},
                                 {"feasible", b.objectives.feasible()},
                                 {"dominated_or_on_front", covered}};
    }
    return {{"nodes", g.nodes.size()},
            {"compute_nodes", C},
            {"simulator_ns_per_evaluation", nsPerEvaluation},
            {"simulator_ns_per_compute_node", nsPerEvaluation / static_cast<double>(C)},
            {"simulator_ns_per_graph_node", nsPerEvaluation / static_cast<double>(g.nodes.size())},
            {"simulator_ns_per_compute_node_single_device", nsSingle / static_cast<double>(C)},
            {"simulator_ns_per_compute_node_front_plans", nsFront / static_cast<double>(C)},
            {"simulator_checksum", sink},
            {"search_population", options.population},
            {"search_generations", options.generations},
            {"search_evaluations", result.evaluations},
            {"search_children_identical_to_a_parent", result.reusedEvaluations},
            {"search_wall_seconds", searchSeconds},
            {"search_cpu_seconds", searchCpuSeconds},
            {"front_size", result.front.size()},
            {"hypervolume_initial", result.hypervolumeByGeneration.front()},
            {"hypervolume_final", result.hypervolumeByGeneration.back()},
            {"hypervolume_reference", result.reference},
            {"hypervolume_front", flatHypervolume},
            {"coarse_to_fine",
             {{"evaluations", stagedResult.evaluations},
              {"wall_seconds", stagedSeconds},
              {"cpu_seconds", stagedCpuSeconds},
              {"front_size", stagedResult.front.size()},
              {"hypervolume_front_on_flat_reference", stagedHypervolume}}},
            {"baselines", baselines}};
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: bench_search MODEL_DIR [CATALOG]\n";
        return 2;
    }
    const std::filesystem::path folder = argv[1];
    const std::string catalogPath = argc > 2 ? argv[2] : PARETUNE_EXAMPLE_CATALOG;
    nlohmann::json out = {{"benchmark", "search"},
                          {"catalog", catalogPath},
                          {"objectives", {"latency", "energy", "memory"}},
                          {"threads", 1}};
    try {
        const paretune::DeviceCatalog catalog = paretune::loadDeviceCatalog(catalogPath);
        for (const char* name : {"resnet50", "bert_base", "swin_t"}) {
            const auto path = folder / (std::string(name) + ".onnx");
            if (!std::filesystem::exists(path)) {
                if (std::string(name) == "swin_t") {
                    continue; // optional
                }
                out["models"][name] = {{"error", "missing: " + path.string()}};
                continue;
            }
            out["models"][name] = benchModel(path.string(), catalog);
        }
    } catch (const std::exception& e) {
        out["error"] = e.what();
        std::cout << out.dump(2) << "\n";
        return 1;
    }
    std::cout << out.dump(2) << "\n";
    return 0;
}
