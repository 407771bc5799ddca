// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graph/graph.h"
#include "graph/precision.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace paretune {

struct DeviceRecord;

/// Numeric features of one operator node, all finite; sizes enter as log1p so that a ResNet
/// convolution and a tiny element-wise op sit on comparable scales. The order is fixed (the
/// stored normalisation statistics refer to it, and a stored predictor whose names differ is
/// refused); see opFeatureNames(). The last four are the node's precision, one-hot
/// (precision_fp32, precision_bf16, precision_int8, precision_fp16; nodePrecision, in the order
/// of Precision's values): the variant a sample was measured in, so that one network predicts a
/// node in each precision.
constexpr std::size_t kOpFeatureCount = 23;
using OpFeatureVector = std::array<float, kOpFeatureCount>;

/// Numeric fingerprint of a device: what lets the predictor place a device it was never
/// trained on between the ones it knows. Order fixed; see deviceFeatureNames().
constexpr std::size_t kDeviceFeatureCount = 11;
using DeviceFeatureVector = std::array<float, kDeviceFeatureCount>;

const std::array<std::string_view, kOpFeatureCount>& opFeatureNames();
const std::array<std::string_view, kDeviceFeatureCount>& deviceFeatureNames();

/// Features of a node from its static shapes, attributes and OpMetrics (graph.metrics). Nodes
/// with unknown shapes get zeros where a size is unknown. Pure.
OpFeatureVector opFeatures(const Graph& graph, NodeId node);

/// Index of the first precision feature (precision_fp32); Fp32, Bf16, Int8, Fp16 follow in order.
constexpr std::size_t kPrecisionCount = 4;
constexpr std::size_t kPrecisionFeature = kOpFeatureCount - kPrecisionCount;
/// The precision a feature vector's one-hot says (Fp32 when none is set).
Precision precisionOfFeatures(const OpFeatureVector& features);

/// The family of an op type ("conv", "matmul", "pool", "norm", "reduce", "elementwise",
/// "movement", "other"): a predictor that never saw an op type predicts it like the most
/// frequent trained op type of its family (Clip like Relu).
std::string_view opFamily(std::string_view opType);

/// What the predictor knows about a device: the hardware figures of its identity (the
/// devices table's spec_json) and its micro-benchmark figures (0 when never measured).
struct DeviceFigures {
    std::string fingerprint;
    std::string kind; ///< "cpu", "gpu", …
    std::string name;
    double cores = 0.0; ///< physical cores (CPU) or multiprocessors (GPU)
    double l1dBytes = 0.0;
    double l2Bytes = 0.0;
    double l3Bytes = 0.0;
    double memoryBytes = 0.0;
    bool avx2 = false;
    bool avx512f = false;
    bool fma3 = false;
    double gemmGflops = 0.0;  ///< micro-benchmark: fp32 GEMM
    double memoryBwGbs = 0.0; ///< micro-benchmark: triad bandwidth

    bool hasMicroBenchmark() const { return gemmGflops > 0.0 && memoryBwGbs > 0.0; }
};

/// Reads the figures from a stored device (spec_json is a device identity, see
/// deviceIdentity; an optional "micro_benchmark" object holds {"gemm_gflops",
/// "memory_bw_gbs"}). Throws InputError naming the device when spec_json is not JSON.
DeviceFigures deviceFiguresOf(const DeviceRecord& record);

DeviceFeatureVector deviceFeatures(const DeviceFigures& figures);

} // namespace paretune
