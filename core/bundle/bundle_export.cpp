// SPDX-License-Identifier: GPL-3.0-or-later
#include "bundle_export.h"

#include "bundle/bundle_accuracy.h"
#include "bundle/model_partitioner.h"
#include "bundle_parts.h"
#include "common/input_error.h"
#include "common/json_reader.h"
#include "common/sha256.h"
#include "cost/cost_table.h"
#include "cost/device_catalog.h"
#include "device/device.h"
#include "graph/precision.h"
#include "paretune/config.h"
#include "plan/memory_plan.h"
#include "plan/memory_plan_json.h"
#include "plan/simulator.h"
#include "plan_partitions.h"
#include "predict/device_resources.h"
#include "search/baselines.h"
#include "search/pareto_search.h"
#include "search/plans_file.h"
#include "search/solution.h"
#include "store/sample_library.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <tuple>

namespace paretune {

namespace fs = std::filesystem;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

using bundle::addPartitions;
using bundle::devicesJson;
using bundle::Json;
using bundle::number;
using bundle::partitionPlan;
using bundle::PlanPartitions;
using bundle::profileCsv;
using bundle::readme;

std::string utcNow() {
    const std::time_t now = std::time(nullptr);
    std::tm parts{};
    gmtime_r(&now, &parts);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
    return text;
}

/// The weakest source among a plan's compute cells: a figure built from one modelled cost is
/// modelled.
struct SourceCounts {
    std::array<std::int64_t, 4> counts{}; // by CostSource

    std::string overall() const {
        for (const CostSource s : {CostSource::Unsupported, CostSource::Modelled,
                                   CostSource::Predicted, CostSource::Measured}) {
            if (counts[static_cast<std::size_t>(s)] > 0) {
                return std::string(costSourceName(s));
            }
        }
        return "modelled";
    }
    Json json() const {
        return {{"measured", counts[static_cast<std::size_t>(CostSource::Measured)]},
                {"predicted", counts[static_cast<std::size_t>(CostSource::Predicted)]},
                {"modelled", counts[static_cast<std::size_t>(CostSource::Modelled)]}};
    }
};

SourceCounts sourcesOf(const Simulator& sim, std::span<const std::uint8_t> genome) {
    SourceCounts sources;
    for (std::int32_t ci = 0; ci < sim.computeCount(); ++ci) {
        const std::uint8_t column = genome[static_cast<std::size_t>(ci)];
        const CostCell& cell = sim.costs().cell(sim.computeNode(ci), sim.columnDevice(column),
                                                sim.columnVariant(column));
        ++sources.counts[static_cast<std::size_t>(cell.source)];
    }
    return sources;
}

Json objectivesJson(const Objectives& o, const std::string& source) {
    auto figure = [&](double value) { return Json{{"value", value}, {"source", source}}; };
    return {{"latency_ms", figure(o.latencyUs / 1e3)},
            {"energy_mj", figure(o.energyMj)},
            {"average_power_w", figure(o.averagePowerW)},
            {"peak_memory_mb", figure(o.peakMemoryBytes / kMiB)}};
}

std::vector<std::uint8_t> genomeOf(const PlansFilePlan& plan, const Simulator& sim,
                                   const std::string& plansOrigin) {
    const Graph& g = sim.graph();
    const std::map<std::string, std::string> assignment(plan.assignment.begin(),
                                                        plan.assignment.end());
    const std::map<std::string, Variant> variants(plan.variants.begin(), plan.variants.end());
    const std::string what = plansOrigin + ": plan " + std::to_string(plan.id);
    std::vector<std::uint8_t> genome(static_cast<std::size_t>(sim.computeCount()), 0);
    for (std::int32_t ci = 0; ci < sim.computeCount(); ++ci) {
        const Node& node = g.nodes[static_cast<std::size_t>(sim.computeNode(ci))];
        const auto it = assignment.find(node.name);
        if (it == assignment.end()) {
            throw InputError(what + " does not place node '" + node.name + "' (" + node.opType +
                             ")");
        }
        const std::int32_t d = sim.costs().findDevice(it->second);
        if (d < 0) {
            throw InputError(what + " places node '" + node.name + "' on device '" + it->second +
                             "', which the plans file does not list");
        }
        std::int32_t v = 0;
        if (const auto lowered = variants.find(node.name); lowered != variants.end()) {
            v = sim.costs().findVariant(lowered->second);
            if (v < 0) {
                throw InputError(what + " runs node '" + node.name + "' in " +
                                 std::string(variantName(lowered->second)) +
                                 ", which the plans file does not offer (\"variants\")");
            }
        }
        genome[static_cast<std::size_t>(ci)] = static_cast<std::uint8_t>(sim.column(d, v));
    }
    return genome;
}

/// How many compute nodes run in each precision ({"fp32": 120, "bf16": 41}), or (`variants`)
/// in each variant ({"fp32": 80, "fp32-nhwc": 40, "bf16": 41}).
Json nodeCounts(const Simulator& sim, const Plan& plan, bool variants) {
    std::map<std::string, std::int64_t> counts;
    for (std::int32_t ci = 0; ci < sim.computeCount(); ++ci) {
        const auto n = static_cast<std::size_t>(sim.computeNode(ci));
        const Variant v = sim.costs().variant(plan.variant.empty() ? 0 : plan.variant[n]);
        ++counts[variants ? variantName(v) : std::string(precisionName(v.precision))];
    }
    Json json = Json::object();
    for (const auto& [name, count] : counts) {
        json[name] = count;
    }
    return json;
}

Json baselineJson(const PlansFilePlan& plan) {
    return plan.baseline ? Json(*plan.baseline) : Json(nullptr);
}

Json assignmentJson(const PlansFilePlan& plan) {
    Json assignment = Json::object();
    for (const auto& [node, device] : plan.assignment) {
        assignment[node] = device;
    }
    return assignment;
}

} // namespace

