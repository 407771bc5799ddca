// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <vector>

namespace paretune {

/// Per-op dispatch overhead of LibTorch on a CPU set, in µs: the median over batches of the
/// time per call of a one-element `add` into a preallocated output, on the calling thread
/// pinned to `cpus` (empty: not pinned) with that many intra-op threads. The work itself is
/// negligible, so this is what every operator pays before computing: the floor under small
/// ops' latency, and one component of the device's micro-benchmark vector. Throws InputError
/// for a CPU set the kernel refuses.
double measureDispatchOverheadUs(const std::vector<int>& cpus);

} // namespace paretune
