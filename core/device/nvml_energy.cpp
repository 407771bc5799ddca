// SPDX-License-Identifier: GPL-3.0-or-later
#include "nvml_energy.h"

#include <dlfcn.h>

namespace paretune {

// The few NVML entry points used, declared from NVML's documented C API (nvml.h is not
// installed): handles are opaque pointers, results are ints (0: NVML_SUCCESS).
struct NvmlEnergy::Api {
    using Device = void*;
    void* library = nullptr;
    int (*init)() = nullptr;
    int (*shutdown)() = nullptr;
    int (*count)(unsigned int*) = nullptr;
    int (*handle)(unsigned int, Device*) = nullptr;
    int (*energy)(Device, unsigned long long*) = nullptr;
    int (*power)(Device, unsigned int*) = nullptr;

    std::optional<Device> device(int index) const {
        Device d = nullptr;
        if (index < 0 || handle(static_cast<unsigned int>(index), &d) != 0) {
            return std::nullopt;
        }
        return d;
    }
};

namespace {

template <typename F> bool resolve(void* library, const char* name, F*& out) {
    out = reinterpret_cast<F*>(dlsym(library, name));
    return out != nullptr;
}

} // namespace

std::unique_ptr<NvmlEnergy> NvmlEnergy::open(std::string* why) {
    const auto fail = [why](std::string reason) -> std::unique_ptr<NvmlEnergy> {
        if (why != nullptr) {
            *why = std::move(reason);
        }
        return nullptr;
    };
    auto api = std::make_unique<Api>();
    api->library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (api->library == nullptr) {
        const char* error = dlerror();
        return fail(std::string("libnvidia-ml.so.1 not found (") +
                    (error != nullptr ? error : "no reason given") + ")");
    }
    if (!resolve(api->library, "nvmlInit_v2", api->init) ||
        !resolve(api->library, "nvmlShutdown", api->shutdown) ||
        !resolve(api->library, "nvmlDeviceGetCount_v2", api->count) ||
        !resolve(api->library, "nvmlDeviceGetHandleByIndex_v2", api->handle) ||
        !resolve(api->library, "nvmlDeviceGetTotalEnergyConsumption", api->energy) ||
        !resolve(api->library, "nvmlDeviceGetPowerUsage", api->power)) {
        dlclose(api->library);
        return fail("libnvidia-ml.so.1 lacks an entry point NVML energy needs");
    }
    if (const int rc = api->init(); rc != 0) {
        dlclose(api->library);
        return fail("nvmlInit_v2 failed: error " + std::to_string(rc));
    }
    return std::unique_ptr<NvmlEnergy>(new NvmlEnergy(std::move(api)));
}

NvmlEnergy::NvmlEnergy(std::unique_ptr<Api> api) : m_api(std::move(api)) {}

NvmlEnergy::~NvmlEnergy() {
    m_api->shutdown();
    dlclose(m_api->library);
}

int NvmlEnergy::deviceCount() const {
    unsigned int n = 0;
    return m_api->count(&n) == 0 ? static_cast<int>(n) : 0;
}

std::optional<std::uint64_t> NvmlEnergy::totalEnergyMj(int cudaIndex) const {
    const auto device = m_api->device(cudaIndex);
    unsigned long long mj = 0;
    if (!device || m_api->energy(*device, &mj) != 0) {
        return std::nullopt;
    }
    return static_cast<std::uint64_t>(mj);
}

std::optional<double> NvmlEnergy::powerW(int cudaIndex) const {
    const auto device = m_api->device(cudaIndex);
    unsigned int mw = 0;
    if (!device || m_api->power(*device, &mw) != 0) {
        return std::nullopt;
    }
    return mw / 1000.0;
}

} // namespace paretune
