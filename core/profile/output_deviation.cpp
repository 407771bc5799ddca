// SPDX-License-Identifier: GPL-3.0-or-later
// Output deviation from the fp32 model, calibration inputs, and the per-node sensitivity table.
#include "output_deviation.h"

#include "common/input_error.h"
#include "common/int8_products.h"
#include "common/progress.h"
#include "graph/model_weights.h"
#include "store/sample_library.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <utility>

namespace paretune {

std::string randomInputsKey(std::uint64_t seed, int count) {
    return "random:" + std::to_string(seed) + ":" + std::to_string(count);
}

namespace {

/// The number of rows an integer graph input indexes when every node that reads its values
/// takes it as the indices of a Gather (or GatherElements) on static data: the smallest such
/// dimension. None when some reader uses its values otherwise (a mask, a length) or the data's
/// shape is not static. A Shape reads no values.
std::optional<std::int64_t> indexedRows(const Graph& graph, TensorId input) {
    std::optional<std::int64_t> rows;
    for (const NodeId reader : graph.tensorConsumers.row(input)) {
        const Node& node = graph.nodes[static_cast<std::size_t>(reader)];
        if (node.opType == "Shape") {
            continue;
        }
        const auto ins = graph.nodeInputs.row(reader);
        if ((node.opType != "Gather" && node.opType != "GatherElements") || ins.size() < 2 ||
            ins[0] == input || ins[1] != input) {
            return std::nullopt;
        }
        const Tensor& data = graph.tensors[static_cast<std::size_t>(ins[0])];
        if (!data.shapeKnown() || data.dims.empty()) {
            return std::nullopt;
        }
        const auto rank = static_cast<std::int64_t>(data.dims.size());
        std::int64_t axis = node.attrInt("axis", 0);
        axis = axis < 0 ? axis + rank : axis;
        if (axis < 0 || axis >= rank || data.dims[static_cast<std::size_t>(axis)] < 1) {
            return std::nullopt;
        }
        const std::int64_t d = data.dims[static_cast<std::size_t>(axis)];
        rows = rows ? std::min(*rows, d) : d;
    }
    return rows;
}

/// FNV-1a of a name: each integer input draws from a generator of its own, so that the float
/// inputs' values do not depend on whether a model also has indices.
std::uint64_t nameSeed(std::uint64_t seed, const std::string& name) {
    std::uint64_t h = 14695981039346656037ull;
    for (const char c : name) {
        h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    }
    return seed ^ h;
}

} // namespace

CalibrationInputs randomCalibrationInputs(const Graph& graph, int count, std::uint64_t seed) {
    if (count < 1) {
        throw InputError("calibration: " + std::to_string(count) +
                         " input sets asked for; at least 1 is needed");
    }
    CalibrationInputs result;
    result.key = randomInputsKey(seed, count);
    result.random = true;
    auto staticShape = [](const Tensor& tensor) {
        if (!tensor.shapeKnown()) {
            throw InputError("calibration: input '" + tensor.name + "' has shape " +
                             tensor.typeString() + "; random inputs need a static shape");
        }
    };
    // Integer inputs that only index a table (token ids): uniform over its rows.
    std::vector<std::pair<TensorId, std::int64_t>> indices;
    for (const TensorId t : graph.inputs) {
        const Tensor& tensor = graph.tensors[static_cast<std::size_t>(t)];
        if (isInteger(tensor.dtype)) {
            if (const auto rows = indexedRows(graph, t)) {
                staticShape(tensor);
                indices.emplace_back(t, *rows);
            }
        }
    }
    if (!indices.empty()) {
        result.key += kRandomIndicesSuffix;
    }
    std::vector<std::mt19937_64> indexGenerators;
    for (const auto& [t, rows] : indices) {
        indexGenerators.emplace_back(
            nameSeed(seed, graph.tensors[static_cast<std::size_t>(t)].name));
    }
    std::mt19937_64 generator(seed);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    for (int k = 0; k < count; ++k) {
        NamedTensors set;
        for (const TensorId t : graph.inputs) {
            const Tensor& tensor = graph.tensors[static_cast<std::size_t>(t)];
            if (!isFloatingPoint(tensor.dtype)) {
                continue;
            }
            staticShape(tensor);
            HostTensor value;
            value.dtype = tensor.dtype;
            value.dims = tensor.dims;
            value.values.resize(static_cast<std::size_t>(tensor.elementCount()));
            for (double& v : value.values) {
                v = uniform(generator);
            }
            set[tensor.name] = std::move(value);
        }
        for (std::size_t i = 0; i < indices.size(); ++i) {
            const Tensor& tensor = graph.tensors[static_cast<std::size_t>(indices[i].first)];
            std::uniform_int_distribution<std::int64_t> row(0, indices[i].second - 1);
            HostTensor value;
            value.dtype = tensor.dtype;
            value.dims = tensor.dims;
            value.values.resize(static_cast<std::size_t>(tensor.elementCount()));
            for (double& v : value.values) {
                v = static_cast<double>(row(indexGenerators[i]));
            }
            value.ints.assign(value.values.begin(), value.values.end());
            set[tensor.name] = std::move(value);
        }
        result.sets.push_back(std::move(set));
    }
    return result;
}

namespace {

struct SetDeviation {
    double relativeL2 = 0.0;
    double cosine = 1.0;
};

SetDeviation deviationOf(const NamedTensors& reference, const NamedTensors& outputs) {
    if (reference.size() != outputs.size()) {
        throw InputError("outputs: " + std::to_string(outputs.size()) + " outputs against " +
                         std::to_string(reference.size()) + " in the reference");
    }
    double diff = 0.0;
    double norm = 0.0;
    double other = 0.0;
    double dot = 0.0;
    for (const auto& [name, r] : reference) {
        const auto it = outputs.find(name);
        if (it == outputs.end() || it->second.values.size() != r.values.size()) {
            throw InputError("outputs: '" + name +
                             "' is missing or differs in size from the "
                             "reference");
        }
        const std::vector<double>& y = it->second.values;
        for (std::size_t i = 0; i < y.size(); ++i) {
            const double d = y[i] - r.values[i];
            diff += d * d;
            norm += r.values[i] * r.values[i];
            other += y[i] * y[i];
            dot += y[i] * r.values[i];
        }
    }
    SetDeviation result;
    result.relativeL2 = norm > 0.0 ? std::sqrt(diff / norm) : (diff > 0.0 ? 1.0 : 0.0);
    result.cosine =
        norm > 0.0 && other > 0.0 ? dot / std::sqrt(norm * other) : (diff == 0.0 ? 1.0 : 0.0);
    return result;
}

/// The classifier output of a set: the one output when it has shape [1, K] or [K], K ≥ 2.
const HostTensor* classifierOutput(const NamedTensors& outputs) {
    if (outputs.size() != 1) {
        return nullptr;
    }
    const HostTensor& t = outputs.begin()->second;
    const bool shaped = (t.dims.size() == 2 && t.dims[0] == 1 && t.dims[1] >= 2) ||
                        (t.dims.size() == 1 && t.dims[0] >= 2);
    return shaped && isFloatingPoint(t.dtype) ? &t : nullptr;
}

std::size_t argMax(const std::vector<double>& v) {
    return static_cast<std::size_t>(std::max_element(v.begin(), v.end()) - v.begin());
}

} // namespace

OutputDeviation compareOutputs(const std::vector<NamedTensors>& reference,
                               const std::vector<NamedTensors>& outputs) {
    if (reference.size() != outputs.size() || reference.empty()) {
        throw InputError("outputs: " + std::to_string(outputs.size()) + " sets against " +
                         std::to_string(reference.size()) + " reference sets");
    }
    OutputDeviation result;
    result.sets = static_cast<int>(reference.size());
    double l2 = 0.0;
    double cosine = 0.0;
    result.minCosine = 1.0;
    int agree = 0;
    bool classifier = true;
    std::vector<double> margins;
    for (std::size_t k = 0; k < reference.size(); ++k) {
        const SetDeviation d = deviationOf(reference[k], outputs[k]);
        l2 += d.relativeL2;
        cosine += d.cosine;
        result.minCosine = std::min(result.minCosine, d.cosine);
        const HostTensor* r = classifierOutput(reference[k]);
        const HostTensor* y = classifierOutput(outputs[k]);
        classifier = classifier && r && y;
        if (classifier) {
            const std::size_t want = argMax(r->values);
            const std::size_t got = argMax(y->values);
            double second = -std::numeric_limits<double>::infinity();
            for (std::size_t i = 0; i < r->values.size(); ++i) {
                second = i == want ? second : std::max(second, r->values[i]);
            }
            margins.push_back(r->values[want] - second);
            if (want == got) {
                ++agree;
            } else {
                ++result.top1Misses;
                result.largestMissMargin =
                    std::max(result.largestMissMargin, r->values[want] - r->values[got]);
            }
        }
    }
    result.relativeL2Pct = 100.0 * l2 / static_cast<double>(reference.size());
    result.meanCosine = cosine / static_cast<double>(reference.size());
    if (classifier) {
        result.top1Agreement = static_cast<double>(agree) / static_cast<double>(reference.size());
        std::sort(margins.begin(), margins.end());
        const std::size_t half = margins.size() / 2;
        result.medianTop1Margin =
            margins.size() % 2 == 1 ? margins[half] : (margins[half - 1] + margins[half]) / 2.0;
    }
    return result;
}

std::vector<NamedTensors> runOnSets(const Graph& graph, const CalibrationInputs& inputs,
                                    const ExecutionDevice& device) {
    ExecuteOptions options;
    options.weights = cachedModelWeights(graph); // the model's, not made-up ones
    std::vector<NamedTensors> outputs;
    outputs.reserve(inputs.sets.size());
    for (const NamedTensors& set : inputs.sets) {
        outputs.push_back(executeGraph(graph, set, device, options));
    }
    return outputs;
}

ActivationRanges measureActivationRanges(const Graph& graph, std::span<const TensorId> tensors,
                                         const CalibrationInputs& inputs,
                                         const ExecutionDevice& device) {
    Graph observed = graph;
    for (const TensorId t : tensors) {
        Tensor& tensor = observed.tensors[static_cast<std::size_t>(t)];
        if (!tensor.graphOutput) {
            tensor.graphOutput = true;
            observed.outputs.push_back(t);
        }
    }
    ActivationRanges ranges;
    for (const NamedTensors& outputs : runOnSets(observed, inputs, device)) {
        for (const TensorId t : tensors) {
            const std::string& name = graph.tensors[static_cast<std::size_t>(t)].name;
            const auto found = outputs.find(name);
            if (found == outputs.end()) {
                throw ExecutionError("activation '" + name + "' was not computed", false);
            }
            const std::vector<double>& values = found->second.values;
            const auto [low, high] = std::minmax_element(values.begin(), values.end());
            const double lo = values.empty() ? 0.0 : *low;
            const double hi = values.empty() ? 0.0 : *high;
            const auto [it, added] = ranges.try_emplace(name, ActivationRange{lo, hi});
            if (!added) {
                it->second.lo = std::min(it->second.lo, lo);
                it->second.hi = std::max(it->second.hi, hi);
            }
        }
    }
    return ranges;
}

std::vector<ActivationRangeRecord> activationRangeRecords(const Graph& graph,
                                                          const ActivationRanges& ranges,
                                                          const std::string& inputsKey) {
    std::vector<ActivationRangeRecord> rows;
    for (const auto& [name, range] : ranges) {
        rows.push_back({graph.fingerprint, name, inputsKey, range.lo, range.hi, {}});
    }
    return rows;
}

ActivationRanges activationRangesOf(const std::vector<ActivationRangeRecord>& rows) {
    ActivationRanges ranges;
    for (const ActivationRangeRecord& r : rows) {
        ranges[r.tensorName] = {r.lo, r.hi};
    }
    return ranges;
}

std::vector<SensitivityRecord> measureSensitivity(const Graph& graph, Variant variant,
                                                  const CalibrationInputs& inputs,
                                                  const ExecutionDevice& device, Progress* progress,
                                                  const ActivationRanges* ranges) {
    if (variant.precision == Precision::Int8 && ranges == nullptr) {
        throw InputError("int8 sensitivities need the model's activation ranges on the same "
                         "inputs (measured first by paretune profile --variants int8)");
    }
    std::vector<NodeId> nodes;
    for (const NodeId n : graph.topologicalOrder) {
        if (variant != Precision::Fp32 && lowerable(graph, n, variant)) {
            nodes.push_back(n);
        }
    }
    std::vector<SensitivityRecord> rows;
    if (nodes.empty()) {
        return rows;
    }
    const std::vector<NamedTensors> reference = runOnSets(graph, inputs, device);
    std::vector<Variant> variants(graph.nodes.size(), Precision::Fp32);
    for (std::size_t k = 0; k < nodes.size(); ++k) {
        if (progress != nullptr) {
            if (progress->cancelled()) {
                break;
            }
            progress->report(static_cast<double>(k) / static_cast<double>(nodes.size()),
                             "sensitivity of " +
                                 graph.nodes[static_cast<std::size_t>(nodes[k])].name);
        }
        variants[static_cast<std::size_t>(nodes[k])] = variant;
        const LoweredGraph lowered = lowerGraph(graph, variants, ranges);
        variants[static_cast<std::size_t>(nodes[k])] = Precision::Fp32;
        if (!lowered.calibrated) {
            throw InputError("node '" + graph.nodes[static_cast<std::size_t>(nodes[k])].name +
                             "': its activation ranges were not measured");
        }
        const OutputDeviation d =
            compareOutputs(reference, runOnSets(lowered.graph, inputs, device));
        rows.push_back({graph.fingerprint,
                        graph.nodes[static_cast<std::size_t>(nodes[k])].name,
                        std::string(variantName(variant)),
                        sensitivityInputsKey(inputs.key, variantName(variant)),
                        d.relativeL2Pct,
                        {}});
    }
    return rows;
}

ActivationRanges newestActivationRanges(const SampleLibrary& library, const Graph& graph) {
    for (const std::string& key : library.activationRangeInputs(graph.fingerprint)) {
        if (!key.starts_with(kMadeUpWeightsPrefix)) { // the newest on the model's weights
            return activationRangesOf(library.activationRanges(graph.fingerprint, key));
        }
    }
    return {};
}

} // namespace paretune
