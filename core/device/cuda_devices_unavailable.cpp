// SPDX-License-Identifier: GPL-3.0-or-later
// Used when Paretune is built without CUDA (PARETUNE_WITH_CUDA=OFF): no CUDA device can be used.
#include "cuda_devices.h"

namespace paretune {

CudaInventory discoverCudaDevices() {
    CudaInventory inventory;
    inventory.note = "built without CUDA support (PARETUNE_WITH_CUDA=OFF)";
    return inventory;
}

} // namespace paretune
