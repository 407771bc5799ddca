#include "predict_command.h"

#include "common/input_error.h"
#include "common/json_reader.h"
#include "device/device.h"
#include "device/device_fingerprint.h"
#include "device/micro_benchmark.h"
#include "graph/onnx_importer.h"
#include "predict/accuracy_metrics.h"
#include "predict/performance_predictor.h"
#include "predict/predictor_dataset.h"
#include "predict/predictor_training.h"
#include "profile/library_profile.h"
#include "profile/profile_model.h"
#include "profile_command.h"
#include "store/sample_library.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <set>

namespace paretune::cli {

namespace {

SampleLibrary openLibrary(const std::string& db) {
    return SampleLibrary::open(db.empty() ? defaultSampleLibraryPath() : std::filesystem::path(db));
}

/// The device's figures for the predictor: the stored micro-benchmark when the library has one,
/// otherwise measured now and stored with the device.
PerformancePredictor latestPredictor(const SampleLibrary& library, std::int64_t* id) {
    const auto record = library.latestPredictor();
    if (!record) {
        throw InputError(library.path().string() +
                         ": no predictor in the sample library: run paretune train first");
    }
    *id = record->id;
    return PerformancePredictor::fromRecord(*record);
}

void printMetricsLine(const char* label, const nlohmann::json& m, int indent = 2) {
    std::printf("%*s%-10s MAPE %7.1f%%  within ±10%% %5.1f%%  Spearman %6.3f  end-to-end error "
                "%6.1f%% (max %.1f%%)\n",
                indent, "", label, m["mape_percent"].get<double>(),
                100.0 * m["within_10_percent"].get<double>(), m["spearman"].get<double>(),
                m["end_to_end_error_percent"].get<double>(),
                m["end_to_end_max_error_percent"].get<double>());
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
    const nlohmann::json& evaluation = metrics["evaluation"];
    const std::vector<std::string>& notes = report.notes;
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
    std::printf("Library    %s: %zu rows (%zu models, %zu devices)\n",
                library.path().string().c_str(), dataset.rows.size(), dataset.modelNames.size(),
                dataset.devices.size());
    std::printf("Trained    predictor %lld on %zu rows (%zu distinct measurements), %d members x "
                "%d epochs, target %s\n",
                static_cast<long long>(id), split.train.size(), report.trainingRows,
                options.members, options.epochs,
                options.rooflineRatio ? "log(latency / calibrated roofline)" : "log(latency)");
    std::printf("Evaluated  on the %s: %zu ops\n", evaluation["set"].get<std::string>().c_str(),
                evalRows.size());
    printMetricsLine("predicted", evaluation["predictor"]);
    printMetricsLine("roofline", evaluation["roofline"]);
    for (const nlohmann::json& pair : evaluation["pairs"]) {
        std::printf("  %-50.50s measured %10.1f us, predicted %10.1f us, roofline %10.1f us\n",
                    pair["pair"].get<std::string>().c_str(), pair["measured_sum_us"].get<double>(),
                    pair["predicted_sum_us"].get<double>(), pair["roofline_sum_us"].get<double>());
        if (evaluation["pairs"].size() > 1) {
            printMetricsLine("predicted", pair["predictor"], 4);
            printMetricsLine("roofline", pair["roofline"], 4);
        }
    }
    if (metrics.contains("few_shot")) {
        std::printf("Few-shot   on the held-out device (k operators measured, then fine-tuned; "
                    "scored on the other operators, beside the cold start on the same ones):\n");
        for (const nlohmann::json& point : metrics["few_shot"]) {
            const std::string label = "k = " + std::to_string(point["k"].get<int>());
            printMetricsLine(label.c_str(), point["predictor"]);
            if (point["k"].get<int>() > 0 && point.contains("cold_start")) {
                printMetricsLine("cold", point["cold_start"], 4);
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

struct NodePrediction {
    const PredictorRow* row = nullptr;
    LatencyPrediction value;
    std::string source = "predicted";
};

/// Latest predictor's figures for every compute node of a model on a device; measured samples
/// win where the library has them.
struct ModelPrediction {
    std::int64_t predictorId = 0;
    std::string fingerprint;
    std::string coldStartFrom; ///< nearest known device when the predictor never saw this one
    std::vector<PredictorRow> rows;
    std::vector<NodePrediction> nodes;
    double sumUs = 0.0;
};

ModelPrediction predictModel(SampleLibrary& library, const PerformancePredictor& predictor,
                             const Graph& graph, const Device& device) {
    ModelPrediction result;
    const DeviceFigures figures = deviceFiguresFor(library, device);
    result.fingerprint = figures.fingerprint;
    if (!predictor.knowsDevice(figures.fingerprint)) {
        result.coldStartFrom = predictor.nearestDevice(figures);
    }
    result.rows = nodeRows(graph, figures.fingerprint);
    const std::vector<LatencyPrediction> predictions =
        predictor.predict(result.rows, {{figures.fingerprint, figures}});
    for (std::size_t i = 0; i < result.rows.size(); ++i) {
        NodePrediction node{&result.rows[i], predictions[i], "predicted"};
        if (const auto sample = library.findSample(result.rows[i].signature, figures.fingerprint)) {
            node.value = {sample->latencyUs, sample->peakMemoryMb.value_or(0.0), 0.0, false};
            node.source = "measured";
        }
        result.sumUs += node.value.latencyUs;
        result.nodes.push_back(node);
    }
    return result;
}

void runPredict(const PredictArguments& args) {
    const Graph graph = importOnnxFile(args.model).graph;
    SampleLibrary library = openLibrary(args.db);
    const DeviceInventory inventory = discoverDevices();
    const Device& device = profiledDevice(inventory, args.device);
    std::int64_t id = 0;
    const PerformancePredictor predictor = latestPredictor(library, &id);
    ModelPrediction p = predictModel(library, predictor, graph, device);
    p.predictorId = id;
    int measured = 0;
    for (const NodePrediction& n : p.nodes) {
        measured += n.source == "measured" ? 1 : 0;
    }
    if (args.json) {
        nlohmann::json nodes = nlohmann::json::array();
        for (const NodePrediction& n : p.nodes) {
            nodes.push_back({{"name", n.row->nodeName},
                             {"op_type", n.row->opType},
                             {"latency_us", n.value.latencyUs},
                             {"peak_memory_mb", n.value.peakMemoryMb},
                             {"uncertainty", n.value.uncertainty},
                             {"out_of_range", n.value.outOfRange},
                             {"source", n.source}});
        }
        const nlohmann::json doc = {
            {"tool", "paretune"},
            {"model", graph.sourcePath},
            {"model_fingerprint", graph.fingerprint},
            {"device", device.id},
            {"device_fingerprint", p.fingerprint},
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
        p.fingerprint.substr(0, 12).c_str(),
        p.coldStartFrom.empty()
            ? ""
            : (", never trained on: cold start from " + p.coldStartFrom.substr(0, 12)).c_str());
    std::printf("Predictor  %lld\n\n", static_cast<long long>(id));
    std::printf("%-40s %-18s %12s %10s %12s  %s\n", "Node", "Op", "latency us", "mem MB",
                "uncertainty", "source");
    for (const NodePrediction& n : p.nodes) {
        std::printf("%-40.40s %-18.18s %12.1f %10.2f %11.0f%%  %s%s\n", n.row->nodeName.c_str(),
                    n.row->opType.c_str(), n.value.latencyUs, n.value.peakMemoryMb,
                    100.0 * n.value.uncertainty, n.source.c_str(),
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
    SampleLibrary library = openLibrary(args.db);
    const DeviceInventory inventory = discoverDevices();
    const Device& device = profiledDevice(inventory, args.device);
    std::int64_t before = 0;
    const PerformancePredictor predictor = latestPredictor(library, &before);
    const ModelPrediction p = predictModel(library, predictor, graph, device);

    // The most uncertain operators not measured yet (by expected absolute error).
    std::vector<PredictorRow> open;
    std::vector<LatencyPrediction> openPredictions;
    std::vector<NodeId> openNodes;
    for (const NodePrediction& n : p.nodes) {
        if (n.source == "predicted") {
            open.push_back(*n.row);
            openPredictions.push_back(n.value);
            openNodes.push_back(graph.findNode(n.row->nodeName));
        }
    }
    const std::vector<std::size_t> chosen =
        mostInformative(open, openPredictions, static_cast<std::size_t>(args.budget));
    LibraryProfileOptions options;
    options.repeats = args.repeats;
    options.wholeModel = false;
    for (const std::size_t i : chosen) {
        options.nodes.push_back(openNodes[i]);
    }
    nlohmann::json measuredJson = nlohmann::json::array();
    std::int64_t after = before;
    nlohmann::json beforeMetrics, afterMetrics;
    if (!options.nodes.empty()) {
        const ProfileResult result = profileIntoLibrary(graph, device, library, options).result;
        // Retrain on everything, the new samples included, with the same settings.
        const PredictorDataset dataset = assembleDataset(library);
        std::vector<std::size_t> all(dataset.rows.size());
        for (std::size_t i = 0; i < all.size(); ++i) {
            all[i] = i;
        }
        const PerformancePredictor retrained =
            PerformancePredictor::train(dataset, all, predictor.options());
        std::vector<PredictorRow> measuredRows;
        std::vector<double> predictedBefore, measuredUs;
        for (const std::size_t i : chosen) {
            const auto profile = result.nodes.find(openNodes[i]);
            if (profile == result.nodes.end() || profile->second.status != ProfileStatus::Ok) {
                continue;
            }
            PredictorRow row = open[i];
            row.latencyUs = profile->second.latency.medianUs;
            measuredRows.push_back(row);
            predictedBefore.push_back(openPredictions[i].latencyUs);
            measuredUs.push_back(row.latencyUs);
            measuredJson.push_back({{"name", row.nodeName},
                                    {"op_type", row.opType},
                                    {"predicted_us_before", openPredictions[i].latencyUs},
                                    {"uncertainty_before", openPredictions[i].uncertainty},
                                    {"measured_us", row.latencyUs}});
        }
        const std::vector<std::string> groups(measuredRows.size(), graph.fingerprint);
        beforeMetrics = toJson(accuracyMetrics(predictedBefore, measuredUs, groups));
        std::vector<double> predictedAfter;
        for (const LatencyPrediction& v : retrained.predict(measuredRows, dataset.devices)) {
            predictedAfter.push_back(v.latencyUs);
        }
        afterMetrics = toJson(accuracyMetrics(predictedAfter, measuredUs, groups));
        nlohmann::json metrics = evaluatePredictor(retrained, dataset, dataset.rows);
        metrics["set"] = "training set (in-sample, nothing held out)";
        after = library.addPredictor(retrained.toRecord({{"evaluation", metrics},
                                                         {"adapt",
                                                          {{"model", graph.fingerprint},
                                                           {"device", p.fingerprint},
                                                           {"measured", measuredJson.size()},
                                                           {"previous_predictor", before}}}}));
    }
    if (args.json) {
        const nlohmann::json doc = {
            {"tool", "paretune"},      {"model", graph.sourcePath},
            {"device", device.id},     {"device_fingerprint", p.fingerprint},
            {"budget", args.budget},   {"predictor_id_before", before},
            {"predictor_id", after},   {"measured", measuredJson},
            {"before", beforeMetrics}, {"after_in_sample", afterMetrics}};
        std::cout << dumpJson(doc, 2) << "\n";
        return;
    }
    if (measuredJson.empty()) {
        std::printf("Nothing to measure: every operator of %s is already measured on %s\n",
                    args.model.c_str(), device.id.c_str());
        return;
    }
    std::printf("Measured %zu operators on %s (the most uncertain by expected error):\n",
                measuredJson.size(), device.id.c_str());
    for (const nlohmann::json& m : measuredJson) {
        std::printf("  %-40.40s %-14.14s predicted %10.1f us (±%3.0f%%), measured %10.1f us\n",
                    m["name"].get<std::string>().c_str(), m["op_type"].get<std::string>().c_str(),
                    m["predicted_us_before"].get<double>(),
                    100.0 * m["uncertainty_before"].get<double>(), m["measured_us"].get<double>());
    }
    printMetricsLine("before", beforeMetrics);
    printMetricsLine("after", afterMetrics);
    std::printf("Retrained: predictor %lld replaces %lld (after: in-sample on the new samples)\n",
                static_cast<long long>(after), static_cast<long long>(before));
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
