// SPDX-License-Identifier: GPL-3.0-or-later
// Simulator and NSGA-II speed on real models with the example three-device catalog.
// Usage: bench_search MODEL_DIR [CATALOG] [--reference] [--simulator-only] [--no-fusion]
//        [--variants]
// (one thread; prints one JSON object)
// Figures: simulator ns per compute node and per graph node (random support-feasible plans,
// and single-device plans; one plan at a time with evaluate() and in one batch with
// evaluateBatch()), search time for population 200 × 300 generations, final
// normalised hypervolume, and the same search in coarse-to-fine mode (its front's hypervolume
// on the flat search's reference point). Models: resnet50, bert_base, and swin_t when it is
// there. Times are this thread's CPU time (wall time is given for the search too), so that
// other processes on the machine distort them less.
// "shared_resources": the simulator alone on the devices cpu, cpu:0 and cpu:1 of
// tests/data/catalogs/shared_cores.json (cpu exclusive with both cores, the cores slowing each
// other by 1.3), and on the same devices with nothing shared, so that the cost of honouring
// shared resources reads apart from that of a different device set. --simulator-only leaves
// out the searches (and the reference): quick A/B runs of the simulator.
// --reference also runs the Python reference (tools/reference_search.py: a Python simulator of
// the same problem + DEAP's NSGA-II, the seed's approach) on the same cost table, evaluates its
// final front with this simulator and reports its times, its hypervolume on the same reference
// point, and the speed-up (minutes per model: the Python search is slow).
// --variants offers bf16 and int8 beside fp32 (modelled cells on the catalog's devices that list
// their peaks: every gene a column of device and precision; a Conv has three variants), searches
// latency, energy and accuracy, and gives each variant cell a synthetic deviation of 0.01 %
// (timing only: no accuracy figure of this benchmark means anything).
#include "bench_cli.h"
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

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
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

/// Thread CPU ns per plan of Simulator::evaluateBatch over `genomes`, all in one batch, repeated
/// for about `budget` seconds; the latencies go into `sink`.
double batchNsPerEvaluation(paretune::Simulator& sim,
                            const std::vector<const std::uint8_t*>& genomes, double budget,
                            double& sink) {
    std::vector<paretune::Objectives> out(genomes.size());
    std::int64_t evaluations = 0;
    const auto start = Clock::now();
    const double cpuStart = threadSeconds();
    while (seconds(start) < budget) {
        sim.evaluateBatch(genomes, out);
        for (const paretune::Objectives& o : out) {
            sink += o.latencyUs;
        }
        evaluations += static_cast<std::int64_t>(genomes.size());
    }
    return (threadSeconds() - cpuStart) * 1e9 / static_cast<double>(evaluations);
}

/// The problem as the Python reference reads it: per compute node (genome order) its costs,
/// compute predecessors, output and weight bytes; devices; transfer paths; the priority order.
nlohmann::json problemJson(const paretune::Simulator& sim, const paretune::SearchOptions& options) {
    using namespace paretune;
    const Graph& g = sim.graph();
    const CostTable& table = sim.costs();
    const std::int32_t D = sim.deviceCount();
    nlohmann::json nodes = nlohmann::json::array();
    for (std::int32_t ci = 0; ci < sim.computeCount(); ++ci) {
        const NodeId node = sim.computeNode(ci);
        nlohmann::json latency = nlohmann::json::array();
        nlohmann::json energy = nlohmann::json::array();
        nlohmann::json supported = nlohmann::json::array();
        for (std::int32_t d = 0; d < D; ++d) {
            latency.push_back(sim.latencyUs(ci, d));
            energy.push_back(table.cell(node, d).energyUj);
            supported.push_back(sim.supported(ci, d) ? 1 : 0);
        }
        double graphInputBytes = 0.0;
        for (const TensorId t : g.nodeInputs.row(node)) {
            if (t != kNone &&
                g.tensors[static_cast<std::size_t>(t)].role == TensorRole::GraphInput) {
                graphInputBytes +=
                    static_cast<double>(g.tensors[static_cast<std::size_t>(t)].byteSize());
            }
        }
        bool isOutput = false;
        for (const TensorId t : g.nodeOutputs.row(node)) {
            isOutput =
                isOutput || (t != kNone && g.tensors[static_cast<std::size_t>(t)].graphOutput);
        }
        const auto preds = sim.computePredecessors(ci);
        nodes.push_back({{"latency_us", latency},
                         {"energy_uj", energy},
                         {"supported", supported},
                         {"preds", std::vector<std::int32_t>(preds.begin(), preds.end())},
                         {"out_bytes", sim.outputBytes(ci)},
                         {"weight_bytes", g.metrics[static_cast<std::size_t>(node)].paramBytes},
                         {"graph_input_bytes", graphInputBytes},
                         {"is_output", isOutput}});
    }
    nlohmann::json devices = nlohmann::json::array();
    for (const CostDevice& d : table.devices()) {
        devices.push_back({{"id", d.id},
                           {"active_w", d.activeW},
                           {"idle_w", d.idleW},
                           {"memory_bytes", d.memoryBytes}});
    }
    nlohmann::json paths = nlohmann::json::object();
    for (std::int32_t s = 0; s < D; ++s) {
        for (std::int32_t d = 0; d < D; ++d) {
            nlohmann::json hops = nlohmann::json::array();
            for (const TransferHop& h : table.path(s, d)) {
                hops.push_back({h.queue, h.latencyUs, h.bytesPerUs});
            }
            paths[std::to_string(s) + "," + std::to_string(d)] = hops;
        }
    }
    const auto priority = sim.priority();
    return {{"devices", devices},
            {"host", table.host()},
            {"queues", table.queueCount()},
            {"paths", paths},
            {"nodes", nodes},
            {"priority", std::vector<std::int32_t>(priority.begin(), priority.end())},
            {"population", options.population},
            {"generations", options.generations},
            {"seed", 1}};
}

