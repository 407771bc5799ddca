#include "common/openmp_wait.h"

#include <cstdlib>

#include <unistd.h>

namespace paretune {

namespace {
constexpr const char* kVariable = "OMP_WAIT_POLICY";
} // namespace

void restartWithPassiveOpenMpWait(char** argv) {
    if (argv == nullptr || argv[0] == nullptr || std::getenv(kVariable) != nullptr) {
        return;
    }
    if (::setenv(kVariable, "passive", 1) != 0) {
        return;
    }
    ::execv("/proc/self/exe", argv);
    // Only reached when the exec failed: this process's libgomp keeps its default.
    ::unsetenv(kVariable);
}

std::string openMpWaitPolicy() {
    const char* value = std::getenv(kVariable);
    return value != nullptr ? std::string(value) : std::string("default");
}

} // namespace paretune
