// SPDX-License-Identifier: GPL-3.0-or-later
#include "op_features.h"

#include "common/input_error.h"
#include "store/records.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <vector>

namespace paretune {

namespace {

float logOf(double value) {
    return static_cast<float>(std::log1p(std::max(0.0, value)));
}

const Tensor* tensorAt(const Graph& graph, std::span<const std::int32_t> ids, std::size_t index) {
    if (index >= ids.size() || ids[index] == kNone) {
        return nullptr;
    }
    const Tensor& t = graph.tensors[static_cast<std::size_t>(ids[index])];
    return t.shapeKnown() ? &t : nullptr;
}

double product(std::span<const std::int64_t> dims) {
    return std::accumulate(dims.begin(), dims.end(), 1.0,
                           [](double a, std::int64_t d) { return a * static_cast<double>(d); });
}

double dimAt(const Tensor* t, std::ptrdiff_t index) {
    if (t == nullptr) {
        return 0.0;
    }
    const auto rank = static_cast<std::ptrdiff_t>(t->dims.size());
    const std::ptrdiff_t i = index < 0 ? rank + index : index;
    return i >= 0 && i < rank ? static_cast<double>(t->dims[static_cast<std::size_t>(i)]) : 0.0;
}

/// Whether LibTorch (1.13, CPU, one intra-op thread as on the cpu:N devices) runs this Conv
/// through its native slow_conv2d (im2col + the system BLAS) rather than oneDNN. These are the
/// rules of ATen's ConvParams::use_mkldnn: oneDNN needs a strided or dilated conv, a batch of
/// 16 or more, or a kernel other than 1×1 (more than one thread also qualifies, but not here),
/// and also a grouped conv, a kernel larger than 3×3 in both dimensions, a batch over 1 or an
/// input of more than 20,480 elements. The two paths run at very different speeds: on this
/// machine's BLAS, unstrided 1×1 convolutions at 18–30 GFLOP/s, oneDNN convolutions at 80–150.
bool convTakesNativePath(const Graph& graph, NodeId node) {
    const Node& n = graph.nodes[static_cast<std::size_t>(node)];
    const auto inputs = graph.nodeInputs.row(node);
    const Tensor* input = tensorAt(graph, inputs, 0);
    const Tensor* weight = tensorAt(graph, inputs, 1);
    if ((n.opType != "Conv" && n.opType != "FusedConv") || input == nullptr || weight == nullptr ||
        input->dims.size() != 4 || weight->dims.size() != 4) {
        return false;
    }
    const std::int64_t batch = input->dims[0];
    const std::int64_t kh = weight->dims[2];
    const std::int64_t kw = weight->dims[3];
    bool strided = false;
    for (const std::int64_t s : n.attrInts("strides")) {
        strided = strided || s != 1;
    }
    bool dilated = false;
    for (const std::int64_t d : n.attrInts("dilations")) {
        dilated = dilated || d != 1;
    }
    const bool first = strided || dilated || batch >= 16 || kh != 1 || kw != 1;
    const bool second = n.attrInt("group", 1) > 1 || (kh > 3 && kw > 3) || batch > 1 ||
                        input->elementCount() > 20480;
    return !(first && second);
}

} // namespace

const std::array<std::string_view, kOpFeatureCount>& opFeatureNames() {
    static const std::array<std::string_view, kOpFeatureCount> names = {
        "log_flops",       "log_bytes_read",   "log_bytes_written", "log_param_bytes",
        "log_intensity",   "log_kernel_size",  "log_stride",        "log_groups",
        "log_in_channels", "log_out_channels", "log_spatial",       "log_sequence_length",
        "dtype_bytes",     "output_rank",      "log_out_elements",  "input_count",
        "depthwise",       "log_batch",        "conv_native_path",  "precision_fp32",
        "precision_bf16",  "precision_int8",   "precision_fp16"};
    return names;
}

const std::array<std::string_view, kDeviceFeatureCount>& deviceFeatureNames() {
    static const std::array<std::string_view, kDeviceFeatureCount> names = {
        "log_cores", "log_l1d_bytes", "log_l2_bytes", "log_l3_bytes",    "log_memory_bytes",
        "avx2",      "avx512f",       "fma3",         "log_gemm_gflops", "log_memory_bw_gbs",
        "is_gpu"};
    return names;
}

OpFeatureVector opFeatures(const Graph& graph, NodeId node) {
    const Node& n = graph.nodes[static_cast<std::size_t>(node)];
    const OpMetrics& m = graph.metrics[static_cast<std::size_t>(node)];
    const auto inputs = graph.nodeInputs.row(node);
    const auto outputs = graph.nodeOutputs.row(node);
    const Tensor* in0 = tensorAt(graph, inputs, 0);
    const Tensor* in1 = tensorAt(graph, inputs, 1);
    const Tensor* out0 = tensorAt(graph, outputs, 0);

    const double bytes = static_cast<double>(m.bytesRead + m.bytesWritten);
    double kernel = 0.0;
    double stride = 0.0;
    double groups = 1.0;
    double inChannels = 0.0;
    double outChannels = 0.0;
    double spatial = 0.0;
    double sequence = 0.0;
    double batch = dimAt(out0, 0);
    const std::vector<std::int64_t> kernelShape = n.attrInts("kernel_shape");
    if (!kernelShape.empty()) {
        kernel = product(kernelShape);
    } else if (n.opType == "Conv" || n.opType == "FusedConv" || n.opType == "NhwcConv" ||
               n.opType == "ConvTranspose" || n.opType == "QLinearConv") {
        // kernel_shape is optional for Conv: it is the weight's spatial dimensions (QLinearConv's
        // weight is its input 3, after the activation's scale and zero point)
        const Tensor* weight = n.opType == "QLinearConv" ? tensorAt(graph, inputs, 3) : in1;
        if (weight != nullptr && weight->dims.size() > 2) {
            kernel = product(std::span(weight->dims).subspan(2));
        }
    }
    for (const std::int64_t s : n.attrInts("strides")) {
        stride = std::max(stride, static_cast<double>(s));
    }
    const bool matrix = n.opType == "MatMul" || n.opType == "FusedMatMul" || n.opType == "Gemm" ||
                        n.opType == "FusedGemm" || n.opType == "MatMulInteger" ||
                        n.opType == "QLinearMatMul";
    if (matrix) {
        // [..., M, K] × [..., K, N]: channels are K → N, spatial is M, batch the leading dims.
        inChannels = dimAt(in0, -1);
        outChannels = dimAt(out0, -1);
        spatial = dimAt(out0, -2);
        batch = out0 != nullptr && out0->dims.size() > 2
                    ? product(std::span(out0->dims).first(out0->dims.size() - 2))
                    : 1.0;
    } else if (n.opType == "NhwcConv" && out0 != nullptr && out0->dims.size() == 4 &&
               in0 != nullptr && in0->dims.size() == 4) {
        // NHWC (graph/precision.h): channels last, spatial before them
        inChannels = dimAt(in0, 3);
        outChannels = dimAt(out0, 3);
        spatial = dimAt(out0, 1) * dimAt(out0, 2);
    } else if (out0 != nullptr && out0->dims.size() >= 3 && out0->dims.size() <= 5 &&
               (in0 != nullptr && in0->dims.size() == out0->dims.size()) &&
               (kernel > 0.0 || out0->dims.size() == 4)) {
        // NCHW-like: channels on axis 1, spatial after it
        inChannels = dimAt(in0, 1);
        outChannels = dimAt(out0, 1);
        spatial = product(std::span(out0->dims).subspan(2));
    } else if (out0 != nullptr && out0->dims.size() == 3) {
        // [batch, sequence, hidden]
        sequence = dimAt(out0, 1);
        inChannels = dimAt(in0, -1);
        outChannels = dimAt(out0, -1);
    } else if (out0 != nullptr && !out0->dims.empty()) {
        outChannels = dimAt(out0, -1);
        inChannels = dimAt(in0, -1);
    }
    if (n.opType == "Conv" || n.opType == "FusedConv" || n.opType == "NhwcConv" ||
        n.opType == "ConvTranspose" || n.opType == "QLinearConv") {
        groups = static_cast<double>(n.attrInt("group", 1));
    }
    const bool depthwise = groups > 1.0 && groups == inChannels;

    OpFeatureVector f{};
    f[0] = logOf(m.flops);
    f[1] = logOf(static_cast<double>(m.bytesRead));
    f[2] = logOf(static_cast<double>(m.bytesWritten));
    f[3] = logOf(static_cast<double>(m.paramBytes));
    f[4] = logOf(bytes > 0.0 ? m.flops / bytes : 0.0);
    f[5] = logOf(kernel);
    f[6] = logOf(stride);
    f[7] = logOf(groups);
    f[8] = logOf(inChannels);
    f[9] = logOf(outChannels);
    f[10] = logOf(spatial);
    f[11] = logOf(sequence);
    f[12] = out0 != nullptr ? static_cast<float>(dtypeSize(out0->dtype)) : 0.0f;
    f[13] = out0 != nullptr ? static_cast<float>(out0->dims.size()) : 0.0f;
    f[14] = logOf(out0 != nullptr ? static_cast<double>(out0->elementCount()) : 0.0);
    f[15] = static_cast<float>(inputs.size());
    f[16] = depthwise ? 1.0f : 0.0f;
    f[17] = logOf(batch);
    f[18] = convTakesNativePath(graph, node) ? 1.0f : 0.0f;
    f[kPrecisionFeature + static_cast<std::size_t>(nodePrecision(graph, node))] = 1.0f;
    return f;
}

Precision precisionOfFeatures(const OpFeatureVector& features) {
    for (const Precision p : {Precision::Bf16, Precision::Int8, Precision::Fp16}) {
        if (features[kPrecisionFeature + static_cast<std::size_t>(p)] > 0.5f) {
            return p;
        }
    }
    return Precision::Fp32;
}

std::string_view opFamily(std::string_view opType) {
    static const std::map<std::string_view, std::string_view, std::less<>> families = [] {
        std::map<std::string_view, std::string_view, std::less<>> table;
        const std::pair<std::string_view, std::vector<std::string_view>> groups[] = {
            {"conv",
             {"Conv", "FusedConv", "NhwcConv", "ConvTranspose", "ConvInteger", "QLinearConv"}},
            {"matmul",
             {"MatMul", "FusedMatMul", "Gemm", "FusedGemm", "MatMulInteger", "QLinearMatMul",
              "Einsum"}},
            {"pool",
             {"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "LpPool",
              "MaxRoiPool"}},
            {"norm",
             {"BatchNormalization", "LayerNormalization", "InstanceNormalization",
              "GroupNormalization", "LpNormalization", "MeanVarianceNormalization"}},
            {"reduce",
             {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
              "ReduceL2", "ReduceLogSumExp", "ReduceSumSquare", "Softmax", "LogSoftmax", "ArgMax",
              "ArgMin", "TopK", "CumSum"}},
            {"movement",
             {"Transpose",      "Concat",   "Split",     "Slice",           "Gather",
              "GatherElements", "GatherND", "ScatterND", "ScatterElements", "Pad",
              "Expand",         "Tile",     "Resize",    "Upsample",        "DepthToSpace",
              "SpaceToDepth",   "Cast",     "Range",     "ConstantOfShape", "OneHot",
              "NonZero",        "Trilu",    "Compress"}},
            {"elementwise", {"Add",       "Sub",         "Mul",
                             "Div",       "Pow",         "Mod",
                             "Max",       "Min",         "Sum",
                             "Mean",      "Neg",         "Abs",
                             "Relu",      "LeakyRelu",   "PRelu",
                             "Clip",      "Sqrt",        "Reciprocal",
                             "Exp",       "Log",         "Erf",
                             "Tanh",      "Sigmoid",     "HardSigmoid",
                             "HardSwish", "Gelu",        "Elu",
                             "Selu",      "Softplus",    "Mish",
                             "Floor",     "Ceil",        "Round",
                             "Sign",      "Equal",       "Less",
                             "Greater",   "LessOrEqual", "GreaterOrEqual",
                             "Not",       "And",         "Or",
                             "Xor",       "Where",       "Sin",
                             "Cos",       "IsNaN",       "IsInf",
                             "Dropout",   "Identity"}}};
        for (const auto& [family, ops] : groups) {
            for (const std::string_view op : ops) {
                table.emplace(op, family);
            }
        }
        return table;
    }();
    const auto it = families.find(opType);
    return it != families.end() ? it->second : std::string_view("other");
}

DeviceFigures deviceFiguresOf(const DeviceRecord& record) {
    DeviceFigures d;
    d.fingerprint = record.fingerprint;
    d.kind = record.kind;
    d.name = record.name;
    nlohmann::json spec;
    try {
        spec = nlohmann::json::parse(record.specJson.empty() ? std::string("{}") : record.specJson);
    } catch (const nlohmann::json::exception& e) {
        throw InputError("device " + record.fingerprint.substr(0, 12) +
                         ": spec_json is not JSON (" + e.what() + ")");
    }
    const nlohmann::json hardware = spec.value("hardware", nlohmann::json::object());
    auto number = [](const nlohmann::json& object, const char* key) {
        const auto it = object.find(key);
        return it != object.end() && it->is_number() ? it->get<double>() : 0.0;
    };
    auto flag = [](const nlohmann::json& object, const char* key) {
        const auto it = object.find(key);
        return it != object.end() && it->is_boolean() && it->get<bool>();
    };
    d.cores = std::max(number(hardware, "cores"), number(hardware, "multiprocessors"));
    d.l1dBytes = number(hardware, "l1d_bytes");
    d.l2Bytes = number(hardware, "l2_bytes");
    d.l3Bytes = number(hardware, "l3_bytes");
    d.memoryBytes = number(hardware, "memory_bytes");
    d.avx2 = flag(hardware, "avx2");
    d.avx512f = flag(hardware, "avx512f");
    d.fma3 = flag(hardware, "fma3");
    const nlohmann::json bench = spec.value("micro_benchmark", nlohmann::json::object());
    d.gemmGflops = number(bench, "gemm_gflops");
    d.memoryBwGbs = number(bench, "memory_bw_gbs");
    if (d.gemmGflops <= 0.0) { // a modelled device: its catalog figures
        d.gemmGflops = number(hardware, "peak_gflops");
        d.memoryBwGbs = number(hardware, "mem_bw_gbs");
    }
    return d;
}

DeviceFeatureVector deviceFeatures(const DeviceFigures& d) {
    DeviceFeatureVector f{};
    f[0] = logOf(d.cores);
    f[1] = logOf(d.l1dBytes);
    f[2] = logOf(d.l2Bytes);
    f[3] = logOf(d.l3Bytes);
    f[4] = logOf(d.memoryBytes);
    f[5] = d.avx2 ? 1.0f : 0.0f;
    f[6] = d.avx512f ? 1.0f : 0.0f;
    f[7] = d.fma3 ? 1.0f : 0.0f;
    f[8] = logOf(d.gemmGflops);
    f[9] = logOf(d.memoryBwGbs);
    f[10] = d.kind == "gpu" ? 1.0f : 0.0f;
    return f;
}

} // namespace paretune
