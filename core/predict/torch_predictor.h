// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Inside the LibTorch module only: the trained ensemble behind PerformancePredictor, made by
// training (torch_predictor_training.cpp) or from a stored record (torch_predictor_record.cpp).
#include "predictor_state.h"

#include <memory>
#include <string>

namespace paretune::detail {

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

/// A LibTorch error as the predictor reports it: "predictor (LibTorch): " and its first line.
std::string torchFailure(const c10::Error& e);

} // namespace paretune::detail
