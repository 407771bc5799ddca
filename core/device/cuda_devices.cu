// SPDX-License-Identifier: GPL-3.0-or-later
// Compiled by nvcc (CUDA runtime only); keep it free of C++20 features.
#include "cuda_devices.h"

#include <cuda_runtime.h>

namespace paretune {

CudaInventory discoverCudaDevices() {
    CudaInventory inventory;
    inventory.builtWithCuda = true;
    cudaRuntimeGetVersion(&inventory.runtimeVersion);
    if (cudaDriverGetVersion(&inventory.driverVersion) != cudaSuccess) {
        inventory.driverVersion = 0;
    }
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status == cudaErrorInsufficientDriver || status == cudaErrorNoDevice) {
        // No driver (error 35) or no GPU: no CUDA devices on this machine.
        inventory.note = cudaGetErrorString(status);
        cudaGetLastError();
        return inventory;
    }
    if (status != cudaSuccess) {
        inventory.note = std::string("cudaGetDeviceCount failed: ") + cudaGetErrorString(status);
        cudaGetLastError();
        return inventory;
    }
    for (int i = 0; i < count; ++i) {
        cudaDeviceProp prop;
        if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) {
            continue;
        }
        CudaDeviceInfo info;
        info.index = i;
        info.name = prop.name;
        info.multiprocessors = prop.multiProcessorCount;
        info.memoryBytes = static_cast<std::int64_t>(prop.totalGlobalMem);
        info.computeMajor = prop.major;
        info.computeMinor = prop.minor;
        int clockKhz = 0;
        if (cudaDeviceGetAttribute(&clockKhz, cudaDevAttrClockRate, i) == cudaSuccess) {
            info.clockMhz = clockKhz / 1000.0;
        }
        int busWidth = 0;
        if (cudaDeviceGetAttribute(&busWidth, cudaDevAttrGlobalMemoryBusWidth, i) == cudaSuccess) {
            info.memoryBusWidthBits = busWidth;
        }
        inventory.devices.push_back(info);
    }
    return inventory;
}

} // namespace paretune
