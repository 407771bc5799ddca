// SPDX-License-Identifier: GPL-3.0-or-later
#include "library_profile.h"

#include "common/progress.h"
#include "graph/fusion.h"

#include "common/cpu_bf16.h"
#include "common/host_memory.h"
#include "common/input_error.h"
#include "common/openmp_wait.h"
#include "device/device.h"
#include "device/device_fingerprint.h"
#include "precision_support.h"
#include "runtime/torch_runtime.h"
#include "store/benchmark_drift.h"
#include "store/graph_records.h"
#include "store/sample_library.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

namespace paretune {

namespace {

/// Profiled samples are committed every this many samples or this often, whichever first.
constexpr std::size_t kSamplesPerBatch = 32;
constexpr auto kBatchInterval = std::chrono::seconds(2);

} // namespace

int LibraryProfileRun::reusedCount() const {
    int n = 0;
    for (const LibraryProfileRow& row : rows) {
        n += row.reused ? 1 : 0;
    }
    return n;
}

int LibraryProfileRun::fusedMeasuredCount() const {
    return static_cast<int>(std::count_if(fusedRows.begin(), fusedRows.end(),
                                          [](const auto& row) { return row.ok() && !row.reused; }));
}

int LibraryProfileRun::variantMeasuredCount() const {
    return static_cast<int>(
        std::count_if(variantRows.begin(), variantRows.end(),
                      [](const auto& v) { return v.row.ok() && !v.row.reused; }));
}

std::string_view LibraryProfileRow::statusName() const {
    return cancelled ? "cancelled" : profileStatusName(status);
}

int LibraryProfileRun::failedCount() const {
    return static_cast<int>(
        std::count_if(rows.begin(), rows.end(), [](const auto& row) { return row.failed(); }));
}

int LibraryProfileRun::cancelledCount() const {
    return static_cast<int>(
        std::count_if(rows.begin(), rows.end(), [](const auto& row) { return row.cancelled; }));
}

double LibraryProfileRun::sumOfOpsUs() const {
    double sum = 0.0;
    for (const LibraryProfileRow& row : rows) {
        if (row.ok()) {
            sum += row.sample.latencyUs;
        }
    }
    return sum;
}

namespace {

/// Sets speed.drifted and speed.why from the GEMM and bandwidth figures (the per-op dispatch
/// time is too small to compare).
void compareSpeed(SpeedCheck& speed) {
    const struct {
        const char* what;
        const char* unit;
        double before, after;
    } figures[] = {{"GEMM", "GFLOP/s", speed.before.gemmGflops, speed.after.gemmGflops},
                   {"memory bandwidth", "GB/s", speed.before.memoryBwGbs, speed.after.memoryBwGbs}};
    speed.why.clear();
    for (const auto& f : figures) {
        const double change = f.before > 0.0 ? (f.after - f.before) / f.before : 0.0;
        if (std::abs(change) > kDefaultDriftThreshold) {
            char text[160];
            std::snprintf(text, sizeof text, "%s%s %.1f -> %.1f %s (%+.0f%%)",
                          speed.why.empty() ? "" : ", ", f.what, f.before, f.after, f.unit,
                          100.0 * change);
            speed.why += text;
        }
    }
    speed.drifted = !speed.why.empty();
}

} // namespace

namespace {

/// The fusion groups of a graph measured as fused nodes (profileIntoLibrary): the groups whose
/// fused node the library lacks on this device (all with options.force), each measured in one
/// run together with its members again, round after round (appendFusedNodes), so that a group
/// and its members are timed at one machine speed (on a shared machine isolated times taken a
/// minute apart can differ twofold). The members' times of that run are not stored: the fused
/// sample is put on the stored members' time base, its times scaled by (stored members' sum /
/// their sum beside it), so that it compares with them as it did beside them; the config says
/// so ("fusion_pair"). Returns the fused nodes' rows, measured or reused.
std::vector<LibraryProfileRow> profileFusionGroups(const Graph& graph, const Device& device,
                                                   SampleLibrary& library,
                                                   const LibraryProfileOptions& options,
                                                   Progress* progress) {
    const std::vector<FusionGroup> groups = findFusionGroups(graph);
    if (groups.empty()) {
        return {};
    }
    FusedGraph paired = appendFusedNodes(graph, groups);
    paired.graph.name = fusedGraphName(graph);
    const std::string fingerprint = deviceFingerprint(device);
    const auto signatureOf = [&](NodeId node) -> const std::string& {
        return paired.graph.signatures[static_cast<std::size_t>(node)];
    };
    LibraryProfileOptions inner = options;
    inner.force = true; // the members again, beside their group
    inner.store = false;
    inner.wholeModel = false;
    inner.checkSpeed = false;
    inner.measureContention = false;
    inner.fusionGroups = false;
    inner.nodes.clear();
    std::vector<std::size_t> toMeasure;
    for (std::size_t k = 0; k < groups.size(); ++k) {
        if (!options.force && library.findSample(signatureOf(paired.groupNode[k]), fingerprint)) {
            continue; // measured before
        }
        toMeasure.push_back(k);
        for (const NodeId m : groups[k].members) { // members first: they finish first
            inner.nodes.push_back(paired.nodeOf[static_cast<std::size_t>(m)]);
        }
        inner.nodes.push_back(paired.groupNode[k]);
    }
    std::map<NodeId, LibraryProfileRow> measured;
    if (!toMeasure.empty()) {
        for (LibraryProfileRow& row :
             profileIntoLibrary(paired.graph, device, library, inner, progress).rows) {
            measured[row.node] = std::move(row);
        }
    }
    std::vector<LibraryProfileRow> rows;
    std::vector<Sample> samples;
    std::set<std::string> stored; // one sample per signature
    for (const std::size_t k : toMeasure) {
        LibraryProfileRow row = measured[paired.groupNode[k]];
        row.node = paired.groupNode[k];
        if (row.ok()) {
            double beside = 0.0;
            double apart = 0.0;
            bool complete = true;
            for (const NodeId m : groups[k].members) {
                const NodeId p = paired.nodeOf[static_cast<std::size_t>(m)];
                const auto found = measured.find(p);
                const auto sample = library.findSample(signatureOf(p), fingerprint);
                complete = complete && found != measured.end() && found->second.ok() && sample;
                if (complete) {
                    beside += found->second.sample.latencyUs;
                    apart += sample->latencyUs;
                }
            }
            Sample& s = row.sample;
            if (complete && beside > 0.0) {
                const double scale = apart / beside;
                s.latencyUs *= scale;
                for (std::optional<double>* v : {&s.latencyP10Us, &s.latencyP90Us, &s.energyUj}) {
                    if (*v) {
                        **v *= scale;
                    }
                }
                nlohmann::json config = nlohmann::json::parse(s.configJson);
                config["fusion_pair"] = {
                    {"members_beside_us", beside}, {"members_stored_us", apart}, {"scale", scale}};
                s.configJson = config.dump();
            }
            if (!row.reused && stored.insert(s.opSignature).second) {
                samples.push_back(s);
            }
        }
        rows.push_back(std::move(row));
    }
    if (!samples.empty()) {
        library.upsertGraph(paired.graph);
        library.addSamples(samples);
    }
    // The groups measured before: their stored samples, reused.
    for (std::size_t k = 0; k < groups.size(); ++k) {
        if (std::find(toMeasure.begin(), toMeasure.end(), k) != toMeasure.end()) {
            continue;
        }
        if (const auto sample = library.findSample(signatureOf(paired.groupNode[k]), fingerprint)) {
            LibraryProfileRow row;
            row.node = paired.groupNode[k];
            row.reused = true;
            row.sample = *sample;
            rows.push_back(row);
        }
    }
    return rows;
}

} // namespace

LibraryProfileRun profileIntoLibrary(const Graph& graph, const Device& device,
                                     SampleLibrary& library, const LibraryProfileOptions& options,
                                     Progress* progress) {
    if (device.tag != DeviceTag::Real) {
        throw InputError("device " + device.id + ": a modelled device is never profiled");
    }
    if (!device.isCpu() && device.cudaIndex < 0) {
        throw InputError("device " + device.id +
                         ": profiling runs on CPU and CUDA devices (cpu, cpu:N, cuda:K)");
    }
    if (device.cudaIndex >= 0) { // the CUDA flavour's module, and the GPU attached
        if (const std::string why = torchRuntime().cudaUnusable(device.cudaIndex); !why.empty()) {
            throw InputError("device " + device.id + " cannot be profiled: " + why);
        }
    }
    if (options.repeats < 0) {
        throw InputError("repeats must be positive");
    }
    for (const Variant variant : options.variants) { // before anything is measured
        if (const std::string why = variantRefusal(device, variant); !why.empty()) {
            throw InputError(why);
        }
    }
    // LibTorch first: loading it fixes the OpenMP environment and the host allocator's policy
    // that the measurements run in and that every sample's config records (openMpWaitPolicy,
    // hostMemoryPolicy).
    torchRuntime();
    LibraryProfileRun run;
    run.deviceFingerprint = deviceFingerprint(device);
    const std::string& fingerprint = run.deviceFingerprint;

    library.upsertDevice(deviceRecordOf(device));
    if (options.store) {
        library.upsertGraph(graph);
    }

    // Reuse: a signature already measured on this device fingerprint is not measured again.
    std::map<std::string, NodeId> measuredSignature; // first node of each signature to measure
    ProfileOptions profileOptions;
    std::vector<bool> considered(graph.nodes.size(), options.nodes.empty());
    for (const NodeId id : options.nodes) {
        if (id < 0 || static_cast<std::size_t>(id) >= graph.nodes.size()) {
            throw InputError("profiling: node id " + std::to_string(id) + " is outside the graph");
        }
        considered[static_cast<std::size_t>(id)] = true;
    }
    for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
        if (graph.nodes[i].kind != NodeKind::Compute || !considered[i]) {
            continue;
        }
        LibraryProfileRow row;
        row.node = static_cast<NodeId>(i);
        const std::string& signature = graph.signatures[i];
        if (!options.force) {
            if (const auto stored = library.findSample(signature, fingerprint)) {
                row.reused = true;
                row.sample = *stored;
            }
        }
        if (!row.reused && measuredSignature.emplace(signature, row.node).second) {
            profileOptions.nodes.push_back(row.node);
        }
        run.rows.push_back(row);
    }
    profileOptions.measure.threads = std::max(static_cast<int>(device.cpus.size()), 1);
    profileOptions.measure.cpuSet.assign(device.cpus.begin(), device.cpus.end());
    profileOptions.measure.cudaIndex = device.cudaIndex; // -1 for a CPU device
    if (options.repeats > 0) {
        profileOptions.measure.minRepeats = options.repeats;
        profileOptions.measure.minMeasureMs = 0;
    }
    profileOptions.wholeModel = options.wholeModel;
    run.measure = profileOptions.measure;
    const bool checkSpeed = options.checkSpeed && !profileOptions.nodes.empty();
    SpeedCheck speed;
    if (checkSpeed) {
        speed.before = runMicroBenchmark(device, MicroBenchmarkOptions{true});
        // A device's first figures become its reference (the predictor's device fingerprint and
        // roofline), measured beside its first samples rather than later by whatever trains.
        // A GPU's figures are stored each time: their host link is what the search takes in
        // place of the catalog's, the newest one measured.
        if (!library.referenceBenchmark(fingerprint) || speed.before.hostLink) {
            recordBenchmark(library, fingerprint, speed.before);
        }
    }
    if (options.measureContention && device.isCpu()) {
        run.contention =
            measureMissingContention(library, device, cpuDevices(cpuTopology()), {}, progress);
    }
    nlohmann::json config = {{"threads", profileOptions.measure.threads},
                             {"cpus", profileOptions.measure.cpuSet},
                             {"rounds", profileOptions.measure.rounds},
                             {"warmup_runs", profileOptions.measure.warmupRuns},
                             {"min_repeats", profileOptions.measure.minRepeats},
                             {"min_measure_ms", profileOptions.measure.minMeasureMs},
                             {"openmp_wait_policy", openMpWaitPolicy()},
                             {"blas_thread_timeout", blasThreadTimeout()},
                             {"host_memory", hostMemoryPolicy()},
                             {"malloc_arenas", mallocArenaPolicy()},
                             {"lowered_convolutions", loweredConvolutionLayout()}};
    if (checkSpeed) { // the machine's speed when the measurements began
        config["speed_before"] = {{"gemm_gflops", speed.before.gemmGflops},
                                  {"memory_bw_gbs", speed.before.memoryBwGbs}};
    }
    const auto toSample = [&](NodeId node, const OpProfile& profile) {
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
        } else if (options.activeW) {
            s.energyUj = *options.activeW * profile.latency.medianUs; // W × µs = µJ
            s.energySource = "modelled";
        } else {
            s.energySource = "none";
        }
        return s;
    };
    // Samples are committed in batches while the profile runs (one transaction each), so that
    // an interrupted run (cancel, kill -9) keeps everything measured before the last commit.
    std::map<std::string, Sample> bySignature;
    std::vector<Sample> pending;
    auto lastCommit = std::chrono::steady_clock::now();
    const auto commit = [&] {
        if (!pending.empty()) {
            library.addSamples(pending);
            pending.clear();
        }
        lastCommit = std::chrono::steady_clock::now();
    };
    profileOptions.nodeFinished = [&](NodeId node, const OpProfile& profile) {
        if (profile.status != ProfileStatus::Ok) {
            return;
        }
        Sample s = toSample(node, profile);
        bySignature[s.opSignature] = s;
        if (!options.store) {
            return; // measured for the caller only
        }
        pending.push_back(std::move(s));
        if (pending.size() >= kSamplesPerBatch ||
            std::chrono::steady_clock::now() - lastCommit >= kBatchInterval) {
            commit();
        }
    };
    // An empty node list means "every compute node" to profileModel: with everything reused
    // there is nothing to run.
    if (!profileOptions.nodes.empty()) {
        run.result = profileModel(graph, profileOptions, progress);
        if (checkSpeed && !run.result.cancelled) {
            speed.after = runMicroBenchmark(device, MicroBenchmarkOptions{true});
            compareSpeed(speed);
            run.speed = speed;
        }
    } else {
        run.result.threads = profileOptions.measure.threads;
        run.result.wholeModel.message =
            "not run: every operator was reused (force measuring to run it)";
    }
    commit();

    for (LibraryProfileRow& row : run.rows) {
        if (row.reused) {
            continue;
        }
        const NodeId measured =
            measuredSignature.at(graph.signatures[static_cast<std::size_t>(row.node)]);
        const auto it = run.result.nodes.find(measured);
        if (it == run.result.nodes.end()) {
            // Cancelled before this signature was measured.
            row.cancelled = true;
            row.message = "not measured: the run was cancelled";
            continue;
        }
        if (it->second.status != ProfileStatus::Ok) {
            row.status = it->second.status;
            row.message = it->second.message;
            continue;
        }
        row.sample = bySignature.at(graph.signatures[static_cast<std::size_t>(row.node)]);
        row.reused = row.node != measured; // same signature measured once in this model
    }
    // The whole model end to end, beside its operators' medians (every compute node measured):
    // what the search scales the model's cells on this device by (applyModelRunScales).
    const WholeModelResult& whole = run.result.wholeModel;
    if (whole.status == ProfileStatus::Ok && !run.result.cancelled && !run.rows.empty() &&
        std::all_of(run.rows.begin(), run.rows.end(), [](const auto& row) { return row.ok(); })) {
        ModelRunRecord record;
        record.modelFingerprint = graph.fingerprint;
        record.deviceFingerprint = fingerprint;
        record.medianUs = whole.endToEnd.medianUs;
        record.p10Us = std::min(whole.endToEnd.p10Us, whole.endToEnd.medianUs);
        record.p90Us = std::max(whole.endToEnd.p90Us, whole.endToEnd.medianUs);
        record.runs = whole.endToEnd.repeats;
        record.sumOfOpsUs = run.sumOfOpsUs();
        if (record.medianUs > 0.0 && record.sumOfOpsUs > 0.0 && record.runs > 0) {
            library.addModelRun(record);
            run.modelRunStored = true;
        }
    }
    if (options.fusionGroups && options.nodes.empty() && !run.result.cancelled &&
        !(progress != nullptr && progress->cancelled())) {
        run.fusedRows = profileFusionGroups(graph, device, library, options, progress);
    }
    for (const Variant variant : options.variants) {
        if (!options.nodes.empty() || run.result.cancelled ||
            (progress != nullptr && progress->cancelled())) {
            break;
        }
        std::vector<LibraryProfileRun::VariantRow> rows = profileVariant(
            graph, device, library, options, variant, &run.sensitivityMeasured, progress);
        run.variantRows.insert(run.variantRows.end(), std::make_move_iterator(rows.begin()),
                               std::make_move_iterator(rows.end()));
    }
    return run;
}

} // namespace paretune
