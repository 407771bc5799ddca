// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Inside the LibTorch module only: what a trained predictor holds (op vocabulary, devices,
// normalisation statistics, the ratio target's calibration, the ensemble's networks) and how
// rows become the network's input tensors.
#include "performance_predictor.h"
#include "predictor_network.h"

#include <array>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace paretune::detail {

/// Rows as contiguous tensors.
struct Batch {
    torch::Tensor op;      // [n] int64
    torch::Tensor device;  // [n] int64
    torch::Tensor numeric; // [n, kNumericCount] float, standardised
    torch::Tensor target;  // [n, 2] float, standardised
    torch::Tensor mask;    // [n, 2] float: 1 where the target is known
};

/// A trained predictor: TorchPredictor owns one, the stored record holds all of it.
struct PredictorState {
    PredictorOptions options;
    std::vector<std::string> opVocabulary; ///< index 0: op types never trained on
    std::vector<DeviceFigures> devices;    ///< embedding row i
    /// per device: log-latency correction fitted by fineTune (0 for trained devices)
    std::vector<double> deviceOffsets;
    std::vector<float> mean, stddev, low, high; ///< per numeric feature, raw units
    float targetMean[2] = {0.0f, 0.0f};
    float targetStd[2] = {1.0f, 1.0f};
    std::size_t rows = 0;
    std::vector<Net> members;

    std::vector<std::int64_t> opCounts; ///< training rows per vocabulary entry
    /// The per-op-type reference of the ratio target: per trained device, the median log ratio
    /// of measured latency to roofline of the training rows of each operator kind (see
    /// calibrationKey), of each op family and of all rows ("<fingerprint>/<key>",
    /// "<fingerprint>/family:<family>", "<fingerprint>/*"), from the fp32 rows (the variants'
    /// rows for keys without any). Empty for predictors stored before it existed: their
    /// reference is the plain roofline.
    std::map<std::string, double> calibration;

    /// The op type's vocabulary index, 0 when it was never trained on.
    std::int64_t knownOp(const std::string& opType) const;
    /// knownOp, or for an op type never trained on the most frequent one of its family.
    std::int64_t opIndex(const std::string& opType) const;
    std::int64_t deviceIndex(const std::string& fingerprint) const;
    std::int64_t nearest(const DeviceFigures& device) const;
    static double roofline(const PredictorRow& row, const DeviceFigures& device);
    /// Median log(latency / roofline) of the rows per calibration key of their device.
    void calibrate(std::span<const PredictorRow> trainingRows,
                   const std::map<std::string, DeviceFigures>& figures);
    /// What the ratio target divides by: the roofline scaled by the calibration of the row's
    /// operator kind on the device (a device never trained on uses its nearest known device's);
    /// 1 for the absolute target.
    double reference(const PredictorRow& row, const DeviceFigures& device) const;
    std::array<float, kNumericCount> raw(const PredictorRow& row,
                                         const DeviceFigures& device) const;

    /// Tensors for rows; `outOfRange` (optional) gets one flag per row.
    Batch batchOf(std::span<const PredictorRow> rowSpan,
                  const std::map<std::string, DeviceFigures>& figures,
                  std::vector<bool>* outOfRange, std::vector<double>* references) const;
};

} // namespace paretune::detail
