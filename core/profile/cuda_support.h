// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to the LibTorch module: what the runner, the executor and the micro-benchmark need of
// CUDA, behind plain types. Compiled with LibTorch's CUDA headers only when the LibTorch found
// has CUDA (PARETUNE_TORCH_CUDA, the CUDA flavour); elsewhere (Debian's LibTorch 1.13) every
// function reports that CUDA is not there, so the callers compile and fail with a message.

#include "device/micro_benchmark.h"

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <string>

namespace paretune::detail {

/// Whether this module was compiled against a LibTorch with CUDA.
bool builtWithCuda();

/// Empty when `cudaIndex` names a CUDA device LibTorch can use now; else why not, naming the
/// flavour ("this LibTorch module has no CUDA (the CPU flavour, LibTorch 1.13.1) ...",
/// "cuda:3: LibTorch sees 1 CUDA device (cuda:0)").
std::string cudaUnusable(int cudaIndex);

/// The CUDA version LibTorch was built with ("13.2"), the cuDNN version it loaded (e.g. 92600)
/// and the number of devices it sees; empty / 0 without CUDA.
std::string torchCudaVersion();
int cudnnVersion();
int cudaDeviceCount();

/// Makes `cudaIndex` the calling thread's current device for the scope's lifetime.
class CudaDeviceScope {
public:
    explicit CudaDeviceScope(int cudaIndex);
    ~CudaDeviceScope();
    CudaDeviceScope(const CudaDeviceScope&) = delete;
    CudaDeviceScope& operator=(const CudaDeviceScope&) = delete;

private:
    int m_previous = -1;
};

/// Microseconds of one call of `run`, from CUDA events recorded before and after it on the
/// device's current stream (the one its kernels are launched on), waiting for the second.
double timeOnCudaUs(int cudaIndex, const std::function<void()>& run);

/// Waits until the device's current stream has finished what was queued on it.
void synchronizeCuda(int cudaIndex);

/// LibTorch's caching allocator on the device: resets its peak statistics; the peak bytes
/// allocated since (tensors and workspace; not the allocator's reserved but unused blocks).
void resetCudaPeak(int cudaIndex);
std::int64_t cudaPeakBytes(int cudaIndex);
std::int64_t cudaAllocatedBytes(int cudaIndex); ///< held by tensors now

/// A tensor copied to `target` as a runtime would move it between host and GPU: a host source
/// goes through a pinned (page-locked) staging buffer and an asynchronous copy on the GPU's
/// current stream; a GPU source is copied asynchronously into a pinned host buffer, and an event
/// recorded after the copy is waited for before the value is returned (a CPU consumer reads it
/// at once). A copy between two GPUs, or within one device, is a plain copy.
at::Tensor copyAcross(const at::Tensor& source, const c10::Device& target);

/// The GPU micro-benchmark (GEMM, memory bandwidth, launch overhead, host<->device copies,
/// pinned and pageable); throws std::runtime_error when the device is not usable.
GpuMicroBenchmark runGpuMicroBenchmark(int cudaIndex, bool quick);

} // namespace paretune::detail
