// SPDX-License-Identifier: GPL-3.0-or-later
#include "cpu_bf16.h"

#include "cpuid_registers.h"

namespace paretune {

namespace {

bool readCpuid() {
#if defined(__x86_64__)
    const auto leaf1 = cpuid(1);
    if (!leaf1 || (leaf1->ecx & (1u << 27)) == 0) {
        return false; // no OSXSAVE: XCR0 cannot be read
    }
    unsigned xcr0 = 0;
    unsigned xcr0High = 0;
    __asm__("xgetbv" : "=a"(xcr0), "=d"(xcr0High) : "c"(0));
    constexpr unsigned kAvx512State = 0xE6; // SSE, AVX, opmask, ZMM0-15 high halves, ZMM16-31
    const auto leaf7 = cpuid(7, 0);
    if ((xcr0 & kAvx512State) != kAvx512State || !leaf7) {
        return false;
    }
    const bool amxBf16 = (leaf7->edx & (1u << 22)) != 0;
    const auto leaf71 = leaf7->eax >= 1 ? cpuid(7, 1) : std::nullopt;
    const bool avx512Bf16 = leaf71 && (leaf71->eax & (1u << 5)) != 0;
    return avx512Bf16 || amxBf16;
#else
    return false;
#endif
}

} // namespace

bool cpuComputesBf16Natively() {
    static const bool native = readCpuid();
    return native;
}

std::string_view loweredConvolutionLayout() {
    return cpuComputesBf16Natively() ? "channels-last" : "nchw";
}

} // namespace paretune
