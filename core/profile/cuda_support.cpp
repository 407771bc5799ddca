// SPDX-License-Identifier: GPL-3.0-or-later
// CUDA for the LibTorch module (cuda_support.h). The CUDA parts compile only against a LibTorch
// with CUDA (PARETUNE_TORCH_CUDA=1, the CUDA flavour); Debian's LibTorch gets the stubs at the
// end, which say which flavour this is.
#include "cuda_support.h"

#include "common/input_error.h"
#include "runtime/torch_impl.h"

#include <ATen/ATen.h>
#include <ATen/Version.h>
#include <torch/version.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <vector>

#if PARETUNE_TORCH_CUDA
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace paretune::detail {

#if PARETUNE_TORCH_CUDA

namespace {

std::string deviceList(int count) {
    if (count == 0) {
        return "no CUDA device";
    }
    return std::to_string(count) + " CUDA device" + (count == 1 ? "" : "s") + " (cuda:0" +
           (count > 1 ? "..cuda:" + std::to_string(count - 1) : std::string()) + ")";
}

} // namespace

bool builtWithCuda() {
    return true;
}

int cudaDeviceCount() {
    try {
        return static_cast<int>(c10::cuda::device_count());
    } catch (const c10::Error&) {
        return 0;
    }
}

std::string cudaUnusable(int cudaIndex) {
    const int count = cudaDeviceCount();
    if (cudaIndex >= 0 && cudaIndex < count) {
        return {};
    }
    return "cuda:" + std::to_string(cudaIndex) + ": LibTorch " + TORCH_VERSION + " (CUDA " +
           torchCudaVersion() + ", the CUDA flavour) sees " + deviceList(count) +
           (count == 0 ? " (no NVIDIA driver or no GPU on this machine)" : "");
}

std::string torchCudaVersion() {
    // The CUDA LibTorch was built with, from its build settings ("CUDA_VERSION=13.2, ..."): the
    // cudaRuntimeGetVersion this file could call is the static runtime the engine's device
    // discovery links, and the driver-side configuration is empty without a GPU.
    const std::string config = at::show_config();
    const std::string key = "CUDA_VERSION=";
    const std::size_t found = config.find(key);
    if (found == std::string::npos) {
        return {};
    }
    const std::size_t begin = found + key.size();
    return config.substr(begin, config.find_first_of(", \n", begin) - begin);
}

int cudnnVersion() {
    try {
        return at::detail::getCUDAHooks().hasCuDNN()
                   ? static_cast<int>(at::detail::getCUDAHooks().versionCuDNN())
                   : 0;
    } catch (const c10::Error&) {
        return 0;
    }
}

CudaDeviceScope::CudaDeviceScope(int cudaIndex) {
    m_previous = static_cast<int>(c10::cuda::current_device());
    c10::cuda::set_device(static_cast<c10::DeviceIndex>(cudaIndex));
}

CudaDeviceScope::~CudaDeviceScope() {
    if (m_previous >= 0) {
        c10::cuda::set_device(static_cast<c10::DeviceIndex>(m_previous));
    }
}

double timeOnCudaUs(int cudaIndex, const std::function<void()>& run) {
    const auto index = static_cast<c10::DeviceIndex>(cudaIndex);
    const c10::cuda::CUDAStream stream = c10::cuda::getCurrentCUDAStream(index);
    at::cuda::CUDAEvent begin(cudaEventDefault);
    at::cuda::CUDAEvent end(cudaEventDefault);
    begin.record(stream);
    run();
    end.record(stream);
    end.synchronize();
    return static_cast<double>(begin.elapsed_time(end)) * 1000.0;
}

void synchronizeCuda(int cudaIndex) {
    c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(cudaIndex)).synchronize();
}

void resetCudaPeak(int cudaIndex) {
    c10::cuda::CUDACachingAllocator::resetPeakStats(static_cast<c10::DeviceIndex>(cudaIndex));
}

std::int64_t cudaPeakBytes(int cudaIndex) {
    const auto stats =
        c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(cudaIndex));
    return stats.allocated_bytes[0].peak; // index 0: the aggregate over all pools
}

std::int64_t cudaAllocatedBytes(int cudaIndex) {
    const auto stats =
        c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(cudaIndex));
    return stats.allocated_bytes[0].current;
}

at::Tensor copyAcross(const at::Tensor& source, const c10::Device& target) {
    if (source.device() == target) {
        return source.clone();
    }
    if (source.is_cpu() && target.is_cuda()) {
        const c10::cuda::CUDAGuard guard(target.index());
        // Staged through page-locked memory (LibTorch's caching host allocator), then copied
        // asynchronously on the GPU's current stream: the consumer's kernels, queued on the
        // same stream after it, see the data; the host staging buffer stays alive until the
        // copy has run (the allocator records the stream's use of it).
        const at::Tensor pinned = source.is_pinned() ? source : source.pin_memory();
        return pinned.to(target, /*non_blocking=*/true);
    }
    if (source.is_cuda() && target.is_cpu()) {
        const c10::cuda::CUDAGuard guard(source.device().index());
        const c10::cuda::CUDAStream stream =
            c10::cuda::getCurrentCUDAStream(source.device().index());
        at::Tensor host =
            at::empty(source.sizes(), source.options().device(at::kCPU).pinned_memory(true));
        host.copy_(source, /*non_blocking=*/true);
        // The producer's kernels are on this stream before the copy; the CPU consumer reads the
        // buffer after the event that follows the copy.
        at::cuda::CUDAEvent copied(cudaEventDisableTiming);
        copied.record(stream);
        copied.synchronize();
        return host;
    }
    return source.to(target); // GPU to GPU: a peer copy when the devices allow it
}

