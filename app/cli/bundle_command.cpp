// SPDX-License-Identifier: GPL-3.0-or-later
#include "bundle_command.h"

#include "search_command.h"

#include "bundle/bundle_accuracy.h"
#include "bundle/bundle_export.h"
#include "bundle/bundle_files.h"
#include "bundle/bundle_verify.h"
#include "common/input_error.h"
#include "common/json_reader.h"
#include "cost/device_catalog.h"
#include "device/device.h"
#include "predict/library_costs.h"
#include "search/plans_file.h"
#include "store/sample_library.h"

#include "workflow/search_workflow.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <memory>
#include <tuple>

namespace paretune::cli {

void runExport(const ExportArguments& args) {
    checkNewBundlePath(args.out);
    BundleExportOptions options;
    options.modelPath = args.model;
    options.plans = readPlansFile(args.plans);
    options.planId = args.plan;
    options.candidates = args.candidates;
    if (!args.catalog.empty()) {
        options.catalog = loadDeviceCatalog(args.catalog);
    } else if (options.plans.catalog.empty()) {
        throw InputError(args.plans + ": names no device catalog; give --catalog");
    }
    options.samplesPath = args.db;
    if (!args.db.empty()) {
        options.fillCosts = [&args](CostTable& table, const Graph& graph,
                                    const DeviceCatalog& catalog) {
            SampleLibrary library =
                SampleLibrary::open(args.db, SampleLibrary::OpenMode::ExistingOnly);
            for (const Diagnostic& d :
                 searchCostsFromLibrary(table, graph, catalog, library).diagnostics) {
                std::fprintf(stderr, "note: %s\n", d.message.c_str());
            }
        };
    }
    options.candidatePartitions = args.candidatePartitions;
    options.allowInfeasible = args.force;
    options.inputsFolder = args.inputs;
    options.accuracySets = args.accuracySets;
    const BundleContents bundle = buildBundle(options);
    for (const Diagnostic& d : bundle.diagnostics) {
        std::fprintf(stderr, "warning: %s\n", d.message.c_str());
    }
    if (args.zip) {
        writeBundleZip(args.out, bundle.files);
    } else {
        writeBundleFolder(args.out, bundle.files);
    }
    std::size_t bytes = 0;
    for (const auto& [name, data] : bundle.files) {
        bytes += data.size();
    }
    std::string candidates;
    for (const std::int64_t id : bundle.candidateIds) {
        candidates += (candidates.empty() ? "" : ", ") + std::to_string(id);
    }
    std::printf("Wrote %s%s: plan %lld in %d partitions, candidates %s; %zu files, %.1f MiB\n",
                args.out.c_str(), args.zip ? " (zip)" : "", static_cast<long long>(args.plan),
                bundle.partitionCount, candidates.c_str(), bundle.files.size(),
                static_cast<double>(bytes) / (1024.0 * 1024.0));
}

void runBundleVerify(const BundleVerifyArguments& args) {
    const std::string& bundle = args.bundle;
    const BundleFileMap files = readBundleFiles(bundle);
    const DeviceInventory machine = discoverDevices();
    const BundleOutputCheck outputs{args.model, args.inputs};
    const BundleVerification result =
        verifyBundle(files, machine, args.model.empty() ? nullptr : &outputs);
    for (const std::string& line : result.passed) {
        std::printf("ok       %s\n", line.c_str());
    }
    const std::vector<std::string> warnings = result.warnings();
    const std::vector<std::string> failures = result.failures();
    for (const std::string& line : warnings) {
        std::printf("warning  %s\n", line.c_str());
    }
    for (const std::string& line : failures) {
        std::printf("FAILED   %s\n", line.c_str());
    }
    if (!failures.empty()) {
        throw InputError(bundle + ": verification failed (" + std::to_string(failures.size()) +
                         " problem" + (failures.size() == 1 ? "" : "s") + ")");
    }
    std::printf("%s: verified%s\n", bundle.c_str(), warnings.empty() ? "" : " with warnings");
}

void runBundleSelect(const BundleSelectArguments& args) {
    for (const auto& [name, value] : {std::pair{"--max-latency-ms", args.maxLatencyMs},
                                      std::pair{"--max-energy-mj", args.maxEnergyMj},
                                      std::pair{"--max-memory-mb", args.maxMemoryMb}}) {
        if (value && !(*value > 0)) {
            throw InputError(std::string(name) + ": expected a positive number, got " +
                             std::to_string(*value));
        }
    }
    const BundleFileMap files = readBundleFiles(args.bundle);
    // The same checks as `bundle verify` first: a plan is never chosen from a bundle that fails
    // them. Warnings (another machine's fingerprints, an infeasible plan) go to stderr.
    const BundleVerification verification = verifyBundle(files, discoverDevices());
    for (const std::string& line : verification.warnings()) {
        std::fprintf(stderr, "warning: %s\n", line.c_str());
    }
    if (const std::vector<std::string> failures = verification.failures(); !failures.empty()) {
        std::string list;
        for (const std::string& line : failures) {
            list += "\n  " + line;
        }
        throw InputError(args.bundle + ": bundle verify rejects it (" +
                         std::to_string(failures.size()) + " problem" +
                         (failures.size() == 1 ? "" : "s") + "), so no plan is chosen:" + list);
    }
    const std::vector<BundleCandidate> candidates = bundleCandidates(files, args.bundle);
    const std::optional<std::size_t> chosen =
        selectCandidate(candidates, {args.maxLatencyMs, args.maxEnergyMj, args.maxMemoryMb});
    auto describe = [](const BundleCandidate& c) {
        char text[256];
        std::snprintf(text, sizeof text,
                      "plan %lld: latency %.3f ms, energy %.3f mJ, peak memory %.1f MiB "
                      "(simulated from %s costs; idle power modelled)",
                      static_cast<long long>(c.id), c.latencyMs, c.energyMj, c.peakMemoryMb,
                      c.source.c_str());
        return std::string(text);
    };
    if (!chosen) {
        std::string budget;
        for (const auto& [label, value, unit] :
             {std::tuple{"latency", args.maxLatencyMs, "ms"},
              std::tuple{"energy", args.maxEnergyMj, "mJ"},
              std::tuple{"peak memory", args.maxMemoryMb, "MiB"}}) {
            if (value) {
                char text[96];
                std::snprintf(text, sizeof text, "%s%s <= %g %s", budget.empty() ? "" : ", ", label,
                              *value, unit);
                budget += text;
            }
        }
        std::string list;
        for (const BundleCandidate& c : candidates) {
            list += "\n  " + describe(c);
        }
        throw InputError(args.bundle + ": none of the " + std::to_string(candidates.size()) +
                         " candidates fits the budget (" + budget + "):" + list);
    }
    const BundleCandidate& c = candidates[*chosen];
    if (args.json) {
        const nlohmann::json doc = {{"id", c.id},
                                    {"file", c.file},
                                    {"exported", c.exported},
                                    {"partitions_folder", c.partitionsFolder.empty()
                                                              ? nlohmann::json(nullptr)
                                                              : nlohmann::json(c.partitionsFolder)},
                                    {"latency_ms", c.latencyMs},
                                    {"energy_mj", c.energyMj},
                                    {"average_power_w", c.averagePowerW},
                                    {"peak_memory_mb", c.peakMemoryMb},
                                    {"source", c.source}};
        std::cout << dumpJson(doc, 2) << "\n";
        return;
    }
    std::printf("Selected %s\n  file %s\n  %s\n", describe(c).c_str(), c.file.c_str(),
                c.partitionsFolder.empty()
                    ? "its partitions are not in this bundle (paretune export --plan ID makes "
                      "them, or export with --candidate-partitions)"
                    : ("partitions in " + c.partitionsFolder).c_str());
}

void addExportCommand(CLI::App& app) {
    auto args = std::make_shared<ExportArguments>();
    CLI::App* cmd = app.add_subcommand(
        "export", "Export a searched plan as a deployment bundle (partitions, manifest, plan, "
                  "profile, Pareto candidates)");
    cmd->add_option("model", args->model, "ONNX model file")->required();
    cmd->add_option("--plans", args->plans, "Plans file written by paretune search --out")
        ->required();
    cmd->add_option("--plan", args->plan, "Id of the plan to export")->required();
    cmd->add_option("--candidates", args->candidates,
                    "Pareto plans to keep for run-time selection (default 5)");
    cmd->add_option("--catalog", args->catalog,
                    "Device catalog (default: the one the plans file names)");
    cmd->add_option("--db", args->db,
                    "Sample library whose measurements of the plan's real devices go into "
                    "profile.csv (read only)");
    cmd->add_option("--out", args->out, "Bundle folder (or zip file with --zip) to create")
        ->required();
    cmd->add_flag("--zip", args->zip, "Write a zip archive instead of a folder");
    cmd->add_flag("--candidate-partitions", args->candidatePartitions,
                  "Also write every candidate's partitions (candidates/plan-N/), so that a "
                  "runtime can run the one it selects");
    cmd->add_flag("--force", args->force,
                  "Export the plan even when it is infeasible with the export's costs (the "
                  "manifest says so, and bundle verify reports it)");
    cmd->add_option("--inputs", args->inputs,
                    "A plan with lower precisions: folder of calibration inputs (NAME.npy or "
                    "NAME.pb per model input) its partitions' deviation is measured on "
                    "(default: seeded random inputs)");
    cmd->add_option("--accuracy-sets", args->accuracySets,
                    "Seeded random input sets for that deviation without --inputs (default 8)");
    cmd->callback([args] { runExport(*args); });
}

void addBundleCommand(CLI::App& app) {
    CLI::App* bundle =
        app.add_subcommand("bundle", "Check a deployment bundle or choose one of its plans");
    bundle->require_subcommand(1);
    auto verifyArgs = std::make_shared<BundleVerifyArguments>();
    CLI::App* verify = bundle->add_subcommand(
        "verify", "Check hashes, partitions, node coverage and this machine's devices");
    verify->add_option("bundle", verifyArgs->bundle, "Bundle folder or zip archive")->required();
    verify->add_option("--model", verifyArgs->model,
                       "The exported model: run the partitions of a plan with lower precisions "
                       "and check their outputs against the deviation the manifest records");
    verify->add_option("--inputs", verifyArgs->inputs,
                       "The calibration input files that deviation was measured on (when it "
                       "was not measured on random inputs)");
    verify->callback([verifyArgs] { runBundleVerify(*verifyArgs); });

    auto args = std::make_shared<BundleSelectArguments>();
    CLI::App* select = bundle->add_subcommand(
        "select", "Choose the fastest Pareto candidate that fits a latency/energy/memory budget");
    select->add_option("bundle", args->bundle, "Bundle folder or zip archive")->required();
    select->add_option("--max-latency-ms", args->maxLatencyMs, "Latency budget (ms)");
    select->add_option("--max-energy-mj", args->maxEnergyMj, "Energy budget per inference (mJ)");
    select->add_option("--max-memory-mb", args->maxMemoryMb, "Peak memory budget (MiB)");
    select->add_flag("--json", args->json, "Machine-readable output");
    select->callback([args] { runBundleSelect(*args); });
}

} // namespace paretune::cli
