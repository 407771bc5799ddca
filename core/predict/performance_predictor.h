// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "predictor_dataset.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace paretune {

struct PredictorRecord;
class PredictorEngine;

/// Training settings (the defaults are the design).
struct PredictorOptions {
    int epochs = 60;
    int batchSize = 128;
    double learningRate = 1e-3;
    int members = 5; ///< ensemble size; the spread of the members is the uncertainty
    std::uint64_t seed = 1;
    /// Learn log(latency / reference) instead of log(latency), the reference being the roofline
    /// baseline scaled by the median ratio of measured latency to it over the training rows of
    /// the same operator kind on the same device (a per-op-type reference; for Conv, per kernel
    /// path): the network then only corrects that reference.
    bool rooflineRatio = true;
};

/// One prediction. `uncertainty` is the standard deviation of the ensemble members' log
/// latencies (≈ relative error, 0.1 ≈ ±10%), doubled when the row is out of range.
struct LatencyPrediction {
    double latencyUs = 0.0;
    double peakMemoryMb = 0.0;
    double uncertainty = 0.0;
    /// A numeric feature outside the training range (5% margin; the network then sees the
    /// range's edge), an op type never trained on, or a device never trained on whose figures
    /// fall outside the known ones.
    bool outOfRange = false;
};

/// The learned latency and peak-memory model: op-type and device embeddings (32 each), a
/// projection of the numeric op and device features (32), two hidden layers of 128 and two
/// heads (log latency, log peak memory), trained with Huber loss and Adam on one thread, as an
/// ensemble of bootstrapped members. A device it was never trained on is predicted through the
/// embedding of the nearest known device by fingerprint features (cold start) with its own
/// numeric figures; fineTune adapts it from a few samples.
///
/// The network lives in the LibTorch module (predict/torch_predictor.h, loaded on the first
/// train or fromRecord; see runtime/torch_runtime.h). Errors: InputError for unusable input (no
/// training rows, a damaged stored predictor); LibTorch failures are rethrown as
/// std::runtime_error. Movable, not copyable; one thread at a time.
class PerformancePredictor {
public:
    using EpochCallback = std::function<void(int epoch, double meanLoss)>;

    /// Trains on dataset.rows[i] for i in `rows`. The devices of those rows must be in
    /// dataset.devices (with micro-benchmark figures).
    static PerformancePredictor train(const PredictorDataset& dataset,
                                      std::span<const std::size_t> rows,
                                      const PredictorOptions& options,
                                      const EpochCallback& onEpoch = {});

    /// Rebuilds a stored predictor (InputError when the record is not one this build reads).
    static PerformancePredictor fromRecord(const PredictorRecord& record);

    PerformancePredictor(PerformancePredictor&&) noexcept;
    PerformancePredictor& operator=(PerformancePredictor&&) noexcept;
    ~PerformancePredictor();

    /// Predictions for rows whose devices are in `devices` (figures by fingerprint). Deterministic:
    /// the same predictor (trained or loaded) gives bit-identical results on the same inputs.
    std::vector<LatencyPrediction>
    predict(std::span<const PredictorRow> rows,
            const std::map<std::string, DeviceFigures>& devices) const;

    bool knowsDevice(const std::string& fingerprint) const;
    /// Fingerprint of the known device nearest to `device` by standardised fingerprint features.
    std::string nearestDevice(const DeviceFigures& device) const;

    /// Few-shot adaptation to `device` from measured rows on it: a new device gets its own
    /// embedding, started from the nearest known device's; then the device embeddings of every
    /// member are fine-tuned on the rows (full batch, `steps` Adam steps) and the device's
    /// overall level is set to the median log ratio of measured to predicted latency.
    void fineTune(std::span<const PredictorRow> rows, const DeviceFigures& device, int steps = 100);

    /// The record to store (weights archive, vocabulary, normalisation, devices, options;
    /// `metrics` as given).
    PredictorRecord toRecord(const nlohmann::json& metrics) const;
    const PredictorOptions& options() const;
    std::size_t trainingRows() const;

private:
    explicit PerformancePredictor(std::unique_ptr<PredictorEngine> engine);
    std::unique_ptr<PredictorEngine> m_engine;
};

/// What a trained network does, behind PerformancePredictor (implemented in the LibTorch
/// module). The same contracts as PerformancePredictor's functions of the same names.
class PredictorEngine {
public:
    virtual ~PredictorEngine() = default;
    virtual std::vector<LatencyPrediction>
    predict(std::span<const PredictorRow> rows,
            const std::map<std::string, DeviceFigures>& devices) const = 0;
    virtual bool knowsDevice(const std::string& fingerprint) const = 0;
    virtual std::string nearestDevice(const DeviceFigures& device) const = 0;
    virtual void fineTune(std::span<const PredictorRow> rows, const DeviceFigures& device,
                          int steps) = 0;
    virtual PredictorRecord toRecord(const nlohmann::json& metrics) const = 0;
    virtual const PredictorOptions& options() const = 0;
    virtual std::size_t trainingRows() const = 0;
};

namespace detail {
/// (Defined in the LibTorch module: link paretune_torch to call it.) Self-check of the hand-written
/// training step: the largest difference, relative to the largest magnitude, between its loss and
/// gradients and LibTorch autograd's on a random network and batch (seeded), with the step's matrix
/// products capped at `vectorBits` (see smallGemm). Float rounding only: about 1e-6.
double trainingGradientMismatch(std::uint64_t seed, int vectorBits);
} // namespace detail

} // namespace paretune