GpuMicroBenchmark runGpuMicroBenchmark(int cudaIndex, bool quick) {
    if (const std::string why = cudaUnusable(cudaIndex); !why.empty()) {
        throw InputError(why);
    }
    const CudaDeviceScope scope(cudaIndex);
    const c10::Device gpu(c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(cudaIndex));
    const auto onGpu = at::TensorOptions().dtype(at::kFloat).device(gpu);
    const int rounds = quick ? 5 : 20;
    const auto best = [&](const std::function<void()>& run) {
        run(); // warm-up: kernels loaded, workspaces allocated
        synchronizeCuda(cudaIndex);
        double us = 0.0;
        for (int r = 0; r < rounds; ++r) {
            const double t = timeOnCudaUs(cudaIndex, run);
            us = r == 0 ? t : std::min(us, t);
        }
        return std::max(us, 1e-3);
    };
    GpuMicroBenchmark b;
    {
        const std::int64_t n = quick ? 2048 : 4096;
        const at::Tensor a = at::rand({n, n}, onGpu);
        const at::Tensor c = at::rand({n, n}, onGpu);
        at::Tensor out = at::empty({n, n}, onGpu);
        const double us = best([&] { at::mm_out(out, a, c); });
        b.gemmGflops = 2.0 * static_cast<double>(n * n * n) / (us * 1e3);
    }
    {
        const std::int64_t elements = (quick ? 64 : 256) * 1024 * 1024 / 4;
        const at::Tensor src = at::rand({elements}, onGpu);
        at::Tensor dst = at::empty({elements}, onGpu);
        const double us = best([&] { dst.copy_(src); });
        b.memoryBwGbs = 2.0 * static_cast<double>(src.nbytes()) / (us * 1e3);
    }
    {
        at::Tensor one = at::zeros({1}, onGpu);
        const int launches = 1000;
        const double us = best([&] {
            for (int i = 0; i < launches; ++i) {
                one.add_(1.0);
            }
        });
        b.launchUs = us / launches;
    }
    {
        const std::int64_t elements = (quick ? 32 : 128) * 1024 * 1024 / 4;
        const auto host = at::TensorOptions().dtype(at::kFloat);
        const at::Tensor pageable = at::rand({elements}, host);
        const at::Tensor pinned = pageable.pin_memory();
        at::Tensor device = at::empty({elements}, onGpu);
        at::Tensor pinnedBack = at::empty({elements}, host.pinned_memory(true));
        at::Tensor pageableBack = at::empty({elements}, host);
        const auto gbs = [&](double us) {
            return static_cast<double>(pageable.nbytes()) / (us * 1e3);
        };
        b.h2dPinnedGbs = gbs(best([&] { device.copy_(pinned, /*non_blocking=*/true); }));
        b.h2dPageableGbs = gbs(best([&] { device.copy_(pageable); }));
        b.d2hPinnedGbs = gbs(best([&] { pinnedBack.copy_(device, /*non_blocking=*/true); }));
        b.d2hPageableGbs = gbs(best([&] { pageableBack.copy_(device); }));
        const at::Tensor word = at::zeros({1}, host).pin_memory();
        at::Tensor wordOnGpu = at::empty({1}, onGpu);
        b.linkLatencyUs = best([&] { wordOnGpu.copy_(word, /*non_blocking=*/true); });
    }
    return b;
}

#else // Debian's LibTorch (or any LibTorch without CUDA): the CPU flavour

bool builtWithCuda() {
    return false;
}

int cudaDeviceCount() {
    return 0;
}

std::string cudaUnusable(int cudaIndex) {
    return "cuda:" + std::to_string(cudaIndex) + ": this Paretune's LibTorch module is the CPU " +
           "flavour (LibTorch " + TORCH_VERSION + " without CUDA); the CUDA flavour is built " +
           "with `scripts/install-deps --cuda` and `scripts/dev build-cuda` and chosen with " +
           "PARETUNE_TORCH_MODULE=build/cuda/lib/paretune/libparetune-torch.so";
}

std::string torchCudaVersion() {
    return {};
}

int cudnnVersion() {
    return 0;
}

CudaDeviceScope::CudaDeviceScope(int cudaIndex) {
    throw InputError(cudaUnusable(cudaIndex));
}

CudaDeviceScope::~CudaDeviceScope() = default;

double timeOnCudaUs(int cudaIndex, const std::function<void()>&) {
    throw InputError(cudaUnusable(cudaIndex));
}

void synchronizeCuda(int) {}

void resetCudaPeak(int) {}

std::int64_t cudaPeakBytes(int) {
    return -1;
}

std::int64_t cudaAllocatedBytes(int) {
    return 0;
}

at::Tensor copyAcross(const at::Tensor& source, const c10::Device& target) {
    return source.device() == target ? source.clone() : source.to(target);
}

GpuMicroBenchmark runGpuMicroBenchmark(int cudaIndex, bool) {
    throw InputError(cudaUnusable(cudaIndex));
}

#endif

} // namespace paretune::detail

namespace paretune {

TorchCudaInfo torch_impl::cudaInfo() {
    TorchCudaInfo info;
    info.built = detail::builtWithCuda();
    info.cudaVersion = detail::torchCudaVersion();
    info.cudnnVersion = detail::cudnnVersion();
    info.deviceCount = detail::cudaDeviceCount();
    return info;
}

std::string torch_impl::cudaUnusable(int cudaIndex) {
    return detail::cudaUnusable(cudaIndex);
}

GpuMicroBenchmark torch_impl::gpuMicroBenchmark(int cudaIndex, bool quick) {
    return detail::runGpuMicroBenchmark(cudaIndex, quick);
}

} // namespace paretune
