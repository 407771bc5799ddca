// SPDX-License-Identifier: GPL-3.0-or-later
#include "int8_products.h"

#include "cpuid_registers.h"

namespace paretune {

namespace {

bool readCpuid() {
#if defined(__x86_64__)
    const auto leaf7 = cpuid(7, 0);
    if (!leaf7) {
        return false;
    }
    const bool avx512Vnni = (leaf7->ecx & (1u << 11)) != 0;
    const bool amxInt8 = (leaf7->edx & (1u << 25)) != 0;
    const auto leaf71 = leaf7->eax >= 1 ? cpuid(7, 1) : std::nullopt;
    const bool avxVnni = leaf71 && (leaf71->eax & (1u << 4)) != 0;
    return avx512Vnni || avxVnni || amxInt8;
#else
    return true; // other architectures' engines (QNNPACK on ARM) multiply exactly
#endif
}

} // namespace

bool cpuMultipliesUint8Exactly() {
    static const bool exact = readCpuid();
    return exact;
}

int int8InputLevels() {
    return cpuMultipliesUint8Exactly() ? 255 : 127;
}

namespace {
constexpr std::string_view kSevenBitSuffix = ":u7";

/// int8 and its variants on other threads ("int8-t1"): the same quantized arithmetic.
bool isInt8(std::string_view variant) {
    return variant == "int8" || variant.starts_with("int8-");
}
} // namespace

std::string sensitivityInputsKey(std::string_view inputsKey, std::string_view precision,
                                 int levels) {
    std::string key(inputsKey);
    if (isInt8(precision) && levels != 255) {
        key += kSevenBitSuffix;
    }
    return key;
}

bool sensitivityKeyFitsLevels(std::string_view storedKey, std::string_view precision, int levels) {
    return !isInt8(precision) || storedKey.ends_with(kSevenBitSuffix) == (levels != 255);
}

} // namespace paretune
