// SPDX-License-Identifier: GPL-3.0-or-later
// Whether this LibTorch's CPU kernels run the fp16 variant's operators (runtime/torch_impl.h):
// tried, not assumed, because it is a property of the LibTorch version (1.13's CPU Conv has no
// Half kernel; later versions add some).
#include "runtime/torch_impl.h"

#include <ATen/ATen.h>
#include <torch/version.h>

#include <mutex>

namespace paretune {

std::string torch_impl::cpuHalfRefusal() {
    static std::once_flag once;
    static std::string refusal;
    std::call_once(once, [] {
        const auto options = at::TensorOptions().dtype(at::kHalf).device(at::kCPU);
        const auto firstLine = [](const std::string& what) {
            return what.substr(0, what.find('\n'));
        };
        try {
            (void)at::conv2d(at::ones({1, 2, 4, 4}, options), at::ones({2, 2, 3, 3}, options));
        } catch (const c10::Error& e) {
            refusal = "LibTorch " + std::string(TORCH_VERSION) +
                      "'s CPU kernels do not run Conv in float16 (" +
                      firstLine(e.what_without_backtrace()) + ")";
            return;
        }
        try {
            (void)at::matmul(at::ones({2, 3}, options), at::ones({3, 2}, options));
            (void)at::addmm(at::ones({2}, options), at::ones({2, 3}, options),
                            at::ones({3, 2}, options));
        } catch (const c10::Error& e) {
            refusal = "LibTorch " + std::string(TORCH_VERSION) +
                      "'s CPU kernels do not run MatMul or Gemm in float16 (" +
                      firstLine(e.what_without_backtrace()) + ")";
        }
    });
    return refusal;
}

} // namespace paretune