/// Runs tools/reference_search.py on the problem; its front is evaluated with `sim` and its
/// hypervolume computed on `reference` (the C++ search's point).
nlohmann::json runReference(paretune::Simulator& sim, const paretune::SearchOptions& options,
                            std::span<const double> reference, const std::string& name) {
    using namespace paretune;
    const std::filesystem::path dir = std::filesystem::temp_directory_path();
    const std::filesystem::path problem = dir / ("paretune_reference_" + name + ".json");
    const std::filesystem::path result = dir / ("paretune_reference_" + name + "_out.json");
    std::ofstream(problem) << problemJson(sim, options).dump();
    const std::string command = std::string("/usr/bin/python3 ") + PARETUNE_REFERENCE_SCRIPT + " " +
                                problem.string() + " " + result.string();
    if (std::system(command.c_str()) != 0) {
        return {{"error", "reference failed (is python3-deap installed? scripts/install-deps)"}};
    }
    nlohmann::json out;
    std::ifstream(result) >> out;
    std::vector<Solution> front;
    for (const auto& genome : out["front"]) {
        Solution s;
        s.genome = genome.get<std::vector<std::uint8_t>>();
        s.objectives = sim.evaluate(s.genome);
        if (s.objectives.feasible()) {
            front.push_back(std::move(s));
        }
    }
    out["front_size"] = out["front"].size();
    out["feasible_front_size"] = front.size();
    out.erase("front");
    out["hypervolume_front_on_cpp_reference"] =
        normalisedHypervolume(front, options.objectives, reference);
    std::filesystem::remove(problem);
    std::filesystem::remove(result);
    return out;
}

/// 256 random plans of `sim` whose nodes sit in columns (devices, variants) that support them.
std::vector<std::vector<std::uint8_t>> randomSupportedPlans(const paretune::Simulator& sim) {
    const auto C = static_cast<std::size_t>(sim.computeCount());
    paretune::Random random(7);
    std::vector<std::vector<std::uint8_t>> genomes(256, std::vector<std::uint8_t>(C));
    for (auto& genome : genomes) {
        for (std::size_t ci = 0; ci < C; ++ci) {
            std::uint8_t d = 0;
            do { // a column: device (and variant, when the table has variants)
                d = static_cast<std::uint8_t>(
                    random.below(static_cast<std::uint32_t>(sim.columnCount())));
            } while (!sim.columnSupported(static_cast<std::int32_t>(ci), d));
            genome[ci] = d;
        }
    }
    return genomes;
}

/// Thread CPU ns per plan of Simulator::evaluate over `genomes`, round-robin for about `budget`
/// seconds; the latencies go into `sink`.
double nsPerEvaluation(paretune::Simulator& sim,
                       const std::vector<std::vector<std::uint8_t>>& genomes, double budget,
                       double& sink) {
    std::int64_t evaluations = 0;
    const auto start = Clock::now();
    const double cpuStart = threadSeconds();
    while (seconds(start) < budget) {
        for (const auto& genome : genomes) {
            sink += sim.evaluate(genome).latencyUs;
        }
        evaluations += static_cast<std::int64_t>(genomes.size());
    }
    return (threadSeconds() - cpuStart) * 1e9 / static_cast<double>(evaluations);
}

