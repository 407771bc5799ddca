// SPDX-License-Identifier: GPL-3.0-or-later
#include "precision_support.h"

#include "device/device.h"
#include "profile/graph_executor.h"
#include "runtime/torch_runtime.h"

namespace paretune {

std::string precisionRefusal(const Device& device, Precision precision) {
    if (device.tag != DeviceTag::Real) {
        return {};
    }
    const bool cuda = device.cudaIndex >= 0;
    switch (precision) {
    case Precision::Fp32:
    case Precision::Bf16:
        return {};
    case Precision::Int8:
        if (cuda || !device.isCpu()) {
            return "device '" + device.id +
                   "': the int8 variant runs on CPU devices only in this version (LibTorch's "
                   "quantized engine); profile bf16 there, or int8 on cpu or cpu:N";
        }
        return {};
    case Precision::Fp16:
        break;
    }
    if (cuda) {
        return {};
    }
    const std::string advice = "; profile fp16 on a CUDA device (cuda:K), or bf16 here";
    if (!device.isCpu()) {
        return "device '" + device.id + "': the fp16 variant runs on CUDA devices" + advice;
    }
    if (!device.avx512fp16) {
        return "device '" + device.id + "' (" + device.name +
               "): the fp16 variant needs float16 arithmetic on the CPU (AVX512-FP16), which "
               "this CPU lacks" +
               advice;
    }
    std::string kernels;
    try {
        kernels = torchCpuHalfRefusal();
    } catch (const std::exception& e) {
        kernels = e.what();
    }
    if (kernels.empty()) {
        return {};
    }
    return "device '" + device.id + "' (" + device.name + "): its CPU has AVX512-FP16, but " +
           kernels + advice;
}

} // namespace paretune

namespace paretune {

std::string variantRefusal(const Device& device, Variant variant) {
    if (std::string why = precisionRefusal(device, variant.precision); !why.empty()) {
        return why;
    }
    if (variant.threads == 0 || device.tag != DeviceTag::Real) {
        return {};
    }
    const std::string name = variantName(variant);
    if (!device.isCpu() || device.cudaIndex >= 0) {
        return "device '" + device.id + "': " + name +
               " sets intra-op threads, a CPU device's choice; offer " +
               variantName(variant.onDeviceThreads()) + " there";
    }
    if (device.cpus.size() <= variant.threads) {
        return "device '" + device.id + "' runs on " + std::to_string(device.cpus.size()) +
               (device.cpus.size() == 1 ? " CPU" : " CPUs") +
               ", one intra-op thread each: " + name +
               " needs a device of more CPUs (cpu holds them all)";
    }
    return {};
}

} // namespace paretune
