// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/diagnostic.h"

#include "op_features.h"

#include <nlohmann/json_fwd.hpp>

#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace paretune {

class SampleLibrary;
struct Device;

/// One operator node of a model on a device: its features and, in a dataset, what was
/// measured for its signature on that device.
struct PredictorRow {
    std::string modelFingerprint;
    std::string deviceFingerprint;
    std::string signature;
    std::string nodeName;
    std::string opType;
    /// The precision it computes in (nodePrecision; also the features' one-hot).
    Precision precision = Precision::Fp32;
    OpFeatureVector features{};
    double flops = 0.0;
    double bytes = 0.0;     ///< read + written
    double latencyUs = 0.0; ///< measured median (0 in rows made for prediction)
    std::optional<double> peakMemoryMb;
};

/// What the predictor learns from: one row per compute node of every stored model on every
/// stored device its signature was measured on (a signature measured within another model
/// counts: same operator, same shapes), plus the figures of those devices. A model's derived
/// graphs that profiling records beside it (its fusion groups as fused nodes, fusedGraphName;
/// its nodes lowered to a precision, loweredGraphName) are models of their own here, with the
/// rows of only the nodes the model itself lacks (the fused nodes; the lowered nodes and their
/// conversions), and `derivedFrom` names their model.
struct PredictorDataset {
    std::vector<PredictorRow> rows;
    std::map<std::string, DeviceFigures> devices; ///< by fingerprint
    /// fingerprint → file name without suffix; a derived graph's adds its tag to its model's
    /// ("tiny_cnn (bf16 0123456789ab)", "tiny_cnn (fused 0123456789ab)")
    std::map<std::string, std::string> modelNames;
    std::map<std::string, std::string> derivedFrom; ///< derived graph's fingerprint → model's
    Diagnostics diagnostics;                        ///< models or devices left out, and why
};

/// Rows for the compute nodes of `graph` on a device (latencies 0). Pure.
std::vector<PredictorRow> nodeRows(const Graph& graph, const std::string& deviceFingerprint);

/// Builds the dataset from the library: each stored model is imported again from its source
/// path (a model whose file is gone or changed is left out with a note); stale samples are
/// skipped; devices without micro-benchmark figures are left out with a note (see
/// recordMicroBenchmarks).
PredictorDataset assembleDataset(const SampleLibrary& library);

/// The figures of a stored device with its micro-benchmark: the library's reference vector
/// (device_benchmarks, see recordBenchmark) when it has one, else what spec_json holds.
DeviceFigures storedDeviceFigures(const SampleLibrary& library, const DeviceRecord& record);

/// For every stored device that is a real device of this machine and has no micro-benchmark
/// figures yet: runs the quick micro-benchmark on it and stores the vector in the library
/// (recordBenchmark). Returns one note per device measured.
Diagnostics recordMicroBenchmarks(SampleLibrary& library);

/// The figures of a device of this machine, measuring and storing its micro-benchmark first
/// when the library has none (the device is stored too).
DeviceFigures deviceFiguresFor(SampleLibrary& library, const Device& device);

/// A split by (model, device) pair. Test rows: those of the held-out models (any device) and
/// of the held-out devices (any model); with both, the held-out models on the held-out devices.
/// A held-out model's derived graphs (dataset.derivedFrom) are held out with it: its fused and
/// lowered nodes are the same model, and `heldOutModels` lists them after the models given.
/// Training rows: neither a held-out model nor a held-out device, and no (signature, device)
/// that occurs among the test rows (the same measurement would otherwise be in both).
struct DatasetSplit {
    std::vector<std::string> heldOutModels;
    std::vector<std::string> heldOutDevices;
    std::vector<std::size_t> train;
    std::vector<std::size_t> test;
};

DatasetSplit splitDataset(const PredictorDataset& dataset,
                          const std::vector<std::string>& heldOutModels,
                          const std::vector<std::string>& heldOutDevices);

/// Every way the split lets held-out data into training: a training row of a held-out model
/// or device, or sharing a (signature, device) with a test row. Empty when the split is clean.
std::vector<std::string> splitLeaks(const PredictorDataset& dataset, const DatasetSplit& split);

/// Resolves a --holdout-model argument: a stored model's file name (without ".onnx") or
/// name, or a fingerprint prefix. InputError when nothing or more than one model matches.
std::string resolveModel(const PredictorDataset& dataset, const std::string& nameOrPrefix);
/// Resolves a device fingerprint prefix among the dataset's devices (InputError otherwise).
std::string resolveDevice(const PredictorDataset& dataset, const std::string& prefix);

} // namespace paretune
