// SPDX-License-Identifier: GPL-3.0-or-later
// The predictor's state apart from its weights: vocabulary and device look-ups, the ratio
// target's calibration and reference, and rows as standardised tensors.
#include "predictor_state.h"

#include "accuracy_metrics.h"
#include "common/input_error.h"
#include "profile/measurement.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace paretune::detail {
namespace {

/// A roofline below this is treated as this (µs): a ratio to ~0 would be meaningless.
constexpr double kMinReferenceUs = 1e-3;

/// Index of a numeric op feature by name (the order is fixed, see opFeatureNames).
std::size_t opFeature(std::string_view name) {
    const auto& names = opFeatureNames();
    return static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
}

/// The kind of operator the ratio target's reference is calibrated per: the op type, and for a
/// convolution the kernel LibTorch runs it with (oneDNN, its native im2col + BLAS path,
/// depthwise, grouped), which differ several times in speed per FLOP.
std::string calibrationKey(const PredictorRow& row) {
    if (row.opType != "Conv") {
        return row.opType;
    }
    static const std::size_t native = opFeature("conv_native_path");
    static const std::size_t depthwise = opFeature("depthwise");
    static const std::size_t groups = opFeature("log_groups");
    if (row.features[depthwise] > 0.5f) {
        return "Conv/depthwise";
    }
    if (std::expm1(row.features[groups]) > 1.5f) { // log1p(groups): more than one group
        return "Conv/grouped";
    }
    return row.features[native] > 0.5f ? "Conv/native" : "Conv/onednn";
}

} // namespace

std::int64_t PredictorState::knownOp(const std::string& opType) const {
    const auto it = std::find(opVocabulary.begin(), opVocabulary.end(), opType);
    return it == opVocabulary.end() ? 0 : it - opVocabulary.begin();
}

std::int64_t PredictorState::opIndex(const std::string& opType) const {
    const std::int64_t known = knownOp(opType);
    if (known > 0) {
        return known;
    }
    const std::string_view family = opFamily(opType);
    std::int64_t best = 0;
    for (std::size_t i = 1; i < opVocabulary.size(); ++i) {
        if (opFamily(opVocabulary[i]) == family &&
            (best == 0 || opCounts[i] > opCounts[static_cast<std::size_t>(best)])) {
            best = static_cast<std::int64_t>(i);
        }
    }
    return best;
}

std::int64_t PredictorState::deviceIndex(const std::string& fingerprint) const {
    for (std::size_t i = 0; i < devices.size(); ++i) {
        if (devices[i].fingerprint == fingerprint) {
            return static_cast<std::int64_t>(i);
        }
    }
    return -1;
}

std::int64_t PredictorState::nearest(const DeviceFigures& device) const {
    const DeviceFeatureVector f = deviceFeatures(device);
    double best = std::numeric_limits<double>::infinity();
    std::int64_t bestIndex = 0;
    for (std::size_t i = 0; i < devices.size(); ++i) {
        const DeviceFeatureVector g = deviceFeatures(devices[i]);
        double distance = 0.0;
        for (std::size_t k = 0; k < kDeviceFeatureCount; ++k) {
            const double scale = stddev[kOpFeatureCount + k];
            const double d = (f[k] - g[k]) / scale;
            distance += d * d;
        }
        if (distance < best) {
            best = distance;
            bestIndex = static_cast<std::int64_t>(i);
        }
    }
    return bestIndex;
}

double PredictorState::roofline(const PredictorRow& row, const DeviceFigures& device) {
    return std::max(kMinReferenceUs, rooflineBaselineUs(device, row.opType, row.flops, row.bytes));
}

void PredictorState::calibrate(std::span<const PredictorRow> trainingRows,
                               const std::map<std::string, DeviceFigures>& figures) {
    // From the fp32 rows, and from the variants' rows only for keys no fp32 row has (QLinearConv,
    // the conversions' Casts): a bf16 Conv's reference is the fp32 Conv's, so that what the
    // precision changes is learned by the network from the precision features, and carries to
    // a device on which the variant was never measured.
    std::map<std::string, std::vector<double>> ratios;
    std::map<std::string, std::vector<double>> variantRatios;
    for (const PredictorRow& row : trainingRows) {
        const double r = std::log(row.latencyUs / roofline(row, figures.at(row.deviceFingerprint)));
        const std::string& fp = row.deviceFingerprint;
        auto& into = precisionOfFeatures(row.features) == Precision::Fp32 ? ratios : variantRatios;
        into[fp + "/" + calibrationKey(row)].push_back(r);
        into[fp + "/family:" + std::string(opFamily(row.opType))].push_back(r);
        into[fp + "/*"].push_back(r);
    }
    for (auto& [key, values] : variantRatios) {
        ratios.try_emplace(key, std::move(values));
    }
    calibration.clear();
    for (auto& [key, values] : ratios) {
        calibration[key] = medianOf(std::move(values));
    }
}

