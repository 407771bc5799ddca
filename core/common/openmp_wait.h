// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace paretune {

/// LibTorch's intra-op threads come from libgomp. Unless told otherwise (OMP_WAIT_POLICY,
/// GOMP_SPINCOUNT), an idle libgomp thread spins about 300,000 times (libgomp's estimate: 3 ms)
/// before it sleeps. When another process shares a core, a thread spinning at a barrier keeps
/// its core while the thread it waits for cannot run: an op on a multi-threaded device then
/// took 4, 8 or 32 ms instead of microseconds. Measured on a 2-core machine with a compiler
/// running beside: MobileNet-V2's operators on `cpu` summed to 1.52 s spinning that long and
/// 33 ms with OMP_WAIT_POLICY=passive (no spinning at all).
///
/// Passive has its own cost: every parallel region wakes its sleeping helper threads, and a
/// node runs several. On an idle 2-core machine (Intel Xeon with AMX), MobileNet-V2 all on
/// `cpu` ran 15.5 and 22.5 ms passive, slower than all on one core (13.2–13.8 ms), and 10.6 and
/// 10.8 ms with a spin of 5,000 (libgomp's estimate: 50 µs); a plan mixing `cpu` with `cpu:0` and
/// `cpu:1` 22.9 / 20.3 ms. Beside two busy loops, one on each core, the short spin cost 4–20 %
/// (all on `cpu` 180–205 ms passive, 202–212 ms spinning; interleaved, 10 runs each).
///
/// Bounds the spin at 5,000 (GOMP_SPINCOUNT) unless OMP_WAIT_POLICY or GOMP_SPINCOUNT is set
/// already (the user's choice wins). libgomp reads both once, when it is loaded: this is called
/// by the LibTorch module's loader (runtime/torch_runtime.h) before it opens the module; a
/// program that links LibTorch directly must call it before main (or be started with them set).
void boundOpenMpSpinIfUnset();

/// The wait policy this process's OpenMP threads run with: the value of OMP_WAIT_POLICY when it
/// is set, else "spin N" for GOMP_SPINCOUNT=N, else "default". Stored with every measurement (a
/// sample's config_json).
std::string openMpWaitPolicy();

/// Debian's LibTorch does its fp32 matrix products in OpenBLAS (the pthread build, whose threads
/// are not libgomp's). After each call its idle workers spin with sched_yield for 2^28 cycles
/// (about 0.1 s) before they sleep. A Gemm on `cpu` (two BLAS threads) left a worker spinning
/// through the next run, a third busy thread beside the device's two OpenMP threads on two
/// cores: its parallel regions then waited for a core. MobileNet-V2 all on `cpu`, 100 runs per
/// process, 8 processes each, interleaved: p90 above 25 ms in 4 processes (28–49 ms, medians
/// 11–14 ms) by default, in none with OPENBLAS_THREAD_TIMEOUT=4 (p90 12.3–15.2 ms); the medians
/// were alike (13.0 and 13.2 ms on average).
///
/// Sets OPENBLAS_THREAD_TIMEOUT=4 (a spin of 2^4 cycles) unless it or GOTO_THREAD_TIMEOUT is set
/// already. OpenBLAS reads it when it is loaded: called where boundOpenMpSpinIfUnset is.
void boundBlasSpinIfUnset();

/// OPENBLAS_THREAD_TIMEOUT's value (else GOTO_THREAD_TIMEOUT's), else "default". Stored with
/// every measurement beside the OpenMP policy.
std::string blasThreadTimeout();

} // namespace paretune