std::vector<const std::uint8_t*> pointersTo(const std::vector<std::vector<std::uint8_t>>& plans) {
    std::vector<const std::uint8_t*> pointers;
    for (const auto& plan : plans) {
        pointers.push_back(plan.data());
    }
    return pointers;
}

/// The simulator alone on the shared-cores devices, with and without their shared resources.
nlohmann::json benchSharedResources(const paretune::Graph& g, double& sink) {
    using namespace paretune;
    const DeviceCatalog shared = loadDeviceCatalog(PARETUNE_SHARED_CATALOG);
    DeviceCatalog unshared = shared;
    for (DeviceSpec& spec : unshared.devices) {
        spec.resources.clear();
        spec.memoryDomain.clear();
        spec.contention = 1.0;
    }
    nlohmann::json out = {{"catalog", PARETUNE_SHARED_CATALOG},
                          {"devices", {"cpu", "cpu:0", "cpu:1"}}};
    for (const auto& [name, catalog] : {std::pair{"shared", &shared}, {"unshared", &unshared}}) {
        const CostTable table = buildCostTable(g, *catalog, {"cpu", "cpu:0", "cpu:1"});
        Simulator sim(g, table);
        sim.setPriority(upwardRankOrder(sim));
        const auto C = static_cast<double>(sim.computeCount());
        const auto genomes = randomSupportedPlans(sim);
        const double ns = nsPerEvaluation(sim, genomes, 1.0, sink);
        const double nsBatch = batchNsPerEvaluation(sim, pointersTo(genomes), 1.0, sink);
        out[name] = {{"has_shared_resources", table.hasSharedResources()},
                     {"simulator_ns_per_compute_node", ns / C},
                     {"simulator_batch_path", sim.batchPath()},
                     {"simulator_ns_per_compute_node_batch", nsBatch / C}};
    }
    return out;
}

nlohmann::json benchModel(const std::string& path, const paretune::DeviceCatalog& catalog,
                          bool reference, bool simulatorOnly, bool fusion, bool variants) {
    using namespace paretune;
    const ImportResult imported = importOnnxFile(path);
    const Graph& g = imported.graph;
    CostTableOptions tableOptions;
    tableOptions.fusion = fusion;
    if (variants) {
        tableOptions.variants = {Precision::Bf16, Precision::Int8};
    }
    CostTable table = buildCostTable(g, catalog, {"cpu", "gpu", "npu"}, tableOptions);
    std::int64_t variantCells = 0;
    for (std::int32_t v = 1; v < table.variantCount(); ++v) {
        for (NodeId n = 0; n < table.nodeCount(); ++n) {
            for (std::int32_t d = 0; d < table.deviceCount(); ++d) {
                CostCell cell = table.cell(n, d, v);
                if (cell.supported()) {
                    cell.deviationPct = 0.01; // synthetic: timing only
                    table.setCell(n, d, v, cell);
                    ++variantCells;
                }
            }
        }
    }
    Simulator sim(g, table);
    sim.setPriority(upwardRankOrder(sim));
    const auto C = static_cast<std::size_t>(sim.computeCount());

    // Simulator: 256 random support-feasible plans, evaluated round-robin for about 1 s.
    const std::vector<std::vector<std::uint8_t>> genomes = randomSupportedPlans(sim);
    double sink = 0.0;
    const double nsPerPlan = nsPerEvaluation(sim, genomes, 1.0, sink);
    // The same plans through evaluateBatch (what the search calls: eight plans per SIMD lane
    // group where the CPU has AVX-512).
    const double nsBatch = batchNsPerEvaluation(sim, pointersTo(genomes), 1.0, sink);

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
    nlohmann::json simulator = {
        {"nodes", g.nodes.size()},
        {"compute_nodes", C},
        {"fusion_groups", table.fusionOptions().size()},
        {"variants", table.variantCount() - 1},
        {"columns", table.columnCount()},
        {"variant_cells", variantCells},
        {"simulator_ns_per_evaluation", nsPerPlan},
        {"simulator_ns_per_compute_node", nsPerPlan / static_cast<double>(C)},
        {"simulator_ns_per_graph_node", nsPerPlan / static_cast<double>(g.nodes.size())},
        {"simulator_ns_per_compute_node_single_device", nsSingle / static_cast<double>(C)},
        {"simulator_batch_path", sim.batchPath()},
        {"simulator_ns_per_compute_node_batch", nsBatch / static_cast<double>(C)}};
    simulator["shared_resources"] = benchSharedResources(g, sink);
    if (simulatorOnly) {
        simulator["simulator_checksum"] = sink;
        return simulator;
    }

    SearchOptions options; // population 200, 300 generations, latency/energy/memory
    if (variants) {        // accuracy must be seen: latency, energy, accuracy
        options.variants = {Precision::Bf16, Precision::Int8};
        options.objectives = {Objective::Latency, Objective::Energy, Objective::Accuracy};
    }
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
    std::vector<const std::uint8_t*> frontPlans;
    for (const Solution& s : result.front) {
        frontPlans.push_back(s.genome.data());
    }
    const double nsFrontBatch = // per compute node
        batchNsPerEvaluation(sim, frontPlans, 0.5, sink) / static_cast<double>(C);

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

    nlohmann::json referenceRun = nullptr;
    if (reference) {
        referenceRun = runReference(sim, options, result.reference,
                                    std::filesystem::path(path).stem().string());
        if (referenceRun.contains("search_cpu_seconds")) { // CPU time against CPU time
            referenceRun["speedup_search"] =
                referenceRun["search_cpu_seconds"].get<double>() / searchCpuSeconds;
            referenceRun["speedup_simulator"] =
                referenceRun["simulator_us_per_evaluation"].get<double>() * 1e3 / nsPerPlan;
        }
    }

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
    simulator.update(nlohmann::json{
        {"simulator_ns_per_compute_node_front_plans", nsFront / static_cast<double>(C)},
        {"simulator_ns_per_compute_node_front_plans_batch", nsFrontBatch},
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
        {"baselines", baselines},
        {"python_deap_reference", referenceRun}});
    return simulator;
}

} // namespace

