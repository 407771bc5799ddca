// The learned predictor's network on LibTorch (inside the LibTorch module): training,
// prediction, few-shot adaptation and the stored record.
#include "performance_predictor.h"

#include "runtime/torch_impl.h"

#include "accuracy_metrics.h"
#include "common/input_error.h"
#include "profile/cpu_affinity.h"
#include "profile/measurement.h"
#include "store/records.h"
#include "training_kernels.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <sstream>

namespace paretune {

namespace {

constexpr std::size_t kNumericCount = kOpFeatureCount + kDeviceFeatureCount;
constexpr std::int64_t kEmbedding = 32;
constexpr std::int64_t kHidden = 128;
constexpr const char* kSchema = "paretune.predictor/1";
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

/// Op and device embeddings, numeric projection, two hidden layers, two heads.
struct NetImpl : torch::nn::Module {
    NetImpl(std::int64_t opCount, std::int64_t deviceCount) {
        opTable = register_parameter("op_embedding", torch::randn({opCount, kEmbedding}));
        deviceTable =
            register_parameter("device_embedding", torch::randn({deviceCount, kEmbedding}));
        projection = register_module(
            "projection", torch::nn::Linear(static_cast<std::int64_t>(kNumericCount), kEmbedding));
        hidden1 = register_module("hidden1", torch::nn::Linear(3 * kEmbedding, kHidden));
        hidden2 = register_module("hidden2", torch::nn::Linear(kHidden, kHidden));
        head = register_module("head", torch::nn::Linear(kHidden, 2));
    }

    torch::Tensor forward(const torch::Tensor& op, const torch::Tensor& device,
                          const torch::Tensor& numeric) {
        torch::Tensor h =
            torch::cat({opTable.index_select(0, op), deviceTable.index_select(0, device),
                        torch::relu(projection->forward(numeric))},
                       1);
        h = torch::relu(hidden1->forward(h));
        h = torch::relu(hidden2->forward(h));
        return head->forward(h);
    }

    torch::Tensor opTable;
    torch::Tensor deviceTable;
    torch::nn::Linear projection{nullptr};
    torch::nn::Linear hidden1{nullptr};
    torch::nn::Linear hidden2{nullptr};
    torch::nn::Linear head{nullptr};
};
TORCH_MODULE(Net);

/// Adam over every parameter of a network at once: the parameters and their gradients are views
/// into two flat buffers, so that a step is one fused loop over them (adamStep) rather than a
/// handful of tensor operations per parameter tensor (what makes small-network training
/// overhead-bound). The update is torch::optim::Adam's (bias-corrected, no weight decay).
class FlatAdam {
public:
    FlatAdam(torch::nn::Module& module, double learningRate)
        : m_parameters(module.parameters()), m_learningRate(learningRate) {
        std::int64_t total = 0;
        for (const torch::Tensor& p : m_parameters) {
            total += p.numel();
        }
        m_values = torch::empty({total});
        m_gradients = torch::zeros({total});
        m_first = torch::zeros({total});
        m_second = torch::zeros({total});
        const torch::NoGradGuard noGrad;
        std::int64_t offset = 0;
        for (torch::Tensor& p : m_parameters) {
            const std::int64_t n = p.numel();
            torch::Tensor value = m_values.narrow(0, offset, n).view(p.sizes());
            value.copy_(p);
            p.set_data(value);
            // NetStep writes each gradient in place, i.e. into the buffer.
            p.mutable_grad() = m_gradients.narrow(0, offset, n).view(p.sizes());
            offset += n;
        }
    }
    FlatAdam(const FlatAdam&) = delete;
    FlatAdam& operator=(const FlatAdam&) = delete;

    void step() {
        adamStep(m_values.data_ptr<float>(), m_gradients.data_ptr<float>(),
                 m_first.data_ptr<float>(), m_second.data_ptr<float>(), m_values.numel(),
                 m_learningRate, kBeta1, kBeta2, kEps, ++m_step);
    }

