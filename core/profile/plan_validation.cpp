// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan_validation.h"

#include "plan_prediction.h"
#include "plan_variants.h"

#include "common/cpu_bf16.h"
#include "common/data_folders.h"
#include "common/host_memory.h"
#include "common/input_error.h"
#include "common/json_values.h"
#include "common/progress.h"
#include "cost/cost_table.h"
#include "cost/device_catalog.h"
#include "cost/measured_costs.h"
#include "device/device.h"
#include "device/device_fingerprint.h"
#include "execution_threads.h"
#include "graph_executor.h"
#include "measurement.h"
#include "plan/memory_plan.h"
#include "plan/simulator.h"
#include "predict/device_resources.h"
#include "rapl_energy.h"
#include "runtime/torch_runtime.h"
#include "search/baselines.h"
#include "search/pareto_search.h"
#include "search/plans_file.h"
#include "store/graph_records.h"
#include "store/sample_library.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>

namespace paretune {

using namespace detail; // simulateAgain (plan_prediction.h), lowerPlan (plan_variants.h), …

std::optional<double> relativeError(const std::optional<double>& predicted,
                                    const std::optional<double>& measured) {
    if (!predicted || !measured || *measured <= 0) {
        return std::nullopt;
    }
    return (*predicted - *measured) / *measured;
}

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

struct NodeTimes {
    std::vector<double> durationsUs;
    double beginUs = 0; ///< in the run of median wall time
    double endUs = 0;
};

} // namespace

PlanToValidate planToValidate(const Graph& graph, const PlansFile& plans, std::int64_t planId,
                              const std::string& label) {
    const PlansFilePlan& plan = plans.plan(planId);
    PlanToValidate toValidate;
    toValidate.label = label;
    toValidate.assignment.resize(graph.nodes.size());
    for (const auto& [name, device] : plan.assignment) {
        const NodeId node = graph.findNode(name);
        if (node == kNone) {
            throw InputError(label + ": node '" + name + "' is not in " +
                             (graph.sourcePath.empty() ? graph.name : graph.sourcePath));
        }
        toValidate.assignment[static_cast<std::size_t>(node)] = device;
    }
    toValidate.costDevices = plans.devices;
    toValidate.plannedLatencyUs = plan.latencyUs;
    toValidate.plannedEnergyMj = plan.energyMj;
    toValidate.plannedMemoryMb = plan.peakMemoryMb;
    toValidate.fusionGroups = fusionGroupsByName(graph, plan.fusionGroups, label);
    toValidate.fusion = plans.fusion;
    if (!plan.variants.empty()) {
        toValidate.variants.assign(graph.nodes.size(), Precision::Fp32);
        for (const auto& [name, precision] : plan.variants) {
            const NodeId node = graph.findNode(name);
            if (node == kNone) {
                throw InputError(label + ": variants: node '" + name + "' is not in " +
                                 (graph.sourcePath.empty() ? graph.name : graph.sourcePath));
            }
            if (!lowerable(graph, node, precision)) {
                throw InputError(label + ": variants: node '" + name + "' cannot run in " +
                                 std::string(variantName(precision)));
            }
            toValidate.variants[static_cast<std::size_t>(node)] = precision;
        }
    }
    toValidate.offeredVariants = plans.variants;
    toValidate.plannedDeviationPct = plan.deviationPct;
    return toValidate;
}

