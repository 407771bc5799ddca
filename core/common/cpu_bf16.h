// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string_view>

namespace paretune {

/// Whether this CPU computes bfloat16 products in hardware: AVX512_BF16 (CPUID.7.1:EAX[5]) or
/// AMX-BF16 (CPUID.7.0:EDX[22]), with the AVX-512 registers enabled by the OS (XCR0). Without
/// them LibTorch emulates bfloat16 in fp32 arithmetic. Read once.
bool cpuComputesBf16Natively();

/// The memory layout a bfloat16 convolution runs in on this CPU: "channels-last" where the CPU
/// computes bfloat16 natively (oneDNN's kernels for it read and write NHWC), else "nchw". The
/// samples measured with it record it in their configuration ("bf16_convolutions").
std::string_view bf16ConvolutionLayout();

} // namespace paretune
