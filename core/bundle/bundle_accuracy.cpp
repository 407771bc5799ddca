// SPDX-License-Identifier: GPL-3.0-or-later
#include "bundle_accuracy.h"

#include "bundle_verify.h"
#include "common/input_error.h"
#include "common/sha256.h"
#include "graph/onnx_model.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>

namespace paretune {

namespace {

using Json = nlohmann::json;

std::string percent(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.4g %%", value);
    return text;
}

/// "random:SEED:COUNT" (or with kRandomIndicesSuffix) → seed and count; false for another key.
bool parseRandomKey(std::string key, std::uint64_t& seed, int& count) {
    if (key.ends_with(kRandomIndicesSuffix)) {
        key.resize(key.size() - kRandomIndicesSuffix.size());
    }
    unsigned long long s = 0;
    int c = 0;
    char rest = 0;
    if (std::sscanf(key.c_str(), "random:%llu:%d%c", &s, &c, &rest) != 2 || c < 1) {
        return false;
    }
    seed = s;
    count = c;
    return true;
}

std::vector<std::string> stringList(const Json& object, const char* key) {
    std::vector<std::string> names;
    if (const auto it = object.find(key); it != object.end() && it->is_array()) {
        for (const Json& entry : *it) {
            if (entry.is_object() && entry.contains("name") && entry["name"].is_string()) {
                names.push_back(entry["name"].get<std::string>());
            } else if (entry.is_string()) {
                names.push_back(entry.get<std::string>());
            }
        }
    }
    return names;
}

} // namespace

std::vector<NamedTensors> runPartitionChain(std::span<const PartitionToRun> partitions,
                                            const CalibrationInputs& inputs,
                                            std::span<const std::string> modelOutputs) {
    std::vector<Graph> graphs;
    std::vector<ExecuteOptions> options(partitions.size());
    graphs.reserve(partitions.size());
    for (std::size_t p = 0; p < partitions.size(); ++p) {
        onnx::ModelProto prepared;
        graphs.push_back(
            importOnnxBytes(partitions[p].model, {}, partitions[p].label, prepared).graph);
        options[p].weights = weightsOfModel(graphs.back(), prepared); // the partition's own
    }
    std::vector<NamedTensors> results;
    results.reserve(inputs.sets.size());
    for (const NamedTensors& set : inputs.sets) {
        NamedTensors available = set; // the model's inputs, then each partition's outputs
        for (std::size_t p = 0; p < partitions.size(); ++p) {
            const PartitionToRun& part = partitions[p];
            NamedTensors feed;
            for (const std::string& name : part.inputs) {
                if (const auto it = available.find(name); it != available.end()) {
                    feed.emplace(name, it->second);
                }
                // Else a model input the calibration sets leave to the executor (an integer
                // one): it makes the same values for the model and every partition (by name).
            }
            NamedTensors produced = executeGraph(graphs[p], feed, {}, options[p]);
            for (const std::string& name : part.outputs) {
                const auto it = produced.find(name);
                if (it == produced.end()) {
                    throw InputError(part.label + ": gives no output '" + name + "'");
                }
                available.insert_or_assign(name, std::move(it->second));
            }
        }
        NamedTensors outputs;
        for (const std::string& name : modelOutputs) {
            const auto it = available.find(name);
            if (it == available.end()) {
                throw InputError("model output '" + name + "' comes out of no partition");
            }
            outputs.emplace(name, it->second);
        }
        results.push_back(std::move(outputs));
    }
    return results;
}

CalibrationInputs bundleCalibrationInputs(const Graph& model, const std::string& folder, int sets) {
    if (!folder.empty()) {
        return readCalibrationInputs(model, folder);
    }
    return randomCalibrationInputs(model, sets, kDefaultSensitivitySeed);
}

nlohmann::ordered_json accuracyJson(const OutputDeviation& deviation,
                                    const CalibrationInputs& inputs,
                                    std::optional<double> estimatedPct) {
    nlohmann::ordered_json accuracy = {
        {"deviation_pct", deviation.relativeL2Pct},
        {"source", "measured"},
        {"metric", "relative L2 error of all outputs, mean over the sets"},
        {"min_cosine", deviation.minCosine},
        {"mean_cosine", deviation.meanCosine},
        {"top1_agreement", deviation.top1Agreement
                               ? nlohmann::ordered_json(*deviation.top1Agreement)
                               : nlohmann::ordered_json(nullptr)},
        {"top1_misses", deviation.top1Misses},
        {"sets", deviation.sets},
        {"inputs", inputs.key},
        {"random_inputs", inputs.random},
        {"ran_on", "this machine's CPU, the partitions one after another"},
        {"estimated_pct",
         estimatedPct ? nlohmann::ordered_json(*estimatedPct) : nlohmann::ordered_json(nullptr)}};
    if (inputs.random) {
        accuracy["note"] = "random inputs: accuracy on real data may differ";
    }
    return accuracy;
}

void checkBundleOutputs(const BundleFileMap& files, const Json& manifest,
                        const BundleOutputCheck* check, BundleVerification& result) {
    auto fail = [&](std::string message) {
        result.diagnostics.push_back(
            {Diagnostic::Severity::Error, "bundle-check-failed", std::move(message)});
    };
    const Json* accuracy = nullptr;
    if (const auto plan = manifest.find("plan"); plan != manifest.end() && plan->is_object()) {
        if (const auto it = plan->find("accuracy"); it != plan->end() && it->is_object()) {
            accuracy = &*it;
        }
    }
    if (accuracy == nullptr) {
        return; // every node in fp32: the partitions compute the model itself
    }
    const double recorded = accuracy->value("deviation_pct", -1.0);
    const double recordedCosine = accuracy->value("min_cosine", -2.0);
    const std::string key = accuracy->value("inputs", std::string());
    if (recorded < 0.0 || recordedCosine < -1.0 || key.empty()) {
        fail("manifest.json: plan.accuracy needs \"deviation_pct\" (>= 0), \"min_cosine\" and "
             "\"inputs\"");
        return;
    }
    if (check == nullptr || check->modelPath.empty()) {
        result.diagnostics.push_back(
            {Diagnostic::Severity::Warning, "bundle-outputs-not-run",
             "the outputs were not run: manifest.json records a measured deviation of " +
                 percent(recorded) + " from the fp32 model on " + key +
                 "; bundle verify --model MODEL.onnx runs them against the model"});
        return;
    }
    try {
        const Json& model = manifest.at("model");
        std::error_code error;
        if (!std::filesystem::is_regular_file(check->modelPath, error)) {
            throw InputError(check->modelPath + ": no such model file");
        }
        std::uintmax_t bytes = 0;
        const std::string sha = fileSha256(check->modelPath, bytes);
        if (sha != model.value("sha256", std::string())) {
            throw InputError(check->modelPath + ": SHA-256 " + sha.substr(0, 16) +
                             "… is not the exported model's (manifest.json model.sha256)");
        }
        const Graph graph = importOnnxFile(check->modelPath).graph;
        CalibrationInputs inputs;
        std::uint64_t seed = 0;
        int count = 0;
        if (parseRandomKey(key, seed, count)) {
            inputs = randomCalibrationInputs(graph, count, seed);
            if (inputs.key != key) {
                throw InputError("the deviation was measured on random inputs " + key +
                                 ", which this version draws as " + inputs.key +
                                 "; export the bundle again");
            }
        } else if (check->inputsFolder.empty()) {
            throw InputError("the deviation was measured on input files (" + key +
                             "); give them with --inputs DIR");
        } else {
            inputs = readCalibrationInputs(graph, check->inputsFolder);
            if (inputs.key != key) {
                throw InputError(check->inputsFolder + ": these input files are " + inputs.key +
                                 ", not the " + key + " the deviation was measured on");
            }
        }
        std::vector<PartitionToRun> parts;
        for (const Json& entry : manifest.at("partitions")) {
            const std::string file = entry.at("file").get<std::string>();
            const auto it = files.find(file);
            if (it == files.end()) {
                throw InputError(file + ": missing");
            }
            parts.push_back({"partition " + std::to_string(parts.size()) + " (" + file + ")",
                             it->second, stringList(entry, "inputs"),
                             stringList(entry, "outputs")});
        }
        const std::vector<std::string> outputNames = stringList(model, "outputs");
        const std::vector<NamedTensors> reference = runOnSets(graph, inputs, ExecutionDevice{});
        const OutputDeviation measured =
            compareOutputs(reference, runPartitionChain(parts, inputs, outputNames));
        const std::string figures = percent(measured.relativeL2Pct) + " (lowest cosine " +
                                    std::to_string(measured.minCosine) + ") on " + key +
                                    " against the recorded " + percent(recorded) + " (cosine " +
                                    std::to_string(recordedCosine) + ")";
        if (measured.relativeL2Pct <= recorded * 1.02 + 0.01 &&
            measured.minCosine >= recordedCosine - 1e-4) {
            result.passed.push_back("the partitions' outputs deviate from the model's by " +
                                    figures);
        } else {
            fail("the partitions' outputs deviate from the model's by " + figures +
                 ": more than manifest.json records");
        }
    } catch (const std::exception& error) {
        fail(std::string("the outputs could not be checked: ") + error.what());
    }
}

} // namespace paretune