namespace {

/// A plan ready to run: its devices resolved on this machine, the prediction to compare with,
/// its executor.
struct PreparedPlan {
    /// A plan with variants: the lowered graph it runs and the plan over it (`plan` points
    /// there), and the plan as given, over the model.
    LoweredPlan variants;
    const PlanToValidate* model = nullptr;
    const PlanToValidate* plan = nullptr;
    PlanValidation report;
    std::vector<std::string> deviceIds;
    std::vector<ExecutionDevice> execDevices;
    std::vector<const Device*> realDevices;
    std::vector<std::int32_t> nodeDevice;
    /// The graph that runs: the model's, or (when the plan takes fusion groups) its fused graph.
    std::unique_ptr<FusedGraph> fused;
    std::optional<Prediction> prediction;
    std::unique_ptr<PlanExecutor> executor;
    std::vector<PlanRun> runs;
    double energyUj = 0.0; ///< RAPL around its timed runs
    bool energyRead = true;
};

/// Resets the process's peak resident set (VmHWM) to what it holds now; false where the kernel
/// does not allow it (/proc/self/clear_refs, Linux 4.0).
bool resetProcessPeak() {
    std::ofstream refs("/proc/self/clear_refs");
    refs << "5";
    refs.flush();
    return static_cast<bool>(refs);
}

/// The process's peak resident set in bytes (VmHWM of /proc/self/status), or nothing.
std::optional<double> processPeakBytes() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmHWM:", 0) == 0) {
            return std::stod(line.substr(6)) * 1024.0; // kB
        }
    }
    return std::nullopt;
}

