// SPDX-License-Identifier: GPL-3.0-or-later
#include "predict_command.h"

#include "table_text.h"

#include "common/input_error.h"
#include "common/json_reader.h"
#include "device/device.h"
#include "device/device_fingerprint.h"
#include "graph/onnx_importer.h"
#include "predict/accuracy_metrics.h"
#include "predict/performance_predictor.h"
#include "predict/predictor_dataset.h"
#include "predict/predictor_training.h"
#include "profile_command.h"
#include "store/sample_library.h"
#include "workflow/predictor_workflow.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>

namespace paretune::cli {

namespace {

SampleLibrary openLibrary(const std::string& db) {
    return SampleLibrary::open(db.empty() ? defaultSampleLibraryPath() : std::filesystem::path(db));
}

/// The library `predict` and `adapt` read their predictor from; it must hold one.
SampleLibrary openPredictorLibrary(const std::string& db) {
    SampleLibrary library = openLibrary(db);
    if (library.predictorCount() == 0) {
        throw InputError(library.path().string() +
                         ": no predictor in the sample library: run paretune train first");
    }
    return library;
}

void printMetricsLine(const char* label, const AccuracyMetrics& m, int indent = 2) {
    std::printf("%*s%-10s MAPE %7.1f%%  within ±10%% %5.1f%%  Spearman %6.3f  end-to-end error "
                "%6.1f%% (max %.1f%%)\n",
                indent, "", label, m.mapePercent, 100.0 * m.within10, m.spearman, m.endToEndPercent,
                m.endToEndMaxPercent);
}

// --- train ---------------------------------------------------------------------------------

struct TrainArguments {
    std::string db;
    std::string holdoutModel;
    std::string holdoutDevice;
    int epochs = 60;
    int members = 5;
    std::string target = "ratio";
    std::uint64_t seed = 1;
    bool json = false;
};

void runTrain(const TrainArguments& args) {
    if (args.target != "ratio" && args.target != "absolute") {
        throw InputError("--target: expected ratio or absolute, got \"" + args.target + "\"");
    }
    if (args.epochs < 1 || args.epochs > 100000) {
        throw InputError("--epochs: expected 1 to 100000, got " + std::to_string(args.epochs));
    }
    if (args.members < 1 || args.members > 32) {
        throw InputError("--members: expected 1 to 32, got " + std::to_string(args.members));
    }
    SampleLibrary library = openLibrary(args.db);
    TrainingSettings settings;
    settings.holdoutModel = args.holdoutModel;
    settings.holdoutDevice = args.holdoutDevice;
    PredictorOptions& options = settings.options;
    options.epochs = args.epochs;
    options.members = args.members;
    options.seed = args.seed;
    options.rooflineRatio = args.target == "ratio";
    const TrainingReport report =
        trainPredictorInLibrary(library, settings, [&](int epoch, double loss) {
            if (!args.json) {
                std::fprintf(stderr, "epoch %3d/%d  loss %.5f\n", epoch, args.epochs, loss);
            }
        });
    const PredictorDataset& dataset = report.dataset;
    const nlohmann::json& metrics = report.metrics;
    const PredictorEvaluation& evaluation = report.evaluation;
    std::vector<std::string> notes;
    for (const Diagnostic& d : report.diagnostics) {
        notes.push_back(d.message);
    }
    const std::int64_t id = report.predictorId;
    const std::vector<PredictorRow>& evalRows = report.evaluatedRows;
    const DatasetSplit& split = report.split;

    if (args.json) {
        nlohmann::json doc = metrics;
        doc["tool"] = "paretune";
        doc["db"] = library.path().string();
        doc["predictor_id"] = id;
        doc["rows"] = dataset.rows.size();
        doc["notes"] = notes;
        std::cout << dumpJson(doc, 2) << "\n";
        return;
    }
    for (const std::string& note : notes) {
        std::fprintf(stderr, "note: %s\n", note.c_str());
    }
    std::printf("Library    %s: %zu rows (%zu models, %zu fused or lowered graphs of them, %zu "
                "devices)\n",
                library.path().string().c_str(), dataset.rows.size(),
                dataset.modelNames.size() - dataset.derivedFrom.size(), dataset.derivedFrom.size(),
                dataset.devices.size());
    std::printf("Trained    predictor %lld on %zu rows (%zu distinct measurements), %d members x "
                "%d epochs, target %s\n",
                static_cast<long long>(id), split.train.size(), report.trainingRows,
                options.members, options.epochs,
                options.rooflineRatio ? "log(latency / calibrated roofline)" : "log(latency)");
    std::printf("Evaluated  on the %s: %zu ops\n", evaluation.set.c_str(), evalRows.size());
    printMetricsLine("predicted", evaluation.predictor);
    printMetricsLine("roofline", evaluation.roofline);
    for (const PairEvaluation& pair : evaluation.pairs) {
        std::printf("  %-50.50s measured %10.1f us, predicted %10.1f us, roofline %10.1f us\n",
                    pair.pair.c_str(), pair.measuredSumUs, pair.predictedSumUs, pair.rooflineSumUs);
        if (evaluation.pairs.size() > 1) {
            printMetricsLine("predicted", pair.predictor, 4);
            printMetricsLine("roofline", pair.roofline, 4);
        }
    }
    const bool variants =
        std::any_of(evaluation.precisions.begin(), evaluation.precisions.end(),
                    [](const PrecisionEvaluation& p) { return p.precision != Precision::Fp32; });
    if (variants) {
        std::printf("Per precision (a variant's rows: its lowered nodes and their conversions):\n");
        for (const PrecisionEvaluation& p : evaluation.precisions) {
            std::printf("  %-4s %5zu ops  measured %10.1f us, predicted %10.1f us, roofline %10.1f "
                        "us\n",
                        std::string(precisionName(p.precision)).c_str(), p.predictor.ops,
                        p.measuredSumUs, p.predictedSumUs, p.rooflineSumUs);
            printMetricsLine("predicted", p.predictor, 4);
            printMetricsLine("roofline", p.roofline, 4);
        }
    }
    if (!report.fewShot.empty()) {
        std::printf("Few-shot   on the held-out device (k operators measured, then fine-tuned; "
                    "scored on the other operators, beside the cold start on the same ones):\n");
        for (const FewShotPoint& point : report.fewShot) {
            const std::string label = "k = " + std::to_string(point.k);
            printMetricsLine(label.c_str(), point.predictor);
            if (point.k > 0) {
                printMetricsLine("cold", point.coldStart, 4);
            }
        }
    }
}

// --- predict -------------------------------------------------------------------------------

struct PredictArguments {
    std::string model;
    std::string device;
    std::string db;
    bool json = false;
};

void runPredict(const PredictArguments& args) {
    const Graph graph = importOnnxFile(args.model).graph;
    SampleLibrary library = openPredictorLibrary(args.db);
    const DeviceInventory inventory = discoverDevices();
    const Device& device = profiledDevice(inventory, args.device);
    std::int64_t id = 0;
    const PerformancePredictor predictor = latestPredictor(library, &id);
    const ModelPrediction p = predictModel(library, predictor, graph, device);
    const int measured = p.measuredCount();
    if (args.json) {
        nlohmann::json nodes = nlohmann::json::array();
        for (const NodePrediction& n : p.nodes) {
            const PredictorRow& row = p.rows[n.row];
            nodes.push_back({{"name", row.nodeName},
                             {"op_type", row.opType},
                             {"latency_us", n.value.latencyUs},
                             {"peak_memory_mb", n.value.peakMemoryMb},
                             {"uncertainty", n.value.uncertainty},
                             {"out_of_range", n.value.outOfRange},
                             {"source", n.measured ? "measured" : "predicted"}});
        }
        const nlohmann::json doc = {
            {"tool", "paretune"},
            {"model", graph.sourcePath},
            {"model_fingerprint", graph.fingerprint},
            {"device", device.id},
            {"device_fingerprint", p.deviceFingerprint},
            {"predictor_id", id},
            {"cold_start_from",
             p.coldStartFrom.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.coldStartFrom)},
            {"nodes", nodes},
            {"measured_nodes", measured},
            {"predicted_nodes", static_cast<int>(p.nodes.size()) - measured},
            {"sum_of_ops_us", p.sumUs}};
        std::cout << dumpJson(doc, 2) << "\n";
        return;
    }
    std::printf("Model      %s (%s)\n", args.model.c_str(),
                graph.fingerprint.substr(0, 12).c_str());
    std::printf(
        "Device     %s %s (%s)%s\n", device.id.c_str(), device.name.c_str(),
        p.deviceFingerprint.substr(0, 12).c_str(),
        p.coldStartFrom.empty()
            ? ""
            : (", never trained on: cold start from " + p.coldStartFrom.substr(0, 12)).c_str());
    std::printf("Predictor  %lld\n\n", static_cast<long long>(id));
    const int nameWidth = columnWidth(p.rows, [](const PredictorRow& row) { return row.nodeName; });
    std::printf("%-*s %-18s %12s %10s %12s  %s\n", nameWidth, "Node", "Op", "latency us", "mem MiB",
                "uncertainty", "source");
    for (const NodePrediction& n : p.nodes) {
        const PredictorRow& row = p.rows[n.row];
        std::printf("%-*s %-18s %12.1f %10.2f %11.0f%%  %s%s\n", nameWidth, row.nodeName.c_str(),
                    row.opType.c_str(), n.value.latencyUs, n.value.peakMemoryMb,
                    100.0 * n.value.uncertainty, n.measured ? "measured" : "predicted",
                    n.value.outOfRange ? " (out of range)" : "");
    }
    std::printf("\n%zu compute nodes: %d measured, %zu predicted; sum of ops %.1f us\n",
                p.nodes.size(), measured, p.nodes.size() - static_cast<std::size_t>(measured),
                p.sumUs);
}

// --- adapt ---------------------------------------------------------------------------------

struct AdaptArguments {
    std::string model;
    std::string device;
    std::string db;
    int budget = 0;
    int repeats = 0;
    bool json = false;
};

void runAdapt(const AdaptArguments& args) {
    if (args.budget < 1) {
        throw InputError("--budget: expected a positive number of operators to measure, got " +
                         std::to_string(args.budget));
    }
    if (args.repeats < 0) {
        throw InputError("--repeats must be positive");
    }
    const Graph graph = importOnnxFile(args.model).graph;
    SampleLibrary library = openPredictorLibrary(args.db);
    const DeviceInventory inventory = discoverDevices();
    const Device& device = profiledDevice(inventory, args.device);
    AdaptRequest request;
    request.budget = args.budget;
    request.repeats = args.repeats;
    const AdaptRun run = adaptPredictor(graph, device, library, request);
    if (args.json) {
        nlohmann::json measured = nlohmann::json::array();
        for (const AdaptedOperator& m : run.measured) {
            measured.push_back({{"name", m.name},
                                {"op_type", m.opType},
                                {"predicted_us_before", m.predictedUsBefore},
                                {"uncertainty_before", m.uncertaintyBefore},
                                {"measured_us", m.measuredUs}});
        }
        const bool any = !run.measured.empty();
        const nlohmann::json doc = {
            {"tool", "paretune"},
            {"model", graph.sourcePath},
            {"device", device.id},
            {"device_fingerprint", run.deviceFingerprint},
            {"budget", args.budget},
            {"predictor_id_before", run.predictorBefore},
            {"predictor_id", run.predictorAfter},
            {"measured", measured},
            {"before", any ? toJson(run.before) : nlohmann::json(nullptr)},
            {"after_in_sample", any ? toJson(run.afterInSample) : nlohmann::json(nullptr)}};
        std::cout << dumpJson(doc, 2) << "\n";
        return;
    }
    if (run.measured.empty()) {
        std::printf("Nothing to measure: every operator of %s is already measured on %s\n",
                    args.model.c_str(), device.id.c_str());
        return;
    }
    std::printf("Measured %zu operators on %s (the most uncertain by expected error):\n",
                run.measured.size(), device.id.c_str());
    const int nameWidth =
        columnWidth(run.measured, [](const AdaptedOperator& m) { return m.name; });
    for (const AdaptedOperator& m : run.measured) {
        std::printf("  %-*s %-14s predicted %10.1f us (±%3.0f%%), measured %10.1f us\n", nameWidth,
                    m.name.c_str(), m.opType.c_str(), m.predictedUsBefore,
                    100.0 * m.uncertaintyBefore, m.measuredUs);
    }
    printMetricsLine("before", run.before);
    printMetricsLine("after", run.afterInSample);
    std::printf("Retrained: predictor %lld replaces %lld (after: in-sample on the new samples)\n",
                static_cast<long long>(run.predictorAfter),
                static_cast<long long>(run.predictorBefore));
}

} // namespace

