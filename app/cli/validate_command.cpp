#include "validate_command.h"

#include "common/input_error.h"
#include "cost/cost_table.h"
#include "cost/device_catalog.h"
#include "cost/measured_costs.h"
#include "device/device.h"
#include "device/device_fingerprint.h"
#include "graph/onnx_importer.h"
#include "paretune/config.h"
#include "plan/simulator.h"
#include "profile/graph_executor.h"
#include "profile/measurement.h"
#include "profile/rapl_energy.h"
#include "search/baselines.h"
#include "search/pareto_search.h"
#include "store/graph_records.h"
#include "store/sample_library.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

namespace paretune::cli {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

struct ValidateArguments {
    std::string model;
    std::string plans;
    std::int64_t planId = -1;
    std::string db;
    std::string catalog;
    int repeats = 20;
    int warmup = 2;
    bool json = false;
};

nlohmann::json readPlansFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw InputError(path + ": cannot read the plans file");
    }
    nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
        throw InputError(path + ": not a JSON object (expected the output of paretune search)");
    }
    if (!doc.contains("plans") || !doc["plans"].is_array()) {
        throw InputError(path + ": no \"plans\" array (expected the output of paretune search)");
    }
    return doc;
}

std::optional<double> numberAt(const nlohmann::json& object, const char* key) {
    const auto it = object.find(key);
    return it != object.end() && it->is_number() ? std::optional<double>(it->get<double>())
                                                 : std::nullopt;
}