PreparedPlan preparePlan(const Graph& g, const PlanToValidate& plan, SampleLibrary& library,
                         const ValidationOptions& options, const DeviceInventory& inventory,
                         const ExecuteOptions& execute, const Graph* model = nullptr) {
    if (plan.assignment.size() != g.nodes.size()) {
        throw InputError(plan.label + ": the assignment has " +
                         std::to_string(plan.assignment.size()) + " entries for " +
                         std::to_string(g.nodes.size()) + " nodes");
    }
    // The plan's devices, in order of first use; modelled or absent ones refuse the plan.
    std::vector<std::string> deviceIds;
    std::map<std::string, int> nodesOn;
    for (const std::string& id : plan.assignment) {
        if (!id.empty() && nodesOn[id]++ == 0) {
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
        throw InputError(plan.label + " places operators on modelled devices: " + modelled +
                         "; only plans on real devices can be validated: profile this "
                         "machine's devices, then search with a catalog that marks them measured "
                         "(e.g. " +
                         bundledCatalogText("cpu_cores.json") + ")");
    }
    if (!absent.empty()) {
        std::string cuda; // a GPU the plan names: say which flavour is here and how to get CUDA
        for (const std::string& id : deviceIds) {
            if (id.rfind("cuda:", 0) == 0 && !inventory.find(id)) {
                const auto gpus = std::count_if(
                    inventory.devices.begin(), inventory.devices.end(),
                    [](const Device& d) { return d.tag == DeviceTag::Real && d.cudaIndex >= 0; });
                cuda = "; " + cudaDeviceRefusal(id, -1, static_cast<int>(gpus));
                break;
            }
        }
        throw InputError(plan.label + " uses devices this machine does not have: " + absent +
                         " (see paretune devices)" + cuda);
    }
    PreparedPlan prepared;
    prepared.plan = &plan;
    PlanValidation& report = prepared.report;
    report.repeats = options.repeats;
    report.warmup = options.warmup;
    std::vector<ExecutionDevice>& execDevices = prepared.execDevices;
    std::vector<const Device*>& realDevices = prepared.realDevices;
    for (const std::string& id : deviceIds) {
        realDevices.push_back(inventory.find(id));
        execDevices.push_back(executionDeviceFor(*realDevices.back()));
        ValidatedDevice& dev = report.devices.emplace_back();
        dev.id = id;
        dev.fingerprint = deviceFingerprint(*realDevices.back());
        dev.cpus = execDevices.back().cpus;
        dev.threads = execDevices.back().threads;
        dev.nodes = nodesOn[id];
    }
    std::vector<std::int32_t>& nodeDevice = prepared.nodeDevice;
    nodeDevice.assign(g.nodes.size(), -1);
    for (std::size_t n = 0; n < g.nodes.size(); ++n) {
        if (!plan.assignment[n].empty()) {
            nodeDevice[n] = static_cast<std::int32_t>(
                std::find(deviceIds.begin(), deviceIds.end(), plan.assignment[n]) -
                deviceIds.begin());
        } else if (g.nodes[n].kind == NodeKind::Compute) {
            throw InputError(plan.label + ": node '" + g.nodes[n].name + "' (" + g.nodes[n].opType +
                             ") has no device");
        }
    }

    std::optional<Prediction>& prediction = prepared.prediction;
    if (options.catalog) {
        prediction =
            simulateAgain(g, plan, deviceIds, *options.catalog, inventory, library, options, model);
    } else {
        report.note = "no catalog: per-operator predictions are not available, the plan's "
                      "objectives are compared";
    }
    prepared.deviceIds = std::move(deviceIds);
    if (prediction) {
        std::vector<std::vector<NodeId>> planned;
        for (const FusionGroup& group : plan.fusionGroups) {
            planned.push_back(group.members);
        }
        std::sort(planned.begin(), planned.end());
        std::vector<std::vector<NodeId>> simulated = prediction->fusedGroups;
        std::sort(simulated.begin(), simulated.end());
        if (planned != simulated) {
            report.note = "the plan takes " + std::to_string(planned.size()) +
                          " fusion groups; over today's costs the simulation takes " +
                          std::to_string(simulated.size()) + " (the prediction is for those)";
        }
    }
    const std::vector<NodeId> order = prediction ? prediction->order : std::vector<NodeId>{};
    if (plan.fusionGroups.empty()) {
        prepared.executor = std::make_unique<PlanExecutor>(g, execDevices, nodeDevice, order,
                                                           NamedTensors{}, execute);
        return prepared;
    }
    // Each group as one fused node on its members' device, at its last member's place.
    prepared.fused = std::make_unique<FusedGraph>(fuseGroups(g, plan.fusionGroups));
    const FusedGraph& fused = *prepared.fused;
    std::vector<std::int32_t> fusedDevice(fused.graph.nodes.size(), -1);
    std::vector<std::uint8_t> hidden(g.nodes.size(), 0);
    for (const FusionGroup& group : plan.fusionGroups) {
        for (const NodeId m : group.members) {
            if (nodeDevice[static_cast<std::size_t>(m)] !=
                nodeDevice[static_cast<std::size_t>(group.tail())]) {
                throw InputError(plan.label + ": fusion group " + group.pattern + " at node '" +
                                 g.nodes[static_cast<std::size_t>(group.members[0])].name +
                                 "' has members on two devices; a group runs on one device");
            }
            hidden[static_cast<std::size_t>(m)] = m != group.tail() ? 1 : 0;
        }
    }
    for (std::size_t n = 0; n < g.nodes.size(); ++n) {
        const NodeId f = fused.nodeOf[n];
        if (f != kNone && !hidden[n]) {
            fusedDevice[static_cast<std::size_t>(f)] = nodeDevice[n];
        }
    }
    std::vector<NodeId> fusedOrder;
    for (const NodeId n : order) {
        if (!hidden[static_cast<std::size_t>(n)]) {
            fusedOrder.push_back(fused.nodeOf[static_cast<std::size_t>(n)]);
        }
    }
    prepared.executor = std::make_unique<PlanExecutor>(fused.graph, execDevices, fusedDevice,
                                                       fusedOrder, NamedTensors{}, execute);
    return prepared;
}

/// The devices' measured peak memory (the largest over the runs of the allocator's peak, plus
/// the weights) and the objective's (the largest device's), beside the simulator's per-device
/// peaks when there is a prediction.
void measurePeakMemory(PlanValidation& report, const std::vector<PlanRun>& runs,
                       const Prediction* prediction) {
    const std::map<std::string, double>* predictedPeaks =
        prediction ? &prediction->devicePeakBytes : nullptr;
    const std::size_t D = report.devices.size();
    std::vector<double> peak(D, -1.0);
    std::vector<double> weights(D, 0.0);
    for (const PlanRun& r : runs) {
        for (std::size_t d = 0; d < D && d < r.peakBytes.size(); ++d) {
            peak[d] = std::max(peak[d], r.peakBytes[d]);
            weights[d] = d < r.weightBytes.size() ? r.weightBytes[d] : 0.0;
        }
    }
    report.peakMemoryMb.measuredSource = "none (the allocator could not be counted)";
    for (std::size_t d = 0; d < D; ++d) {
        ValidatedDevice& dev = report.devices[d];
        if (predictedPeaks) {
            const auto found = predictedPeaks->find(dev.id);
            if (found != predictedPeaks->end()) {
                dev.predictedPeakMb = found->second / kMiB;
            }
            if (const auto p = prediction->devicePlannedBytes.find(dev.id);
                p != prediction->devicePlannedBytes.end()) {
                dev.plannedPeakMb = p->second / kMiB;
                dev.arenaMb = prediction->deviceArenaBytes.at(dev.id) / kMiB;
            }
        }
        if (peak[d] < 0) {
            continue;
        }
        dev.measuredPeakMb = (peak[d] + weights[d]) / kMiB;
        dev.measuredWeightsMb = weights[d] / kMiB;
        if (!report.peakMemoryMb.measured || *dev.measuredPeakMb > *report.peakMemoryMb.measured) {
            report.peakMemoryMb.measured = dev.measuredPeakMb;
        }
        report.peakMemoryMb.measuredSource =
            "largest device peak over " + std::to_string(runs.size()) +
            " runs: LibTorch's CPU allocator (tensors and oneDNN scratch of the device's thread) "
            "plus the weights and inputs its nodes read";
    }
}

/// The report of a plan whose timed runs are done, stored in the library (unless
/// options.store is false).
PlanValidation reportAndStore(const Graph& g, PreparedPlan& prepared, SampleLibrary& library,
                              const ValidationOptions& options) {
    const PlanToValidate& plan = *prepared.plan;
    PlanValidation& report = prepared.report;
    const std::vector<std::string>& deviceIds = prepared.deviceIds;
    const std::vector<ExecutionDevice>& execDevices = prepared.execDevices;
    const std::vector<const Device*>& realDevices = prepared.realDevices;
    const std::vector<std::int32_t>& nodeDevice = prepared.nodeDevice;
    const std::optional<Prediction>& prediction = prepared.prediction;
    const std::vector<PlanRun>& runs = prepared.runs;
    if (prepared.energyRead) {
        report.energyMj.measured = prepared.energyUj / 1000.0 / options.repeats;
        report.energyMj.measuredSource = "rapl (package, idle included)";
    }
    std::vector<double> walls;
    for (const PlanRun& r : runs) {
        walls.push_back(r.wallUs);
    }
    const double medianUs = medianOf(walls);
    report.latencyUs.measured = medianUs;
    report.latencyUs.measuredSource = "median of " + std::to_string(options.repeats) + " runs";
    report.latencyP10Us = percentileOf(walls, 0.1);
    report.latencyP90Us = percentileOf(walls, 0.9);
    std::size_t medianRun = 0;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        if (std::abs(runs[i].wallUs - medianUs) < std::abs(runs[medianRun].wallUs - medianUs)) {
            medianRun = i;
        }
    }
    // The graph that ran, and per node of it the model's node it reports as (a fused node: its
    // group's last member) and the group's members.
    const Graph& ran = prepared.fused ? prepared.fused->graph : g;
    std::vector<NodeId> reportedAs(ran.nodes.size(), kNone);
    std::vector<std::vector<NodeId>> membersOf(ran.nodes.size());
    for (std::size_t n = 0; n < g.nodes.size(); ++n) {
        const NodeId r = prepared.fused ? prepared.fused->nodeOf[n] : static_cast<NodeId>(n);
        if (r != kNone) {
            reportedAs[static_cast<std::size_t>(r)] = static_cast<NodeId>(n); // the last wins
        }
    }
    for (const FusionGroup& group : plan.fusionGroups) {
        membersOf[static_cast<std::size_t>(
            prepared.fused->nodeOf[static_cast<std::size_t>(group.tail())])] = group.members;
    }
    std::vector<NodeTimes> measured(ran.nodes.size());
    for (std::size_t i = 0; i < runs.size(); ++i) {
        for (const NodeRun& r : runs[i].nodes) {
            NodeTimes& m = measured[static_cast<std::size_t>(r.node)];
            m.durationsUs.push_back(r.endUs - r.beginUs);
            if (i == medianRun) {
                m.beginUs = r.beginUs;
                m.endUs = r.endUs;
            }
        }
    }

    // Objectives: the plan's figures, the simulation redone here, the measurement.
    report.latencyUs.planned = plan.plannedLatencyUs;
    report.energyMj.planned = plan.plannedEnergyMj;
    report.peakMemoryMb.planned = plan.plannedMemoryMb;
    measurePeakMemory(report, runs, prediction ? &*prediction : nullptr);
    if (prediction) {
        report.latencyUs.predicted = prediction->objectives.latencyUs;
        report.energyMj.predicted = prediction->objectives.energyMj;
        // Memory: the plan's memory plan (arena + weights of the largest device), the
        // simulator's live-sum figure beside it.
        report.peakMemoryMb.predicted = prediction->plannedPeakBytes / kMiB;
        report.peakMemoryMb.predictedSource =
            "memory plan: largest device's arena (greedy by size) + weights";
        report.simulatedPeakMemoryMb = prediction->objectives.peakMemoryBytes / kMiB;
    } else {
        report.latencyUs.predicted = plan.plannedLatencyUs;
        report.energyMj.predicted = plan.plannedEnergyMj;
        report.peakMemoryMb.predicted = plan.plannedMemoryMb;
    }
    report.latencyUs.error = relativeError(report.latencyUs.predicted, medianUs);
    report.energyMj.error = relativeError(report.energyMj.predicted, report.energyMj.measured);
    report.peakMemoryMb.error =
        relativeError(report.peakMemoryMb.predicted, report.peakMemoryMb.measured);
    int measuredSources = 0;
    int otherSources = 0;
    if (prediction) {
        for (const NodePrediction& np : prediction->nodes) {
            if (np.source == "measured") {
                ++measuredSources;
            } else if (np.source != "none") {
                ++otherSources;
            }
        }
    }
    report.predictionSource = !prediction ? "plan file"
                              : otherSources == 0 && measuredSources
                                  ? "simulated from measured samples"
                                  : "simulated from measured, predicted and modelled costs";

    // Store the measurement and the per-operator samples measured inside the plan.
    if (options.store) {
        library.upsertGraph(g);
    }
    if (prepared.fused && options.store) { // the fused nodes' samples belong to it
        Graph named = ran;
        named.name = fusedGraphName(g);
        library.upsertGraph(named);
    }
    nlohmann::json deviceSet = nlohmann::json::array();
    for (std::size_t i = 0; i < realDevices.size(); ++i) {
        if (options.store) {
            library.upsertDevice(deviceRecordOf(*realDevices[i]));
        }
        deviceSet.push_back({{"id", deviceIds[i]},
                             {"fingerprint", report.devices[i].fingerprint},
                             {"cpus", execDevices[i].cpus},
                             {"threads", execDevices[i].threads},
                             {"memory", report.devices[i].memoryJson()}});
    }
    nlohmann::json assignment = nlohmann::json::object();
    for (std::size_t n = 0; n < g.nodes.size(); ++n) {
        if (!plan.assignment[n].empty()) {
            assignment[g.nodes[n].name] = plan.assignment[n];
        }
    }
    PlanRecord record;
    record.modelFingerprint = g.fingerprint;
    record.deviceSetJson = deviceSet.dump();
    record.objectivesJson = report.objectivesJson().dump();
    record.assignmentJson = assignment.dump();
    record.source = "validated";
    report.storedPlanRow = options.store ? library.addPlan(record) : 0;

    std::vector<Sample> samples;
    for (std::size_t r = 0; r < ran.nodes.size(); ++r) {
        const NodeTimes& m = measured[r];
        if (ran.nodes[r].kind != NodeKind::Compute || m.durationsUs.empty() ||
            reportedAs[r] == kNone) {
            continue;
        }
        const auto n = static_cast<std::size_t>(reportedAs[r]);
        const NodePrediction np = !prediction ? NodePrediction{}
                                  : membersOf[r].empty()
                                      ? prediction->nodes[n]
                                      : detail::fusedNodePrediction(*prediction, membersOf[r]);
        const double medianNodeUs = medianOf(m.durationsUs);
        const std::optional<double> residual =
            np.latencyUs ? std::optional<double>(medianNodeUs - *np.latencyUs) : std::nullopt;
        const auto dv = static_cast<std::size_t>(nodeDevice[n]);
        Sample s = sampleFor(ran, static_cast<std::int32_t>(r));
        s.deviceFingerprint = report.devices[dv].fingerprint;
        s.latencyUs = medianNodeUs;
        s.latencyP10Us = percentileOf(m.durationsUs, 0.1);
        s.latencyP90Us = percentileOf(m.durationsUs, 0.9);
        s.repeats = static_cast<std::int32_t>(m.durationsUs.size());
        s.energySource = "none";
        s.configJson = nlohmann::json{{"context", "plan"},
                                      {"source", "validate"},
                                      {"plan_row", report.storedPlanRow},
                                      {"threads", execDevices[dv].threads},
                                      {"cpus", execDevices[dv].cpus},
                                      {"predicted_us", optionalJson(np.latencyUs)},
                                      {"predicted_source", np.source},
                                      {"residual_us", optionalJson(residual)},
                                      {"host_memory", hostMemoryPolicy()},
                                      {"malloc_arenas", mallocArenaPolicy()},
                                      {"lowered_convolutions", loweredConvolutionLayout()}}
                           .dump();
        samples.push_back(s);
        ValidatedNode node;
        node.node = static_cast<NodeId>(n);
        node.fusedMembers = membersOf[r];
        node.device = static_cast<std::int32_t>(dv);
        node.measuredUs = medianNodeUs;
        node.measuredMeanUs = trimmedMeanOf(m.durationsUs, 0.05);
        node.measuredBeginUs = m.beginUs;
        node.measuredEndUs = m.endUs;
        node.predictedUs = np.latencyUs;
        node.predictedSource = np.source;
        node.error = relativeError(np.latencyUs, medianNodeUs);
        node.simulatedStartUs = np.startUs;
        node.simulatedFinishUs = np.finishUs;
        report.nodes.push_back(std::move(node));
    }
    if (options.store) {
        library.addSamples(samples); // one transaction; existing samples are untouched
        report.storedSamples = samples.size();
    }
    return report;
}

