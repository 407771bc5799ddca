// SPDX-License-Identifier: GPL-3.0-or-later
#include "int8_products.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace paretune {

namespace {

bool readCpuid() {
#if defined(__x86_64__)
    unsigned a = 0;
    unsigned b = 0;
    unsigned c = 0;
    unsigned d = 0;
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) {
        return false;
    }
    const bool avx512Vnni = (c & (1u << 11)) != 0;
    const bool amxInt8 = (d & (1u << 25)) != 0;
    bool avxVnni = false;
    if (a >= 1 && __get_cpuid_count(7, 1, &a, &b, &c, &d) != 0) {
        avxVnni = (a & (1u << 4)) != 0;
    }
    return avx512Vnni || avxVnni || amxInt8;
#else
    return true;
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
}

std::string sensitivityInputsKey(std::string_view inputsKey, std::string_view precision,
                                 int levels) {
    std::string key(inputsKey);
    if (precision == "int8" && levels != 255) {
        key += kSevenBitSuffix;
    }
    return key;
}

bool sensitivityKeyFitsLevels(std::string_view storedKey, std::string_view precision, int levels) {
    return precision != "int8" || storedKey.ends_with(kSevenBitSuffix) == (levels != 255);
}

} // namespace paretune
