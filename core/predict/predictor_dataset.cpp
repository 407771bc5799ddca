// SPDX-License-Identifier: GPL-3.0-or-later
#include "predictor_dataset.h"

#include "store/benchmark_drift.h"
#include "store/graph_records.h"

#include "common/input_error.h"
#include "common/int8_products.h"
#include "device/device.h"
#include "device/device_fingerprint.h"
#include "device/micro_benchmark.h"
#include "graph/fusion.h"
#include "graph/onnx_importer.h"
#include "graph/precision.h"
#include "profile/measurement.h"
#include "profile/output_deviation.h"
#include "store/sample_library.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>

namespace paretune {

namespace {

PredictorRow rowOf(const Graph& graph, std::size_t i, const std::string& deviceFingerprint) {
    const Node& n = graph.nodes[i];
    PredictorRow row;
    row.modelFingerprint = graph.fingerprint;
    row.deviceFingerprint = deviceFingerprint;
    row.signature = graph.signatures[i];
    row.nodeName = n.name;
    row.opType = n.opType;
    row.precision = nodePrecision(graph, static_cast<NodeId>(i));
    row.features = opFeatures(graph, static_cast<NodeId>(i));
    const OpMetrics& m = graph.metrics[i];
    row.flops = m.flops;
    row.bytes = static_cast<double>(m.bytesRead + m.bytesWritten);
    return row;
}

} // namespace

std::vector<PredictorRow> nodeRows(const Graph& graph, const std::string& deviceFingerprint) {
    std::vector<PredictorRow> rows;
    for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
        if (graph.nodes[i].kind == NodeKind::Compute) {
            rows.push_back(rowOf(graph, i, deviceFingerprint));
        }
    }
    return rows;
}

namespace {

/// What the library measured of one signature on one device.
struct Measurements {
    std::vector<double> latenciesUs; ///< every measurement that is not stale
    std::optional<double> newestPeakMemoryMb;
};

/// The operator measurements of the library by (signature, device): stale samples and those
/// measured inside a plan (config {"context": "plan"}: in-plan residuals, not the operator
/// alone) are left out. A signature profiled several times (paretune profile --force, or in
/// several models) keeps all its measurements: the median of them is what the predictor learns,
/// so that a machine's slow or fast moments in one session weigh less.
std::map<std::pair<std::string, std::string>, Measurements>
measurementsByOperator(const SampleLibrary& library) {
    SampleFilter filter;
    filter.includeStale = false;
    std::map<std::pair<std::string, std::string>, Measurements> measured;
    for (Sample& sample : library.samples(filter)) {
        const nlohmann::json config = nlohmann::json::parse(sample.configJson, nullptr, false);
        if (config.is_object() && config.value("context", std::string()) == "plan") {
            continue;
        }
        Measurements& m = measured[{sample.opSignature, sample.deviceFingerprint}];
        m.latenciesUs.push_back(sample.latencyUs);
        if (sample.peakMemoryMb) { // samples come oldest first
            m.newestPeakMemoryMb = sample.peakMemoryMb;
        }
    }
    return measured;
}

/// A stored graph as the dataset reads it: the graph and which of its nodes give rows.
struct StoredGraph {
    Graph graph;
    std::vector<bool> ownNodes; ///< per node; empty: every node
    std::string name;           ///< as dataset.modelNames lists it
    std::string derivedFrom;    ///< the model's fingerprint, for a derived graph
};

/// The derived graph a models row names (a fused or lowered graph of `model`, built again as
/// profiling built it), when its fingerprint is the row's; its own nodes are those `model`
/// lacks. An int8 graph's fingerprint holds its activations' zero points and, where its inputs
/// were quantized in 7 bits, their Clips (common/int8_products.h): it is built with each set of
/// activation ranges the library holds for the model, in both input levels (a library holds
/// graphs profiled on CPUs with and without VNNI), until one gives the row's.
std::optional<StoredGraph> derivedGraph(const SampleLibrary& library, const Graph& model,
                                        const ModelRecord& record, const std::string& stem) {
    Graph named = model;
    named.name = stem;
    StoredGraph derived;
    derived.derivedFrom = model.fingerprint;
    std::vector<NodeId> modelNodes;
    if (const auto variant = loweredGraphVariant(record.name, model.fingerprint)) {
        std::vector<std::optional<ActivationRanges>> candidates{std::nullopt};
        if (variant->precision == Precision::Int8) {
            for (const std::string& inputs : library.activationRangeInputs(model.fingerprint)) {
                candidates.emplace_back(
                    activationRangesOf(library.activationRanges(model.fingerprint, inputs)));
            }
        }
        std::vector<int> levels{int8InputLevels()};
        if (variant->precision == Precision::Int8) {
            levels.push_back(levels.front() == 255 ? 127 : 255);
        }
        // Libraries profiled before the elementwise neighbours were lowerable hold bf16 and fp16
        // pairs of the products only (int8 lowers the products alone anyway).
        const std::vector<bool> productsOnly = variant->precision == Precision::Int8
                                                   ? std::vector<bool>{false}
                                                   : std::vector<bool>{false, true};
        const auto matches = [&](const std::optional<ActivationRanges>& ranges, int level,
                                 bool products) {
            PairedVariants pairs =
                appendLoweredNodes(model, *variant, ranges ? &*ranges : nullptr, level, products);
            if (pairs.paired.graph.fingerprint != record.fingerprint) {
                return false;
            }
            derived.graph = std::move(pairs.paired.graph);
            modelNodes = std::move(pairs.nodeOf);
            return true;
        };
        bool found = false;
        for (const auto& ranges : candidates) {
            for (const int level : levels) {
                for (const bool products : productsOnly) {
                    found = found || matches(ranges, level, products);
                }
            }
        }
        derived.name = loweredGraphName(named, *variant);
    } else if (isFusedGraphName(record.name, model.fingerprint)) {
        FusedGraph fused = appendFusedNodes(model, findFusionGroups(model));
        derived.graph = std::move(fused.graph);
        derived.name = fusedGraphName(named);
        modelNodes = std::move(fused.nodeOf);
    } else {
        return std::nullopt;
    }
    if (derived.graph.fingerprint != record.fingerprint) {
        return std::nullopt;
    }
    derived.ownNodes.assign(derived.graph.nodes.size(), true);
    for (const NodeId n : modelNodes) {
        derived.ownNodes[static_cast<std::size_t>(n)] = false;
    }
    return derived;
}

} // namespace

