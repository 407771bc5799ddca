// SPDX-License-Identifier: GPL-3.0-or-later
#include "device_memory.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <torch/version.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <mutex>
#include <unordered_map>

namespace paretune::detail {

namespace {

constexpr int kSlots = 256;

struct Counter {
    std::atomic<std::int64_t> current{0};
    std::atomic<std::int64_t> peak{0};
    bool inUse = false; ///< guarded by Registry::mutex
};

/// Which live allocation counts for which counter. Never destroyed: tensors may be freed while
/// the process exits.
struct Registry {
    std::mutex mutex;
    std::unordered_map<void*, std::pair<std::int64_t, int>> live; ///< data → (bytes, slot)
    std::array<Counter, kSlots> counters;
};

Registry& registry() {
    static Registry* r = new Registry;
    return *r;
}

thread_local int t_slot = -1;

c10::Allocator* g_inner = nullptr; ///< LibTorch's CPU allocator, behind the counting one

void countedDelete(void* data) {
    if (data == nullptr) {
        return;
    }
    Registry& r = registry();
    {
        std::lock_guard<std::mutex> lock(r.mutex);
        const auto found = r.live.find(data);
        if (found != r.live.end()) {
            r.counters[static_cast<std::size_t>(found->second.second)].current.fetch_sub(
                found->second.first, std::memory_order_relaxed);
            r.live.erase(found);
        }
    }
    g_inner->raw_deleter()(data);
}

/// Forwards to LibTorch's allocator; an allocation on a tagged thread is also counted. Its
/// pointers are the inner allocator's (data and context the same), so either deleter frees
/// them.
class CountingAllocator final : public c10::Allocator {
public:
#if TORCH_VERSION_MAJOR >= 2 // allocate() lost its const; copy_data() came (LibTorch 2.x)
    c10::DataPtr allocate(std::size_t bytes) override {
#else
    c10::DataPtr allocate(std::size_t bytes) const override {
#endif
        c10::DataPtr inner = g_inner->allocate(bytes);
        const int slot = t_slot;
        if (slot < 0 || inner.get() == nullptr || inner.get() != inner.get_context()) {
            return inner;
        }
        void* data = inner.release_context();
        Registry& r = registry();
        {
            std::lock_guard<std::mutex> lock(r.mutex);
            r.live.emplace(data, std::make_pair(static_cast<std::int64_t>(bytes), slot));
        }
        Counter& c = r.counters[static_cast<std::size_t>(slot)];
        const std::int64_t now =
            c.current.fetch_add(static_cast<std::int64_t>(bytes), std::memory_order_relaxed) +
            static_cast<std::int64_t>(bytes);
        std::int64_t peak = c.peak.load(std::memory_order_relaxed);
        while (now > peak && !c.peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
        }
        return {data, data, &countedDelete, c10::Device(c10::DeviceType::CPU)};
    }
    c10::DeleterFnPtr raw_deleter() const override {
        return &countedDelete;
    }
#if TORCH_VERSION_MAJOR >= 2
    void copy_data(void* dest, const void* src, std::size_t count) const override {
        default_copy_data(dest, src, count);
    }
#endif
};

void installOnce() {
    static std::once_flag once;
    std::call_once(once, [] {
        // LibTorch's own allocator, not whatever is set now (the operator profiler's memory
        // probe wraps the current allocator for a moment, and puts it back at priority 0).
        g_inner = c10::GetDefaultCPUAllocator();
        static CountingAllocator counting;
        c10::SetCPUAllocator(&counting, 0);
    });
}

} // namespace

DeviceMemoryCounters::DeviceMemoryCounters(std::size_t devices) {
    installOnce();
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    for (std::size_t s = 0; s < r.counters.size() && m_slots.size() < devices; ++s) {
        if (!r.counters[s].inUse) {
            m_slots.push_back(static_cast<int>(s));
        }
    }
    if (m_slots.size() < devices) {
        m_slots.clear();
        return;
    }
    for (int s : m_slots) {
        Counter& c = r.counters[static_cast<std::size_t>(s)];
        c.inUse = true;
        c.current.store(0);
        c.peak.store(0);
    }
}

DeviceMemoryCounters::~DeviceMemoryCounters() {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    // What is still alive is no longer counted (freed later through LibTorch's allocator).
    for (auto it = r.live.begin(); it != r.live.end();) {
        const int slot = it->second.second;
        it = std::find(m_slots.begin(), m_slots.end(), slot) != m_slots.end() ? r.live.erase(it)
                                                                              : std::next(it);
    }
    for (int s : m_slots) {
        r.counters[static_cast<std::size_t>(s)].inUse = false;
    }
}

DeviceMemoryCounters::ThreadTag::ThreadTag(const DeviceMemoryCounters& counters, std::size_t device)
    : m_previous(t_slot) {
    t_slot = counters.valid() ? counters.m_slots[device] : -1;
}

DeviceMemoryCounters::ThreadTag::~ThreadTag() {
    t_slot = m_previous;
}

void DeviceMemoryCounters::resetPeaks() {
    for (int s : m_slots) {
        Counter& c = registry().counters[static_cast<std::size_t>(s)];
        c.peak.store(c.current.load());
    }
}

std::int64_t DeviceMemoryCounters::peakBytes(std::size_t device) const {
    return valid() ? registry().counters[static_cast<std::size_t>(m_slots[device])].peak.load() : 0;
}

std::int64_t DeviceMemoryCounters::currentBytes(std::size_t device) const {
    return valid() ? registry().counters[static_cast<std::size_t>(m_slots[device])].current.load()
                   : 0;
}

} // namespace paretune::detail
