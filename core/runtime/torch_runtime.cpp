// SPDX-License-Identifier: GPL-3.0-or-later
#include "runtime/torch_runtime.h"

#include "common/host_memory.h"
#include "common/openmp_wait.h"
#include "paretune/config.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <system_error>

namespace paretune {

namespace {

std::atomic<const TorchRuntime*> g_runtime{nullptr};

#if PARETUNE_WITH_TORCH
namespace fs = std::filesystem;

constexpr const char* kModuleFile = "libparetune-torch.so";

/// Where the module may be, best first: the user's choice, beside the installed binaries, the
/// build tree this binary came from.
std::vector<fs::path> candidates() {
    std::vector<fs::path> paths;
    if (const char* chosen = std::getenv("PARETUNE_TORCH_MODULE"); chosen && *chosen) {
        paths.emplace_back(chosen);
        return paths;
    }
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        paths.push_back(exe.parent_path() / PARETUNE_TORCH_MODULE_INSTALL_REL / kModuleFile);
    }
#ifdef PARETUNE_TORCH_MODULE_BUILD_PATH
    paths.emplace_back(PARETUNE_TORCH_MODULE_BUILD_PATH);
#endif
    return paths;
}

const TorchRuntime* load() {
    boundOpenMpSpinIfUnset();
    boundBlasSpinIfUnset();
    keepFreedHostMemory();
    std::string tried;
    for (const fs::path& path : candidates()) {
        std::error_code ec;
        if (!fs::is_regular_file(path, ec)) {
            tried += "\n  " + path.string() + ": no such file";
            continue;
        }
        // RTLD_LOCAL: LibTorch's symbols stay out of the global namespace (Qt 5, which it drags
        // in, must never bind the workbench's Qt 6 symbols).
        void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle == nullptr) {
            const char* why = ::dlerror();
            tried += "\n  " + path.string() + ": " + (why ? why : "dlopen failed");
            continue;
        }
        using Entry = const TorchRuntime* (*)(std::uint32_t, const char**);
        auto entry = reinterpret_cast<Entry>(::dlsym(handle, "paretune_torch_runtime"));
        if (entry == nullptr) {
            tried += "\n  " + path.string() + ": not a Paretune LibTorch module";
            ::dlclose(handle);
            continue;
        }
        const char* version = "";
        const TorchRuntime* runtime = entry(kTorchRuntimeAbi, &version);
        if (runtime == nullptr || std::string(version) != PARETUNE_VERSION) {
            tried += "\n  " + path.string() + ": built for Paretune " + version + " (this is " +
                     PARETUNE_VERSION + "); reinstall or rebuild";
            ::dlclose(handle);
            continue;
        }
        return runtime; // the handle stays open for the life of the process
    }
    throw TorchUnavailable("the LibTorch module (" + std::string(kModuleFile) +
                           ") could not be loaded; profiling, validation and the predictor "
                           "need it. Tried:" +
                           tried);
}
#endif

} // namespace

const TorchRuntime& torchRuntime() {
#if PARETUNE_WITH_TORCH
    static std::mutex mutex;
    if (const TorchRuntime* r = g_runtime.load(std::memory_order_acquire)) {
        return *r;
    }
    const std::lock_guard<std::mutex> lock(mutex);
    if (const TorchRuntime* r = g_runtime.load(std::memory_order_acquire)) {
        return *r;
    }
    const TorchRuntime* r = load(); // a failure is retried on the next call
    g_runtime.store(r, std::memory_order_release);
    return *r;
#else
    throw TorchUnavailable("this build of Paretune has no LibTorch (PARETUNE_WITH_TORCH=OFF): "
                           "profiling, validation and the predictor are not available");
#endif
}

bool torchRuntimeLoaded() {
    return g_runtime.load(std::memory_order_acquire) != nullptr;
}

std::optional<TorchModuleFlavour> torchModuleFlavour() {
#if PARETUNE_WITH_TORCH
    for (const fs::path& path : candidates()) {
        std::error_code ec;
        if (!fs::is_regular_file(path, ec)) {
            continue;
        }
        TorchModuleFlavour flavour;
        flavour.modulePath = path.string();
        std::ifstream in(path.parent_path() / "libparetune-torch.flavour");
        std::string key;
        std::string value;
        while (in >> key >> value) {
            if (key == "libtorch") {
                flavour.libtorchVersion = value;
            } else if (key == "cuda") {
                flavour.cuda = value == "1";
            }
        }
        return flavour;
    }
#endif
    return std::nullopt;
}

std::string torchFlavourAdvice() {
    const std::string how =
        "the CUDA flavour is built with `scripts/install-deps --cuda` and `scripts/dev "
        "build-cuda` (or against an existing PyTorch: README, \"CUDA flavour\") and chosen with "
        "PARETUNE_TORCH_MODULE=build/cuda/lib/paretune/libparetune-torch.so";
    const std::optional<TorchModuleFlavour> flavour = torchModuleFlavour();
    if (!flavour) {
        return "this Paretune has no LibTorch module; " + how;
    }
    const std::string version =
        flavour->libtorchVersion.empty() ? std::string() : " " + flavour->libtorchVersion;
    if (!flavour->cuda) {
        return "this Paretune's LibTorch module is the CPU flavour (LibTorch" + version +
               " without CUDA, " + flavour->modulePath + "); " + how;
    }
    return "this Paretune's LibTorch module is the CUDA flavour (LibTorch" + version + ", " +
           flavour->modulePath + ")";
}

std::string cudaDeviceRefusal(const std::string& id, int cudaIndex, int cudaDevices) {
    if (id.rfind("cuda:", 0) != 0 && cudaIndex < 0) {
        return {};
    }
    const std::optional<TorchModuleFlavour> flavour = torchModuleFlavour();
    const bool attached = cudaIndex >= 0 && cudaIndex < cudaDevices;
    if (attached && flavour && flavour->cuda) {
        return {};
    }
    const std::string here =
        cudaDevices == 0 ? "this machine has no CUDA device"
        : cudaDevices == 1
            ? "this machine has 1 CUDA device (cuda:0)"
            : "this machine has " + std::to_string(cudaDevices) +
                  " CUDA devices (cuda:0..cuda:" + std::to_string(cudaDevices - 1) + ")";
    return id + ": " + (attached ? "" : "no such device here; ") + here + "; " +
           torchFlavourAdvice();
}

} // namespace paretune