nlohmann::json optionalJson(const std::optional<double>& value) {
    return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

/// (predicted − measured) / measured; nothing when either is missing or measured is 0.
std::optional<double> relativeError(const std::optional<double>& predicted,
                                    const std::optional<double>& measured) {
    if (!predicted || !measured || *measured <= 0) {
        return std::nullopt;
    }
    return (*predicted - *measured) / *measured;
}

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

/// What the plan says for one node: the device, and the simulated figures when a cost table
/// could be rebuilt.
struct NodePrediction {
    std::optional<double> latencyUs;
    std::string source = "none";
    std::optional<double> startUs;
    std::optional<double> finishUs;
};

struct NodeMeasurement {
    std::vector<double> durationsUs;
    double beginUs = 0; ///< in the run of median wall time
    double endUs = 0;
};

void runValidate(const ValidateArguments& args) {
    if (args.repeats < 1 || args.repeats > 100000) {
        throw InputError("--repeats: expected 1 to 100000, got " + std::to_string(args.repeats));
    }
    if (args.warmup < 0 || args.warmup > 1000) {
        throw InputError("--warmup: expected 0 to 1000, got " + std::to_string(args.warmup));
    }
    const nlohmann::json doc = readPlansFile(args.plans);
    const nlohmann::json* plan = nullptr;
    for (const nlohmann::json& p : doc["plans"]) {
        if (p.is_object() && p.contains("id") && p["id"].is_number_integer() &&
            p["id"].get<std::int64_t>() == args.planId) {
            plan = &p;
        }
    }
    if (!plan) {
        throw InputError(args.plans + ": no plan with id " + std::to_string(args.planId) + " (" +
                         std::to_string(doc["plans"].size()) + " plans, ids 0.." +
                         std::to_string(static_cast<std::int64_t>(doc["plans"].size()) - 1) + ")");
    }
    const std::string planLabel = "plan " + std::to_string(args.planId) + " of " + args.plans;
    if (!plan->contains("assignment") || !(*plan)["assignment"].is_object()) {
        throw InputError(planLabel + ": no \"assignment\" object");
    }

    const ImportResult imported = importOnnxFile(args.model);
    const Graph& g = imported.graph;
    if (doc.contains("model_fingerprint") && doc["model_fingerprint"].is_string() &&
        doc["model_fingerprint"].get<std::string>() != g.fingerprint) {
        throw InputError(args.plans + ": the plans were searched for model " +
                         doc["model_fingerprint"].get<std::string>().substr(0, 12) + ", " +
                         args.model + " is " + g.fingerprint.substr(0, 12) +
                         "; search this model first");
    }
    std::string catalogPath = args.catalog;
    if (catalogPath.empty() && doc.contains("catalog") && doc["catalog"].is_string()) {
        catalogPath = doc["catalog"].get<std::string>();
    }
    std::optional<DeviceCatalog> catalog;
    if (!catalogPath.empty()) {
        catalog = loadDeviceCatalog(catalogPath);
    }
    const DeviceInventory inventory = discoverDevices(catalog ? &*catalog : nullptr);

    // The plan's devices, in order of first use; modelled or absent ones refuse the plan.
    std::vector<std::string> deviceIds;
    std::map<std::string, int> nodesOn;
    std::vector<std::string> assigned(g.nodes.size());
    for (const auto& [name, value] : (*plan)["assignment"].items()) {
        const NodeId node = g.findNode(name);
        if (node == kNone) {
            throw InputError(planLabel + ": node '" + name + "' is not in " + args.model);
        }
        if (!value.is_string()) {
            throw InputError(planLabel + ": node '" + name + "': expected a device id");
        }
        const std::string id = value.get<std::string>();
        assigned[static_cast<std::size_t>(node)] = id;
        if (nodesOn[id]++ == 0) {
            deviceIds.push_back(id);
        }
    }
    std::string modelled;
    std::string absent;
    for (const std::string& id : deviceIds) {
        const Device* device = inventory.find(id);
        if (device && device->tag == DeviceTag::Real) {
            continue;
        }
        std::string& list = device ? modelled : absent;
        list += (list.empty() ? "" : ", ") + id + " (" + std::to_string(nodesOn[id]) + " nodes)";
    }
    if (!modelled.empty()) {
        throw InputError(planLabel + " places operators on modelled devices: " + modelled +
                         "; only plans on real devices can be validated");
    }
    if (!absent.empty()) {
        throw InputError(planLabel + " uses devices this machine does not have: " + absent +
                         " (see paretune devices)");
    }
    std::vector<ExecutionDevice> execDevices;
    std::vector<const Device*> realDevices;
    for (const std::string& id : deviceIds) {
        realDevices.push_back(inventory.find(id));
        execDevices.push_back(executionDeviceFor(*realDevices.back()));
    }
    std::vector<std::int32_t> nodeDevice(g.nodes.size(), -1);
    for (std::size_t n = 0; n < g.nodes.size(); ++n) {
        if (!assigned[n].empty()) {
            nodeDevice[n] = static_cast<std::int32_t>(
                std::find(deviceIds.begin(), deviceIds.end(), assigned[n]) - deviceIds.begin());
        } else if (g.nodes[n].kind == NodeKind::Compute) {
            throw InputError(planLabel + ": node '" + g.nodes[n].name + "' (" + g.nodes[n].opType +
                             ") has no device");
        }
    }

    const std::filesystem::path dbPath =
        args.db.empty() ? defaultSampleLibraryPath() : std::filesystem::path(args.db);
    SampleLibrary library = SampleLibrary::open(dbPath);

    // The prediction: the plan simulated again over the cost table the search used (catalog,
    // plus measured samples of the real devices), with the search's priority order.
    std::vector<NodePrediction> predicted(g.nodes.size());
    std::vector<NodeId> order;
    std::optional<Objectives> simulated;
    std::string predictionNote;
    if (catalog) {
        std::vector<std::string> tableIds;
        if (doc.contains("devices") && doc["devices"].is_array()) {
            for (const nlohmann::json& id : doc["devices"]) {
                if (id.is_string()) {
                    tableIds.push_back(id.get<std::string>());
                }
            }
        }
        if (tableIds.empty()) {
            tableIds = deviceIds;
        }
        CostTable table = buildCostTable(g, *catalog, tableIds);
        applyMeasuredSamples(table, g, library, realDeviceFingerprints(table, inventory));
        Simulator sim(g, table);
        if (SearchOptions{}.upwardRankPriority) {
            sim.setPriority(upwardRankOrder(sim));
        }
        Plan p;
        p.device.assign(g.nodes.size(), -1);
        for (std::size_t n = 0; n < g.nodes.size(); ++n) {
            if (!assigned[n].empty()) {
                p.device[n] = table.findDevice(assigned[n]);
                if (p.device[n] < 0) {
                    throw InputError(planLabel + ": device " + assigned[n] +
                                     " is not among the plans' devices");
                }
            }
        }
        const Plan full = sim.planOf(sim.genomeOf(p));
        const SimulationResult result = sim.simulate(full);
        simulated = result.objectives;
        order = full.order;
        for (std::size_t n = 0; n < g.nodes.size(); ++n) {
            if (g.nodes[n].kind != NodeKind::Compute || full.device[n] < 0) {
                continue;
            }
            const CostCell& cell = table.cell(static_cast<NodeId>(n), full.device[n]);
            NodePrediction& np = predicted[n];
            np.source = std::string(costSourceName(cell.source));
            if (cell.supported()) {
                np.latencyUs = cell.latencyUs;
            }
            np.startUs = result.startUs[n];
            np.finishUs = result.finishUs[n];
        }
    } else {
        predictionNote = "no catalog: per-operator predictions are not available, the plan's "
                         "objectives are compared";
    }

    // Execution: warm-up, then timed runs; RAPL around the timed runs when readable.
    PlanExecutor executor(g, execDevices, nodeDevice, order);
    try {
        executor.run(); // also the check that every node runs here
        for (int i = 1; i < args.warmup; ++i) {
            executor.run();
        }
    } catch (const ExecutionError& e) {
        if (e.unsupported()) {
            throw InputError(args.model + " cannot be executed here: " + e.what());
        }
        throw;
    }
    const std::optional<RaplEnergy> meter = RaplEnergy::open();
    const auto before = meter ? meter->read() : std::nullopt;
    std::vector<PlanRun> runs;
    runs.reserve(static_cast<std::size_t>(args.repeats));
    for (int i = 0; i < args.repeats; ++i) {
        runs.push_back(executor.run());
    }
    const auto after = meter ? meter->read() : std::nullopt;
    std::optional<double> measuredEnergyMj;
    if (before && after) {
        measuredEnergyMj = meter->deltaUj(*before, *after) / 1000.0 / args.repeats;
    }
    std::vector<double> walls;
    for (const PlanRun& r : runs) {
        walls.push_back(r.wallUs);
    }
    const double medianUs = medianOf(walls);
    const double p10Us = percentileOf(walls, 0.1);
    const double p90Us = percentileOf(walls, 0.9);
    std::size_t medianRun = 0;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        if (std::abs(runs[i].wallUs - medianUs) < std::abs(runs[medianRun].wallUs - medianUs)) {
            medianRun = i;
        }
    }
    std::vector<NodeMeasurement> measured(g.nodes.size());
    for (std::size_t i = 0; i < runs.size(); ++i) {
        for (const NodeRun& r : runs[i].nodes) {
            NodeMeasurement& m = measured[static_cast<std::size_t>(r.node)];
            m.durationsUs.push_back(r.endUs - r.beginUs);
            if (i == medianRun) {
                m.beginUs = r.beginUs;
                m.endUs = r.endUs;
            }
        }
    }

    // Objectives: the plan file's prediction, the simulation redone here, the measurement.
    const std::optional<double> planLatencyUs = numberAt(*plan, "latency_us");
    const std::optional<double> planEnergyMj = numberAt(*plan, "energy_mj");
    const std::optional<double> planMemoryMb = numberAt(*plan, "peak_memory_mb");
    const std::optional<double> predictedLatencyUs =
        simulated ? std::optional<double>(simulated->latencyUs) : planLatencyUs;
    const std::optional<double> predictedEnergyMj =
        simulated ? std::optional<double>(simulated->energyMj) : planEnergyMj;
    const std::optional<double> predictedMemoryMb =
        simulated ? std::optional<double>(simulated->peakMemoryBytes / kMiB) : planMemoryMb;
    const std::optional<double> latencyError = relativeError(predictedLatencyUs, medianUs);
    const std::optional<double> energyError = relativeError(predictedEnergyMj, measuredEnergyMj);
    int measuredSources = 0;
    int otherSources = 0;
    for (const NodePrediction& np : predicted) {
        if (np.source == "measured") {
            ++measuredSources;
        } else if (np.source != "none") {
            ++otherSources;
        }
    }
    const std::string predictionSource = !simulated ? "plan file"
                                         : otherSources == 0 && measuredSources
                                             ? "simulated from measured samples"
                                             : "simulated from measured, predicted and "
                                               "modelled costs";

    // Store the measurement and the per-operator samples measured inside the plan.
    library.upsertGraph(g);
    nlohmann::json deviceSet = nlohmann::json::array();
    std::vector<std::string> fingerprints;
    for (std::size_t i = 0; i < realDevices.size(); ++i) {
        library.upsertDevice(deviceRecordOf(*realDevices[i]));
        fingerprints.push_back(deviceFingerprint(*realDevices[i]));
        deviceSet.push_back({{"id", deviceIds[i]},
                             {"fingerprint", fingerprints.back()},
                             {"cpus", execDevices[i].cpus},
                             {"threads", execDevices[i].threads}});
    }
    const nlohmann::json objectives = {
        {"latency_us",
         {{"measured", {{"median", medianUs}, {"p10", p10Us}, {"p90", p90Us}}},
          {"predicted", optionalJson(predictedLatencyUs)},
          {"predicted_source", predictionSource},
          {"plan_file", optionalJson(planLatencyUs)},
          {"error", optionalJson(latencyError)}}},
        {"energy_mj",
         {{"measured", optionalJson(measuredEnergyMj)},
          {"measured_source", measuredEnergyMj ? "rapl (package, idle included)" : "none"},
          {"predicted", optionalJson(predictedEnergyMj)},
          {"plan_file", optionalJson(planEnergyMj)},
          {"error", optionalJson(energyError)}}},
        {"peak_memory_mb",
         {{"measured", nullptr},
          {"measured_source", "none (the executor does not measure memory)"},
          {"predicted", optionalJson(predictedMemoryMb)},
          {"plan_file", optionalJson(planMemoryMb)},
          {"error", nullptr}}},
        {"repeats", args.repeats},
        {"warmup_runs", args.warmup}};
    PlanRecord record;
    record.modelFingerprint = g.fingerprint;
    record.deviceSetJson = deviceSet.dump();
    record.objectivesJson = objectives.dump();
    record.assignmentJson = (*plan)["assignment"].dump();
    record.source = "validated";
    const std::int64_t planRow = library.addPlan(record);

    std::vector<Sample> samples;
    nlohmann::json nodes = nlohmann::json::array();
    for (std::size_t n = 0; n < g.nodes.size(); ++n) {
        const NodeMeasurement& m = measured[n];
        if (g.nodes[n].kind != NodeKind::Compute || m.durationsUs.empty()) {
            continue;
        }
        const NodePrediction& np = predicted[n];
        const double medianNodeUs = medianOf(m.durationsUs);
        const std::optional<double> residual =
            np.latencyUs ? std::optional<double>(medianNodeUs - *np.latencyUs) : std::nullopt;
        const auto dv = static_cast<std::size_t>(nodeDevice[n]);
        Sample s = sampleFor(g, static_cast<std::int32_t>(n));
        s.deviceFingerprint = fingerprints[dv];
        s.latencyUs = medianNodeUs;
        s.latencyP10Us = percentileOf(m.durationsUs, 0.1);
        s.latencyP90Us = percentileOf(m.durationsUs, 0.9);
        s.repeats = static_cast<std::int32_t>(m.durationsUs.size());
        s.energySource = "none";
        s.configJson = nlohmann::json{{"context", "plan"},
                                      {"source", "validate"},
                                      {"plan_row", planRow},
                                      {"threads", execDevices[dv].threads},
                                      {"cpus", execDevices[dv].cpus},
                                      {"predicted_us", optionalJson(np.latencyUs)},
                                      {"predicted_source", np.source},
                                      {"residual_us", optionalJson(residual)}}
                           .dump();
        samples.push_back(s);
        nodes.push_back({{"name", g.nodes[n].name},
                         {"op_type", g.nodes[n].opType},
                         {"device", deviceIds[dv]},
                         {"measured_us", medianNodeUs},
                         {"predicted_us", optionalJson(np.latencyUs)},
                         {"predicted_source", np.source},
                         {"error", optionalJson(relativeError(np.latencyUs, medianNodeUs))},
                         {"measured_begin_us", m.beginUs},
                         {"measured_end_us", m.endUs},
                         {"simulated_start_us", optionalJson(np.startUs)},
                         {"simulated_finish_us", optionalJson(np.finishUs)}});
    }
    library.addSamples(samples); // one transaction; existing samples are untouched

    if (args.json) {
        const nlohmann::json out = {{"tool", "paretune"},
                                    {"tool_version", PARETUNE_VERSION},
                                    {"model", args.model},
                                    {"model_fingerprint", g.fingerprint},
                                    {"plans_file", args.plans},
                                    {"plan_id", args.planId},
                                    {"devices", deviceSet},
                                    {"objectives", objectives},
                                    {"nodes", nodes},
                                    {"db", library.path().string()},
                                    {"stored_plan_row", planRow},
                                    {"stored_samples", samples.size()}};
        std::cout << out.dump(2) << "\n";
        return;
    }
    std::string devicesText;
    for (std::size_t i = 0; i < deviceIds.size(); ++i) {
        devicesText += (i ? ", " : "") + deviceIds[i] + " (" +
                       std::to_string(nodesOn[deviceIds[i]]) + " nodes, " +
                       (execDevices[i].cpus.empty()
                            ? std::string("not pinned")
                            : "cpus " +
                                  [&] {
                                      std::string t;
                                      for (int c : execDevices[i].cpus) {
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
    std::snprintf(measuredText, sizeof measuredText, "%.3f ms (p10 %.3f, p90 %.3f)", medianUs / 1e3,
                  p10Us / 1e3, p90Us / 1e3);
    char predictedText[128] = "-";
    if (predictedLatencyUs) {
        std::snprintf(predictedText, sizeof predictedText, "%.3f ms (%s)",
                      *predictedLatencyUs / 1e3, predictionSource.c_str());
    }
    std::printf("%-10s %-42s %-48s %s\n", "Latency", measuredText, predictedText,
                percentText(latencyError).c_str());
    std::snprintf(measuredText, sizeof measuredText, "%s",
                  measuredEnergyMj ? (fixed(*measuredEnergyMj) + " mJ (RAPL package)").c_str()
                                   : "not measured (no RAPL counter)");
    std::snprintf(predictedText, sizeof predictedText, "%s",
                  predictedEnergyMj
                      ? (fixed(*predictedEnergyMj) + " mJ (simulated, power modelled)").c_str()
                      : "-");
    std::printf("%-10s %-42s %-48s %s\n", "Energy", measuredText, predictedText,
                percentText(energyError).c_str());
    std::snprintf(predictedText, sizeof predictedText, "%s",
                  predictedMemoryMb ? (fixed(*predictedMemoryMb) + " MB (simulated)").c_str()
                                    : "-");
    std::printf("%-10s %-42s %-48s %s\n\n", "Memory", "not measured", predictedText, "-");
    if (!predictionNote.empty()) {
        std::printf("Note: %s\n\n", predictionNote.c_str());
    }
    std::printf("%-40s %-18s %-8s %12s %12s %-10s %8s %23s %23s\n", "Node", "Op", "Device",
                "measured us", "predicted us", "source", "error", "measured begin-end us",
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
            "%-40.40s %-18.18s %-8s %12.1f %12s %-10s %8s %23s %23s\n",
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
                library.path().string().c_str(), static_cast<long long>(planRow), samples.size());
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
                    "Device catalog (default: the one the plans were searched with)");
    cmd->add_option("--repeats", args->repeats, "Timed runs of the whole plan (default 20)");
    cmd->add_option("--warmup", args->warmup, "Untimed runs first (default 2)");
    cmd->add_flag("--json", args->json, "Machine-readable output");
    cmd->callback([args] { runValidate(*args); });
}

} // namespace paretune::cli
