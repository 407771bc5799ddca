#include "profile_command.h"

#include "common/input_error.h"
#include "common/progress.h"
#include "cost/device_catalog.h"
#include "device/device.h"
#include "device/device_fingerprint.h"
#include "graph/onnx_importer.h"
#include "profile/profile_model.h"
#include "store/graph_records.h"
#include "store/sample_library.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <unistd.h>

namespace paretune::cli {

namespace {

struct ProfileArguments {
    std::string model;
    std::string device;
    std::string db;
    std::string catalog;
    int repeats = 0;
    bool force = false;
    bool json = false;
};

/// A progress bar on stderr when it is a terminal.
class TerminalProgress : public Progress {
public:
    void report(double fraction, const std::string& message) override {
        const int width = 30;
        const int filled = static_cast<int>(fraction * width);
        std::fprintf(stderr, "\r[%s%s] %3.0f%% %-40.40s",
                     std::string(static_cast<std::size_t>(filled), '#').c_str(),
                     std::string(static_cast<std::size_t>(width - filled), ' ').c_str(),
                     fraction * 100.0, message.c_str());
        std::fflush(stderr);
    }
    bool cancelled() const override { return false; }
    ~TerminalProgress() override { std::fputs("\n", stderr); }
};

struct NodeRow {
    NodeId node = kNone;
    bool reused = false;
    std::string status = "ok";
    std::string message;
    Sample sample;
};

nlohmann::json optionalJson(const std::optional<double>& value) {
    return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

} // namespace

const Device& profiledDevice(const DeviceInventory& inventory, const std::string& id) {
    const Device* device = inventory.find(id);
    if (!device) {
        std::string ids;
        for (const Device& d : inventory.devices) {
            ids += (ids.empty() ? "" : ", ") + d.id;
        }
        throw InputError("--device " + id + ": no such device (known: " + ids + ")");
    }
    if (device->tag != DeviceTag::Real) {
        throw InputError("--device " + id + ": a modelled device is never profiled");
    }
    if (!device->isCpu()) {
        throw InputError("--device " + id +
                         ": profiling runs on CPU devices in this version (cpu, cpu:N)");
    }
    return *device;
}

ProfileOptions profileOptionsFor(const Device& device, int repeats) {
    ProfileOptions options;
    options.measure.threads = static_cast<int>(device.cpus.size());
    options.measure.cpuSet.assign(device.cpus.begin(), device.cpus.end());
    if (repeats > 0) {
        options.measure.minRepeats = repeats;
        options.measure.minMeasureMs = 0;
    }
    options.wholeModel = true;
    return options;
}

std::vector<Sample> samplesOf(const Graph& graph, const ProfileResult& result,
                              const ProfileOptions& options, const std::string& fingerprint,
                              std::optional<double> activeW) {
    const nlohmann::json config = {{"threads", result.threads},
                                   {"cpus", result.cpuSet},
                                   {"rounds", options.measure.rounds},
                                   {"warmup_runs", options.measure.warmupRuns},
                                   {"min_repeats", options.measure.minRepeats},
                                   {"min_measure_ms", options.measure.minMeasureMs}};
    std::vector<Sample> batch;
    for (const auto& [node, profile] : result.nodes) {
        if (profile.status != ProfileStatus::Ok) {
            continue;
        }
        Sample s = sampleFor(graph, node);
        s.deviceFingerprint = fingerprint;
        s.configJson = config.dump();
        s.latencyUs = profile.latency.medianUs;
        s.latencyP10Us = profile.latency.p10Us;
        s.latencyP90Us = profile.latency.p90Us;
        s.repeats = profile.latency.repeats;
        s.peakMemoryMb = static_cast<double>(profile.memory.peakBytes) / (1024.0 * 1024.0);
        if (profile.energyUj) {
            s.energyUj = profile.energyUj;
            s.energySource = profile.energySource;
        } else if (activeW) {
            s.energyUj = *activeW * profile.latency.medianUs; // W × µs = µJ
            s.energySource = "modelled";
        } else {
            s.energySource = "none";
        }
        batch.push_back(s);
    }
    return batch;
}

namespace {

void runProfile(const ProfileArguments& args) {
    const ImportResult imported = importOnnxFile(args.model);
    const Graph& graph = imported.graph;
    std::optional<DeviceCatalog> catalog;
    if (!args.catalog.empty()) {
        catalog = loadDeviceCatalog(args.catalog);
    }
    const DeviceInventory inventory = discoverDevices(catalog ? &*catalog : nullptr);
    const Device* device = &profiledDevice(inventory, args.device);
    if (args.repeats < 0) {
        throw InputError("--repeats must be positive");
    }
    const std::string fingerprint = deviceFingerprint(*device);
    // Power for modelled energy, when the catalog describes this device.
    std::optional<double> activeW;
    if (catalog) {
        const int index = catalog->findDevice(device->id);
        if (index >= 0) {
            activeW = catalog->devices[static_cast<std::size_t>(index)].activeW;
        }
    }

    SampleLibrary library = SampleLibrary::open(args.db.empty() ? defaultSampleLibraryPath()
                                                                : std::filesystem::path(args.db));
    DeviceRecord record;
    record.fingerprint = fingerprint;
    record.kind = device->kind;
    record.name = device->name;
    const nlohmann::json identity = deviceIdentity(*device, softwareStack());
    record.specJson = identity.dump();
    const SoftwareStack& software = softwareStack();
    record.softwareJson = nlohmann::json{
        {"compiler", software.compiler},
        {"torch", software.torchVersion},
        {"blas",
         software.blas}}.dump();
    library.upsertDevice(record);
    library.upsertGraph(graph);

    // Reuse: a signature already measured on this device fingerprint is not measured again.
    std::vector<NodeRow> rows;
    std::map<std::string, NodeId> measuredSignature; // first node of each signature to measure
    ProfileOptions options = profileOptionsFor(*device, args.repeats);
    for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
        if (graph.nodes[i].kind != NodeKind::Compute) {
            continue;
        }
        NodeRow row;
        row.node = static_cast<NodeId>(i);
        const std::string& signature = graph.signatures[i];
        if (!args.force) {
            if (const auto stored = library.findSample(signature, fingerprint)) {
                row.reused = true;
                row.sample = *stored;
            }
        }
        if (!row.reused && measuredSignature.emplace(signature, row.node).second) {
            options.nodes.push_back(row.node);
        }
        rows.push_back(row);
    }
    std::unique_ptr<TerminalProgress> bar;
    if (!args.json && isatty(STDERR_FILENO)) {
        bar = std::make_unique<TerminalProgress>();
    }
    // An empty node list means "every compute node" to profileModel: with everything reused
    // there is nothing to run.
    ProfileResult result;
    if (!options.nodes.empty()) {
        result = profileModel(graph, options, bar.get());
    } else {
        result.threads = options.measure.threads;
        result.wholeModel.message = "not run: every operator was reused (use --force to measure)";
    }
    bar.reset();

