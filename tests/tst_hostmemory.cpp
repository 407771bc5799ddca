// SPDX-License-Identifier: GPL-3.0-or-later
// The host allocator's settings every measurement runs with (common/host_memory.h), as the
// LibTorch module's loader applies them. Freed memory kept: tst_executor's plansReuseFreedMemory.
#include "common/host_memory.h"
#include "runtime/torch_runtime.h"

#include <QtTest>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <thread>

using namespace paretune;

class TestHostMemory : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void threadsAllocateFromOneArena();
};

void TestHostMemory::threadsAllocateFromOneArena() {
#if defined(__SANITIZE_ADDRESS__)
    QSKIP("AddressSanitizer's allocator stands in for glibc's: its malloc settings do not apply");
#endif
    torchRuntime(); // its loader sets the allocator up, before anything is measured
    if (mallocArenaPolicy() != "one") {
        QSKIP("this environment chose glibc's malloc arenas itself");
    }
    // glibc marks a block of an arena other than the main one in its chunk's size field
    // (NON_MAIN_ARENA, 0x4). A thread started now, as a plan's device threads are, allocates
    // from the main arena: a tensor is made and freed in one arena, whichever threads produce
    // and last read it.
    bool mainArena = false;
    std::thread([&mainArena] {
        void* block = std::malloc(4096);
        if (block == nullptr) {
            return;
        }
        // The chunk's size field sits just before the block: read through a pointer the
        // compiler cannot trace back to the allocation.
        char* volatile at = static_cast<char*>(block) - sizeof(std::size_t);
        std::size_t header = 0;
        std::memcpy(&header, at, sizeof header);
        mainArena = (header & 0x4) == 0;
        std::free(block);
    }).join();
    QVERIFY(mainArena);
}

QTEST_GUILESS_MAIN(TestHostMemory)
#include "tst_hostmemory.moc"
