// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <string_view>

namespace paretune {

/// Whether this CPU multiplies uint8 by int8 exactly in the quantized engines' kernels: with VNNI
/// (AVX512-VNNI, CPUID.7.0:ECX[11]; AVX-VNNI, CPUID.7.1:EAX[4]) or AMX-INT8 (CPUID.7.0:EDX[25]).
/// Without them (AVX2 alone, as on an AMD EPYC of the Zen 3 generation) oneDNN and FBGEMM add
/// pairs of u8 × s8 products in int16 with saturation (vpmaddubsw): measured here, QLinearConv
/// results off by up to 17 steps and a model's int8 products 19 % from fp32 (1.4 % with VNNI).
/// Other architectures' engines (QNNPACK on ARM) multiply exactly. Read once.
bool cpuMultipliesUint8Exactly();

/// The levels a product's uint8 input is quantized over when int8 lowering calibrates its scale
/// (precision.h): 255 where the CPU multiplies exactly, else 127. Inputs in 7 bits make a pair of
/// products at most 2 · 127 · 128 = 32,512, inside int16, so that the engines compute exactly on
/// AVX2 too (FBGEMM's "reduce_range" for the same reason); they cost half a bit of resolution.
/// Products' outputs keep 255 levels (they are not multiplied again before they are dequantized).
int int8InputLevels();

/// The inputs key a sensitivity table in `precision` (the deviation of the outputs when one node
/// at a time is lowered) is stored under: int8's deviations depend on the input levels, so a
/// table measured with 127 adds ":u7" (one measured with 255, as every earlier table was, adds
/// nothing); other precisions' keys are the inputs key.
std::string sensitivityInputsKey(std::string_view inputsKey, std::string_view precision,
                                 int levels = int8InputLevels());
/// Whether a stored sensitivity key in `precision` was measured with these input levels.
bool sensitivityKeyFitsLevels(std::string_view storedKey, std::string_view precision,
                              int levels = int8InputLevels());

} // namespace paretune
