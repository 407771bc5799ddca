// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string_view>

namespace paretune {

/// Whether this CPU computes bfloat16 products in hardware: AVX512_BF16 (CPUID.7.1:EAX[5]) or
/// AMX-BF16 (CPUID.7.0:EDX[22]), with the AVX-512 registers enabled by the OS (XCR0). Without
/// them LibTorch emulates bfloat16 in fp32 arithmetic. Read once.
bool cpuComputesBf16Natively();

/// The memory layout lowered convolutions (bf16; int8's outputs) leave their activations in on
/// this CPU: "channels-last" where the CPU computes bfloat16 natively (oneDNN's kernels for it
/// read and write NHWC, and its channels-last fp32 ones are fast too), else "nchw". The samples
/// measured with it record it in their configuration ("lowered_convolutions").
std::string_view loweredConvolutionLayout();

} // namespace paretune