int benchMain(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    auto takeFlag = [&](const char* name) {
        const auto flag = std::find(args.begin(), args.end(), name);
        if (flag == args.end()) {
            return false;
        }
        args.erase(flag);
        return true;
    };
    const bool reference = takeFlag("--reference");
    const bool simulatorOnly = takeFlag("--simulator-only");
    const bool fusion = !takeFlag("--no-fusion");
    const bool variants = takeFlag("--variants");
    if (args.empty() || args.size() > 2) {
        std::cerr << "usage: bench_search MODEL_DIR [CATALOG] [--reference] [--simulator-only] "
                     "[--no-fusion] [--variants]\n";
        return 2;
    }
    const std::filesystem::path folder = args[0];
    const std::string catalogPath = args.size() > 1 ? args[1] : PARETUNE_EXAMPLE_CATALOG;
    nlohmann::json out = {
        {"benchmark", "search"},
        {"catalog", catalogPath},
        {"objectives", variants ? nlohmann::json{"latency", "energy", "accuracy"}
                                : nlohmann::json{"latency", "energy", "memory"}},
        {"fusion_groups_offered", fusion},
        {"variants_offered", variants ? nlohmann::json{"bf16", "int8"} : nlohmann::json::array()},
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
            out["models"][name] =
                benchModel(path.string(), catalog,
                           reference && !simulatorOnly && std::string(name) != "swin_t",
                           simulatorOnly, fusion, variants);
        }
    } catch (const std::exception& e) {
        out["error"] = e.what();
        std::cout << out.dump(2) << "\n";
        return 1;
    }
    std::cout << out.dump(2) << "\n";
    return 0;
}

int main(int argc, char** argv) {
    return paretune::bench::run(
        argc, argv,
        {"bench_search",
         "MODEL_DIR [CATALOG] [--reference] [--simulator-only] [--no-fusion] [--variants]",
         "  Simulator and NSGA-II speed on real models (one thread), also with shared resources\n"
         "  (cores, memory bandwidth); --reference also runs the Python reference search,\n"
         "  --simulator-only leaves out the searches, --no-fusion offers no fusion groups,\n"
         "  --variants offers bf16 and int8 (synthetic deviations) and searches accuracy too.\n"
         "  Prints JSON.\n",
         1,
         2,
         {"--reference", "--simulator-only", "--no-fusion", "--variants"}},
        benchMain);
}
