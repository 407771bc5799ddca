// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace paretune {

struct CudaDeviceInfo {
    int index = 0;
    std::string name;
    int multiprocessors = 0;
    std::int64_t memoryBytes = 0;
    int computeMajor = 0;
    int computeMinor = 0;
    double clockMhz = 0.0;
    double memoryBusWidthBits = 0.0;
};

struct CudaInventory {
    bool builtWithCuda = false;
    int runtimeVersion = 0; ///< e.g. 13000; 0 when unknown
    int driverVersion = 0;  ///< 0 when no driver is installed
    /// Why no device was found, when that is not simply "none attached" (empty otherwise).
    std::string note;
    std::vector<CudaDeviceInfo> devices;
};

/// Lists the CUDA GPUs the runtime can see. A machine without a driver or without a GPU has no
/// CUDA devices; that is a normal answer, not an error (`note` says which case it was).
CudaInventory discoverCudaDevices();

} // namespace paretune