void addPredictCommands(CLI::App& app) {
    auto train = std::make_shared<TrainArguments>();
    CLI::App* t = app.add_subcommand(
        "train", "Train the performance predictor on the sample library and evaluate it");
    t->add_option("--db", train->db, "Sample library (default $XDG_DATA_HOME/paretune/samples.db)");
    t->add_option("--holdout-model", train->holdoutModel,
                  "Leave this model out (file name without .onnx, or fingerprint prefix)");
    t->add_option("--holdout-device", train->holdoutDevice,
                  "Leave this device out (fingerprint prefix); adds the few-shot curve");
    t->add_option("--epochs", train->epochs, "Training epochs (default 60)");
    t->add_option("--members", train->members, "Ensemble members (default 5)");
    t->add_option("--target", train->target,
                  "ratio: learn latency / roofline calibrated per op kind (default); absolute: "
                  "learn latency");
    t->add_option("--seed", train->seed, "Random seed (default 1)");
    t->add_flag("--json", train->json, "Machine-readable output");
    t->callback([train] { runTrain(*train); });

    auto predict = std::make_shared<PredictArguments>();
    CLI::App* p = app.add_subcommand(
        "predict", "Predict every operator's latency and memory of a model on a device");
    p->add_option("model", predict->model, "ONNX model file")->required();
    p->add_option("--device", predict->device, "Device id: cpu or cpu:N")->required();
    p->add_option("--db", predict->db, "Sample library holding the predictor");
    p->add_flag("--json", predict->json, "Machine-readable output");
    p->callback([predict] { runPredict(*predict); });

    auto adapt = std::make_shared<AdaptArguments>();
    CLI::App* a = app.add_subcommand(
        "adapt", "Measure the most uncertain operators of a model on a device, then retrain");
    a->add_option("model", adapt->model, "ONNX model file")->required();
    a->add_option("--device", adapt->device, "Device id: cpu or cpu:N")->required();
    a->add_option("--budget", adapt->budget, "Operators to measure")->required();
    a->add_option("--db", adapt->db, "Sample library holding the predictor");
    a->add_option("--repeats", adapt->repeats, "Timed runs per round (see paretune profile)");
    a->add_flag("--json", adapt->json, "Machine-readable output");
    a->callback([adapt] { runAdapt(*adapt); });
}

} // namespace paretune::cli
