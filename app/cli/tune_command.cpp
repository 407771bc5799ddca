// SPDX-License-Identifier: GPL-3.0-or-later
#include "tune_command.h"

#include "search_command.h"

#include "terminal_progress.h"

#include "common/input_error.h"
#include "common/json_reader.h"
#include "common/output_file.h"
#include "cost/device_catalog.h"
#include "graph/onnx_importer.h"
#include "search/objective.h"
#include "store/sample_library.h"
#include "workflow/tune_workflow.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

namespace paretune::cli {

namespace {

struct TuneArguments : SearchArguments {
    int rounds = 3;
    int validate = 3;
    int repeats = 20;
    double window = TuneRequest().windowS; // seconds
    int warmup = 2;
    double target = 5.0; // percent
};

std::string percent(double fraction) {
    char text[32];
    std::snprintf(text, sizeof text, "%+.1f%%", fraction * 100.0);
    return text;
}

void printRounds(const TuneRun& run) {
    for (const TuneRound& r : run.rounds) {
        std::printf("Round %d%s: latency error max %.1f%%, median %.1f%% over %zu plans",
                    r.index + 1, r.resumed ? " (stored)" : "", r.maxAbsError * 100.0,
                    r.medianAbsError * 100.0, r.plans.size());
        if (r.maxAbsErrorNew) {
            std::printf(" (max %.1f%% over plans not run before)", *r.maxAbsErrorNew * 100.0);
        }
        if (r.calibration && r.calibration->speed) {
            std::printf("; predicted at the speed measured around the runs, x%.2f the round "
                        "before's (baselines in rehearsals before and after: %d compared, %d "
                        "runs each)",
                        *r.calibration->speed, r.calibration->compared, r.calibration->runs);
        }
        if (r.newPlanBias.plans > 0) {
            std::printf("; new plans over several devices predicted x%.3f (how much longer %d "
                        "such plans of earlier rounds measured than predicted)",
                        r.newPlanBias.factor, r.newPlanBias.plans);
        }
        if (r.calibration && r.calibration->attempts > 1) {
            std::printf("; timed %d times, the machine's speed moving during the runs (kept: "
                        "%.1f%%)",
                        r.calibration->attempts, r.calibration->speedMoved() * 100.0);
        }
        if (r.speedChange) {
            std::printf("; the re-validated plans ran x%.2f as long as before (machine drift), "
                        "max error %.1f%% with the simulated latencies at that speed",
                        *r.speedChange, *r.maxAbsErrorAtSpeed * 100.0);
        }
        std::printf("; costs: %d nodes in context, %d scaled, %d fused groups in context, %d "
                    "scaled",
                    r.fit.nodesInContext, r.fit.nodesScaled, r.fit.fusedInContext,
                    r.fit.fusedScaled);
        if (r.fit.roundSpeedScales.size() > 1) {
            std::printf(", earlier rounds' times at the latest speed (x");
            for (std::size_t k = 0; k < r.fit.roundSpeedScales.size(); ++k) {
                std::printf("%s%.2f", k == 0 ? "" : ", x", r.fit.roundSpeedScales[k]);
            }
            std::printf(")");
        }
        if (r.fit.shrinkage) {
            std::printf(
                "; %d cells in context drawn toward their nodes on other devices (a time's noise "
                "%.1f%%, the cells' spread %.1f%%)",
                r.fit.shrinkage->cells, r.fit.shrinkage->noiseSd * 100.0,
                r.fit.shrinkage->spreadSd * 100.0);
        }
        for (const FittedContention& c : r.fit.contention) {
            std::printf("; %s beside %s x%.2f", c.device.c_str(), c.other.c_str(), c.factor);
        }
        for (const auto& [device, us] : r.fit.gaps.dispatchUs) {
            std::printf("; %s +%.1f us a node (dispatch, measured)", device.c_str(), us);
        }
        for (const FittedTurn& t : r.fit.turns) {
            std::printf("; %s +%.1f us taking shared cores over (measured)", t.device.c_str(),
                        t.us);
        }
        for (const FittedReceive& f : r.fit.receives) {
            std::printf("; %s x%.3f reading a tensor from another device (measured, %d cells)",
                        f.device.c_str(), f.factor, f.cells);
        }
        for (const auto& [device, us] : r.fit.gaps.turnGapUs) {
            std::printf("; %s +%.1f us before taking shared cores over (measured)", device.c_str(),
                        us);
        }
        for (const auto& [device, scale] : r.fit.gaps.turnCopyScale) {
            std::printf("; copies into %s at its turns x%.2f the catalog's time (measured)",
                        device.c_str(), scale);
        }
        for (const FittedHandoff& h : r.fit.gaps.handoffs) {
            std::printf("; %s->%s handoff %.1f us measured (catalog %.1f)", h.from.c_str(),
                        h.to.c_str(), h.latencyUs, h.modelledLatencyUs);
        }
        std::printf("\n");
        for (const TunedPlan& p : r.plans) {
            std::printf("  %-14s predicted %9.3f ms  measured %9.3f ms (p10 %.3f, p90 %.3f, "
                        "%d runs)  error %s%s\n",
                        p.label.c_str(), p.predictedUs / 1e3, p.measured.medianUs / 1e3,
                        p.measured.p10Us / 1e3, p.measured.p90Us / 1e3, p.measured.runs,
                        percent(p.error).c_str(), p.seenBefore ? "  (validated before)" : "");
        }
    }
}

void runTuneCommand(const TuneArguments& args) {
    const std::vector<std::string> deviceIds = deviceList(args.devices);
    if (!(args.target > 0.0 && args.target < 100.0)) {
        throw InputError("--target: expected a percentage above 0 and below 100");
    }
    TuneRequest request;
    request.deviceIds = deviceIds;
    request.options = searchOptionsOf(args);
    request.catalogOrigin = args.catalog;
    request.dbPath = args.db.empty() ? defaultSampleLibraryPath().string() : args.db;
    request.rounds = args.rounds;
    request.validate = args.validate;
    request.repeats = args.repeats;
    request.windowS = args.window;
    request.warmup = args.warmup;
    request.targetError = args.target / 100.0;
    request.maxPlans = static_cast<std::size_t>(args.maxPlans);
    if (!isServerLibrary(request.dbPath) && !std::filesystem::exists(request.dbPath)) {
        throw InputError("--db: " + request.dbPath +
                         " does not exist: profile the model on each device first (paretune "
                         "profile MODEL --device ID --db " +
                         request.dbPath + ")");
    }

    const DeviceCatalog catalog = loadDeviceCatalog(args.catalog);
    const ImportResult imported = importOnnxFile(args.model);
    const Graph& g = imported.graph;
    TerminalProgress progress("tune");
    TuneRun run;
    try {
        run = runTune(g, catalog, request, args.json ? nullptr : &progress);
    } catch (const InputError& e) {
        if (e.setting() == "db") {
            throw InputError("--db: " + e.problem() + " (paretune profile " + args.model +
                             " --device ID --db " + request.dbPath + ")");
        }
        throw;
    }
    for (const Diagnostic& d : run.diagnostics) {
        std::fprintf(stderr, "note: %s\n", d.message.c_str());
    }
    if (run.rounds.empty()) {
        throw std::runtime_error("tune: no round ran");
    }
    if (!args.out.empty()) {
        writeOutputFile(args.out, dumpJson(run.document, 2) + "\n");
    }
    if (args.out == "-") {
        return;
    }
    if (args.json) {
        std::cout << dumpJson(run.document, 2) << "\n";
        return;
    }
    std::printf("Model        %s\n", g.sourcePath.c_str());
    std::printf("Devices      %s (catalog %s, library %s)\n", args.devices.c_str(),
                args.catalog.c_str(), request.dbPath.c_str());
    char window[48] = "";
    if (args.window > 0.0) {
        std::snprintf(window, sizeof window, " (or more, to last %g s)", args.window);
    }
    std::printf("Tune         %zu rounds of up to %d, %d front plans and the best baselines each, "
                "%d interleaved runs per plan%s; %s\n\n",
                run.rounds.size(), args.rounds, args.validate, args.repeats, window,
                run.converged ? "converged (every validated plan within the target)"
                              : "not converged within the rounds");
    printRounds(run);

    std::printf("\n%5s  %-10s %12s %26s %12s  %s\n", "Plan", "Baseline", "Predicted ms",
                "Measured ms (p10-p90)", "Energy mJ", "Claims");
    for (const nlohmann::json& p : run.document["plans"]) {
        std::string measured = "-";
        if (!p["measured"].is_null()) {
            char text[64];
            std::snprintf(text, sizeof text, "%.3f (%.3f-%.3f)",
                          p["measured"]["median_us"].get<double>() / 1e3,
                          p["measured"]["p10_us"].get<double>() / 1e3,
                          p["measured"]["p90_us"].get<double>() / 1e3);
            measured = text;
        }
        std::string claims;
        for (const nlohmann::json& c : p["claims"]) {
            // Latency claims only, in the table: the one a user checks first.
            const auto latency = c["better"].find("latency");
            if (latency == c["better"].end()) {
                for (const nlohmann::json& tie : c["within_error"]) {
                    if (tie == "latency") {
                        claims += (claims.empty() ? "" : "; ") + std::string("ties ") +
                                  c["baseline"].get<std::string>() + " (within the error)";
                    }
                }
                continue;
            }
            const std::string status = latency->get<std::string>();
            claims += (claims.empty() ? "" : "; ") +
                      std::string(status == "contradicted" ? "CONTRADICTED: " : "") +
                      "faster than " + c["baseline"].get<std::string>() + " (" + status + ")";
        }
        if (claims.empty()) {
            claims = p["on_front"].get<bool>() ? "front" : "-";
        }
        std::printf("%5lld  %-10s %12.3f %26s %12.3f  %s\n", p["id"].get<long long>(),
                    p["baseline"].is_null() ? "-" : p["baseline"].get<std::string>().c_str(),
                    p["latency_us"].get<double>() / 1e3, measured.c_str(),
                    p["energy_mj"].get<double>(), claims.c_str());
    }
    if (!args.out.empty()) {
        std::printf("\nWrote %zu plans to %s\n", run.document["plans"].size(), args.out.c_str());
    }
}

} // namespace

void addTuneCommand(CLI::App& app) {
    auto args = std::make_shared<TuneArguments>();
    CLI::App* cmd = app.add_subcommand(
        "tune", "Search, validate plans along the front and the best baselines on this machine, "
                "learn from what was measured, and search again until prediction and "
                "measurement agree");
    cmd->add_option("model", args->model, "ONNX model file")->required();
    cmd->add_option("--devices", args->devices,
                    "Real devices to place on, e.g. cpu:0,cpu:1,cpu (see paretune devices)")
        ->required();
    cmd->add_option("--catalog", args->catalog,
                    "Device catalog marking the devices measured: a file, or an installed "
                    "catalog's name (e.g. cpu_cores)")
        ->required();
    cmd->add_option("--db", args->db,
                    "Sample library with the model's samples on every device; the rounds are "
                    "stored there (default $XDG_DATA_HOME/paretune/samples.db)");
    cmd->add_option("--rounds", args->rounds, "At most this many rounds (default 3)");
    cmd->add_option("--validate", args->validate,
                    "Front plans validated per round, besides the best baselines (default 3)");
    cmd->add_option("--repeats", args->repeats,
                    "Timed runs of each plan per round, interleaved, at least (default 20)");
    cmd->add_option("--window", args->window,
                    "The round's timed runs last at least this many seconds: where the plans "
                    "are short, each runs more than --repeats times (default 3; 0: exactly "
                    "--repeats)");
    cmd->add_option("--warmup", args->warmup, "Untimed runs of each plan first (default 2)");
    cmd->add_option("--target", args->target,
                    "Stop once every validated plan's latency error is within this percentage "
                    "(default 5)");
    addSearchSettings(*cmd, *args);
    cmd->add_option("--max-plans", args->maxPlans,
                    "Plans of the final front to output, spread along it (default 50, 0: all)");
    cmd->add_option("--out", args->out,
                    "Write the plans (with their measurements) as JSON to this file (- for "
                    "stdout)");
    cmd->add_flag("--json", args->json, "Machine-readable output on stdout");
    cmd->callback([args] { runTuneCommand(*args); });
}

} // namespace paretune::cli