    const std::vector<Sample> batch = samplesOf(graph, result, options, fingerprint, activeW);
    std::map<std::string, Sample> bySignature;
    for (const Sample& sample : batch) {
        bySignature[sample.opSignature] = sample;
    }
    if (!batch.empty()) {
        library.addSamples(batch); // one transaction
    }

    for (NodeRow& row : rows) {
        if (row.reused) {
            continue;
        }
        const auto it = result.nodes.find(row.node);
        const NodeId measured =
            measuredSignature.at(graph.signatures[static_cast<std::size_t>(row.node)]);
        const auto& profile = it != result.nodes.end() ? it->second : result.nodes.at(measured);
        if (profile.status != ProfileStatus::Ok) {
            row.status = std::string(profileStatusName(profile.status));
            row.message = profile.message;
            continue;
        }
        row.sample = bySignature.at(graph.signatures[static_cast<std::size_t>(row.node)]);
        row.reused = row.node != measured; // same signature measured once in this model
    }

    double sumOfOps = 0.0;
    int reusedCount = 0;
    for (const NodeRow& row : rows) {
        if (row.status == "ok") {
            sumOfOps += row.sample.latencyUs;
        }
        reusedCount += row.reused ? 1 : 0;
    }
    const double endToEnd =
        result.wholeModel.status == ProfileStatus::Ok ? result.wholeModel.endToEnd.medianUs : 0.0;

