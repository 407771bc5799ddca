// SPDX-License-Identifier: GPL-3.0-or-later
// Training the predictor (torch_impl::trainPredictor): the vocabulary, normalisation and
// calibration of the training rows, then each ensemble member on its bootstrap resample with the
// hand-written step (NetStep) and a fused Adam.
#include "runtime/torch_impl.h"

#include "common/input_error.h"
#include "torch_predictor.h"
#include "training_kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace paretune {

namespace {

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

} // namespace

using detail::Batch;
using detail::kNumericCount;
using detail::Net;
using detail::NetStep;
using detail::OneThread;
using detail::PredictorState;
using detail::torchFailure;
using detail::TorchPredictor;

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

} // namespace paretune