PredictorDataset assembleDataset(const SampleLibrary& library) {
    PredictorDataset dataset;
    std::vector<std::string> deviceKeys;
    for (const DeviceRecord& record : library.devices()) {
        DeviceFigures figures = storedDeviceFigures(library, record);
        if (!figures.hasMicroBenchmark()) {
            dataset.diagnostics.push_back(
                {Diagnostic::Severity::Warning, "device-without-benchmark",
                 "device " + record.fingerprint.substr(0, 12) + " (" + record.name +
                     "): no micro-benchmark figures; its samples are left out"});
            continue;
        }
        deviceKeys.push_back(record.fingerprint);
        dataset.devices.emplace(record.fingerprint, std::move(figures));
    }
    const auto measured = measurementsByOperator(library);
    // A model's derived graphs share its source path: each file is imported once.
    std::map<std::string, std::optional<Graph>> imported;
    for (const ModelRecord& model : library.models()) {
        const std::string label = model.sourcePath.empty() ? model.name : model.sourcePath;
        auto [file, added] = imported.try_emplace(model.sourcePath);
        if (added) {
            try {
                file->second = importOnnxFile(model.sourcePath).graph;
            } catch (const InputError& e) {
                dataset.diagnostics.push_back(
                    {Diagnostic::Severity::Warning, "model-not-importable",
                     "model " + label + ": left out, cannot import (" + e.what() + ")"});
            }
        }
        if (!file->second) {
            continue;
        }
        const Graph& source = *file->second;
        const std::string stem = std::filesystem::path(model.sourcePath).stem().string();
        std::optional<StoredGraph> stored;
        if (source.fingerprint == model.fingerprint) {
            stored = StoredGraph{source, {}, stem, {}};
        } else if (isFusedGraphName(model.name, source.fingerprint) ||
                   isLoweredGraphName(model.name, source.fingerprint)) {
            try {
                stored = derivedGraph(library, source, model, stem);
            } catch (const InputError&) {
                stored.reset(); // rules that no longer hold for this model: not its graph
            }
            if (!stored) {
                // A validated plan's graph (its samples are in-plan measurements), or one made
                // by another version of the lowering or the fusion rules.
                dataset.diagnostics.push_back(
                    {Diagnostic::Severity::Info, "derived-graph-left-out",
                     "graph '" + model.name +
                         "': not a profiled fused or lowered graph of its model; left out"});
                continue;
            }
        } else {
            dataset.diagnostics.push_back(
                {Diagnostic::Severity::Warning, "model-changed",
                 "model " + label + ": left out, the file changed since it was profiled"});
            continue;
        }
        dataset.modelNames[model.fingerprint] = stored->name;
        if (!stored->derivedFrom.empty()) {
            dataset.derivedFrom[model.fingerprint] = stored->derivedFrom;
        }
        const Graph& graph = stored->graph;
        for (const std::string& device : deviceKeys) {
            for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
                // A node on its own threads (a -tN variant) has the features of the node on
                // its device's: not a row of its own (its cells are measured, never predicted).
                if (graph.nodes[i].kind != NodeKind::Compute || graph.nodes[i].threads > 0 ||
                    (!stored->ownNodes.empty() && !stored->ownNodes[i])) {
                    continue;
                }
                const auto found = measured.find({graph.signatures[i], device});
                if (found == measured.end()) {
                    continue;
                }
                PredictorRow row = rowOf(graph, i, device);
                row.latencyUs = medianOf(found->second.latenciesUs);
                row.peakMemoryMb = found->second.newestPeakMemoryMb;
                dataset.rows.push_back(std::move(row));
            }
        }
    }
    return dataset;
}

