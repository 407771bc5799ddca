// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/openmp_wait.h"

#include <cstdlib>

namespace paretune {

namespace {
constexpr const char* kPolicy = "OMP_WAIT_POLICY";
constexpr const char* kSpinCount = "GOMP_SPINCOUNT";
constexpr const char* kBoundedSpin = "5000";
constexpr const char* kBlasTimeout = "OPENBLAS_THREAD_TIMEOUT";
constexpr const char* kGotoTimeout = "GOTO_THREAD_TIMEOUT";
constexpr const char* kShortBlasTimeout = "4";
} // namespace

void boundOpenMpSpinIfUnset() {
    if (std::getenv(kPolicy) == nullptr && std::getenv(kSpinCount) == nullptr) {
        ::setenv(kSpinCount, kBoundedSpin, 0);
    }
}

std::string openMpWaitPolicy() {
    if (const char* policy = std::getenv(kPolicy); policy != nullptr) {
        return policy;
    }
    if (const char* spin = std::getenv(kSpinCount); spin != nullptr) {
        return std::string("spin ") + spin;
    }
    return "default";
}

void boundBlasSpinIfUnset() {
    if (std::getenv(kBlasTimeout) == nullptr && std::getenv(kGotoTimeout) == nullptr) {
        ::setenv(kBlasTimeout, kShortBlasTimeout, 0);
    }
}

std::string blasThreadTimeout() {
    for (const char* name : {kBlasTimeout, kGotoTimeout}) {
        if (const char* value = std::getenv(name); value != nullptr) {
            return value;
        }
    }
    return "default";
}

} // namespace paretune