BundleContents buildBundle(const BundleExportOptions& options) {
    if (options.candidates < 1 || options.candidates > 64) {
        throw InputError::forSetting("candidates",
                                     "expected 1 to 64, got " + std::to_string(options.candidates));
    }
    if (options.accuracySets < 1 || options.accuracySets > 10000) {
        throw InputError::forSetting("accuracy-sets", "expected 1 to 10000, got " +
                                                          std::to_string(options.accuracySets));
    }
    const PlansFile& plansFile = options.plans;
    const std::string& plansOrigin = plansFile.origin;
    const PlansFilePlan& chosen = plansFile.plan(options.planId);

    BundleContents bundle;
    const ModelPartitioner partitioner =
        options.modelBytes.empty()
            ? ModelPartitioner(options.modelPath)
            : ModelPartitioner(ModelBytes{options.modelBytes, options.modelPath});
    const Graph& g = partitioner.graph();
    bundle.diagnostics = partitioner.diagnostics();
    plansFile.requireModel(g.fingerprint, options.modelPath);
    if (!options.catalog && plansFile.catalog.empty()) {
        throw InputError(plansOrigin + ": names no device catalog; name one to export with");
    }
    const DeviceCatalog catalog =
        options.catalog ? *options.catalog : loadDeviceCatalog(plansFile.catalog);
    const std::string& catalogPath = catalog.origin;
    const std::vector<std::string>& deviceIds = plansFile.devices;
    CostTableOptions tableOptions;
    tableOptions.fusion = plansFile.fusion;
    tableOptions.variants = plansFile.variants;
    CostTable table = buildCostTable(g, catalog, deviceIds, tableOptions);
    if (options.fillCosts) {
        options.fillCosts(table, g, catalog); // the search's costs, shared resources included
    } else {
        // Shared cores and measured contention, as the search applied them (it reported them).
        std::optional<SampleLibrary> library;
        if (!options.samplesPath.empty()) {
            library =
                SampleLibrary::open(options.samplesPath, SampleLibrary::OpenMode::ExistingOnly);
        }
        applyMachineResources(table, library ? &*library : nullptr);
    }
    Simulator sim(g, table);
    // `paretune search` schedules every plan in HEFT's upward-rank order (the default of
    // SearchOptions::upwardRankPriority); the same priority reproduces its figures.
    if (SearchOptions{}.upwardRankPriority) {
        sim.setPriority(upwardRankOrder(sim));
    }

    const std::vector<std::uint8_t> genome = genomeOf(chosen, sim, plansOrigin);
    const Plan plan = sim.planOf(genome);
    const SimulationResult simulated = sim.simulate(plan, true); // the memory plan reads transfers
    const MemoryPlan memoryPlan = buildMemoryPlan(g, table, plan, simulated);
    const SourceCounts sources = sourcesOf(sim, genome);
    // The same plan, simulator and cost table give the search's figures; a difference means the
    // search had other costs (measured ones from a sample library, another catalog).
    for (const auto& [key, value, planned] :
         {std::tuple{"latency_us", simulated.objectives.latencyUs, chosen.latencyUs},
          std::tuple{"energy_mj", simulated.objectives.energyMj, chosen.energyMj}}) {
        const double searched = planned.value_or(value);
        if (std::abs(searched - value) > 1e-6 * std::max(std::abs(searched), 1.0)) {
            bundle.diagnostics.push_back(
                {Diagnostic::Severity::Warning, "costs-differ",
                 "plan " + std::to_string(options.planId) + ": " + key + " is " + number(value) +
                     " with the costs of this export but " + number(searched) + " in " +
                     plansOrigin +
                     "; the search used other costs (a sample library or another catalog) or "
                     "another priority order"});
        }
    }
    if (!simulated.objectives.feasible()) {
        std::string why =
            simulated.unsupportedCount > 0
                ? std::to_string(simulated.unsupportedCount) +
                      " nodes are on devices without a cost for them (a measured device takes its "
                      "costs from samples: give --db with the library the search read)"
                : std::string("a device is over its memory");
        if (!options.allowInfeasible) {
            throw InputError("plan " + std::to_string(options.planId) +
                             " is infeasible with the costs of this export: " + why +
                             "; --force exports it anyway");
        }
        bundle.diagnostics.push_back({Diagnostic::Severity::Warning, "infeasible-plan",
                                      "plan " + std::to_string(options.planId) +
                                          " is infeasible: " + why +
                                          " (exported with --force; manifest.json says "
                                          "\"feasible\": false)"});
    }

    const std::string what = plansOrigin + ": plan " + std::to_string(options.planId);
    const PlanPartitions planParts =
        partitionPlan(partitioner, plan, table, options.samplesPath, what);
    const std::vector<Partition>& parts = planParts.parts;
    bundle.partitionCount = static_cast<std::int32_t>(parts.size());

    // Partitions, and where each node runs; a lowered node's conversions are listed apart.
    const Json partitionsJson =
        addPartitions(planParts, g, "partitions/", options.modelPath, bundle.files);
    std::vector<std::int32_t> partitionOf(g.nodes.size(), -1);
    std::vector<std::int32_t> runPosition(g.nodes.size(), -1);
    std::map<std::string, std::int32_t> producedBy; // tensor → partition
    Json handoffs = Json::array();
    std::map<std::string, std::size_t> handoffIndex;
    Json conversions = Json::array();
    std::int32_t position = 0;
    for (std::size_t p = 0; p < parts.size(); ++p) {
        const Partition& part = parts[p];
        for (std::size_t k = 0; k < part.nodeIds.size(); ++k) {
            const NodeId v = part.nodeIds[k];
            const NodeId origin = planParts.modelNode(v);
            if (part.nodes[k] != g.nodes[static_cast<std::size_t>(origin)].name) {
                const Node& node = planParts.lowered->graph.nodes[static_cast<std::size_t>(v)];
                conversions.push_back({{"name", node.name},
                                       {"op_type", node.opType},
                                       {"node", g.nodes[static_cast<std::size_t>(origin)].name},
                                       {"kind", std::string(nodeKindName(node.kind))},
                                       {"device", part.device},
                                       {"partition", p},
                                       {"order", position++}});
                continue;
            }
            partitionOf[static_cast<std::size_t>(origin)] = static_cast<std::int32_t>(p);
            runPosition[static_cast<std::size_t>(origin)] = position++;
        }
        for (const PartitionTensor& in : part.inputs) {
            const auto from = producedBy.find(in.name);
            if (from == producedBy.end()) {
                continue; // a model input
            }
            auto [it, added] = handoffIndex.emplace(in.name, handoffs.size());
            if (added) {
                handoffs.push_back({{"tensor", in.name},
                                    {"type", in.type},
                                    {"from", from->second},
                                    {"to", Json::array()}});
            }
            handoffs[it->second]["to"].push_back(p);
        }
        for (const PartitionTensor& out : part.outputs) {
            producedBy[out.name] = static_cast<std::int32_t>(p);
        }
    }

    // A plan with lower precisions: its partitions, run one after another, against the model.
    Json accuracy = nullptr;
    if (planParts.lowered) {
        const CalibrationInputs inputs =
            bundleCalibrationInputs(g, options.inputsFolder, options.accuracySets);
        std::vector<PartitionToRun> run;
        for (std::size_t p = 0; p < parts.size(); ++p) {
            PartitionToRun& entry = run.emplace_back();
            entry.label = "partition " + std::to_string(p);
            entry.model = parts[p].model;
            for (const PartitionTensor& t : parts[p].inputs) {
                entry.inputs.push_back(t.name);
            }
            for (const PartitionTensor& t : parts[p].outputs) {
                entry.outputs.push_back(t.name);
            }
        }
        std::vector<std::string> outputNames;
        for (const TensorId t : g.outputs) {
            outputNames.push_back(g.tensors[static_cast<std::size_t>(t)].name);
        }
        const OutputDeviation deviation = compareOutputs(
            runOnSets(g, inputs, ExecutionDevice{}), runPartitionChain(run, inputs, outputNames));
        accuracy = accuracyJson(deviation, inputs, chosen.deviationPct);
    }

    // plan.json
    std::vector<std::int32_t> priority(g.nodes.size(), -1);
    for (std::size_t k = 0; k < plan.order.size(); ++k) {
        priority[static_cast<std::size_t>(plan.order[k])] = static_cast<std::int32_t>(k);
    }
    Json nodes = Json::array();
    for (std::size_t n = 0; n < g.nodes.size(); ++n) {
        const Node& node = g.nodes[n];
        const bool compute = node.kind == NodeKind::Compute;
        const std::int32_t p = partitionOf[n];
        Json entry = {{"name", node.name},
                      {"op_type", node.opType},
                      {"kind", std::string(nodeKindName(node.kind))},
                      {"device", parts[static_cast<std::size_t>(p)].device},
                      {"partition", p},
                      {"order", runPosition[n]},
                      {"priority", compute ? Json(priority[n]) : Json(nullptr)},
                      {"start_us", compute ? Json(simulated.startUs[n]) : Json(nullptr)},
                      {"finish_us", compute ? Json(simulated.finishUs[n]) : Json(nullptr)}};
        if (compute) {
            const std::int32_t v = plan.variant.empty() ? 0 : plan.variant[n];
            entry["precision"] = std::string(precisionName(table.variant(v).precision));
            entry["variant"] = variantName(table.variant(v));
            entry["source"] = std::string(
                costSourceName(table.cell(static_cast<NodeId>(n), plan.device[n], v).source));
        }
        nodes.push_back(std::move(entry));
    }
    // The fusion groups the plan takes: each group's members run as one fused node, and sit in
    // one partition as the original operators (a runtime may fuse them again there).
    Json fusionGroups = Json::array();
    for (const std::int32_t k : simulated.fusedGroups) {
        const FusionOption& option = table.fusionOptions()[static_cast<std::size_t>(k)];
        Json members = Json::array();
        std::set<std::int32_t> partitions;
        for (const NodeId m : option.group.members) {
            members.push_back(g.nodes[static_cast<std::size_t>(m)].name);
            partitions.insert(partitionOf[static_cast<std::size_t>(m)]);
        }
        const std::int32_t d = plan.device[static_cast<std::size_t>(option.group.tail())];
        const CostCell& cell = option.cells[static_cast<std::size_t>(d)];
        fusionGroups.push_back(
            {{"pattern", option.group.pattern},
             {"kind", std::string(fusionKindName(option.group.kind))},
             {"nodes", members},
             {"device", table.device(d).id},
             {"partition", partitions.size() == 1 ? Json(*partitions.begin()) : Json(nullptr)},
             {"latency_us", cell.latencyUs},
             {"source", std::string(costSourceName(cell.source))}});
        if (partitions.size() != 1) {
            bundle.diagnostics.push_back(
                {Diagnostic::Severity::Warning, "fusion-group-split",
                 "fusion group " + option.group.pattern + " at node '" +
                     g.nodes[static_cast<std::size_t>(option.group.members[0])].name + "' spans " +
                     std::to_string(partitions.size()) + " partitions"});
        }
    }
    const std::string overall = sources.overall();
    const Json planJson = {{"schema", "paretune.plan/1"},
                           {"plan_id", options.planId},
                           {"model_fingerprint", g.fingerprint},
                           {"devices", deviceIds},
                           {"times", "simulated (µs) from " + overall + " costs"},
                           {"objectives", objectivesJson(simulated.objectives, overall)},
                           {"nodes", nodes},
                           {"conversions", conversions},
                           {"fusion_groups", fusionGroups}};
    bundle.files["plan.json"] = dumpJson(planJson, 2) + "\n";
    // The arena of each device: every tensor's offset, size and lifetime (bundle verify checks
    // that no two live ones overlap).
    bundle.files["memory_plan.json"] = dumpJson(memoryPlanJson(memoryPlan, g, table), 2) + "\n";

    // Candidates: the best-spread plans of the front, the exported plan always among them.
    const std::vector<Objective>& objectives = plansFile.objectives;
    std::vector<Solution> front;
    std::map<std::vector<std::uint8_t>, std::int64_t> idOf; // the first plan with a placement
    std::vector<const PlansFilePlan*> byId;
    for (const PlansFilePlan& p : plansFile.plans) {
        byId.push_back(&p);
    }
    std::sort(byId.begin(), byId.end(), [](const auto* a, const auto* b) { return a->id < b->id; });
    for (const PlansFilePlan* p : byId) {
        if (!p->onFront || p->id == options.planId) {
            continue;
        }
        Solution s;
        s.genome = genomeOf(*p, sim, plansOrigin);
        s.objectives = sim.evaluate(s.genome);
        s.baseline = p->baseline.value_or(std::string());
        const std::int64_t id = p->id;
        if (s.objectives.feasible() && s.genome != genome && idOf.emplace(s.genome, id).second) {
            front.push_back(std::move(s));
        }
    }
    std::vector<Solution> picked =
        spreadSubset(front, objectives, static_cast<std::size_t>(options.candidates - 1));
    picked.insert(picked.begin(), Solution{genome, simulated.objectives, {}});
    idOf[genome] = options.planId;
    Json candidates = Json::array();
    for (const Solution& s : picked) {
        const std::int64_t id = idOf.at(s.genome);
        const PlansFilePlan& source = plansFile.plan(id);
        const std::string sourceName = sourcesOf(sim, s.genome).overall();
        const std::string file = "candidates/plan-" + std::to_string(id) + ".json";
        // The exported plan's partitions are partitions/; the others' only when asked for.
        Json partitionEntries = nullptr;
        std::string partitionFolder;
        if (id == options.planId) {
            partitionFolder = "partitions/";
        } else if (options.candidatePartitions) {
            partitionFolder = "candidates/plan-" + std::to_string(id) + "/";
            partitionEntries = addPartitions(
                partitionPlan(partitioner, sim.planOf(s.genome), table, options.samplesPath,
                              plansOrigin + ": plan " + std::to_string(id)),
                g, partitionFolder, options.modelPath, bundle.files);
        }
        Json candidate = {
            {"schema", "paretune.candidate/1"},
            {"id", id},
            {"baseline", baselineJson(source)},
            {"objectives", objectivesJson(s.objectives, sourceName)},
            {"cost_sources", sourcesOf(sim, s.genome).json()},
            {"partitions", partitionFolder.empty() ? Json(nullptr) : Json(partitionFolder)},
            {"assignment", assignmentJson(source)}};
        bundle.files[file] = dumpJson(candidate, 2) + "\n";
        Json entry = {
            {"id", id},
            {"file", file},
            {"exported", id == options.planId},
            {"latency_ms", s.objectives.latencyUs / 1e3},
            {"energy_mj", s.objectives.energyMj},
            {"average_power_w", s.objectives.averagePowerW},
            {"peak_memory_mb", s.objectives.peakMemoryBytes / kMiB},
            {"source", sourceName},
            {"partitions_folder", partitionFolder.empty() ? Json(nullptr) : Json(partitionFolder)}};
        if (!partitionEntries.is_null()) {
            entry["partitions"] = partitionEntries;
        }
        candidates.push_back(std::move(entry));
        bundle.candidateIds.push_back(id);
    }

    // Devices: this machine's device for a real id, the catalog's for a modelled one.
    const DeviceInventory inventory = discoverDevices(&catalog);
    const Json devices = devicesJson(table, catalog, inventory, bundle.diagnostics);

    // profile.csv: the cost table's figures, then the sample library's measurements.
    std::int64_t measuredRows = 0;
    bundle.files["profile.csv"] =
        profileCsv(sim, plan, inventory, options.samplesPath, &measuredRows);

    std::uintmax_t modelBytes = options.modelBytes.size();
    const std::string modelSha = options.modelBytes.empty()
                                     ? fileSha256(options.modelPath, modelBytes)
                                     : Sha256::hex(options.modelBytes);
    Json modelInputs = Json::array();
    for (const TensorId t : g.inputs) {
        const Tensor& tensor = g.tensors[static_cast<std::size_t>(t)];
        modelInputs.push_back({{"name", tensor.name}, {"type", tensor.typeString()}});
    }
    Json modelOutputs = Json::array();
    for (const TensorId t : g.outputs) {
        const Tensor& tensor = g.tensors[static_cast<std::size_t>(t)];
        modelOutputs.push_back({{"name", tensor.name}, {"type", tensor.typeString()}});
    }
    Json manifest = {
        {"schema", kBundleSchema},
        {"tool", {{"name", "paretune"}, {"version", PARETUNE_VERSION}}},
        {"created_at", utcNow()},
        {"model",
         {{"file", fs::path(options.modelPath).filename().string()},
          {"name", g.name},
          {"fingerprint", g.fingerprint},
          {"sha256", modelSha},
          {"bytes", modelBytes},
          {"opset", g.opset},
          {"node_count", g.nodes.size()},
          {"inputs", modelInputs},
          {"outputs", modelOutputs}}},
        {"plan",
         {{"id", options.planId},
          {"plans_file", fs::path(plansOrigin).filename().string()},
          {"catalog", fs::path(catalogPath).filename().string()},
          {"baseline", baselineJson(chosen)},
          {"feasible", simulated.objectives.feasible()},
          {"objectives", objectivesJson(simulated.objectives, overall)},
          {"memory_plan",
           {{"file", "memory_plan.json"},
            {"planned_peak_mb", static_cast<double>(memoryPlan.plannedPeakBytes()) / kMiB},
            {"devices", memoryFiguresJson(memoryPlan, table)}}},
          {"cost_sources", sources.json()},
          {"precisions", nodeCounts(sim, plan, false)},
          {"variants", nodeCounts(sim, plan, true)},
          {"accuracy", accuracy}}},
        {"devices", devices},
        {"profile",
         {{"file", "profile.csv"},
          {"sample_library", options.samplesPath.empty()
                                 ? Json(nullptr)
                                 : Json(fs::path(options.samplesPath).filename().string())},
          {"measured_rows", measuredRows}}},
        {"partitions", partitionsJson},
        {"handoffs", handoffs},
        {"candidates", candidates}};
    bundle.files["README.md"] = readme(g, manifest, parts);
    Json files = Json::object();
    for (const auto& [name, bytes] : bundle.files) {
        files[name] = {{"sha256", Sha256::hex(bytes)}, {"bytes", bytes.size()}};
    }
    manifest["files"] = files;
    bundle.files["manifest.json"] = dumpJson(manifest, 2) + "\n";
    return bundle;
}

} // namespace paretune
