// SPDX-License-Identifier: GPL-3.0-or-later
#include "dispatch_overhead.h"

#include "cpu_affinity.h"
#include "runtime/torch_impl.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>

namespace paretune {

double torch_impl::dispatchOverheadUs(const std::vector<int>& cpus) {
    constexpr int kCallsPerBatch = 200;
    constexpr int kBatches = 25;
    const ScopedCpuAffinity pin(cpus);
    const int previousThreads = at::get_num_threads();
    at::set_num_threads(std::max<int>(1, static_cast<int>(cpus.size())));
    const at::Tensor a = at::ones({1});
    const at::Tensor b = at::ones({1});
    at::Tensor out = at::empty({1});
    for (int i = 0; i < kCallsPerBatch; ++i) { // warm-up: allocator, dispatcher caches
        at::add_out(out, a, b);
    }
    std::vector<double> perCallUs;
    perCallUs.reserve(kBatches);
    for (int batch = 0; batch < kBatches; ++batch) {
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < kCallsPerBatch; ++i) {
            at::add_out(out, a, b);
        }
        const std::chrono::duration<double, std::micro> elapsed =
            std::chrono::steady_clock::now() - start;
        perCallUs.push_back(elapsed.count() / kCallsPerBatch);
    }
    at::set_num_threads(previousThreads);
    std::nth_element(perCallUs.begin(), perCallUs.begin() + kBatches / 2, perCallUs.end());
    return perCallUs[kBatches / 2];
}

} // namespace paretune
