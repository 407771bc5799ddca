// SPDX-License-Identifier: GPL-3.0-or-later
#include "cpu_bf16.h"

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
    if (__get_cpuid(1, &a, &b, &c, &d) == 0 || (c & (1u << 27)) == 0) {
        return false; // no OSXSAVE: XCR0 cannot be read
    }
    unsigned xcr0 = 0;
    unsigned xcr0High = 0;
    __asm__("xgetbv" : "=a"(xcr0), "=d"(xcr0High) : "c"(0));
    constexpr unsigned kAvx512State = 0xE6; // SSE, AVX, opmask, ZMM0-15 high halves, ZMM16-31
    if ((xcr0 & kAvx512State) != kAvx512State || __get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) {
        return false;
    }
    const bool amxBf16 = (d & (1u << 22)) != 0;
    bool avx512Bf16 = false;
    if (a >= 1 && __get_cpuid_count(7, 1, &a, &b, &c, &d) != 0) {
        avx512Bf16 = (a & (1u << 5)) != 0;
    }
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
