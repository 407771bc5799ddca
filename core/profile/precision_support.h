// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Which real devices run which precision variant (issue 17: "fp16 where a device supports it").
// Lowering says which nodes a precision can spell (graph/precision.h); this says whether a
// device of this machine can run them, so that profiling refuses before it starts and a search
// leaves the cells of a device that cannot run a precision unsupported. Modelled devices are
// the catalog's business (its "precisions" peaks).
#include "graph/precision.h"

#include <string>

namespace paretune {

struct Device;

/// Empty when the real device `device` runs nodes in `precision`; else one sentence naming the
/// device and why not. fp32 and bf16 run on every CPU and CUDA device. int8 runs on CPU devices
/// only (LibTorch's quantized engine). fp16 runs on CUDA devices, and on a CPU device only when
/// the CPU has AVX512-FP16 and this LibTorch's CPU kernels run a Conv and a matrix product in
/// float16 (torchCpuHalfRefusal: tried once, loading LibTorch; LibTorch 1.13's do not). A
/// modelled device gets an empty answer (its catalog decides). Never throws.
std::string precisionRefusal(const Device& device, Precision precision);

/// Empty when the real device runs nodes in `variant`: its precision there (precisionRefusal),
/// and its intra-op threads (-tN) on a CPU device of more than N CPUs (one thread per CPU is the
/// device's own). Else one sentence naming the device and why not. Never throws.
std::string variantRefusal(const Device& device, Variant variant);

} // namespace paretune