DeviceFigures storedDeviceFigures(const SampleLibrary& library, const DeviceRecord& record) {
    DeviceFigures figures = deviceFiguresOf(record);
    if (const auto bench = library.referenceBenchmark(record.fingerprint)) {
        figures.gemmGflops = bench->gemmGflops;
        figures.memoryBwGbs = bench->memoryBwGbs;
    }
    return figures;
}

namespace {

/// Measures the quick micro-benchmark of a device of this machine and stores it.
MicroBenchmark measureAndRecord(SampleLibrary& library, const Device& device) {
    const MicroBenchmark bench = runMicroBenchmark(device, MicroBenchmarkOptions{true});
    recordBenchmark(library, deviceFingerprint(device), bench);
    return bench;
}

} // namespace

Diagnostics recordMicroBenchmarks(SampleLibrary& library) {
    Diagnostics notes;
    const DeviceInventory inventory = discoverDevices();
    for (const DeviceRecord& stored : library.devices()) {
        if (storedDeviceFigures(library, stored).hasMicroBenchmark()) {
            continue;
        }
        for (const Device& device : inventory.devices) {
            if (!device.isCpu() || deviceFingerprint(device) != stored.fingerprint) {
                continue;
            }
            const MicroBenchmark bench = measureAndRecord(library, device);
            notes.push_back({Diagnostic::Severity::Info, "micro-benchmark-measured",
                             "device " + device.id + ": micro-benchmark " +
                                 std::to_string(bench.gemmGflops) + " GFLOP/s, " +
                                 std::to_string(bench.memoryBwGbs) + " GB/s (measured, stored)"});
        }
    }
    return notes;
}

DeviceFigures deviceFiguresFor(SampleLibrary& library, const Device& device) {
    const std::string fingerprint = deviceFingerprint(device);
    if (!library.device(fingerprint)) {
        library.upsertDevice(deviceRecordOf(device));
    }
    const DeviceRecord stored = *library.device(fingerprint);
    DeviceFigures figures = storedDeviceFigures(library, stored);
    if (!figures.hasMicroBenchmark()) {
        measureAndRecord(library, device);
        figures = storedDeviceFigures(library, stored);
    }
    return figures;
}

