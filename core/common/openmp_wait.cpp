// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/openmp_wait.h"

#include <cstdlib>

namespace paretune {

namespace {
constexpr const char* kVariable = "OMP_WAIT_POLICY";
} // namespace

void setPassiveOpenMpWaitIfUnset() {
    ::setenv(kVariable, "passive", 0);
}

std::string openMpWaitPolicy() {
    const char* value = std::getenv(kVariable);
    return value != nullptr ? std::string(value) : std::string("default");
}

} // namespace paretune
