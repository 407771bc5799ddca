// SPDX-License-Identifier: GPL-3.0-or-later
// The predictor network's hand-written training step (NetStep) and its self-check against
// LibTorch autograd.
#include "predictor_network.h"

#include "performance_predictor.h"
#include "training_kernels.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace paretune::detail {
namespace {

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

} // namespace

NetStep::NetStep(Net& net, std::int64_t batchSize, int vectorBits)
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

double NetStep::lossAndGradients(const torch::Tensor& op, const torch::Tensor& device,
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
        transposeInto(dst.data_ptr<float>(), src.data_ptr<float>(), static_cast<int>(src.size(0)),
                      static_cast<int>(src.size(1)), src.stride(0));
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
                   dHidden1.data_ptr<float>(), device.data_ptr<std::int64_t>(), static_cast<int>(n),
                   static_cast<int>(kHidden));
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

double trainingGradientMismatch(std::uint64_t seed, int vectorBits) {
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

} // namespace paretune::detail
