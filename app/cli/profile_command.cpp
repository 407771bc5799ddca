// SPDX-License-Identifier: GPL-3.0-or-later
#include "profile_command.h"

#include "interrupt.h"
#include "table_text.h"

#include "common/json_values.h"
#include "terminal_progress.h"

#include "common/input_error.h"
#include "common/input_file.h"
#include "common/json_reader.h"
#include "common/progress.h"
#include "cost/device_catalog.h"
#include "device/device.h"
#include "device/device_fingerprint.h"
#include "graph/onnx_importer.h"
#include "profile/library_profile.h"
#include "runtime/torch_runtime.h"
#include "store/sample_library.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <tuple>
#include <unistd.h>

namespace paretune::cli {

namespace {

nlohmann::json speedJson(const std::optional<SpeedCheck>& speed) {
    if (!speed) {
        return nullptr;
    }
    const auto figures = [](const MicroBenchmark& b) {
        return nlohmann::json{{"gemm_gflops", b.gemmGflops}, {"memory_bw_gbs", b.memoryBwGbs}};
    };
    return {{"before", figures(speed->before)},
            {"after", figures(speed->after)},
            {"drifted", speed->drifted},
            {"why", speed->why}};
}

nlohmann::json contentionJson(const std::vector<ContentionMeasurement>& measured) {
    nlohmann::json list = nlohmann::json::array();
    for (const ContentionMeasurement& m : measured) {
        if (!m.notMeasured.empty()) {
            list.push_back({{"device", m.deviceId},
                            {"beside", m.besideId},
                            {"factor", nullptr},
                            {"source", nullptr},
                            {"not_measured", m.notMeasured}});
            continue;
        }
        for (const auto& [device, beside, record] :
             {std::tuple{&m.deviceId, &m.besideId, &m.deviceSlowed},
              std::tuple{&m.besideId, &m.deviceId, &m.besideSlowed}}) {
            list.push_back({{"device", *device},
                            {"beside", *beside},
                            {"factor", record->factor},
                            {"source", "measured"},
                            {"measured_at", record->measuredAt},
                            {"seconds", m.seconds}});
        }
    }
    return list;
}

std::string speedWarning(const SpeedCheck& speed) {
    return "warning: the machine's speed changed while profiling (" + speed.why +
           "): these samples may not compare with others; the samples are stored, profile again "
           "later with --force and the predictor trains on the median of the measurements";
}

struct ProfileArguments {
    std::string model;
    std::string device;
    std::string db;
    std::string catalog;
    int repeats = 0;
    bool force = false;
    bool noFusion = false;
    std::string variants;
    std::string inputs;
    bool queue = false;
    bool json = false;
};

/// Largest model `profile --queue` stores in a job.
constexpr std::uint64_t kMaxQueuedModelBytes = std::uint64_t{1} << 30;

int cudaDeviceCount(const DeviceInventory& inventory) {
    return static_cast<int>(
        std::count_if(inventory.devices.begin(), inventory.devices.end(), [](const Device& d) {
            return d.tag == DeviceTag::Real && d.cudaIndex >= 0;
        }));
}

bool isFingerprint(const std::string& text) {
    return text.size() == 64 && text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

} // namespace

const Device& profiledDevice(const DeviceInventory& inventory, const std::string& id) {
    const Device* device = inventory.find(id);
    if (!device) {
        std::string ids;
        for (const Device& d : inventory.devices) {
            ids += (ids.empty() ? "" : ", ") + d.id;
        }
        if (const std::string cuda = cudaDeviceRefusal(id, -1, cudaDeviceCount(inventory));
            !cuda.empty()) {
            throw InputError("--device " + cuda + " (known devices: " + ids + ")");
        }
        throw InputError("--device " + id + ": no such device (known: " + ids + ")");
    }
    if (device->tag != DeviceTag::Real) {
        throw InputError("--device " + id + ": a modelled device is never profiled");
    }
    if (device->cudaIndex >= 0) {
        if (const std::string cuda =
                cudaDeviceRefusal(id, device->cudaIndex, cudaDeviceCount(inventory));
            !cuda.empty()) {
            throw InputError("--device " + cuda);
        }
        return *device;
    }
    if (!device->isCpu()) {
        throw InputError("--device " + id +
                         ": profiling runs on CPU and CUDA devices (cpu, cpu:N, cuda:K)");
    }
    return *device;
}

namespace {

/// `profile --queue`: the model and the options become a job for the workers of the device.
void runQueue(const ProfileArguments& args) {
    if (!args.variants.empty()) {
        throw InputError("--variants with --queue: workers measure the model as given (fp32) in "
                         "this version; profile the variants on the machine itself");
    }
    if (args.repeats < 0) {
        throw InputError("--repeats must be positive");
    }
    const std::string bytes = readInputFile(args.model, "model", kMaxQueuedModelBytes);
    // Checked here, where the file is: a worker on another machine gets only its bytes.
    const ImportResult imported = importOnnxBytes(bytes, {}, args.model);
    std::string fingerprint = args.device;
    if (!isFingerprint(args.device)) {
        const DeviceInventory inventory = discoverDevices();
        fingerprint = deviceFingerprint(profiledDevice(inventory, args.device));
    }
    ProfileJobRecord job;
    job.modelFingerprint = imported.graph.fingerprint;
    job.modelName = args.model;
    job.modelOnnx = bytes;
    job.deviceFingerprint = fingerprint;
    job.optionsJson = nlohmann::json{{"repeats", args.repeats}, {"force", args.force}}.dump();
    SampleLibrary library = SampleLibrary::open(args.db.empty() ? defaultSampleLibraryPath()
                                                                : std::filesystem::path(args.db));
    const std::int64_t id = library.queueProfileJob(job);
    if (args.json) {
        std::cout << dumpJson(nlohmann::json{{"tool", "paretune"},
                                             {"job", id},
                                             {"state", "queued"},
                                             {"model", args.model},
                                             {"model_fingerprint", job.modelFingerprint},
                                             {"device_fingerprint", fingerprint},
                                             {"db", library.path().string()}},
                              2)
                  << "\n";
        return;
    }
    std::printf("Queued job %lld: %s on device %s in %s (paretune worker --db %s --device ID "
                "measures it)\n",
                static_cast<long long>(id), args.model.c_str(), fingerprint.substr(0, 12).c_str(),
                library.path().string().c_str(), library.path().string().c_str());
}

/// The variant rows of a profile (each lowered node with its precision), for --json.
nlohmann::json variantsJson(const Graph& graph, const LibraryProfileRun& run) {
    nlohmann::json list = nlohmann::json::array();
    for (const LibraryProfileRun::VariantRow& v : run.variantRows) {
        nlohmann::json item = {{"name", graph.nodes[static_cast<std::size_t>(v.original)].name},
                               {"precision", precisionName(v.variant.precision)},
                               {"variant", variantName(v.variant)},
                               {"status", v.row.statusName()},
                               {"reused", v.row.reused}};
        if (v.row.ok()) {
            item["latency_us"] = v.row.sample.latencyUs;
        } else {
            item["message"] = v.row.message;
        }
        list.push_back(item);
    }
    return list;
}

/// The fusion groups' rows of a profile (their fused nodes), for --json.
nlohmann::json fusedJson(const std::vector<LibraryProfileRow>& rows) {
    nlohmann::json list = nlohmann::json::array();
    for (const LibraryProfileRow& row : rows) {
        nlohmann::json item = {{"status", row.statusName()}, {"reused", row.reused}};
        if (row.ok()) {
            item["op_type"] = row.sample.opType;
            item["latency_us"] = row.sample.latencyUs;
        } else {
            item["message"] = row.message;
        }
        list.push_back(item);
    }
    return list;
}

void runProfile(const ProfileArguments& args) {
    if (args.queue) {
        runQueue(args);
        return;
    }
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
    LibraryProfileOptions options;
    options.force = args.force;
    options.repeats = args.repeats;
    options.fusionGroups = !args.noFusion;
    if (!args.variants.empty()) {
        for (const Variant p : parseVariants(args.variants)) {
            if (p != Precision::Fp32) {
                options.variants.push_back(p);
            }
        }
    }
    if (!args.inputs.empty()) {
        if (options.variants.empty()) {
            throw InputError("--inputs " + args.inputs +
                             ": calibration inputs are for the sensitivity table; give --variants "
                             "too");
        }
        options.calibration = readCalibrationInputs(graph, args.inputs);
    }
    // Power for modelled energy, when the catalog describes this device.
    if (catalog) {
        const int index = catalog->findDevice(device->id);
        if (index >= 0) {
            options.activeW = catalog->devices[static_cast<std::size_t>(index)].activeW;
        }
    }

    SampleLibrary library = SampleLibrary::open(args.db.empty() ? defaultSampleLibraryPath()
                                                                : std::filesystem::path(args.db));
    // SIGINT or SIGTERM stops after the operator in progress; what was measured is committed.
    const InterruptScope interrupts;
    auto bar = std::make_unique<TerminalProgress>("profile", args.json);
    const LibraryProfileRun run = profileIntoLibrary(graph, *device, library, options, bar.get());
    bar.reset();
    if (const int signal = InterruptScope::requested(); signal != 0) {
        std::fprintf(stderr,
                     "paretune: interrupted (%s): %d operators measured and stored in %s, %d "
                     "not measured; the same command measures the rest\n",
                     signal == SIGINT ? "SIGINT" : "SIGTERM",
                     run.result.count(ProfileStatus::Ok) + run.fusedMeasuredCount(),
                     library.path().string().c_str(), run.cancelledCount());
        throw Interrupted{signal};
    }
    const std::string& fingerprint = run.deviceFingerprint;
    const std::vector<LibraryProfileRow>& rows = run.rows;
    const ProfileResult& result = run.result;
    const double sumOfOps = run.sumOfOpsUs();
    const int reusedCount = run.reusedCount();
    const double endToEnd =
        result.wholeModel.status == ProfileStatus::Ok ? result.wholeModel.endToEnd.medianUs : 0.0;

    if (args.json) {
        nlohmann::json nodes = nlohmann::json::array();
        for (const LibraryProfileRow& row : rows) {
            const Node& n = graph.nodes[static_cast<std::size_t>(row.node)];
            nlohmann::json item = {{"name", n.name},
                                   {"op_type", n.opType},
                                   {"status", row.statusName()},
                                   {"reused", row.reused}};
            if (row.ok()) {
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
            {"fusion_groups", fusedJson(run.fusedRows)},
            {"measured_fusion_groups", run.fusedMeasuredCount()},
            {"variants", variantsJson(graph, run)},
            {"measured_variants", run.variantMeasuredCount()},
            {"sensitivity_measured", run.sensitivityMeasured},
            {"sum_of_ops_us", sumOfOps},
            {"end_to_end_us", endToEnd > 0 ? nlohmann::json(endToEnd) : nlohmann::json(nullptr)},
            {"model_run_stored", run.modelRunStored},
            {"machine_speed", speedJson(run.speed)},
            {"contention_measured", contentionJson(run.contention)}};
        std::cout << dumpJson(doc, 2) << "\n";
        if (run.speed && run.speed->drifted) {
            std::cerr << speedWarning(*run.speed) << "\n";
        }
        return;
    }
    std::printf("Model    %s (%s)\n", args.model.c_str(), graph.fingerprint.substr(0, 12).c_str());
    std::printf("Device   %s %s (%s), %d threads\n", device->id.c_str(), device->name.c_str(),
                fingerprint.substr(0, 12).c_str(), result.threads);
    std::printf("Library  %s\n\n", library.path().string().c_str());
    const int nameWidth = columnWidth(rows, [&](const LibraryProfileRow& row) {
        return graph.nodes[static_cast<std::size_t>(row.node)].name;
    });
    std::printf("%-*s %-18s %12s %23s %10s %16s %s\n", nameWidth, "Node", "Op", "median us",
                "p10-p90 us", "mem MiB", "energy mJ", "reused");
    for (const LibraryProfileRow& row : rows) {
        const Node& n = graph.nodes[static_cast<std::size_t>(row.node)];
        if (!row.ok()) {
            std::printf("%-*s %-18s %s: %s\n", nameWidth, n.name.c_str(), n.opType.c_str(),
                        std::string(row.statusName()).c_str(), row.message.c_str());
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
        std::printf("%-*s %-18s %12.1f %23s %10.2f %16s %s\n", nameWidth, n.name.c_str(),
                    n.opType.c_str(), s.latencyUs, range, s.peakMemoryMb.value_or(0), energy,
                    row.reused ? "yes" : "no");
    }
    std::printf("\n%zu compute nodes: %d measured now, %d reused (already in the library, or the "
                "same signature measured once here); all latencies measured\n",
                rows.size(), result.count(ProfileStatus::Ok), reusedCount);
    if (!run.fusedRows.empty()) {
        int ok = 0;
        int reused = 0;
        double fusedUs = 0.0;
        for (const LibraryProfileRow& row : run.fusedRows) {
            ok += row.ok() ? 1 : 0;
            reused += row.ok() && row.reused ? 1 : 0;
            fusedUs += row.ok() ? row.sample.latencyUs : 0.0;
        }
        std::printf("%zu fusion groups measured as fused nodes: %d ok (%d reused), %.1f us in "
                    "all\n",
                    run.fusedRows.size(), ok, reused, fusedUs);
    }
    if (!run.variantRows.empty()) {
        int ok = 0;
        int reused = 0;
        for (const LibraryProfileRun::VariantRow& v : run.variantRows) {
            ok += v.row.ok() ? 1 : 0;
            reused += v.row.ok() && v.row.reused ? 1 : 0;
        }
        std::printf("%zu nodes in other variants (lowered node, its conversions measured "
                    "beside it): %d ok (%d reused); sensitivity measured for %d nodes on random "
                    "inputs (accuracy on real data may differ)\n",
                    run.variantRows.size(), ok, reused, run.sensitivityMeasured);
    }
    if (endToEnd > 0) {
        std::printf("Sum of per-op medians %.1f us, end-to-end %.1f us, ratio %.2f\n", sumOfOps,
                    endToEnd, sumOfOps / endToEnd);
        if (run.modelRunStored) {
            std::printf("Whole-model run stored: the model ran %.2fx its operators' sum here; "
                        "search scales this device's costs of the model by it\n",
                        endToEnd / sumOfOps);
        }
    } else {
        std::printf("Sum of per-op medians %.1f us; end-to-end run: %s\n", sumOfOps,
                    result.wholeModel.message.empty() ? "not run"
                                                      : result.wholeModel.message.c_str());
    }
    for (const ContentionMeasurement& m : run.contention) {
        if (!m.notMeasured.empty()) {
            std::fprintf(stderr,
                         "warning: contention of %s beside %s not measured: %s; the samples are "
                         "stored, and the next profile measures it\n",
                         m.deviceId.c_str(), m.besideId.c_str(), m.notMeasured.c_str());
            continue;
        }
        std::printf("Contention (co-run benchmark, measured now in %.1f s): %s beside %s %.2f, "
                    "%s beside %s %.2f\n",
                    m.seconds, m.deviceId.c_str(), m.besideId.c_str(), m.deviceSlowed.factor,
                    m.besideId.c_str(), m.deviceId.c_str(), m.besideSlowed.factor);
    }
    if (run.speed) {
        std::printf("Machine speed (micro-benchmark before / after): GEMM %.1f / %.1f GFLOP/s, "
                    "memory %.1f / %.1f GB/s\n",
                    run.speed->before.gemmGflops, run.speed->after.gemmGflops,
                    run.speed->before.memoryBwGbs, run.speed->after.memoryBwGbs);
        if (run.speed->drifted) {
            std::fprintf(stderr, "%s\n", speedWarning(*run.speed).c_str());
        }
    }
}

} // namespace

void addProfileCommand(CLI::App& app) {
    auto args = std::make_shared<ProfileArguments>();
    CLI::App* cmd = app.add_subcommand(
        "profile", "Measure every operator of a model on a device and store the samples");
    cmd->add_option("model", args->model, "ONNX model file")->required();
    cmd->add_option("--device", args->device,
                    "Device id: cpu, cpu:N or (the CUDA flavour) cuda:K (see paretune devices); "
                    "with --queue also a device fingerprint")
        ->required();
    cmd->add_option("--db", args->db,
                    "Sample library (default $XDG_DATA_HOME/paretune/samples.db)");
    cmd->add_option("--catalog", args->catalog,
                    "Device catalog giving power for modelled energy (a file, or an "
                    "installed catalog's name)");
    cmd->add_option("--repeats", args->repeats,
                    "Timed runs per round (default: enough for 50 ms, at least 5)");
    cmd->add_flag("--force", args->force, "Measure again even what the library already holds");
    cmd->add_flag("--queue", args->queue,
                  "Do not measure here: queue a job in the library for a paretune worker on the "
                  "device (the model travels in the job)");
    cmd->add_flag("--json", args->json, "Machine-readable output");
    cmd->add_flag("--no-fusion", args->noFusion,
                  "Do not also measure the model's fusion groups as fused nodes");
    cmd->add_option(
        "--variants", args->variants,
        "Also measure the model's lowerable nodes in these variants, bf16 (Conv, "
        "MatMul, Gemm and their Relu, Clip, Add), fp16 (the same nodes; CUDA devices, "
        "and CPUs whose LibTorch runs them in float16), int8 (Conv, MatMul, Gemm with "
        "constant weights, CPU devices; its activation ranges are calibrated first) "
        "and fp32-nhwc (2-D Conv and their Relu, Clip, Add in fp32 with channels-last "
        "activations), any of them with -tN for N intra-op threads (a CPU device of more "
        "CPUs), and how much each moves the outputs (the sensitivity table the search "
        "estimates accuracy from), e.g. bf16,int8,fp32-nhwc,fp32-t1");
    cmd->add_option("--inputs", args->inputs,
                    "Folder of calibration inputs (NAME.npy or NAME.pb per model input) the "
                    "sensitivity table is measured on (default: seeded random inputs)");
    cmd->callback([args] { runProfile(*args); });
}

} // namespace paretune::cli