    if (args.json) {
        nlohmann::json nodes = nlohmann::json::array();
        for (const NodeRow& row : rows) {
            const Node& n = graph.nodes[static_cast<std::size_t>(row.node)];
            nlohmann::json item = {{"name", n.name},
                                   {"op_type", n.opType},
                                   {"status", row.status},
                                   {"reused", row.reused}};
            if (row.status == "ok") {
                item["latency_us"] = row.sample.latencyUs;
                item["p10_us"] = optionalJson(row.sample.latencyP10Us);
                item["p90_us"] = optionalJson(row.sample.latencyP90Us);
                item["peak_memory_mb"] = optionalJson(row.sample.peakMemoryMb);
                item["energy_mj"] = row.sample.energyUj
                                        ? nlohmann::json(*row.sample.energyUj / 1000.0)
                                        : nlohmann::json(nullptr);
                item["energy_source"] = row.sample.energySource;
            } else {
                item["message"] = row.message;
            }
            nodes.push_back(item);
        }
        const nlohmann::json doc = {
            {"tool", "paretune"},
            {"device", device->id},
            {"device_fingerprint", fingerprint},
            {"model_fingerprint", graph.fingerprint},
            {"db", library.path().string()},
            {"source", "measured"},
            {"nodes", nodes},
            {"measured_nodes", result.count(ProfileStatus::Ok)},
            {"reused_nodes", reusedCount},
            {"sum_of_ops_us", sumOfOps},
            {"end_to_end_us", endToEnd > 0 ? nlohmann::json(endToEnd) : nlohmann::json(nullptr)}};
        std::cout << doc.dump(2) << "\n";
        return;
    }
    std::printf("Model    %s (%s)\n", args.model.c_str(), graph.fingerprint.substr(0, 12).c_str());
    std::printf("Device   %s %s (%s), %d threads\n", device->id.c_str(), device->name.c_str(),
                fingerprint.substr(0, 12).c_str(), result.threads);
    std::printf("Library  %s\n\n", library.path().string().c_str());
    std::printf("%-40s %-18s %12s %23s %10s %16s %s\n", "Node", "Op", "median us", "p10-p90 us",
                "mem MB", "energy mJ", "reused");
    for (const NodeRow& row : rows) {
        const Node& n = graph.nodes[static_cast<std::size_t>(row.node)];
        if (row.status != "ok") {
            std::printf("%-40.40s %-18.18s %s: %s\n", n.name.c_str(), n.opType.c_str(),
                        row.status.c_str(), row.message.c_str());
            continue;
        }
        const Sample& s = row.sample;
        char range[64];
        std::snprintf(range, sizeof range, "%.1f-%.1f", s.latencyP10Us.value_or(0),
                      s.latencyP90Us.value_or(0));
        char energy[64] = "-";
        if (s.energyUj) {
            std::snprintf(energy, sizeof energy, "%.4f %s", *s.energyUj / 1000.0,
                          s.energySource == "modelled" ? "(mod)" : "(meas)");
        }
        std::printf("%-40.40s %-18.18s %12.1f %23s %10.2f %16s %s\n", n.name.c_str(),
                    n.opType.c_str(), s.latencyUs, range, s.peakMemoryMb.value_or(0), energy,
                    row.reused ? "yes" : "no");
    }
    std::printf("\n%zu compute nodes: %d measured now, %d reused (already in the library, or the "
                "same signature measured once here); all latencies measured\n",
                rows.size(), result.count(ProfileStatus::Ok), reusedCount);
    if (endToEnd > 0) {
        std::printf("Sum of per-op medians %.1f us, end-to-end %.1f us, ratio %.2f\n", sumOfOps,
                    endToEnd, sumOfOps / endToEnd);
    } else {
        std::printf("Sum of per-op medians %.1f us; end-to-end run: %s\n", sumOfOps,
                    result.wholeModel.message.empty() ? "not run"
                                                      : result.wholeModel.message.c_str());
    }
}

} // namespace

void addProfileCommand(CLI::App& app) {
    auto args = std::make_shared<ProfileArguments>();
    CLI::App* cmd = app.add_subcommand(
        "profile", "Measure every operator of a model on a device and store the samples");
    cmd->add_option("model", args->model, "ONNX model file")->required();
    cmd->add_option("--device", args->device, "Device id: cpu or cpu:N (see paretune devices)")
        ->required();
    cmd->add_option("--db", args->db,
                    "Sample library (default $XDG_DATA_HOME/paretune/samples.db)");
    cmd->add_option("--catalog", args->catalog, "Device catalog giving power for modelled energy");
    cmd->add_option("--repeats", args->repeats,
                    "Timed runs per round (default: enough for 50 ms, at least 5)");
    cmd->add_flag("--force", args->force, "Measure again even what the library already holds");
    cmd->add_flag("--json", args->json, "Machine-readable output");
    cmd->callback([args] { runProfile(*args); });
}

} // namespace paretune::cli
