// SPDX-License-Identifier: GPL-3.0-or-later
// The trained ensemble behind PerformancePredictor: prediction and few-shot adaptation.
#include "torch_predictor.h"

#include <algorithm>
#include <cmath>

namespace paretune::detail {

std::string torchFailure(const c10::Error& e) {
    const std::string text = e.what_without_backtrace();
    return "predictor (LibTorch): " + text.substr(0, text.find('\n'));
}

const PredictorOptions& TorchPredictor::options() const {
    return m_impl->options;
}

std::size_t TorchPredictor::trainingRows() const {
    return m_impl->rows;
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

} // namespace paretune::detail