    /// Gives every parameter its own storage again (for saving) and drops the gradients.
    void release() {
        const torch::NoGradGuard noGrad;
        for (torch::Tensor& p : m_parameters) {
            p.set_data(p.detach().clone());
            p.mutable_grad().reset();
        }
    }

private:
    static constexpr double kBeta1 = 0.9;
    static constexpr double kBeta2 = 0.999;
    static constexpr double kEps = 1e-8;
    std::vector<torch::Tensor> m_parameters;
    double m_learningRate;
    torch::Tensor m_values, m_gradients, m_first, m_second;
    int m_step = 0;
};

/// out = bias + a·b (bias optional) through smallGemm where the layouts allow it (b and out
/// row-major), else LibTorch's addmm / mm.
void product(torch::Tensor& out, const torch::Tensor& a, const torch::Tensor& b,
             const torch::Tensor* bias, int vectorBits) {
    if (b.stride(1) == 1 && out.stride(1) == 1 && (bias == nullptr || bias->is_contiguous()) &&
        smallGemm(static_cast<int>(a.size(0)), static_cast<int>(b.size(1)),
                  static_cast<int>(a.size(1)), a.data_ptr<float>(), a.stride(0), a.stride(1),
                  b.data_ptr<float>(), b.stride(0),
                  bias != nullptr ? bias->data_ptr<float>() : nullptr, out.data_ptr<float>(),
                  out.stride(0), vectorBits)) {
        return;
    }
    if (bias != nullptr) {
        at::addmm_out(out, *bias, a, b);
    } else {
        at::mm_out(out, a, b);
    }
}

/// One training step's forward and backward pass of a Net written out by hand: the same
/// function and the same gradients as autograd, into buffers allocated once, without building a
/// graph per batch.
/// - The first hidden layer is applied to the concatenation [op embedding, device embedding,
///   projection] in three parts: the embedding parts are multiplied once per table row (a few
///   dozen op types, a few devices) and then gathered per batch row, so the batch-sized products
///   of that layer shrink from 96 to 32 inputs; the gradients follow the same split (rows
///   summed per table entry first).
/// - The matrix products go through smallGemm (AVX-512 / AVX2 loops; the transposed weights
///   they need are copied once per step), LibTorch's BLAS where the shape does not suit it.
/// Autograd's graph, its allocations and dispatch, the system BLAS's generic kernels on CPUs it
/// does not recognise and two thirds of the first layer's products were most of the time of
/// training this small network.
class NetStep {
public:
    /// `vectorBits`: smallGemm's cap (tests check every path; 512 = the best the CPU has).
    NetStep(Net& net, std::int64_t batchSize, int vectorBits = 512)
        : m_net(net), m_batchSize(batchSize), m_vectorBits(vectorBits) {
        const auto buffer = [batchSize](std::int64_t width) {
            return torch::empty({batchSize, width});
        };
        m_projected = buffer(kEmbedding);
        m_hidden1 = buffer(kHidden);
        m_hidden2 = buffer(kHidden);
        m_out = buffer(2);
        m_dOut = buffer(2);
        m_dHidden2 = buffer(kHidden);
        m_dHidden1 = buffer(kHidden);
        m_dProjected = buffer(kEmbedding);
        m_opTerm = torch::empty({net->opTable.size(0), kHidden});
        m_deviceTerm = torch::empty({net->deviceTable.size(0), kHidden});
        m_opSum = torch::empty({net->opTable.size(0), kHidden});
        m_deviceSum = torch::empty({net->deviceTable.size(0), kHidden});
        m_projectionT = torch::empty({static_cast<std::int64_t>(kNumericCount), kEmbedding});
        m_w1OpT = torch::empty({kEmbedding, kHidden});
        m_w1DeviceT = torch::empty({kEmbedding, kHidden});
        m_w1ProjectedT = torch::empty({kEmbedding, kHidden});
        m_w2T = torch::empty({kHidden, kHidden});
    }

