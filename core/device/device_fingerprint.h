// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>

namespace paretune {

struct Device;

/// The software a device's measurements depend on. Read once per process.
struct SoftwareStack {
    std::string compiler;         ///< e.g. "gcc 12.2.0"
    std::string torchVersion;     ///< LibTorch of the module (its flavour file, else the build's)
    std::string blas;             ///< resolved libblas.so.3 (Debian alternatives) or empty
    std::int32_t cudaRuntime = 0; ///< e.g. 13000; 0 without CUDA
    std::int32_t cudaDriver = 0;  ///< 0 without a driver
    /// Where a CUDA device is attached and the LibTorch module is the CUDA flavour: the CUDA
    /// LibTorch was built with ("13.2") and the cuDNN it loaded (92600), read from the module
    /// (which is then loaded); empty / 0 elsewhere.
    std::string torchCuda{};
    std::int32_t cudnn = 0;
};

/// This process's software stack (cached after the first call; never throws).
const SoftwareStack& softwareStack();

/// Canonical JSON of what identifies a device: hardware (model name, core set, caches, SIMD
/// flags; GPU name, SMs, memory, compute capability; catalog figures for a modelled device)
/// and, for real devices, the software stack. Keys are sorted, so equal devices give equal
/// text.
nlohmann::json deviceIdentity(const Device& device, const SoftwareStack& software);

/// SHA-256 (64 hex digits) of deviceIdentity(device, software).dump(). Same machine and
/// software → same fingerprint; a different core set (`cpu` vs `cpu:0`) → a different one.
std::string deviceFingerprint(const Device& device, const SoftwareStack& software);
std::string deviceFingerprint(const Device& device); ///< with softwareStack()

} // namespace paretune
