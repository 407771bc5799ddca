// SPDX-License-Identifier: GPL-3.0-or-later
// Profiling the variants of a model's nodes (precisions, layouts) into the library: each lowered
// node timed beside its fp32 form, and the model's sensitivity table (for int8, after the ranges
// its activation scales come from).
#include "library_profile.h"

#include "common/input_error.h"
#include "common/int8_products.h"
#include "common/progress.h"
#include "device/device.h"
#include "device/device_fingerprint.h"
#include "output_deviation.h"
#include "precision_support.h"
#include "store/sample_library.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <set>

namespace paretune {

namespace {

void scaleSample(Sample& s, double scale) {
    s.latencyUs *= scale;
    for (std::optional<double>* v : {&s.latencyP10Us, &s.latencyP90Us, &s.energyUj}) {
        if (*v) {
            **v *= scale;
        }
    }
}

CalibrationInputs calibrationInputsOf(const Graph& graph, const LibraryProfileOptions& options) {
    return options.calibration
               ? *options.calibration
               : randomCalibrationInputs(graph, options.sensitivitySets, options.sensitivitySeed);
}

/// The ranges of the activations int8 lowering needs, on the calibration inputs: the stored ones
/// when the library has them all (and profiling is not forced), else measured and stored.
ActivationRanges int8Ranges(const Graph& graph, const Device& device, SampleLibrary& library,
                            const LibraryProfileOptions& options, Progress* progress) {
    if (const std::string why = precisionRefusal(device, Precision::Int8); !why.empty()) {
        throw InputError(why);
    }
    const CalibrationInputs inputs = calibrationInputsOf(graph, options);
    const std::vector<TensorId> tensors = int8RangeTensors(graph);
    ActivationRanges ranges =
        activationRangesOf(library.activationRanges(graph.fingerprint, inputs.key));
    bool complete = !options.force;
    for (const TensorId t : tensors) {
        complete = complete && ranges.count(graph.tensors[static_cast<std::size_t>(t)].name) > 0;
    }
    if (complete || tensors.empty()) {
        return ranges;
    }
    if (progress != nullptr) {
        progress->report(0.0, "activation ranges for int8");
    }
    ranges = measureActivationRanges(graph, tensors, inputs, executionDeviceFor(device));
    if (options.store) {
        library.addActivationRanges(activationRangeRecords(graph, ranges, inputs.key));
    }
    return ranges;
}

/// The sensitivity table of the model in `precision`, measured and stored when the library
/// lacks one for these inputs. Returns how many nodes were measured.
int measureMissingSensitivity(const Graph& graph, const Device& device, SampleLibrary& library,
                              const LibraryProfileOptions& options, Variant variant,
                              const ActivationRanges* ranges, Progress* progress) {
    const CalibrationInputs inputs = calibrationInputsOf(graph, options);
    const std::vector<Variant> all = lowerAll(graph, variant);
    const auto lowered = static_cast<std::size_t>(std::count(all.begin(), all.end(), variant));
    const std::string name(variantName(variant));
    if (lowered == 0 ||
        (!options.force &&
         library.sensitivities(graph.fingerprint, name, sensitivityInputsKey(inputs.key, name))
                 .size() >= lowered)) {
        return 0;
    }
    std::vector<SensitivityRecord> rows =
        measureSensitivity(graph, variant, inputs, executionDeviceFor(device), progress, ranges);
    if (options.store && !rows.empty()) {
        library.addSensitivities(rows);
    }
    return static_cast<int>(rows.size());
}

} // namespace

std::vector<LibraryProfileRun::VariantRow> profileVariant(const Graph& graph, const Device& device,
                                                          SampleLibrary& library,
                                                          const LibraryProfileOptions& options,
                                                          Variant variant, int* sensitivityMeasured,
                                                          Progress* progress) {
    if (variant == Precision::Fp32) {
        return {};
    }
    // int8's activation scales: calibrated on the sensitivity table's inputs, before the
    // timing (a quantized node runs as fast whatever its scales, but is stored as it would run).
    std::optional<ActivationRanges> ranges;
    if (variant.precision == Precision::Int8) {
        ranges = int8Ranges(graph, device, library, options, progress);
    }
    const ActivationRanges* rangesUsed = ranges ? &*ranges : nullptr;
    PairedVariants pairs = appendLoweredNodes(graph, variant, rangesUsed);
    const Graph& paired = pairs.paired.graph;
    pairs.paired.graph.name = loweredGraphName(graph, variant);
    const std::string fingerprint = deviceFingerprint(device);
    const auto signatureOf = [&](NodeId node) -> const std::string& {
        return paired.signatures[static_cast<std::size_t>(node)];
    };
    LibraryProfileOptions inner = options;
    inner.force = true; // the fp32 node again, beside its lowered form
    inner.store = false;
    inner.wholeModel = false;
    inner.checkSpeed = false;
    inner.measureContention = false;
    inner.fusionGroups = false;
    inner.variants.clear();
    inner.nodes.clear();
    std::vector<NodeId> lowered; // original nodes with a lowered copy
    std::vector<NodeId> toMeasure;
    for (const NodeId n : graph.topologicalOrder) {
        const auto& parts = pairs.paired.parts[static_cast<std::size_t>(n)];
        if (parts.empty()) {
            continue;
        }
        lowered.push_back(n);
        if (!options.force && library.findSample(signatureOf(parts.front()), fingerprint)) {
            continue;
        }
        toMeasure.push_back(n);
        inner.nodes.push_back(pairs.nodeOf[static_cast<std::size_t>(n)]);
        inner.nodes.insert(inner.nodes.end(), parts.begin(), parts.end());
    }
    std::map<NodeId, LibraryProfileRow> measured;
    if (!toMeasure.empty()) {
        for (LibraryProfileRow& row :
             profileIntoLibrary(paired, device, library, inner, progress).rows) {
            measured[row.node] = std::move(row);
        }
    }
    std::vector<LibraryProfileRun::VariantRow> rows;
    std::vector<Sample> samples;
    std::set<std::string> stored; // one sample per signature
    const std::string name(variantName(variant));
    for (const NodeId n : lowered) {
        const auto& parts = pairs.paired.parts[static_cast<std::size_t>(n)];
        LibraryProfileRun::VariantRow row{variant, n, {}};
        const bool measuredNow =
            std::find(toMeasure.begin(), toMeasure.end(), n) != toMeasure.end();
        if (!measuredNow) {
            row.row.node = parts.front();
            row.row.reused = true;
            if (const auto sample = library.findSample(signatureOf(parts.front()), fingerprint)) {
                row.row.sample = *sample;
            }
            rows.push_back(std::move(row));
            continue;
        }
        row.row = measured[parts.front()];
        row.row.node = parts.front();
        const auto fp32 = measured.find(pairs.nodeOf[static_cast<std::size_t>(n)]);
        const auto stored32 =
            library.findSample(graph.signatures[static_cast<std::size_t>(n)], fingerprint);
        bool complete = row.row.ok() && fp32 != measured.end() && fp32->second.ok() && stored32 &&
                        fp32->second.sample.latencyUs > 0.0;
        for (const NodeId p : parts) {
            const auto it = measured.find(p);
            complete = complete && it != measured.end() && it->second.ok();
        }
        if (complete) {
            // On the stored fp32 sample's time base: the lowered node and its conversions
            // compare with it as they did with the fp32 node beside them.
            const double beside = fp32->second.sample.latencyUs;
            const double scale = stored32->latencyUs / beside;
            for (const NodeId p : parts) {
                Sample s = measured[p].sample;
                scaleSample(s, scale);
                nlohmann::json config = nlohmann::json::parse(s.configJson);
                config["precision"] = std::string(precisionName(variant.precision));
                config["variant"] = name;
                config["variant_pair"] = {{"node", graph.nodes[static_cast<std::size_t>(n)].name},
                                          {"fp32_beside_us", beside},
                                          {"fp32_stored_us", stored32->latencyUs},
                                          {"scale", scale}};
                s.configJson = config.dump();
                if (p == parts.front()) {
                    row.row.sample = s;
                }
                if (!measured[p].reused && stored.insert(s.opSignature).second) {
                    samples.push_back(std::move(s));
                }
            }
        } else if (row.row.ok()) {
            row.row.status = ProfileStatus::Failed;
            row.row.message = "its fp32 form or a conversion was not measured beside it";
        }
        rows.push_back(std::move(row));
    }
    if (options.store && !samples.empty()) {
        library.upsertGraph(paired);
        library.addSamples(samples);
    }
    if (!(progress != nullptr && progress->cancelled())) {
        const int count = measureMissingSensitivity(graph, device, library, options, variant,
                                                    rangesUsed, progress);
        if (sensitivityMeasured != nullptr) {
            *sensitivityMeasured += count;
        }
    }
    return rows;
}

} // namespace paretune
