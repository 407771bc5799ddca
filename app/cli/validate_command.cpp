// SPDX-License-Identifier: GPL-3.0-or-later
#include "validate_command.h"

#include "table_text.h"

#include "common/json_values.h"

#include "common/input_error.h"
#include "common/json_reader.h"
#include "cost/device_catalog.h"
#include "graph/onnx_importer.h"
#include "paretune/config.h"
#include "profile/plan_validation.h"
#include "search/plans_file.h"
#include "store/sample_library.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

namespace paretune::cli {

namespace {

struct ValidateArguments {
    std::string model;
    std::string plans;
    std::int64_t planId = -1;
    std::string db;
    std::string catalog;
    int repeats = 20;
    int warmup = 2;
    bool json = false;
    bool withoutFusion = false;
    bool withoutVariants = false;
    std::string inputs;
    int accuracySets = 32;
};

std::string fixed(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", value);
    return text;
}

std::string percentText(const std::optional<double>& error) {
    if (!error) {
        return "-";
    }
    char text[32];
    std::snprintf(text, sizeof text, "%+.1f%%", *error * 100.0);
    return text;
}

/// "12.345 UNIT (SOURCE)" for a figure, else `absent`.
std::string figureText(const std::optional<double>& value, const char* unitAndSource,
                       const char* absent) {
    return value ? fixed(*value) + " " + unitAndSource : std::string(absent);
}

/// One row of the objectives table.
void printObjective(const char* name, const std::string& measured, const std::string& predicted,
                    const std::optional<double>& error) {
    std::printf("%-10s %-42s %-48s %s\n", name, measured.c_str(), predicted.c_str(),
                percentText(error).c_str());
}

/// The accuracy row of the table: the measured deviation beside the search's estimate.
void printAccuracy(const PlanValidation& report) {
    if (!report.accuracy) {
        return;
    }
    const ValidatedAccuracy& a = *report.accuracy;
    char measured[160];
    std::snprintf(
        measured, sizeof measured, "%.3f %% rel. L2, cosine >= %.6f%s", a.deviationPct, a.minCosine,
        a.top1Agreement ? (", top-1 " + fixed(*a.top1Agreement * 100.0) + " %").c_str() : "");
    const std::string estimated =
        a.estimatedPct ? fixed(*a.estimatedPct) + " % (estimated: sensitivity table)" : "-";
    std::printf("%-10s %-42s %-48s %s\n", "Accuracy", measured, estimated.c_str(),
                a.errorPoints ? (fixed(*a.errorPoints) + " pts").c_str() : "-");
    std::printf("  on %d %s%s\n", a.sets,
                a.randomInputs ? "sets of seeded random inputs" : "calibration sets given",
                a.randomInputs ? ": accuracy on real data may differ" : "");
    if (a.top1Misses > 0) {
        std::printf("  %d top-1 misses; the largest fp32 margin between the two classes was %.4g "
                    "(a miss between nearly tied logits), against a median margin of %.4g "
                    "between the fp32 outputs' two highest logits\n",
                    a.top1Misses, a.largestMissMargin, a.medianTop1Margin);
    }
}

void runValidate(const ValidateArguments& args) {
    const PlansFile plans = readPlansFile(args.plans);
    plans.plan(args.planId); // a plan id the file lacks fails before the model is read
    const std::string planLabel = "plan " + std::to_string(args.planId) + " of " + args.plans;

    const ImportResult imported = importOnnxFile(args.model);
    const Graph& g = imported.graph;
    plans.requireModel(g.fingerprint, args.model);
    const std::string catalogPath = args.catalog.empty() ? plans.catalog : args.catalog;
    std::optional<DeviceCatalog> catalog;
    if (!catalogPath.empty()) {
        catalog = loadDeviceCatalog(catalogPath);
    }

    const PlanToValidate toValidate = planToValidate(g, plans, args.planId, planLabel);

    const std::filesystem::path dbPath =
        args.db.empty() ? defaultSampleLibraryPath() : std::filesystem::path(args.db);
    SampleLibrary library = SampleLibrary::open(dbPath);
    ValidationOptions options;
    options.repeats = args.repeats;
    options.warmup = args.warmup;
    options.catalog = catalog ? &*catalog : nullptr;
    options.accuracySets = args.accuracySets;
    if (args.accuracySets < 1 || args.accuracySets > 100000) {
        throw InputError("--accuracy-sets: expected 1 to 100000, got " +
                         std::to_string(args.accuracySets));
    }
    if (!args.inputs.empty()) {
        options.calibration = readCalibrationInputs(g, args.inputs);
    }
    std::vector<PlanToValidate> toRun{toValidate};
    // The plan changed for an A/B comparison: its planned figures are not the comparison's.
    const auto comparison = [&](const std::string& what) {
        PlanToValidate other = toValidate;
        other.label = planLabel + " " + what;
        other.plannedLatencyUs.reset();
        other.plannedEnergyMj.reset();
        other.plannedMemoryMb.reset();
        return other;
    };
    if (args.withoutVariants) {
        if (!toValidate.hasVariants()) {
            throw InputError(planLabel + " runs every node in fp32: --without-variants has "
                                         "nothing to compare");
        }
        if (args.withoutFusion) {
            throw InputError("--without-variants and --without-fusion: compare one at a time");
        }
        PlanToValidate fp32 = comparison("in fp32");
        fp32.variants.clear();
        fp32.plannedDeviationPct.reset();
        toRun.push_back(std::move(fp32));
    }
    if (args.withoutFusion) {
        if (toValidate.fusionGroups.empty()) {
            throw InputError(planLabel + " takes no fusion group: --without-fusion has nothing "
                                         "to compare");
        }
        PlanToValidate unfused = comparison("without its fusion groups");
        unfused.fusionGroups.clear();
        toRun.push_back(std::move(unfused));
    }
    const std::vector<PlanValidation> reports = validatePlans(g, toRun, library, options);
    const PlanValidation& report = reports.front();
    nlohmann::json withoutFusion = nullptr;
    nlohmann::json withoutVariants = nullptr;
    if (reports.size() > 1 && args.withoutVariants) {
        const PlanValidation& fp32 = reports[1];
        withoutVariants = {{"objectives", fp32.objectivesJson()},
                           {"speedup", *fp32.latencyUs.measured / *report.latencyUs.measured},
                           {"source", "measured, interleaved A/B"}};
    } else if (reports.size() > 1) {
        const PlanValidation& unfused = reports[1];
        withoutFusion = {{"fusion_groups", toValidate.fusionGroups.size()},
                         {"objectives", unfused.objectivesJson()},
                         {"speedup", *unfused.latencyUs.measured / *report.latencyUs.measured},
                         {"source", "measured, interleaved A/B"}};
    }

    nlohmann::json deviceSet = nlohmann::json::array();
    for (const ValidatedDevice& d : report.devices) {
        deviceSet.push_back({{"id", d.id},
                             {"fingerprint", d.fingerprint},
                             {"cpus", d.cpus},
                             {"threads", d.threads},
                             {"memory", d.memoryJson()}});
    }
    nlohmann::json nodes = nlohmann::json::array();
    for (const ValidatedNode& n : report.nodes) {
        const Node& node =
            g.nodes[static_cast<std::size_t>(n.fusedMembers.empty() ? n.node : n.fusedMembers[0])];
        std::string opType = node.opType;
        for (std::size_t k = 1; k < n.fusedMembers.size(); ++k) {
            opType += "+" + g.nodes[static_cast<std::size_t>(n.fusedMembers[k])].opType;
        }
        if (n.variant != Precision::Fp32) { // with its conversions: "Conv bf16"
            opType += " " + std::string(variantName(n.variant));
        }
        nodes.push_back({{"name", node.name + (n.fusedMembers.empty() ? "" : "+fused")},
                         {"op_type", opType},
                         {"fused_nodes", n.fusedMembers.size()},
                         {"precision", precisionName(n.variant.precision)},
                         {"variant", variantName(n.variant)},
                         {"device", report.devices[static_cast<std::size_t>(n.device)].id},
                         {"measured_us", n.measuredUs},
                         {"measured_mean_us", n.measuredMeanUs},
                         {"predicted_us", optionalJson(n.predictedUs)},
                         {"predicted_source", n.predictedSource},
                         {"error", optionalJson(n.error)},
                         {"measured_begin_us", n.measuredBeginUs},
                         {"measured_end_us", n.measuredEndUs},
                         {"simulated_start_us", optionalJson(n.simulatedStartUs)},
                         {"simulated_finish_us", optionalJson(n.simulatedFinishUs)}});
    }
    if (args.json) {
        const nlohmann::json out = {{"tool", "paretune"},
                                    {"tool_version", PARETUNE_VERSION},
                                    {"model", args.model},
                                    {"model_fingerprint", g.fingerprint},
                                    {"plans_file", args.plans},
                                    {"plan_id", args.planId},
                                    {"devices", deviceSet},
                                    {"objectives", report.objectivesJson()},
                                    {"nodes", nodes},
                                    {"fusion_groups", toValidate.fusionGroups.size()},
                                    {"without_fusion", withoutFusion},
                                    {"without_variants", withoutVariants},
                                    {"db", library.path().string()},
                                    {"stored_plan_row", report.storedPlanRow},
                                    {"stored_samples", report.storedSamples}};
        std::cout << dumpJson(out, 2) << "\n";
        return;
    }
    std::string devicesText;
    for (const ValidatedDevice& d : report.devices) {
        devicesText +=
            (devicesText.empty() ? "" : ", ") + d.id + " (" + std::to_string(d.nodes) + " nodes, " +
            (d.cpus.empty() ? std::string("not pinned")
                            : "cpus " +
                                  [&] {
                                      std::string t;
                                      for (int c : d.cpus) {
                                          t += (t.empty() ? "" : ",") + std::to_string(c);
                                      }
                                      return t;
                                  }()) +
            ")";
    }
    std::printf("Model      %s (%s)\n", args.model.c_str(), g.fingerprint.substr(0, 12).c_str());
    std::printf("Plan       %lld of %s on %s\n", static_cast<long long>(args.planId),
                args.plans.c_str(), devicesText.c_str());
    std::printf("Runs       %d timed after %d warm-up\n\n", args.repeats, args.warmup);
    std::printf("%-10s %-42s %-48s %s\n", "Objective", "Measured", "Predicted", "Error");
    char measuredText[64];
    std::snprintf(measuredText, sizeof measuredText, "%.3f ms (p10 %.3f, p90 %.3f)",
                  *report.latencyUs.measured / 1e3, report.latencyP10Us / 1e3,
                  report.latencyP90Us / 1e3);
    char predictedText[128] = "-";
    if (report.latencyUs.predicted) {
        std::snprintf(predictedText, sizeof predictedText, "%.3f ms (%s)",
                      *report.latencyUs.predicted / 1e3, report.predictionSource.c_str());
    }
    printObjective("Latency", measuredText, predictedText, report.latencyUs.error);
    printObjective(
        "Energy",
        figureText(report.energyMj.measured, "mJ (RAPL package)", "not measured (no RAPL counter)"),
        figureText(report.energyMj.predicted, "mJ (simulated, power modelled)", "-"),
        report.energyMj.error);
    printObjective(
        "Memory",
        figureText(report.peakMemoryMb.measured, "MiB (allocator + weights)", "not measured"),
        figureText(report.peakMemoryMb.predicted,
                   report.simulatedPeakMemoryMb ? "MiB (planned: arena + weights)"
                                                : "MiB (plan file)",
                   "-"),
        report.peakMemoryMb.error);
    for (const ValidatedDevice& d : report.devices) {
        if (d.measuredPeakMb) {
            const std::string planned = d.plannedPeakMb
                                            ? fixed(*d.plannedPeakMb) + " MiB planned (arena " +
                                                  fixed(*d.arenaMb) + " MiB + weights), "
                                            : std::string();
            std::printf("  %-8s %s MiB measured (%s MiB of it weights and inputs), %s%s\n",
                        d.id.c_str(), fixed(*d.measuredPeakMb).c_str(),
                        fixed(*d.measuredWeightsMb).c_str(), planned.c_str(),
                        d.predictedPeakMb ? (fixed(*d.predictedPeakMb) + " MiB simulated").c_str()
                                          : "not simulated");
        }
    }
    if (report.processPeakMb) {
        std::printf("  process  %s MiB peak resident during the timed runs (VmHWM: program, "
                    "libraries and all)\n",
                    fixed(*report.processPeakMb).c_str());
    }
    std::printf("\n");
    printAccuracy(report);
    if (reports.size() > 1 && args.withoutVariants) {
        const PlanValidation& fp32 = reports[1];
        std::printf("\nThe same placement in fp32 (interleaved runs): %.3f ms (p10 %.3f, p90 "
                    "%.3f): the variants are %.2fx faster (both measured)\n\n",
                    *fp32.latencyUs.measured / 1e3, fp32.latencyP10Us / 1e3,
                    fp32.latencyP90Us / 1e3, *fp32.latencyUs.measured / *report.latencyUs.measured);
    } else if (reports.size() > 1) {
        const PlanValidation& unfused = reports[1];
        std::printf("Without its %zu fusion groups (same devices, interleaved runs): %.3f ms "
                    "(p10 %.3f, p90 %.3f): fusion is %.2fx faster (both measured)\n\n",
                    toValidate.fusionGroups.size(), *unfused.latencyUs.measured / 1e3,
                    unfused.latencyP10Us / 1e3, unfused.latencyP90Us / 1e3,
                    *unfused.latencyUs.measured / *report.latencyUs.measured);
    } else if (!toValidate.fusionGroups.empty()) {
        std::printf("Fusion     %zu groups, each run as one fused node\n\n",
                    toValidate.fusionGroups.size());
    }
    if (!report.note.empty()) {
        std::printf("Note: %s\n\n", report.note.c_str());
    }
    const int nameWidth = columnWidth(
        nodes, [](const nlohmann::json& row) { return row["name"].get<std::string>(); });
    std::printf("%-*s %-18s %-8s %12s %12s %-10s %8s %23s %23s\n", nameWidth, "Node", "Op",
                "Device", "measured us", "predicted us", "source", "error", "measured begin-end us",
                "simulated start-end us");
    for (const nlohmann::json& row : nodes) {
        char predictedUs[32] = "-";
        if (!row["predicted_us"].is_null()) {
            std::snprintf(predictedUs, sizeof predictedUs, "%.1f",
                          row["predicted_us"].get<double>());
        }
        char simulatedSpan[48] = "-";
        if (!row["simulated_start_us"].is_null()) {
            std::snprintf(simulatedSpan, sizeof simulatedSpan, "%.0f-%.0f",
                          row["simulated_start_us"].get<double>(),
                          row["simulated_finish_us"].get<double>());
        }
        char measuredSpan[48];
        std::snprintf(measuredSpan, sizeof measuredSpan, "%.0f-%.0f",
                      row["measured_begin_us"].get<double>(), row["measured_end_us"].get<double>());
        std::printf(
            "%-*s %-18s %-8s %12.1f %12s %-10s %8s %23s %23s\n", nameWidth,
            row["name"].get<std::string>().c_str(), row["op_type"].get<std::string>().c_str(),
            row["device"].get<std::string>().c_str(), row["measured_us"].get<double>(), predictedUs,
            row["predicted_source"].get<std::string>().c_str(),
            percentText(row["error"].is_null() ? std::nullopt
                                               : std::optional<double>(row["error"].get<double>()))
                .c_str(),
            measuredSpan, simulatedSpan);
    }
    std::printf("\nStored in %s: plan measurement row %lld, %zu per-operator samples measured in "
                "the plan (existing samples kept)\n",
                library.path().string().c_str(), static_cast<long long>(report.storedPlanRow),
                report.storedSamples);
}

} // namespace

void addValidateCommand(CLI::App& app) {
    auto args = std::make_shared<ValidateArguments>();
    CLI::App* cmd = app.add_subcommand(
        "validate", "Execute a searched plan on the real devices and compare measured with "
                    "predicted latency, energy and per-operator times");
    cmd->add_option("model", args->model, "ONNX model file")->required();
    cmd->add_option("--plans", args->plans, "Plans file written by paretune search --out")
        ->required();
    cmd->add_option("--plan", args->planId, "Id of the plan to validate")->required();
    cmd->add_option("--db", args->db,
                    "Sample library (default $XDG_DATA_HOME/paretune/samples.db)");
    cmd->add_option("--catalog", args->catalog,
                    "Device catalog, a file or an installed catalog's name (default: the one "
                    "the plans were searched with)");
    cmd->add_option("--repeats", args->repeats, "Timed runs of the whole plan (default 20)");
    cmd->add_option("--warmup", args->warmup, "Untimed runs first (default 2)");
    cmd->add_flag("--json", args->json, "Machine-readable output");
    cmd->add_flag("--without-variants", args->withoutVariants,
                  "Also run the same placement with every node in fp32, interleaved, and "
                  "report both");
    cmd->add_option("--inputs", args->inputs,
                    "Folder of calibration inputs (NAME.npy or NAME.pb per model input) the "
                    "output deviation of a plan with variants is measured on (default: seeded "
                    "random inputs)");
    cmd->add_option("--accuracy-sets", args->accuracySets,
                    "Random input sets the deviation is measured on without --inputs (default "
                    "32)");
    cmd->add_flag("--without-fusion", args->withoutFusion,
                  "Also run the plan without its fusion groups, interleaved with it, and compare");
    cmd->callback([args] { runValidate(*args); });
}

} // namespace paretune::cli
