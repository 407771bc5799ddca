// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Inside the LibTorch module only: the learned predictor's network, its training step written
// out by hand, and the one thread the predictor's work runs on.
#include "op_features.h"
#include "profile/cpu_affinity.h"

#include <torch/torch.h>

#include <cstdint>

namespace paretune::detail {

constexpr std::size_t kNumericCount = kOpFeatureCount + kDeviceFeatureCount;
constexpr std::int64_t kEmbedding = 32;
constexpr std::int64_t kHidden = 128;

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
    NetStep(Net& net, std::int64_t batchSize, int vectorBits = 512);

    /// Writes d loss / d parameter into every parameter's gradient (which must be defined, e.g.
    /// FlatAdam's views) and returns the loss: the masked Huber loss (delta 1) summed over the
    /// known targets and divided by their count (at least 1). Rows are [n] / [n, k] contiguous.
    double lossAndGradients(const torch::Tensor& op, const torch::Tensor& device,
                            const torch::Tensor& numeric, const torch::Tensor& target,
                            const torch::Tensor& mask);

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

} // namespace paretune::detail