    /// Writes d loss / d parameter into every parameter's gradient (which must be defined, e.g.
    /// FlatAdam's views) and returns the loss: the masked Huber loss (delta 1) summed over the
    /// known targets and divided by their count (at least 1). Rows are [n] / [n, k] contiguous.
    double lossAndGradients(const torch::Tensor& op, const torch::Tensor& device,
                            const torch::Tensor& numeric, const torch::Tensor& target,
                            const torch::Tensor& mask) {
        const torch::NoGradGuard noGrad;
        const std::int64_t n = op.size(0);
        const auto rows = [this, n](const torch::Tensor& t) {
            return n == m_batchSize ? t : t.narrow(0, 0, n);
        };
        const auto mm = [this](torch::Tensor& out, const torch::Tensor& a, const torch::Tensor& b,
                               const torch::Tensor* bias = nullptr) {
            product(out, a, b, bias, m_vectorBits);
        };
        torch::Tensor projected = rows(m_projected);
        torch::Tensor hidden1 = rows(m_hidden1), hidden2 = rows(m_hidden2);
        torch::Tensor out = rows(m_out), dOut = rows(m_dOut);
        torch::Tensor dHidden2 = rows(m_dHidden2), dHidden1 = rows(m_dHidden1);
        torch::Tensor dProjected = rows(m_dProjected);
        NetImpl& net = *m_net;
        // The first hidden layer's weight by input part: op embedding, device embedding,
        // projection (and its gradient likewise).
        const torch::Tensor& w1 = net.hidden1->weight;
        const torch::Tensor w1Op = w1.narrow(1, 0, kEmbedding);
        const torch::Tensor w1Device = w1.narrow(1, kEmbedding, kEmbedding);
        const torch::Tensor w1Projected = w1.narrow(1, 2 * kEmbedding, kEmbedding);
        torch::Tensor& g1 = net.hidden1->weight.mutable_grad();
        torch::Tensor g1Op = g1.narrow(1, 0, kEmbedding);
        torch::Tensor g1Device = g1.narrow(1, kEmbedding, kEmbedding);
        torch::Tensor g1Projected = g1.narrow(1, 2 * kEmbedding, kEmbedding);
        const auto transpose = [](torch::Tensor& dst, const torch::Tensor& src) {
            transposeInto(dst.data_ptr<float>(), src.data_ptr<float>(),
                          static_cast<int>(src.size(0)), static_cast<int>(src.size(1)),
                          src.stride(0));
        };
        transpose(m_projectionT, net.projection->weight);
        transpose(m_w1OpT, w1Op);
        transpose(m_w1DeviceT, w1Device);
        transpose(m_w1ProjectedT, w1Projected);
        transpose(m_w2T, net.hidden2->weight);

        // Forward, as NetImpl::forward.
        mm(projected, numeric, m_projectionT, &net.projection->bias);
        projected.relu_();
        mm(m_opTerm, net.opTable, m_w1OpT);
        mm(m_deviceTerm, net.deviceTable, m_w1DeviceT);
        mm(hidden1, projected, m_w1ProjectedT, &net.hidden1->bias);
        addGatheredRowsRelu(hidden1.data_ptr<float>(), m_opTerm.data_ptr<float>(),
                            op.data_ptr<std::int64_t>(), m_deviceTerm.data_ptr<float>(),
                            device.data_ptr<std::int64_t>(), static_cast<int>(n),
                            static_cast<int>(kHidden));
        mm(hidden2, hidden1, m_w2T, &net.hidden2->bias);
        hidden2.relu_();
        at::addmm_out(out, net.head->bias, hidden2, net.head->weight.t());

        // Masked Huber loss and its gradient, element by element (2n values).
        const float* o = out.data_ptr<float>();
        const float* t = target.data_ptr<float>();
        const float* w = mask.data_ptr<float>();
        float* g = dOut.data_ptr<float>();
        double loss = 0.0;
        double weight = 0.0;
        for (std::int64_t i = 0; i < 2 * n; ++i) {
            const float r = o[i] - t[i];
            const float a = std::abs(r);
            loss += w[i] * (a < 1.0f ? 0.5f * r * r : a - 0.5f);
            weight += w[i];
            g[i] = w[i] * std::clamp(r, -1.0f, 1.0f);
        }
        const double scale = 1.0 / std::max(weight, 1.0);
        dOut.mul_(scale);

        // Backward.
        mm(net.head->weight.mutable_grad(), dOut.t(), hidden2);
        at::sum_out(net.head->bias.mutable_grad(), dOut, {0});
        mm(dHidden2, dOut, net.head->weight);
        at::threshold_backward_out(dHidden2, dHidden2, hidden2, 0);
        mm(net.hidden2->weight.mutable_grad(), dHidden2.t(), hidden1);
        at::sum_out(net.hidden2->bias.mutable_grad(), dHidden2, {0});
        mm(dHidden1, dHidden2, net.hidden2->weight);
        at::threshold_backward_out(dHidden1, dHidden1, hidden1, 0);
        at::sum_out(net.hidden1->bias.mutable_grad(), dHidden1, {0});
        sumRowsByIndex(m_opSum.data_ptr<float>(), static_cast<int>(m_opSum.size(0)),
                       dHidden1.data_ptr<float>(), op.data_ptr<std::int64_t>(), static_cast<int>(n),
                       static_cast<int>(kHidden));
        sumRowsByIndex(m_deviceSum.data_ptr<float>(), static_cast<int>(m_deviceSum.size(0)),
                       dHidden1.data_ptr<float>(), device.data_ptr<std::int64_t>(),
                       static_cast<int>(n), static_cast<int>(kHidden));
        mm(g1Op, m_opSum.t(), net.opTable);
        mm(g1Device, m_deviceSum.t(), net.deviceTable);
        mm(g1Projected, dHidden1.t(), projected);
        mm(net.opTable.mutable_grad(), m_opSum, w1Op);
        mm(net.deviceTable.mutable_grad(), m_deviceSum, w1Device);
        mm(dProjected, dHidden1, w1Projected);
        at::threshold_backward_out(dProjected, dProjected, projected, 0);
        mm(net.projection->weight.mutable_grad(), dProjected.t(), numeric);
        at::sum_out(net.projection->bias.mutable_grad(), dProjected, {0});
        return loss * scale;
    }

private:
    Net& m_net;
    std::int64_t m_batchSize;
    int m_vectorBits;
    torch::Tensor m_projected, m_hidden1, m_hidden2, m_out;
    torch::Tensor m_dOut, m_dHidden2, m_dHidden1, m_dProjected;
    torch::Tensor m_opTerm, m_deviceTerm, m_opSum, m_deviceSum; ///< per table row
    torch::Tensor m_projectionT, m_w1OpT, m_w1DeviceT, m_w1ProjectedT,
        m_w2T; ///< weights, transposed
};

/// One thread for the predictor's own work, restored afterwards: ATen's intra-op threads and
/// OpenBLAS's own pool (Debian's LibTorch calls the system BLAS; see ScopedBlasThreads).
class OneThread {
public:
    OneThread() : m_previous(torch::get_num_threads()) { torch::set_num_threads(1); }
    ~OneThread() { torch::set_num_threads(m_previous); }
    OneThread(const OneThread&) = delete;
    OneThread& operator=(const OneThread&) = delete;

private:
    ScopedBlasThreads m_blas{1};
    int m_previous;
};

/// Rows as contiguous tensors.
struct Batch {
    torch::Tensor op;      // [n] int64
    torch::Tensor device;  // [n] int64
    torch::Tensor numeric; // [n, kNumericCount] float, standardised
    torch::Tensor target;  // [n, 2] float, standardised
    torch::Tensor mask;    // [n, 2] float: 1 where the target is known
};

std::vector<float> floatsOf(const nlohmann::json& j, const char* key, std::size_t size) {
    const auto values = j.at(key).get<std::vector<float>>();
    if (values.size() != size) {
        throw InputError(std::string("stored predictor: ") + key + " has " +
                         std::to_string(values.size()) + " values, expected " +
                         std::to_string(size));
    }
    return values;
}

nlohmann::json figuresJson(const DeviceFigures& d) {
    return {{"fingerprint", d.fingerprint},
            {"kind", d.kind},
            {"name", d.name},
            {"cores", d.cores},
            {"l1d_bytes", d.l1dBytes},
            {"l2_bytes", d.l2Bytes},
            {"l3_bytes", d.l3Bytes},
            {"memory_bytes", d.memoryBytes},
            {"avx2", d.avx2},
            {"avx512f", d.avx512f},
            {"fma3", d.fma3},
            {"gemm_gflops", d.gemmGflops},
            {"memory_bw_gbs", d.memoryBwGbs}};
}

DeviceFigures figuresFromJson(const nlohmann::json& j) {
    DeviceFigures d;
    d.fingerprint = j.at("fingerprint").get<std::string>();
    d.kind = j.at("kind").get<std::string>();
    d.name = j.at("name").get<std::string>();
    d.cores = j.at("cores").get<double>();
    d.l1dBytes = j.at("l1d_bytes").get<double>();
    d.l2Bytes = j.at("l2_bytes").get<double>();
    d.l3Bytes = j.at("l3_bytes").get<double>();
    d.memoryBytes = j.at("memory_bytes").get<double>();
    d.avx2 = j.at("avx2").get<bool>();
    d.avx512f = j.at("avx512f").get<bool>();
    d.fma3 = j.at("fma3").get<bool>();
    d.gemmGflops = j.at("gemm_gflops").get<double>();
    d.memoryBwGbs = j.at("memory_bw_gbs").get<double>();
    return d;
}

std::string torchFailure(const c10::Error& e) {
    const std::string text = e.what_without_backtrace();
    return "predictor (LibTorch): " + text.substr(0, text.find('\n'));
}

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
    /// "<fingerprint>/family:<family>", "<fingerprint>/*"). Empty for predictors stored before
    /// it existed: their reference is the plain roofline.
    std::map<std::string, double> calibration;