double PredictorState::reference(const PredictorRow& row, const DeviceFigures& device) const {
    if (!options.rooflineRatio) {
        return 1.0;
    }
    const double base = roofline(row, device);
    if (calibration.empty()) {
        return base;
    }
    const std::string fp = deviceIndex(device.fingerprint) >= 0
                               ? device.fingerprint
                               : devices[static_cast<std::size_t>(nearest(device))].fingerprint;
    // An op type never trained on is predicted like its family's most frequent trained one
    // (opIndex): its reference too.
    PredictorRow like = row;
    if (const std::int64_t stand = opIndex(row.opType); knownOp(row.opType) == 0 && stand > 0) {
        like.opType = opVocabulary[static_cast<std::size_t>(stand)];
    }
    for (const std::string& key :
         {fp + "/" + calibrationKey(like), fp + "/family:" + std::string(opFamily(row.opType)),
          fp + "/*"}) {
        if (const auto found = calibration.find(key); found != calibration.end()) {
            return base * std::exp(found->second);
        }
    }
    return base;
}

std::array<float, kNumericCount> PredictorState::raw(const PredictorRow& row,
                                                     const DeviceFigures& device) const {
    std::array<float, kNumericCount> x{};
    std::copy(row.features.begin(), row.features.end(), x.begin());
    const DeviceFeatureVector d = deviceFeatures(device);
    std::copy(d.begin(), d.end(), x.begin() + kOpFeatureCount);
    return x;
}

Batch PredictorState::batchOf(std::span<const PredictorRow> rowSpan,
                              const std::map<std::string, DeviceFigures>& figures,
                              std::vector<bool>* outOfRange,
                              std::vector<double>* references) const {
    const auto n = static_cast<std::int64_t>(rowSpan.size());
    Batch b;
    b.op = torch::empty({n}, torch::kLong);
    b.device = torch::empty({n}, torch::kLong);
    b.numeric = torch::empty({n, static_cast<std::int64_t>(kNumericCount)});
    b.target = torch::zeros({n, 2});
    b.mask = torch::zeros({n, 2});
    auto op = b.op.accessor<std::int64_t, 1>();
    auto dev = b.device.accessor<std::int64_t, 1>();
    auto num = b.numeric.accessor<float, 2>();
    auto target = b.target.accessor<float, 2>();
    auto mask = b.mask.accessor<float, 2>();
    for (std::int64_t i = 0; i < n; ++i) {
        const PredictorRow& row = rowSpan[static_cast<std::size_t>(i)];
        const auto found = figures.find(row.deviceFingerprint);
        if (found == figures.end()) {
            throw InputError("predictor: no figures for device " +
                             row.deviceFingerprint.substr(0, 12));
        }
        const DeviceFigures& device = found->second;
        op[i] = opIndex(row.opType);
        const std::int64_t known = deviceIndex(device.fingerprint);
        dev[i] = known >= 0 ? known : nearest(device);
        bool outside = knownOp(row.opType) == 0;
        const auto x = raw(row, device);
        for (std::size_t k = 0; k < kNumericCount; ++k) {
            // Beyond the trained range the network is fed the range's edge: flagged and less
            // certain, but never a wild extrapolation (a 2-core device after 1-core ones).
            const float margin = 0.05f * (high[k] - low[k]);
            const float lowest = low[k] - margin;
            const float highest = high[k] + margin;
            outside = outside || x[k] < lowest || x[k] > highest;
            num[i][static_cast<std::int64_t>(k)] =
                (std::clamp(x[k], lowest, highest) - mean[k]) / stddev[k];
        }
        const double ref = reference(row, device);
        if (row.latencyUs > 0.0) {
            target[i][0] =
                (static_cast<float>(std::log(row.latencyUs / ref)) - targetMean[0]) / targetStd[0];
            mask[i][0] = 1.0f;
        }
        if (row.peakMemoryMb) {
            target[i][1] =
                (static_cast<float>(std::log1p(std::max(0.0, *row.peakMemoryMb))) - targetMean[1]) /
                targetStd[1];
            mask[i][1] = 1.0f;
        }
        if (outOfRange != nullptr) {
            outOfRange->push_back(outside);
        }
        if (references != nullptr) {
            references->push_back(ref);
        }
    }
    return b;
}

} // namespace paretune::detail
