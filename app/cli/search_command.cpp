// SPDX-License-Identifier: GPL-3.0-or-later
#include "search_command.h"

#include "terminal_progress.h"

#include "common/input_error.h"
#include "common/json_reader.h"
#include "common/output_file.h"
#include "common/progress.h"
#include "cost/cost_table.h"
#include "cost/device_catalog.h"
#include "graph/onnx_importer.h"
#include "paretune/config.h"
#include "plan/simulator.h"
#include "search/pareto_search.h"
#include "search/plans_document.h"
#include "workflow/search_workflow.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <unistd.h>

namespace paretune::cli {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

std::vector<std::string> splitList(const std::string& text) {
    std::vector<std::string> items;
    std::size_t begin = 0;
    while (begin <= text.size()) {
        const std::size_t end = std::min(text.find(',', begin), text.size());
        if (end > begin) {
            items.push_back(text.substr(begin, end - begin));
        }
        begin = end + 1;
    }
    return items;
}

} // namespace

std::vector<std::string> deviceList(const std::string& text) {
    const std::vector<std::string> ids = splitList(text);
    if (ids.empty() || ids.size() > 8) {
        throw InputError("--devices: expected one to eight device ids separated by commas, got \"" +
                         text + "\"");
    }
    return ids;
}

SearchOptions searchOptionsOf(const SearchArguments& args) {
    SearchOptions options;
    options.objectives = parseObjectives(args.objectives);
    options.population = args.population;
    options.generations = args.generations;
    options.seed = args.seed;
    options.coarseToFine = args.coarseToFine;
    options.fusion = !args.noFusion;
    if (options.population < 4 || options.population > 100000) {
        throw InputError("--population: expected 4 to 100000, got " +
                         std::to_string(options.population));
    }
    if (args.maxPlans < 0) {
        throw InputError("--max-plans: expected 0 (all) or more, got " +
                         std::to_string(args.maxPlans));
    }
    if (options.generations < 0 || options.generations > 1000000) {
        throw InputError("--generations: expected 0 to 1000000, got " +
                         std::to_string(options.generations));
    }
    if (!args.variants.empty()) {
        try {
            options.variants = parseVariants(args.variants);
        } catch (const InputError& e) {
            throw InputError(std::string("--variants: ") + e.what());
        }
        std::erase(options.variants, Precision::Fp32); // always offered
    }
    if (!args.maxAccuracyLoss.empty()) {
        const std::string& text = args.maxAccuracyLoss;
        double pct = 0.0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), pct);
        if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(pct) ||
            pct < 0.0) {
            throw InputError("--max-accuracy-loss: expected a percentage of 0 or more (the "
                             "estimated output deviation from fp32, %), got \"" +
                             text + "\"");
        }
        options.maxDeviationPct = pct;
    }
    const bool accuracyObjective = std::find(options.objectives.begin(), options.objectives.end(),
                                             Objective::Accuracy) != options.objectives.end();
    if (!options.variants.empty() && !accuracyObjective && args.maxAccuracyLoss.empty()) {
        throw InputError("--variants needs accuracy among --objectives or --max-accuracy-loss: "
                         "lower precisions trade accuracy, which the search must see");
    }
    return options;
}

void addSearchSettings(CLI::App& cmd, SearchArguments& args) {
    cmd.add_option("--objectives", args.objectives,
                   "Two or three of latency, energy, power, memory, accuracy (default "
                   "latency,energy,memory)");
    cmd.add_option("--population", args.population, "Population size (default 200)");
    cmd.add_option("--generations", args.generations, "Generations (default 300)");
    cmd.add_option("--seed", args.seed, "Random seed (default 1)");
    cmd.add_flag("--no-fusion", args.noFusion,
                 "Offer no fusion groups: every operator runs on its own");
    cmd.add_option("--variants", args.variants,
                   "Variants to offer besides fp32: bf16 and fp16 (Conv, MatMul and Gemm "
                   "nodes and their Relu, Clip, Add; fp16 on devices that run it: CUDA, a "
                   "catalog device listing it), int8 (Conv, MatMul and Gemm with constant "
                   "weights; CPU devices), fp32-nhwc (2-D Conv and their Relu, Clip, Add with "
                   "channels-last activations; measured devices), any of them with -tN for N "
                   "intra-op threads on a measured CPU device of more CPUs, e.g. "
                   "bf16,int8,fp32-nhwc,fp32-t1; needs accuracy among --objectives or "
                   "--max-accuracy-loss");
    cmd.add_option("--max-accuracy-loss", args.maxAccuracyLoss,
                   "Largest estimated output deviation from fp32 a plan may have, % (plans "
                   "above it are infeasible)");
}

