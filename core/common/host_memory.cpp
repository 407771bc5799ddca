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

bool userChoseArenas() {
    const char* tunables = std::getenv("GLIBC_TUNABLES");
    return (tunables != nullptr && std::strstr(tunables, "glibc.malloc.arena_") != nullptr) ||
           std::getenv("MALLOC_ARENA_MAX") != nullptr ||
           std::getenv("MALLOC_ARENA_TEST") != nullptr;
}

std::atomic<bool> g_oneArena{false};

bool userChoseMallocSettings() {
    const char* tunables = std::getenv("GLIBC_TUNABLES");
    return (tunables != nullptr && std::strstr(tunables, "glibc.malloc.") != nullptr) ||
           std::getenv("MALLOC_MMAP_THRESHOLD_") != nullptr ||
           std::getenv("MALLOC_TRIM_THRESHOLD_") != nullptr;
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
