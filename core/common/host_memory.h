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
/// stays mapped for the next tensor. Does nothing of this when the user chose glibc's malloc
/// settings (GLIBC_TUNABLES naming glibc.malloc, MALLOC_MMAP_THRESHOLD_ or
/// MALLOC_TRIM_THRESHOLD_ set): the user's choice wins.
///
/// And one malloc arena for every thread (M_ARENA_MAX 1; not where the user set
/// MALLOC_ARENA_MAX, MALLOC_ARENA_TEST or glibc.malloc.arena_*). By default glibc gives each
/// thread that allocates its own arena, and a plan over two devices runs on two threads: each
/// tensor is made in its producer's arena and freed by its last reader's thread. Measured on a
/// 2-core VM, MobileNet-V2's plan 0 of a tune on `cpu:0,cpu:1` (58 nodes on `cpu:0`, 6 on
/// `cpu:1`, no two at once) against all on `cpu:0`, `paretune validate` of each in turn, 15 runs,
/// 8 pairs: the mixed plan took a median 1.111 and 1.066 times as long as all on `cpu:0` (two
/// sets of pairs) with an arena per thread, 1.038 and 0.997 with one; its nodes, not its
/// handoffs, were slower. The tune loop learned the nodes' times from plans of both kinds and
/// predicted plans mixing the cores short (median −7.7 % over 14 such new plans).
///
/// Called first thing by `paretune` and the workbench, and by the LibTorch module's loader
/// (runtime/torch_runtime.h) for other programs, before anything is measured: glibc fixes a
/// thread's arena when the thread first allocates.
void keepFreedHostMemory();

/// The host allocator's policy the process's measurements run with, stored with every
/// measurement (a sample's config_json): "kept" (keepFreedHostMemory applied), "user" (the
/// user's malloc settings) or "default" (glibc's, with its faults).
std::string hostMemoryPolicy();

/// The malloc arenas the process's threads allocate from, stored beside hostMemoryPolicy: "one"
/// (keepFreedHostMemory set it), "user" (the user's setting) or "default" (one per thread).
std::string mallocArenaPolicy();

} // namespace paretune
