// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// CPUID, for the features the kernels' choices depend on (int8_products.h, cpu_bf16.h).

#include <optional>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace paretune {

struct CpuidRegisters {
    unsigned eax = 0;
    unsigned ebx = 0;
    unsigned ecx = 0;
    unsigned edx = 0;
};

/// CPUID of `leaf` and `subleaf`; none where the CPU lacks the leaf, or off x86-64.
inline std::optional<CpuidRegisters> cpuid(unsigned leaf, unsigned subleaf = 0) {
#if defined(__x86_64__)
    CpuidRegisters r;
    if (__get_cpuid_count(leaf, subleaf, &r.eax, &r.ebx, &r.ecx, &r.edx) == 0) {
        return std::nullopt;
    }
    return r;
#else
    (void)leaf;
    (void)subleaf;
    return std::nullopt;
#endif
}

} // namespace paretune
