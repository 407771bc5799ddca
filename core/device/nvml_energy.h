// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace paretune {

/// NVIDIA's management library reached at run time: `libnvidia-ml.so.1` is loaded with dlopen
/// (no NVML header or stub library exists at build time, and a machine without the driver
/// simply has none). Gives a GPU's cumulative energy counter (Volta and later) and its power
/// draw, for the energy of operators measured on CUDA devices. Not thread-safe; one per thread.
class NvmlEnergy {
public:
    /// Loads and initialises NVML. Without it (no driver, no library, init failure) returns
    /// nullptr and, when `why` is given, the reason: "libnvidia-ml.so.1 not found (…)",
    /// "nvmlInit_v2 failed: error 9", ….
    static std::unique_ptr<NvmlEnergy> open(std::string* why = nullptr);
    ~NvmlEnergy();
    NvmlEnergy(const NvmlEnergy&) = delete;
    NvmlEnergy& operator=(const NvmlEnergy&) = delete;

    int deviceCount() const;
    /// Energy consumed since the driver loaded, mJ (nvmlDeviceGetTotalEnergyConsumption);
    /// none when the GPU has no counter or the index is not a GPU.
    std::optional<std::uint64_t> totalEnergyMj(int cudaIndex) const;
    /// Current board power, W (nvmlDeviceGetPowerUsage, milliwatts); none when unavailable.
    std::optional<double> powerW(int cudaIndex) const;

private:
    struct Api;
    explicit NvmlEnergy(std::unique_ptr<Api> api);
    std::unique_ptr<Api> m_api;
};

} // namespace paretune