DatasetSplit splitDataset(const PredictorDataset& dataset,
                          const std::vector<std::string>& heldOutModels,
                          const std::vector<std::string>& heldOutDevices) {
    DatasetSplit split;
    split.heldOutModels = heldOutModels;
    split.heldOutDevices = heldOutDevices;
    auto contains = [](const std::vector<std::string>& list, const std::string& key) {
        return std::find(list.begin(), list.end(), key) != list.end();
    };
    for (const auto& [derived, model] : dataset.derivedFrom) {
        if (contains(heldOutModels, model) && !contains(split.heldOutModels, derived)) {
            split.heldOutModels.push_back(derived);
        }
    }
    std::set<std::pair<std::string, std::string>> testMeasurements;
    std::vector<bool> excluded(dataset.rows.size(), false);
    for (std::size_t i = 0; i < dataset.rows.size(); ++i) {
        const PredictorRow& r = dataset.rows[i];
        const bool model = contains(split.heldOutModels, r.modelFingerprint);
        const bool device = contains(heldOutDevices, r.deviceFingerprint);
        excluded[i] = model || device;
        const bool test = (model || split.heldOutModels.empty()) &&
                          (device || heldOutDevices.empty()) && (model || device);
        if (test) {
            split.test.push_back(i);
            testMeasurements.emplace(r.signature, r.deviceFingerprint);
        }
    }
    for (std::size_t i = 0; i < dataset.rows.size(); ++i) {
        const PredictorRow& r = dataset.rows[i];
        if (!excluded[i] && !testMeasurements.contains({r.signature, r.deviceFingerprint})) {
            split.train.push_back(i);
        }
    }
    return split;
}

std::vector<std::string> splitLeaks(const PredictorDataset& dataset, const DatasetSplit& split) {
    std::vector<std::string> leaks;
    std::set<std::pair<std::string, std::string>> testMeasurements;
    for (const std::size_t i : split.test) {
        const PredictorRow& r = dataset.rows[i];
        testMeasurements.emplace(r.signature, r.deviceFingerprint);
    }
    auto contains = [](const std::vector<std::string>& list, const std::string& key) {
        return std::find(list.begin(), list.end(), key) != list.end();
    };
    for (const std::size_t i : split.train) {
        const PredictorRow& r = dataset.rows[i];
        const std::string where = "training row " + std::to_string(i) + " (" + r.nodeName + ")";
        if (contains(split.heldOutModels, r.modelFingerprint)) {
            leaks.push_back(where + " is from a held-out model");
        }
        if (contains(split.heldOutDevices, r.deviceFingerprint)) {
            leaks.push_back(where + " is from a held-out device");
        }
        if (testMeasurements.contains({r.signature, r.deviceFingerprint})) {
            leaks.push_back(where + " shares its signature and device with a test row");
        }
    }
    return leaks;
}

std::string resolveModel(const PredictorDataset& dataset, const std::string& nameOrPrefix) {
    std::vector<std::string> matches;
    for (const auto& [fingerprint, name] : dataset.modelNames) {
        if (name == nameOrPrefix || fingerprint.starts_with(nameOrPrefix)) {
            matches.push_back(fingerprint);
        }
    }
    if (matches.size() != 1) {
        std::string known;
        for (const auto& [fingerprint, name] : dataset.modelNames) {
            known += (known.empty() ? "" : ", ") + name + " (" + fingerprint.substr(0, 12) + ")";
        }
        throw InputError::forSetting(
            "holdout-model",
            nameOrPrefix + ": " +
                (matches.empty() ? "no such model" : "more than one model matches") +
                " among the profiled models (" + known + ")");
    }
    return matches.front();
}

std::string resolveDevice(const PredictorDataset& dataset, const std::string& prefix) {
    std::vector<std::string> matches;
    for (const auto& [fingerprint, figures] : dataset.devices) {
        if (!prefix.empty() && fingerprint.starts_with(prefix)) {
            matches.push_back(fingerprint);
        }
    }
    if (matches.size() != 1) {
        std::string known;
        for (const auto& [fingerprint, figures] : dataset.devices) {
            known +=
                (known.empty() ? "" : ", ") + fingerprint.substr(0, 12) + " (" + figures.name + ")";
        }
        throw InputError::forSetting(
            "holdout-device",
            prefix + ": " + (matches.empty() ? "no such device" : "more than one device matches") +
                " among the devices with samples (" + known + ")");
    }
    return matches.front();
}

} // namespace paretune
