// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "device/host_link.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace paretune {

// The rows of the sample library (DESIGN.md "Data model"), as plain values. JSON columns hold
// JSON text; an empty string is stored as "{}". Timestamps are UTC ISO 8601 text with
// milliseconds ("2026-11-29T11:35:32.123Z"); an empty one is filled with the current time when
// the row is written. Keys: model and device fingerprints are 64 lower-case hex digits, operator
// signatures 32 (see opSignature and modelFingerprint in graph/model_fingerprint.h).

/// A device samples were measured on, identified by its fingerprint (hardware identity and
/// software versions).
struct DeviceRecord {
    std::string fingerprint;
    std::string kind;         ///< "cpu", "gpu", …
    std::string name;         ///< model name, e.g. "Intel Xeon Platinum 8480+"
    std::string specJson;     ///< hardware figures (cores, caches, memory, …)
    std::string softwareJson; ///< driver, runtime and library versions
    std::string createdAt;    ///< when it was first stored; kept by later upserts
};

/// A device's micro-benchmark vector as measured at one time (DESIGN.md: fingerprint).
struct BenchmarkRecord {
    std::int64_t id = 0; ///< assigned by SampleLibrary::addBenchmark
    std::string deviceFingerprint;
    std::string measuredAt; ///< set by addBenchmark when empty
    double gemmGflops = 0;
    double memoryBwGbs = 0;
    std::optional<double> dispatchUs; ///< per-op framework dispatch; none when not measured
    bool reference = false;           ///< what later measurements are compared with
    /// A GPU's measured link to the host (pinned copies); none for a CPU device. The search
    /// uses the newest one instead of the catalog's modelled link (applyMeasuredLinks).
    std::optional<HostLinkFigures> hostLink{};
};

/// How much a device's nodes slow down while another device runs beside it, as the co-run
/// benchmark measured it at one time: a row of device_contention. The slowdowns are the
/// benchmark's raw ratios (time beside the other / time alone); `factor` is what the simulator
/// applies (CostTable::setContention).
struct ContentionRecord {
    std::int64_t id = 0;           ///< assigned by SampleLibrary::addContention
    std::string deviceFingerprint; ///< the device slowed down
    std::string besideFingerprint; ///< the device running beside it
    std::string measuredAt;        ///< set by addContention when empty
    double factor = 1.0;           ///< >= 1
    double gemmBesideGemm = 1.0;
    double gemmBesideTriad = 1.0;
    double triadBesideGemm = 1.0;
    double triadBesideTriad = 1.0;
};

/// A whole model run end to end on one device by `profile`, right after its operators: a row
/// of model_runs. The search compares it with the sum of the model's cells on the device.
struct ModelRunRecord {
    std::int64_t id = 0; ///< assigned by SampleLibrary::addModelRun
    std::string modelFingerprint;
    std::string deviceFingerprint;
    std::string measuredAt; ///< set by addModelRun when empty
    double medianUs = 0.0;
    double p10Us = 0.0;
    double p90Us = 0.0;
    int runs = 0;
    double sumOfOpsUs = 0.0; ///< the same profile's per-operator medians, summed
};

/// A model whose operators were profiled.
struct ModelRecord {
    std::string fingerprint;
    std::string name;
    std::string sourcePath; ///< the file it was last imported from
    std::int64_t nodeCount = 0;
    std::string importedAt; ///< when it was last stored
};

/// An operator with its shapes: the same operator with the same shapes in two models shares one
/// signature, which is what lets samples transfer across models.
struct SignatureRecord {
    std::string signature;
    std::string opType;
    std::string attrsJson;  ///< {"attribute name": "canonical value", …}
    std::string shapesJson; ///< {"inputs": [{"dtype", "shape"}, …], "outputs": […]}
    double flops = 0.0;
    std::int64_t bytes = 0; ///< bytes read + bytes written
};

/// One measurement of one operator signature on one device, within one model: a row of
/// perf_samples. Latencies are µs, memory MiB, energy µJ.
struct Sample {
    std::int64_t id = 0; ///< assigned by SampleLibrary::addSamples; ignored on the way in
    std::string modelFingerprint;
    std::string deviceFingerprint;
    std::string opSignature;
    std::string opMeta;     ///< JSON: what identifies the node in its model (name, op type, …)
    std::string shapeTuple; ///< shapes as text, e.g. "float32[1,64,56,56]->float32[1,64,56,56]"
    std::string configJson; ///< JSON: how it was measured (threads, warm-up, …)
    double latencyUs = 0.0; ///< median
    std::optional<double> latencyP10Us;
    std::optional<double> latencyP90Us;
    std::optional<double> peakMemoryMb;
    std::optional<double> energyUj;
    std::string energySource; ///< where energyUj came from ("nvml", "rapl", "modelled", …)
    std::int32_t repeats = 0;
    std::string sampleTime;
    std::string toolVersion; ///< filled with this build's version when empty

    /// Set when markDeviceStale found the device's fingerprint drifting after this sample was
    /// taken. Stale samples are kept; reuse lookups skip them. addSamples stores it as given
    /// (false for a new measurement; an imported sample keeps its flag).
    bool stale = false;
    /// Read back only: the op type of opSignature (from op_signatures).
    std::string opType;
};

