// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The outputs of a bundle whose plan runs nodes in lower precisions: its partitions run one after
// another as a deployment runtime would, compared with the fp32 model's outputs on calibration
// inputs. Export records the deviation measured this way in manifest.json ("accuracy");
// `bundle verify --model` runs the same inputs again and checks the outputs against it.

#include "bundle_files.h"
#include "profile/output_deviation.h"

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace paretune {

struct BundleVerification;

/// One partition to run: its serialized model and the tensors it takes and gives, by name.
struct PartitionToRun {
    std::string label; ///< for messages ("partition 3 (partitions/03_cpu_0.onnx)")
    std::string_view model;
    std::vector<std::string> inputs;
    std::vector<std::string> outputs;
};

/// Runs the partitions in order on every calibration set, on this machine's CPU (one thread):
/// the model's inputs, then each partition's outputs, handed over by name. Returns, per set, the
/// tensors named in `modelOutputs`. Throws InputError naming the partition when one does not
/// import or an input is not available, ExecutionError when a node fails.
std::vector<NamedTensors> runPartitionChain(std::span<const PartitionToRun> partitions,
                                            const CalibrationInputs& inputs,
                                            std::span<const std::string> modelOutputs);

/// The calibration inputs a bundle's deviation is measured on: `folder` when not empty
/// (readCalibrationInputs), else `sets` seeded random sets (seed kDefaultSensitivitySeed).
CalibrationInputs bundleCalibrationInputs(const Graph& model, const std::string& folder, int sets);

/// manifest.json's "accuracy" object for a measured deviation: "deviation_pct" (relative L2, %,
/// mean over the sets), "source": "measured", cosines, top-1 agreement where the outputs are
/// classifier-shaped, the inputs' key and whether they are random (then a "note" says that
/// accuracy on real data may differ), and the search's estimate beside it.
nlohmann::ordered_json accuracyJson(const OutputDeviation& deviation,
                                    const CalibrationInputs& inputs,
                                    std::optional<double> estimatedPct);

/// What `bundle verify` needs to run a bundle's outputs: the model it was exported from (its
/// SHA-256 must be the manifest's) and, when the deviation was measured on input files, their
/// folder.
struct BundleOutputCheck {
    std::string modelPath;
    std::string inputsFolder;
};

/// Runs the exported partitions on the manifest's calibration inputs and compares them with
/// the model's outputs; passes when the deviation is at most the recorded one (+2 % of it and
/// 0.01 points, for another machine's arithmetic) and the lowest cosine at least the recorded
/// one − 1e-4. Adds pass, failure or warning lines to `result`; a bundle without "accuracy"
/// (every node in fp32) has nothing to check. Never throws for a damaged bundle or model.
void checkBundleOutputs(const BundleFileMap& files, const nlohmann::json& manifest,
                        const BundleOutputCheck* check, BundleVerification& result);

} // namespace paretune
