// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace paretune {

/// LibTorch allocates every CPU tensor with posix_memalign. glibc serves a block above its mmap
/// threshold with a fresh mapping and unmaps it when freed, and returns the free top of a heap
/// to the kernel past its trim threshold (both thresholds move as the process frees): the next
/// tensor then faults every page in again, zero-filled by the kernel, at about 4 µs a page on
/// this machine kind. Measured here, MobileNet-V2 all on `cpu:0` (paretune validate, 20 runs,
/// three A/B pairs): 24.9–32.2 ms with glibc's defaults, 14.7–20.6 ms with freed memory kept,
/// and 2,800 fewer page faults per run; a depthwise convolution writing 4.6 MiB took 6.7–9.8 ms
/// against 0.9–1.6 ms. Whether a run paid the faults depended on what the process had freed
/// before, so an operator timed alone and the same operator inside a plan differed by up to 2×.
///
/// A deployment runtime keeps its memory between inferences (an arena), and so does Paretune:
/// blocks up to 32 MiB (glibc's largest mmap threshold) come from the heap, and freed memory
/// stays mapped for the next tensor. Called by the LibTorch module's loader
/// (runtime/torch_runtime.h) before anything is measured. Does nothing when the user chose
/// glibc's malloc settings (GLIBC_TUNABLES naming glibc.malloc, MALLOC_MMAP_THRESHOLD_ or
/// MALLOC_TRIM_THRESHOLD_ set): the user's choice wins.
void keepFreedHostMemory();

/// The host allocator's policy the process's measurements run with, stored with every
/// measurement (a sample's config_json): "kept" (keepFreedHostMemory applied), "user" (the
/// user's malloc settings) or "default" (glibc's, with its faults).
std::string hostMemoryPolicy();

} // namespace paretune