/// A placement plan and its objectives: a row of plans. `source` says where the objectives came
/// from ("validated": measured on the hardware by paretune validate, with the prediction beside
/// them; "searched": simulated).
struct PlanRecord {
    std::int64_t id = 0; ///< assigned by SampleLibrary::addPlan; ignored on the way in
    std::string modelFingerprint;
    std::string deviceSetJson;  ///< JSON: the devices (ids and fingerprints)
    std::string objectivesJson; ///< JSON: objectives with their sources
    std::string assignmentJson; ///< JSON: {node name: device id}
    std::string source;
    std::string createdAt;
};

/// How much running one node of a model in a lower precision moves the model's outputs from
/// fp32: a row of precision_sensitivity, measured by running the model with only that node
/// lowered on calibration inputs (`paretune profile --variants`). The figure depends on the
/// model, the node and the inputs, not on the device.
struct SensitivityRecord {
    std::string modelFingerprint;
    std::string nodeName;
    std::string precision; ///< "bf16"
    /// What the deviation was measured on: "random:SEED:COUNT" (seeded random inputs of the
    /// model's shapes) or "files:SHA256" (the calibration inputs given, hashed); with
    /// kMadeUpWeightsPrefix, measured by an earlier version on made-up large weights.
    std::string inputs;
    double deviationPct = 0.0; ///< relative L2 error of the outputs, %, mean over the inputs
    std::string measuredAt;    ///< set when empty
};

/// The prefix schema 8 gave the inputs keys of sensitivities and activation ranges measured
/// before the executor read a model's large weights (store/schema.cpp): kept, never used for a
/// search's estimate or an int8 node's scales.
inline constexpr std::string_view kMadeUpWeightsPrefix = "made-up-weights:";

/// The range of one activation of a model over calibration inputs, where the int8 variant's
/// activation scales come from: a row of activation_ranges.
struct ActivationRangeRecord {
    std::string modelFingerprint;
    std::string tensorName;
    std::string inputs;     ///< as SensitivityRecord::inputs
    double lo = 0.0;        ///< smallest value seen
    double hi = 0.0;        ///< largest value seen
    std::string measuredAt; ///< set when empty
};

/// One committed round of a tune run (`paretune tune`): a row of the tune_rounds table.
struct TuneRoundRecord {
    std::int64_t id = 0; ///< assigned by SampleLibrary::addTuneRound
    std::string tuneKey; ///< the run's settings, hashed: a rerun with the same key resumes
    std::int32_t round = 0;
    std::string modelFingerprint;
    std::string recordJson; ///< JSON: the round's plans and measurements
    std::string createdAt;
};

/// A trained performance predictor: a row of the predictors table. `trainSetJson` holds what
/// a predictor needs besides its weights (feature vocabulary, normalisation statistics, the
/// devices it knows, options); `metricsJson` its evaluation; `weights` is an opaque binary
/// archive written and read by the predictor library.
struct PredictorRecord {
    std::int64_t id = 0; ///< assigned by SampleLibrary::addPredictor; ignored on the way in
    std::string createdAt;
    std::string trainSetJson;
    std::string metricsJson;
    std::string weights;
};

/// A profiling job in the library's queue (profile_jobs), waiting for a `paretune worker` on
/// the device it names. The model travels in the job, so that any machine can measure it.
struct ProfileJobRecord {
    std::int64_t id = 0; ///< assigned by SampleLibrary::queueProfileJob
    std::string modelFingerprint;
    std::string modelName; ///< the file the job was queued from, as given
    std::string modelOnnx; ///< the model file's bytes (empty in listings)
    std::string deviceFingerprint;
    std::string optionsJson; ///< {"repeats": N, "force": bool}
    std::string state;       ///< "queued", "running", "done" or "failed"
    std::string queuedAt;
    std::string worker;                 ///< who holds or held it ("host:pid"); empty while queued
    std::optional<double> leaseExpires; ///< seconds since the epoch, by the database's clock
    std::int64_t attempts = 0;          ///< how many times it was claimed
    std::string finishedAt;
    std::string resultJson; ///< what the worker reported: counts, or the error
};

/// What moves between libraries (paretune library export / import, library_file.h): the
/// samples and what they refer to and are read with. Predictors, plans, tune rounds and queued
/// jobs belong to the library they were made in and do not move.
struct LibraryRecords {
    std::vector<DeviceRecord> devices;
    std::vector<ModelRecord> models;
    std::vector<SignatureRecord> signatures;
    std::vector<BenchmarkRecord> benchmarks;
    std::vector<ContentionRecord> contention; ///< the newest of each pair
    std::vector<ModelRunRecord> modelRuns;    ///< every whole-model run, oldest first
    std::vector<Sample> samples;              ///< in the order they were stored
};

/// How many records an import added (the others were stored already).
struct ImportCounts {
    std::int64_t devices = 0;
    std::int64_t models = 0;
    std::int64_t signatures = 0;
    std::int64_t benchmarks = 0;
    std::int64_t contention = 0;
    std::int64_t modelRuns = 0;
    std::int64_t samples = 0;
    std::int64_t samplesPresent = 0; ///< samples of the file the library held already
};

} // namespace paretune