/// Runs the plans in turn, one run of each per round (A/B interleaving: a machine that slows
/// down slows every plan alike): warm-up rounds, then `repeats` timed rounds, RAPL read around
/// each timed run. false when cancelled.
bool runInterleaved(const Graph& g, std::vector<PreparedPlan>& plans,
                    const ValidationOptions& options) {
    const int warmups = std::max(options.warmup, 1);
    const int totalRuns = (warmups + options.repeats) * static_cast<int>(plans.size());
    int runsDone = 0;
    const auto step = [&](const char* what) {
        ++runsDone;
        if (options.progress) {
            options.progress->report(static_cast<double>(runsDone) / totalRuns,
                                     std::string(what) + " run " + std::to_string(runsDone) + "/" +
                                         std::to_string(totalRuns));
        }
        return options.progress && options.progress->cancelled();
    };
    try {
        for (int i = 0; i < warmups; ++i) { // the first also checks that every node runs here
            for (PreparedPlan& p : plans) {
                p.executor->run();
                if (step("warm-up")) {
                    return false;
                }
            }
        }
    } catch (const ExecutionError& e) {
        if (e.unsupported()) {
            throw InputError(g.sourcePath + " cannot be executed here: " + e.what());
        }
        throw;
    }
    const std::optional<RaplEnergy> meter = RaplEnergy::open();
    const bool peakReset = resetProcessPeak();
    for (PreparedPlan& p : plans) {
        p.runs.reserve(static_cast<std::size_t>(options.repeats));
        p.energyRead = meter.has_value();
    }
    for (int i = 0; i < options.repeats; ++i) {
        for (PreparedPlan& p : plans) {
            const auto before = meter ? meter->read() : std::nullopt;
            p.runs.push_back(p.executor->run());
            const auto after = meter ? meter->read() : std::nullopt;
            if (before && after) {
                p.energyUj += meter->deltaUj(*before, *after);
            } else {
                p.energyRead = false;
            }
            if (step("timed")) {
                return false;
            }
        }
    }
    const std::optional<double> peak = peakReset ? processPeakBytes() : std::nullopt;
    for (PreparedPlan& p : plans) {
        if (peak) {
            p.report.processPeakMb = *peak / kMiB;
        }
    }
    return true;
}

