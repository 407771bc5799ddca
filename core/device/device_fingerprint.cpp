// SPDX-License-Identifier: GPL-3.0-or-later
#include "device_fingerprint.h"

#include "common/sha256.h"
#include "device/cuda_devices.h"
#include "device/device.h"
#include "runtime/torch_runtime.h"

#include <nlohmann/json.hpp>

#include <filesystem>

#ifndef PARETUNE_TORCH_VERSION
#define PARETUNE_TORCH_VERSION ""
#endif

namespace paretune {

namespace {

std::string compilerName() {
#if defined(__clang__)
    return std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
    return std::string("gcc ") + __VERSION__;
#else
    return "unknown compiler";
#endif
}

/// The shared library libblas.so.3 resolves to through Debian's alternatives (what LibTorch
/// calls for GEMM), or empty when there is no alternative.
std::string blasInUse() {
    for (const char* link :
         {"/etc/alternatives/libblas.so.3-x86_64-linux-gnu",
          "/etc/alternatives/libblas.so.3-aarch64-linux-gnu", "/etc/alternatives/libblas.so.3"}) {
        std::error_code error;
        const std::filesystem::path target = std::filesystem::read_symlink(link, error);
        if (!error) {
            return target.string();
        }
    }
    return {};
}

SoftwareStack readSoftwareStack() {
    SoftwareStack s;
    s.compiler = compilerName();
    s.torchVersion = PARETUNE_TORCH_VERSION;
    // The LibTorch that measures is the module's: the CUDA flavour's module is another build of
    // it against another LibTorch (its flavour file says which).
    const std::optional<TorchModuleFlavour> flavour = torchModuleFlavour();
    if (flavour && !flavour->libtorchVersion.empty()) {
        s.torchVersion = flavour->libtorchVersion;
    }
    s.blas = blasInUse();
    const CudaInventory cuda = discoverCudaDevices();
    s.cudaRuntime = cuda.runtimeVersion;
    s.cudaDriver = cuda.driverVersion;
    if (!cuda.devices.empty() && flavour && flavour->cuda) {
        try {
            const TorchCudaInfo info = torchRuntime().cudaInfo();
            s.torchCuda = info.cudaVersion;
            s.cudnn = info.cudnnVersion;
        } catch (const std::exception&) {
            // No usable module: the fingerprint goes without them, as on a CPU-only build.
        }
    }
    return s;
}

} // namespace

const SoftwareStack& softwareStack() {
    static const SoftwareStack stack = readSoftwareStack();
    return stack;
}

nlohmann::json deviceIdentity(const Device& device, const SoftwareStack& software) {
    nlohmann::json hardware;
    nlohmann::json identity = {{"schema", "paretune.device-identity/1"},
                               {"kind", device.kind},
                               {"tag", deviceTagName(device.tag)}};
    if (device.tag == DeviceTag::Modelled) {
        // A modelled device is its catalog entry: its figures are its identity.
        hardware = {{"id", device.id},
                    {"peak_gflops", device.peakGflops},
                    {"mem_bw_gbs", device.memBwGbs},
                    {"memory_bytes", device.memoryBytes}};
        identity["hardware"] = hardware;
        return identity;
    }
    nlohmann::json softwareJson = {
        {"compiler", software.compiler}, {"torch", software.torchVersion}, {"blas", software.blas}};
    if (device.kind == "cpu") {
        hardware = {{"model", device.name.substr(0, device.name.find(" (core "))},
                    {"cpus", device.cpus},
                    {"cores", device.cores},
                    {"l1d_bytes", device.l1dBytes},
                    {"l2_bytes", device.l2Bytes},
                    {"l3_bytes", device.l3Bytes},
                    {"avx2", device.avx2},
                    {"avx512f", device.avx512f},
                    {"fma3", device.fma3}};
    } else {
        hardware = {{"model", device.name},
                    {"cuda_index", device.cudaIndex},
                    {"multiprocessors", device.cores},
                    {"memory_bytes", device.memoryBytes},
                    {"compute_capability", std::to_string(device.computeMajor) + "." +
                                               std::to_string(device.computeMinor)}};
        softwareJson["cuda_runtime"] = software.cudaRuntime;
        softwareJson["cuda_driver"] = software.cudaDriver;
        if (!software.torchCuda.empty()) { // the CUDA flavour: what LibTorch runs the GPU with
            softwareJson["torch_cuda"] = software.torchCuda;
            softwareJson["cudnn"] = software.cudnn;
        }
    }
    identity["hardware"] = hardware;
    identity["software"] = softwareJson;
    return identity;
}

std::string deviceFingerprint(const Device& device, const SoftwareStack& software) {
    // nlohmann::json objects are std::map-backed: dump() writes keys sorted, i.e. canonically.
    return Sha256::hex(deviceIdentity(device, software).dump());
}

std::string deviceFingerprint(const Device& device) {
    return deviceFingerprint(device, softwareStack());
}

} // namespace paretune
