// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/host_memory.h"

#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace paretune {

namespace {

constexpr int kMaxMmapThreshold = 32 * 1024 * 1024; // glibc's HEAP_MAX_SIZE / 2 on 64-bit
constexpr int kNeverTrim = 0x7fffffff;

std::atomic<bool> g_kept{false};

std::atomic<bool> g_oneArena{false};

/// Whether the user set a glibc tunable starting with `tunable` (in GLIBC_TUNABLES) or either
/// environment variable.
bool userSet(const char* tunable, const char* variable, const char* other) {
    const char* tunables = std::getenv("GLIBC_TUNABLES");
    return (tunables != nullptr && std::strstr(tunables, tunable) != nullptr) ||
           std::getenv(variable) != nullptr || std::getenv(other) != nullptr;
}

bool userChoseArenas() {
    return userSet("glibc.malloc.arena_", "MALLOC_ARENA_MAX", "MALLOC_ARENA_TEST");
}

bool userChoseMallocSettings() {
    return userSet("glibc.malloc.", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_");
}

} // namespace

void keepFreedHostMemory() {
    if (!g_oneArena.load() && !userChoseArenas()) {
        g_oneArena.store(::mallopt(M_ARENA_MAX, 1) == 1);
    }
    if (g_kept.load() || userChoseMallocSettings()) {
        return;
    }
    // Setting either also stops glibc from moving the thresholds itself.
    const bool mmapSet = ::mallopt(M_MMAP_THRESHOLD, kMaxMmapThreshold) == 1;
    const bool trimSet = ::mallopt(M_TRIM_THRESHOLD, kNeverTrim) == 1;
    g_kept.store(mmapSet && trimSet);
}

std::string hostMemoryPolicy() {
    if (g_kept.load()) {
        return "kept";
    }
    return userChoseMallocSettings() ? "user" : "default";
}

std::string mallocArenaPolicy() {
    if (g_oneArena.load()) {
        return "one";
    }
    return userChoseArenas() ? "user" : "default";
}

} // namespace paretune