void checkRuns(const ValidationOptions& options) {
    if (options.repeats < 1 || options.repeats > kMaxValidationRepeats) {
        throw InputError::forSetting("repeats", "expected 1 to " +
                                                    std::to_string(kMaxValidationRepeats) +
                                                    ", got " + std::to_string(options.repeats));
    }
    if (options.warmup < 0 || options.warmup > 1000) {
        throw InputError::forSetting("warmup",
                                     "expected 0 to 1000, got " + std::to_string(options.warmup));
    }
}

} // namespace

std::vector<PlanValidation> validatePlans(const Graph& g, std::span<const PlanToValidate> plans,
                                          SampleLibrary& library,
                                          const ValidationOptions& options) {
    checkRuns(options);
    const DeviceInventory inventory = discoverDevices(options.catalog);
    // The plans run in turn on the same device threads (execution_threads.h says why).
    ExecuteOptions execute;
    execute.threads = std::make_shared<ExecutionThreads>();
    std::vector<PreparedPlan> prepared;
    prepared.reserve(plans.size());
    for (const PlanToValidate& plan : plans) {
        if (!plan.hasVariants()) {
            prepared.push_back(preparePlan(g, plan, library, options, inventory, execute));
            prepared.back().model = &plan;
            continue;
        }
        refuseUnrunnableVariants(g, plan, inventory);
        LoweredPlan lowered = lowerPlan(g, plan, library);
        PreparedPlan p = preparePlan(lowered.lowered->graph, *lowered.plan, library, options,
                                     inventory, execute, &g);
        p.variants = std::move(lowered);
        p.model = &plan;
        prepared.push_back(std::move(p));
    }
    std::vector<PlanValidation> reports;
    if (!runInterleaved(g, prepared, options)) {
        for (PreparedPlan& p : prepared) {
            p.report.cancelled = true;
            reports.push_back(std::move(p.report));
        }
        return reports;
    }
    for (PreparedPlan& p : prepared) {
        if (!p.variants.lowered) {
            reports.push_back(reportAndStore(g, p, library, options));
            continue;
        }
        const LoweredGraph& lowered = *p.variants.lowered;
        p.report.accuracy = measureAccuracy(g, lowered, *p.model, options);
        PlanValidation report = reportAndStore(lowered.graph, p, library, options);
        reportAsModelNodes(report, lowered);
        reports.push_back(std::move(report));
    }
    return reports;
}

PlanValidation validatePlan(const Graph& g, const PlanToValidate& plan, SampleLibrary& library,
                            const ValidationOptions& options) {
    return std::move(
        validatePlans(g, std::span<const PlanToValidate>(&plan, 1), library, options).front());
}

} // namespace paretune
