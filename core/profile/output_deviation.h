// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Accuracy as an objective (issue 17): how far a lowered model's outputs are from the fp32
// model's on calibration inputs, and the per-node sensitivity table the search adds up.

#include "graph/precision.h"
#include "graph_executor.h"
#include "store/records.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace paretune {

struct Progress;
class SampleLibrary;

/// Inputs to compare outputs on: one set of graph inputs per run. `key` names them in the
/// library ("random:SEED:COUNT"); `random` says they are made up (every report then says that
/// accuracy on real data may differ).
struct CalibrationInputs {
    std::string key;
    bool random = true;
    std::vector<NamedTensors> sets;
};

/// The calibration sets a sensitivity table is measured on unless told otherwise.
inline constexpr int kDefaultSensitivitySets = 4;
inline constexpr std::uint64_t kDefaultSensitivitySeed = 1;
/// "random:SEED:COUNT": the key of seeded random calibration sets.
std::string randomInputsKey(std::uint64_t seed, int count);
/// What randomCalibrationInputs adds to the key of sets that draw a model's indices (so that
/// deviations measured before, when every set held the same indices, are not taken for them).
inline constexpr std::string_view kRandomIndicesSuffix = ":indices";

/// `count` sets of seeded random values for the graph's float inputs (uniform in [-1, 1), the
/// model's static shapes) and for its integer inputs that only index a table (every node that
/// reads their values is a Gather taking them as indices, token ids for example: uniform over
/// the table's rows, each input from a generator of its own, so that the float values stay
/// those of the same seed without indices). Other integer inputs (masks, lengths) are left to
/// the executor, which makes the same valid ones for every set. The key is "random:SEED:COUNT",
/// with kRandomIndicesSuffix where indices were drawn. Throws InputError for count < 1 or a
/// drawn input whose shape is not static.
CalibrationInputs randomCalibrationInputs(const Graph& graph, int count, std::uint64_t seed);

/// Calibration inputs from a folder: for each graph input NAME, a file NAME.npy (NumPy's format,
/// little-endian, C order) or NAME.pb (an ONNX TensorProto) holding either the input's shape
/// (one set) or [K, …the input's shape] (K sets); every file the same K. The element type must
/// be the input's (float32 as '<f4', int64 as '<i8', …). The key is "files:" and the first 16
/// hex digits of the SHA-256 of the files, in input order. Throws InputError naming the file and
/// the expected type and shape: a missing file, a wrong shape or element type, a malformed or
/// truncated file, files that disagree on K, a folder that is not there.
CalibrationInputs readCalibrationInputs(const Graph& graph, const std::string& folder);

/// How a model's outputs differ from reference outputs over the calibration sets.
struct OutputDeviation {
    int sets = 0;
    /// ‖y − r‖ / ‖r‖ over all outputs of a set, %, mean over the sets.
    double relativeL2Pct = 0.0;
    /// Cosine similarity of all outputs of a set with the reference's, the lowest over the sets.
    double minCosine = 1.0;
    double meanCosine = 1.0;
    /// Classifier-shaped models (one output of shape [1, K], K ≥ 2): the share of sets whose
    /// arg-max agrees, and of the sets that disagree, the largest reference margin between the
    /// two classes (a miss between nearly tied logits); the median over all sets of the margin
    /// between the reference's two highest logits, the scale a miss's margin is read against.
    std::optional<double> top1Agreement;
    double largestMissMargin = 0.0;
    int top1Misses = 0;
    double medianTop1Margin = 0.0;
};

/// Compares outputs set by set (same names and shapes). Throws InputError when they disagree
/// in count, names or sizes.
OutputDeviation compareOutputs(const std::vector<NamedTensors>& reference,
                               const std::vector<NamedTensors>& outputs);

/// Runs `graph` on every set on `device` (executeGraph), in order.
std::vector<NamedTensors> runOnSets(const Graph& graph, const CalibrationInputs& inputs,
                                    const ExecutionDevice& device);

/// The sensitivity table of a model in a precision: for each node lowerable to it, the model
/// run with only that node lowered, its outputs' relative L2 deviation from the fp32 outputs
/// (%, mean over the sets). Rows come in graph order, keyed for the library (model fingerprint,
/// node name, precision, inputs key). Cancelling through `progress` returns the rows measured
/// so far. Int8 needs the activation ranges (measureActivationRanges on the same inputs);
/// without them, InputError.
std::vector<SensitivityRecord> measureSensitivity(const Graph& graph, Variant variant,
                                                  const CalibrationInputs& inputs,
                                                  const ExecutionDevice& device,
                                                  Progress* progress = nullptr,
                                                  const ActivationRanges* ranges = nullptr);

/// The range of each of `tensors` over the calibration sets: the fp32 model run on every set
/// with those tensors as extra outputs (int8RangeTensors gives the ones int8 lowering needs).
ActivationRanges measureActivationRanges(const Graph& graph, std::span<const TensorId> tensors,
                                         const CalibrationInputs& inputs,
                                         const ExecutionDevice& device);
/// The ranges as rows of the library (model fingerprint, tensor name, inputs key), and back.
std::vector<ActivationRangeRecord> activationRangeRecords(const Graph& graph,
                                                          const ActivationRanges& ranges,
                                                          const std::string& inputsKey);
ActivationRanges activationRangesOf(const std::vector<ActivationRangeRecord>& rows);
/// The ranges the library measured most recently for the graph's model (empty when none).
ActivationRanges newestActivationRanges(const SampleLibrary& library, const Graph& graph);

} // namespace paretune