void runSearch(const SearchArguments& args) {
    const std::vector<std::string> deviceIds = deviceList(args.devices);
    const SearchOptions options = searchOptionsOf(args);

    const DeviceCatalog catalog = loadDeviceCatalog(args.catalog);
    const ImportResult imported = importOnnxFile(args.model);
    const Graph& g = imported.graph;
    for (const Diagnostic& d : imported.diagnostics) {
        std::fprintf(stderr, "warning: %s: %s\n", g.sourcePath.c_str(), d.message.c_str());
    }
    // Real devices take their latencies from the measured samples of the library (--db) and
    // predictions where nothing was measured.
    SearchRequest request;
    request.deviceIds = deviceIds;
    request.options = options;
    request.catalogOrigin = args.catalog;
    request.dbPath = args.db;
    TerminalProgress progress("search");
    const SearchRun run = paretune::runSearch(g, catalog, request, args.json ? nullptr : &progress);
    for (const Diagnostic& d : run.diagnostics) {
        std::fprintf(stderr, "%s: %s\n",
                     d.severity == Diagnostic::Severity::Warning ? "warning" : "note",
                     d.message.c_str());
    }
    const Simulator& sim = *run.simulator;
    const CostTable& table = *run.costs;
    const SearchResult& result = run.result;

    // The front (thinned to --max-plans, spread along it), then the baselines not on it.
    const std::vector<ListedPlan> rows =
        listPlans(result, options.objectives, static_cast<std::size_t>(args.maxPlans));
    const std::size_t shownCount =
        args.maxPlans > 0 ? std::min(result.front.size(), static_cast<std::size_t>(args.maxPlans))
                          : result.front.size();
    const nlohmann::json doc = plansDocument(sim, options, result, rows, run.source);
    if (!args.out.empty()) {
        writeOutputFile(args.out, dumpJson(doc, 2) + "\n");
    }
    if (args.out == "-") {
        return; // the plans went to stdout: nothing else goes there
    }
    if (args.json) {
        std::cout << dumpJson(doc, 2) << "\n";
        return;
    }

    std::printf("Model        %s\n", g.sourcePath.c_str());
    std::printf(
        "Devices      %s (host %s; costs modelled from %s%s)\n",
        [&] {
            std::string text;
            for (const CostDevice& d : table.devices()) {
                text += (text.empty() ? "" : ",") + d.id;
            }
            return text;
        }()
            .c_str(),
        catalog.host.c_str(), args.catalog.c_str(),
        args.db.empty() ? "" : (", measured or predicted from " + args.db).c_str());
    std::printf(
        "Search       population %d, %d generations%s, seed %llu, %lld plans evaluated\n",
        options.population, result.generationsRun, options.coarseToFine ? " (coarse-to-fine)" : "",
        static_cast<unsigned long long>(options.seed), static_cast<long long>(result.evaluations));
    std::printf("Hypervolume  %.4f -> %.4f (normalised)\n", result.hypervolumeByGeneration.front(),
                result.hypervolumeByGeneration.back());
    std::printf("Front        %zu plans%s\n\n", result.front.size(),
                shownCount < result.front.size()
                    ? (", " + std::to_string(shownCount) + " shown (--max-plans)").c_str()
                    : "");
    const bool variants = table.variantCount() > 1;
    const int baselineWidth = variants ? 16 : 10; // "all:cpu:0:bf16"
    std::printf("%5s  %-*s %12s %12s %10s %12s %6s", "Plan", baselineWidth, "Baseline",
                "Latency ms", "Energy mJ", "Power W", "Memory MiB", "Fused");
    if (variants) {
        std::printf(" %8s %11s", "Lowered", "Deviation %");
    }
    std::printf("  %s\n", "Status");
    for (std::size_t id = 0; id < rows.size(); ++id) {
        const Solution& s = rows[id].solution;
        std::string status;
        if (!s.objectives.feasible()) {
            status = "infeasible";
        } else if (rows[id].onFront) {
            status = "front";
        } else if (rows[id].dominatedBy >= 0) {
            status = "dominated by plan " + std::to_string(rows[id].dominatedBy);
        } else {
            status = "not dominated";
        }
        std::printf("%5zu  %-*s %12.3f %12.3f %10.2f %12.1f %6zu", id, baselineWidth,
                    s.baseline.empty() ? "-" : s.baseline.c_str(), s.objectives.latencyUs / 1e3,
                    s.objectives.energyMj, s.objectives.averagePowerW,
                    s.objectives.peakMemoryBytes / kMiB, sim.takenGroups(s.genome).size());
        if (variants) {
            const auto lowered = std::count_if(s.genome.begin(), s.genome.end(),
                                               [&](auto c) { return sim.columnVariant(c) != 0; });
            std::printf(" %8td %11.3f", lowered, s.objectives.deviationPct);
        }
        std::printf("  %s\n", status.c_str());
    }
    if (variants) {
        std::printf("\nDeviation    estimated output deviation from fp32 (relative L2, %%): the "
                    "root of the sum of the squares of the lowered nodes' measured "
                    "sensitivities; 0 where none is measured\n");
    }
    if (!args.out.empty()) {
        std::printf("\nWrote %zu plans to %s\n", rows.size(), args.out.c_str());
    }
}

void addSearchCommand(CLI::App& app) {
    auto args = std::make_shared<SearchArguments>();
    CLI::App* cmd = app.add_subcommand(
        "search", "Search per-operator device placements for the Pareto front of latency, energy, "
                  "average power and peak memory");
    cmd->add_option("model", args->model, "ONNX model file")->required();
    cmd->add_option("--devices", args->devices, "Devices to place on, e.g. cpu,gpu,npu")
        ->required();
    cmd->add_option("--catalog", args->catalog,
                    "Device catalog the costs are modelled from (paretune.devices/1 JSON: a "
                    "file, or an installed catalog's name such as example)")
        ->required();
    cmd->add_option("--db", args->db,
                    "Sample library: measured and predicted costs for the catalog's measured "
                    "devices");
    addSearchSettings(*cmd, *args);
    cmd->add_option("--max-plans", args->maxPlans,
                    "Plans of the front to output, spread along it (default 50, 0: all)");
    cmd->add_option("--out", args->out,
                    "Write the plans as JSON to this file (- for stdout; a pipe or device is "
                    "written through, a regular file replaced whole)");
    cmd->add_flag("--json", args->json, "Machine-readable output on stdout");
    cmd->add_flag("--coarse-to-fine", args->coarseToFine,
                  "Search over chains of nodes first, then refine node by node (for big "
                  "graphs; same population and generations)");
    cmd->callback([args] { runSearch(*args); });
}

} // namespace paretune::cli