    /// The op type's vocabulary index, 0 when it was never trained on.
    std::int64_t knownOp(const std::string& opType) const {
        const auto it = std::find(opVocabulary.begin(), opVocabulary.end(), opType);
        return it == opVocabulary.end() ? 0 : it - opVocabulary.begin();
    }
    /// knownOp, or for an op type never trained on the most frequent one of its family.
    std::int64_t opIndex(const std::string& opType) const {
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
    std::int64_t deviceIndex(const std::string& fingerprint) const {
        for (std::size_t i = 0; i < devices.size(); ++i) {
            if (devices[i].fingerprint == fingerprint) {
                return static_cast<std::int64_t>(i);
            }
        }
        return -1;
    }
    std::int64_t nearest(const DeviceFigures& device) const {
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
    static double roofline(const PredictorRow& row, const DeviceFigures& device) {
        return std::max(kMinReferenceUs,
                        rooflineBaselineUs(device, row.opType, row.flops, row.bytes));
    }
    /// Median log(latency / roofline) of the rows per calibration key of their device.
    void calibrate(std::span<const PredictorRow> trainingRows,
                   const std::map<std::string, DeviceFigures>& figures) {
        std::map<std::string, std::vector<double>> ratios;
        for (const PredictorRow& row : trainingRows) {
            const double r =
                std::log(row.latencyUs / roofline(row, figures.at(row.deviceFingerprint)));
            const std::string& fp = row.deviceFingerprint;
            ratios[fp + "/" + calibrationKey(row)].push_back(r);
            ratios[fp + "/family:" + std::string(opFamily(row.opType))].push_back(r);
            ratios[fp + "/*"].push_back(r);
        }
        calibration.clear();
        for (auto& [key, values] : ratios) {
            calibration[key] = medianOf(std::move(values));
        }
    }
    /// What the ratio target divides by: the roofline scaled by the calibration of the row's
    /// operator kind on the device (a device never trained on uses its nearest known device's);
    /// 1 for the absolute target.
    double reference(const PredictorRow& row, const DeviceFigures& device) const {
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
    std::array<float, kNumericCount> raw(const PredictorRow& row,
                                         const DeviceFigures& device) const {
        std::array<float, kNumericCount> x{};
        std::copy(row.features.begin(), row.features.end(), x.begin());
        const DeviceFeatureVector d = deviceFeatures(device);
        std::copy(d.begin(), d.end(), x.begin() + kOpFeatureCount);
        return x;
    }

    /// Tensors for rows; `outOfRange` (optional) gets one flag per row.
    Batch batchOf(std::span<const PredictorRow> rowSpan,
                  const std::map<std::string, DeviceFigures>& figures,
                  std::vector<bool>* outOfRange, std::vector<double>* references) const {
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
                target[i][0] = (static_cast<float>(std::log(row.latencyUs / ref)) - targetMean[0]) /
                               targetStd[0];
                mask[i][0] = 1.0f;
            }
            if (row.peakMemoryMb) {
                target[i][1] = (static_cast<float>(std::log1p(std::max(0.0, *row.peakMemoryMb))) -
                                targetMean[1]) /
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
};

/// The trained ensemble behind PerformancePredictor.
class TorchPredictor final : public PredictorEngine {
public:
    explicit TorchPredictor(std::unique_ptr<PredictorState> state) : m_impl(std::move(state)) {}
    std::vector<LatencyPrediction>
    predict(std::span<const PredictorRow> rows,
            const std::map<std::string, DeviceFigures>& devices) const override;
    bool knowsDevice(const std::string& fingerprint) const override;
    std::string nearestDevice(const DeviceFigures& device) const override;
    void fineTune(std::span<const PredictorRow> rows, const DeviceFigures& device,
                  int steps) override;
    PredictorRecord toRecord(const nlohmann::json& metrics) const override;
    const PredictorOptions& options() const override;
    std::size_t trainingRows() const override;

private:
    std::unique_ptr<PredictorState> m_impl;
};

} // namespace

const PredictorOptions& TorchPredictor::options() const {
    return m_impl->options;
}

std::size_t TorchPredictor::trainingRows() const {
    return m_impl->rows;
}

std::unique_ptr<PredictorEngine>
torch_impl::trainPredictor(const PredictorDataset& dataset, std::span<const std::size_t> rowIndices,
                           const PredictorOptions& options,
                           const PerformancePredictor::EpochCallback& onEpoch) {
    if (rowIndices.empty()) {
        throw InputError("no training samples: profile models first (paretune profile)");
    }
    if (options.epochs < 1 || options.batchSize < 1 || options.members < 1 ||
        !(options.learningRate > 0.0)) {
        throw InputError("predictor: epochs, batch size, members and learning rate must be "
                         "positive");
    }
    const OneThread oneThread;
    auto impl = std::make_unique<PredictorState>();
    impl->options = options;
    impl->opVocabulary.push_back("");
    impl->opCounts.push_back(0);
    // One row per measurement: a signature repeated in a model (BERT's twelve layers) is one
    // sample, not twelve.
    std::set<std::pair<std::string, std::string>> seen;
    std::vector<PredictorRow> rows;
    rows.reserve(rowIndices.size());
    for (const std::size_t i : rowIndices) {
        const PredictorRow& row = dataset.rows.at(i);
        if (!seen.emplace(row.signature, row.deviceFingerprint).second) {
            continue;
        }
        if (impl->knownOp(row.opType) == 0) {
            impl->opVocabulary.push_back(row.opType);
            impl->opCounts.push_back(0);
        }
        ++impl->opCounts[static_cast<std::size_t>(impl->knownOp(row.opType))];
        if (impl->deviceIndex(row.deviceFingerprint) < 0) {
            impl->devices.push_back(dataset.devices.at(row.deviceFingerprint));
        }
        rows.push_back(row);
    }
    impl->rows = rows.size();
    impl->deviceOffsets.assign(impl->devices.size(), 0.0);
    if (options.rooflineRatio) {
        impl->calibrate(rows, dataset.devices);
    }
    // Normalisation statistics of the raw numeric features and of the targets.
    impl->mean.assign(kNumericCount, 0.0f);
    impl->stddev.assign(kNumericCount, 1.0f);
    impl->low.assign(kNumericCount, std::numeric_limits<float>::max());
    impl->high.assign(kNumericCount, std::numeric_limits<float>::lowest());
    std::vector<double> sum(kNumericCount, 0.0);
    std::vector<double> sumSq(kNumericCount, 0.0);
    double tSum[2] = {0, 0}, tSq[2] = {0, 0}, tCount[2] = {0, 0};
    for (const PredictorRow& row : rows) {
        const DeviceFigures& device = dataset.devices.at(row.deviceFingerprint);
        const auto x = impl->raw(row, device);
        for (std::size_t k = 0; k < kNumericCount; ++k) {
            sum[k] += x[k];
            sumSq[k] += static_cast<double>(x[k]) * x[k];
            impl->low[k] = std::min(impl->low[k], x[k]);
            impl->high[k] = std::max(impl->high[k], x[k]);
        }
        const double t0 = std::log(row.latencyUs / impl->reference(row, device));
        tSum[0] += t0;
        tSq[0] += t0 * t0;
        tCount[0] += 1;
        if (row.peakMemoryMb) {
            const double t1 = std::log1p(std::max(0.0, *row.peakMemoryMb));
            tSum[1] += t1;
            tSq[1] += t1 * t1;
            tCount[1] += 1;
        }
    }
    const double n = static_cast<double>(rows.size());
    for (std::size_t k = 0; k < kNumericCount; ++k) {
        impl->mean[k] = static_cast<float>(sum[k] / n);
        const double variance = sumSq[k] / n - (sum[k] / n) * (sum[k] / n);
        impl->stddev[k] = variance > 1e-8 ? static_cast<float>(std::sqrt(variance)) : 1.0f;
    }
    for (int t = 0; t < 2; ++t) {
        if (tCount[t] > 0) {
            impl->targetMean[t] = static_cast<float>(tSum[t] / tCount[t]);
            const double variance =
                tSq[t] / tCount[t] - (tSum[t] / tCount[t]) * (tSum[t] / tCount[t]);
            impl->targetStd[t] = variance > 1e-8 ? static_cast<float>(std::sqrt(variance)) : 1.0f;
        }
    }

    try {
        const Batch all = impl->batchOf(rows, dataset.devices, nullptr, nullptr);
        const auto count = static_cast<std::int64_t>(rows.size());
        std::vector<double> epochLoss(static_cast<std::size_t>(options.epochs), 0.0);
        for (int m = 0; m < options.members; ++m) {
            torch::manual_seed(options.seed + static_cast<std::uint64_t>(m));
            Net net(static_cast<std::int64_t>(impl->opVocabulary.size()),
                    static_cast<std::int64_t>(impl->devices.size()));
            // Each member learns from its own bootstrap resample (one member: all rows).
            torch::Tensor pick;
            if (options.members > 1) {
                pick = torch::randint(count, {count}, torch::kLong);
            } else {
                pick = torch::arange(count, torch::kLong);
            }
            const torch::Tensor op = all.op.index_select(0, pick).contiguous();
            const torch::Tensor dev = all.device.index_select(0, pick).contiguous();
            const torch::Tensor num = all.numeric.index_select(0, pick).contiguous();
            const torch::Tensor target = all.target.index_select(0, pick).contiguous();
            const torch::Tensor mask = all.mask.index_select(0, pick).contiguous();
            FlatAdam optimizer(*net, options.learningRate);
            NetStep step(net, options.batchSize);
            // Each epoch shuffles once into these; its batches are then contiguous slices.
            torch::Tensor opE = torch::empty_like(op), devE = torch::empty_like(dev);
            torch::Tensor numE = torch::empty_like(num), targetE = torch::empty_like(target);
            torch::Tensor maskE = torch::empty_like(mask);
            for (int epoch = 0; epoch < options.epochs; ++epoch) {
                const torch::Tensor order = torch::randperm(count, torch::kLong);
                at::index_select_out(opE, op, 0, order);
                at::index_select_out(devE, dev, 0, order);
                at::index_select_out(numE, num, 0, order);
                at::index_select_out(targetE, target, 0, order);
                at::index_select_out(maskE, mask, 0, order);
                double lossSum = 0.0;
                int batches = 0;
                for (std::int64_t begin = 0; begin < count; begin += options.batchSize) {
                    const std::int64_t end = std::min(count, begin + options.batchSize);
                    lossSum += step.lossAndGradients(
                        opE.slice(0, begin, end), devE.slice(0, begin, end),
                        numE.slice(0, begin, end), targetE.slice(0, begin, end),
                        maskE.slice(0, begin, end));
                    optimizer.step();
                    ++batches;
                }
                epochLoss[static_cast<std::size_t>(epoch)] += lossSum / batches / options.members;
                if (onEpoch && m == options.members - 1) {
                    onEpoch(epoch + 1, epochLoss[static_cast<std::size_t>(epoch)]);
                }
            }
            optimizer.release();
            net->eval();
            impl->members.push_back(net);
        }
    } catch (const c10::Error& e) {
        throw std::runtime_error(torchFailure(e));
    }
    return std::make_unique<TorchPredictor>(std::move(impl));
}

std::vector<LatencyPrediction>
TorchPredictor::predict(std::span<const PredictorRow> rows,
                        const std::map<std::string, DeviceFigures>& devices) const {
    if (rows.empty()) {
        return {};
    }
    const OneThread oneThread;
    const torch::NoGradGuard noGrad;
    std::vector<bool> outside;
    std::vector<double> references;
    const PredictorState& impl = *m_impl;
    const std::size_t n = rows.size();
    std::vector<double> logSum(n, 0.0), logSq(n, 0.0), memSum(n, 0.0);
    try {
        const Batch b = impl.batchOf(rows, devices, &outside, &references);
        const auto deviceOf = b.device.accessor<std::int64_t, 1>();
        for (std::size_t i = 0; i < n; ++i) { // the device's level, set by fineTune
            references[i] *= std::exp(impl.deviceOffsets[static_cast<std::size_t>(
                deviceOf[static_cast<std::int64_t>(i)])]);
        }
        for (Net net : impl.members) { // a shared handle; forward does not modify it
            const torch::Tensor out = net->forward(b.op, b.device, b.numeric).contiguous();
            const auto a = out.accessor<float, 2>();
            for (std::size_t i = 0; i < n; ++i) {
                const auto r = static_cast<std::int64_t>(i);
                const double logLatency = static_cast<double>(a[r][0]) * impl.targetStd[0] +
                                          impl.targetMean[0] + std::log(references[i]);
                logSum[i] += logLatency;
                logSq[i] += logLatency * logLatency;
                memSum[i] += static_cast<double>(a[r][1]) * impl.targetStd[1] + impl.targetMean[1];
            }
        }
    } catch (const c10::Error& e) {
        throw std::runtime_error(torchFailure(e));
    }
    const double k = static_cast<double>(impl.members.size());
    std::vector<LatencyPrediction> result(n);
    for (std::size_t i = 0; i < n; ++i) {
        const double meanLog = logSum[i] / k;
        const double variance = std::max(0.0, logSq[i] / k - meanLog * meanLog);
        result[i].latencyUs = std::exp(meanLog);
        result[i].peakMemoryMb = std::max(0.0, std::expm1(memSum[i] / k));
        result[i].outOfRange = outside[i];
        result[i].uncertainty = std::sqrt(variance) * (outside[i] ? 2.0 : 1.0);
    }
    return result;
}

bool TorchPredictor::knowsDevice(const std::string& fingerprint) const {
    return m_impl->deviceIndex(fingerprint) >= 0;
}

std::string TorchPredictor::nearestDevice(const DeviceFigures& device) const {
    return m_impl->devices[static_cast<std::size_t>(m_impl->nearest(device))].fingerprint;
}

void TorchPredictor::fineTune(std::span<const PredictorRow> rows, const DeviceFigures& device,
                              int steps) {
    PredictorState& impl = *m_impl;
    const OneThread oneThread;
    try {
        if (impl.deviceIndex(device.fingerprint) < 0) {
            const std::int64_t from = impl.nearest(device);
            const torch::NoGradGuard noGrad;
            for (Net& net : impl.members) {
                net->deviceTable.set_data(
                    torch::cat({net->deviceTable, net->deviceTable.slice(0, from, from + 1)}, 0));
                net->deviceTable.mutable_grad().reset(); // the old gradient has the old shape
            }
            impl.devices.push_back(device);
            impl.deviceOffsets.push_back(0.0);
        }
        if (rows.empty() || steps < 1) {
            return;
        }
        const std::map<std::string, DeviceFigures> figures = {{device.fingerprint, device}};
        const Batch b = impl.batchOf(rows, figures, nullptr, nullptr);
        for (Net& net : impl.members) {
            // Only the device part moves: a few samples cannot retrain the shared layers.
            torch::optim::Adam optimizer(std::vector<torch::Tensor>{net->deviceTable},
                                         torch::optim::AdamOptions(impl.options.learningRate));
            net->train();
            for (int step = 0; step < steps; ++step) {
                const torch::Tensor out = net->forward(b.op, b.device, b.numeric);
                const torch::Tensor loss =
                    (torch::huber_loss(out, b.target, at::Reduction::None, 1.0) * b.mask).sum() /
                    b.mask.sum().clamp_min(1.0);
                optimizer.zero_grad();
                loss.backward();
                optimizer.step();
            }
            net->eval();
        }
    } catch (const c10::Error& e) {
        throw std::runtime_error(torchFailure(e));
    }
    // Then the device's overall level: the median log ratio of measured to predicted latency
    // (robust to a few noisy samples, unlike a gradient step on them).
    const auto index = static_cast<std::size_t>(impl.deviceIndex(device.fingerprint));
    impl.deviceOffsets[index] = 0.0;
    const std::vector<LatencyPrediction> predicted = predict(rows, {{device.fingerprint, device}});
    std::vector<double> ratios;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (rows[i].latencyUs > 0.0) {
            ratios.push_back(std::log(rows[i].latencyUs / predicted[i].latencyUs));
        }
    }
    if (!ratios.empty()) {
        std::sort(ratios.begin(), ratios.end());
        const std::size_t mid = ratios.size() / 2;
        impl.deviceOffsets[index] =
            ratios.size() % 2 == 1 ? ratios[mid] : (ratios[mid - 1] + ratios[mid]) / 2.0;
    }
}

PredictorRecord TorchPredictor::toRecord(const nlohmann::json& metrics) const {
    const PredictorState& impl = *m_impl;
    nlohmann::json devices = nlohmann::json::array();
    for (const DeviceFigures& d : impl.devices) {
        devices.push_back(figuresJson(d));
    }
    std::vector<std::string> featureNames(opFeatureNames().begin(), opFeatureNames().end());
    featureNames.insert(featureNames.end(), deviceFeatureNames().begin(),
                        deviceFeatureNames().end());
    const nlohmann::json trainSet = {
        {"schema", kSchema},
        {"options",
         {{"epochs", impl.options.epochs},
          {"batch_size", impl.options.batchSize},
          {"learning_rate", impl.options.learningRate},
          {"members", impl.options.members},
          {"seed", impl.options.seed},
          {"target", impl.options.rooflineRatio ? "log_ratio_to_roofline" : "log_latency"}}},
        {"calibration", impl.calibration},
        {"rows", impl.rows},
        {"op_vocabulary", impl.opVocabulary},
        {"op_counts", impl.opCounts},
        {"device_offsets", impl.deviceOffsets},
        {"devices", devices},
        {"feature_names", featureNames},
        {"feature_mean", impl.mean},
        {"feature_std", impl.stddev},
        {"feature_min", impl.low},
        {"feature_max", impl.high},
        {"target_mean", {impl.targetMean[0], impl.targetMean[1]}},
        {"target_std", {impl.targetStd[0], impl.targetStd[1]}}};
    PredictorRecord record;
    record.trainSetJson = trainSet.dump();
    record.metricsJson = metrics.dump();
    try {
        torch::serialize::OutputArchive archive;
        for (std::size_t m = 0; m < impl.members.size(); ++m) {
            torch::serialize::OutputArchive member;
            impl.members[m]->save(member);
            archive.write("member" + std::to_string(m), member);
        }
        std::ostringstream bytes;
        archive.save_to(bytes);
        record.weights = bytes.str();
    } catch (const c10::Error& e) {
        throw std::runtime_error(torchFailure(e));
    }
    return record;
}

std::unique_ptr<PredictorEngine> torch_impl::loadPredictor(const PredictorRecord& record) {
    const std::string where = "predictor " + std::to_string(record.id);
    auto impl = std::make_unique<PredictorState>();
    try {
        const nlohmann::json j = nlohmann::json::parse(record.trainSetJson);
        if (j.value("schema", "") != kSchema) {
            throw InputError(where + ": not a " + std::string(kSchema) +
                             " predictor (retrain with paretune train)");
        }
        std::vector<std::string> featureNames(opFeatureNames().begin(), opFeatureNames().end());
        featureNames.insert(featureNames.end(), deviceFeatureNames().begin(),
                            deviceFeatureNames().end());
        if (j.value("feature_names", std::vector<std::string>()) != featureNames) {
            throw InputError(where + ": trained on another feature set than this version's (" +
                             std::to_string(featureNames.size()) +
                             " features); train again with paretune train");
        }
        const nlohmann::json& o = j.at("options");
        impl->options.epochs = o.at("epochs").get<int>();
        impl->options.batchSize = o.at("batch_size").get<int>();
        impl->options.learningRate = o.at("learning_rate").get<double>();
        impl->options.members = o.at("members").get<int>();
        impl->options.seed = o.at("seed").get<std::uint64_t>();
        impl->options.rooflineRatio = o.at("target").get<std::string>() == "log_ratio_to_roofline";
        impl->calibration =
            j.value("calibration", std::map<std::string, double>()); // older predictors: none
        impl->rows = j.at("rows").get<std::size_t>();
        impl->opVocabulary = j.at("op_vocabulary").get<std::vector<std::string>>();
        impl->opCounts = j.at("op_counts").get<std::vector<std::int64_t>>();
        if (impl->opCounts.size() != impl->opVocabulary.size()) {
            throw InputError(where + ": op_counts and op_vocabulary differ in length");
        }
        for (const nlohmann::json& d : j.at("devices")) {
            impl->devices.push_back(figuresFromJson(d));
        }
        impl->deviceOffsets = j.at("device_offsets").get<std::vector<double>>();
        if (impl->deviceOffsets.size() != impl->devices.size()) {
            throw InputError(where + ": device_offsets and devices differ in length");
        }
        impl->mean = floatsOf(j, "feature_mean", kNumericCount);
        impl->stddev = floatsOf(j, "feature_std", kNumericCount);
        impl->low = floatsOf(j, "feature_min", kNumericCount);
        impl->high = floatsOf(j, "feature_max", kNumericCount);
        const auto tm = floatsOf(j, "target_mean", 2);
        const auto ts = floatsOf(j, "target_std", 2);
        std::copy(tm.begin(), tm.end(), impl->targetMean);
        std::copy(ts.begin(), ts.end(), impl->targetStd);
        if (impl->opVocabulary.empty() || impl->devices.empty() || impl->options.members < 1) {
            throw InputError(where + ": empty vocabulary, device list or ensemble");
        }
    } catch (const nlohmann::json::exception& e) {
        throw InputError(where + ": train_set_json is damaged (" + e.what() + ")");
    }
    try {
        torch::serialize::InputArchive archive;
        std::istringstream bytes(record.weights);
        archive.load_from(bytes);
        for (int m = 0; m < impl->options.members; ++m) {
            Net net(static_cast<std::int64_t>(impl->opVocabulary.size()),
                    static_cast<std::int64_t>(impl->devices.size()));
            torch::serialize::InputArchive member;
            archive.read("member" + std::to_string(m), member);
            net->load(member);
            net->eval();
            impl->members.push_back(net);
        }
    } catch (const c10::Error& e) {
        throw InputError(where + ": the weights are damaged (" + torchFailure(e) + ")");
    }
    return std::make_unique<TorchPredictor>(std::move(impl));
}

double detail::trainingGradientMismatch(std::uint64_t seed, int vectorBits) {
    const OneThread oneThread;
    torch::manual_seed(seed);
    constexpr std::int64_t kOps = 5, kDevices = 3, kRows = 37, kBatch = 64;
    Net net(kOps, kDevices);
    const torch::Tensor op = torch::randint(kOps, {kRows}, torch::kLong);
    const torch::Tensor device = torch::randint(kDevices, {kRows}, torch::kLong);
    const torch::Tensor numeric = torch::randn({kRows, static_cast<std::int64_t>(kNumericCount)});
    const torch::Tensor target = torch::randn({kRows, 2}) * 2.0;
    const torch::Tensor mask = (torch::rand({kRows, 2}) > 0.2).to(torch::kFloat);
    // Autograd on the network's own forward and the loss the training minimises.
    const torch::Tensor w = mask;
    const torch::Tensor loss =
        (torch::huber_loss(net->forward(op, device, numeric), target, at::Reduction::None, 1.0) * w)
            .sum() /
        w.sum().clamp_min(1.0);
    loss.backward();
    std::vector<torch::Tensor> expected;
    for (torch::Tensor& p : net->parameters()) {
        expected.push_back(p.grad().clone());
        p.mutable_grad() = torch::full_like(p, 7.0); // stale values NetStep must overwrite
    }
    NetStep step(net, kBatch, vectorBits);
    const double manualLoss = step.lossAndGradients(op, device, numeric, target, mask);
    double mismatch = std::abs(manualLoss - loss.item<double>()) / std::abs(loss.item<double>());
    const std::vector<torch::Tensor> parameters = net->parameters();
    for (std::size_t i = 0; i < parameters.size(); ++i) {
        const double scale = std::max(expected[i].abs().max().item<double>(), 1e-12);
        mismatch = std::max(
            mismatch, (parameters[i].grad() - expected[i]).abs().max().item<double>() / scale);
    }
    return mismatch;
}

} // namespace paretune
