// SPDX-License-Identifier: GPL-3.0-or-later
#include "device.h"

#include "cost/device_catalog.h"
#include "device/cuda_devices.h"

#include <cpuinfo.h>
#include <pthread.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <iterator>
#include <set>
#include <stdexcept>
#include <system_error>

namespace paretune {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

/// AVX512-FP16 (CPUID leaf 7, sub-leaf 0, EDX bit 23): float16 arithmetic in AVX-512
/// registers, which Debian's libcpuinfo does not report. Only with AVX-512 itself usable (the
/// OS saves its registers: cpuinfo's avx512f says so).
bool hasAvx512Fp16(bool avx512f) {
#if defined(__x86_64__) || defined(__i386__)
    unsigned a = 0;
    unsigned b = 0;
    unsigned c = 0;
    unsigned d = 0;
    return avx512f && __get_cpuid_count(7, 0, &a, &b, &c, &d) != 0 && (d & (1u << 23)) != 0;
#else
    (void)avx512f;
    return false;
#endif
}

/// The Linux CPU ids this process may run on, or an empty set when the affinity is unreadable.
std::set<std::int32_t> allowedProcessors() {
    std::set<std::int32_t> allowed;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) != 0) {
        return allowed;
    }
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
        if (CPU_ISSET(cpu, &set)) {
            allowed.insert(cpu);
        }
    }
    return allowed;
}

std::string trimmed(const char* text) {
    std::string s(text);
    while (!s.empty() && s.back() == ' ') {
        s.pop_back();
    }
    while (!s.empty() && s.front() == ' ') {
        s.erase(s.begin());
    }
    return s;
}

CpuTopology readTopology() {
    if (!cpuinfo_initialize()) {
        throw std::runtime_error("libcpuinfo could not describe this machine's CPU");
    }
    CpuTopology t;
    const std::set<std::int32_t> allowed = allowedProcessors();
    if (cpuinfo_get_packages_count() > 0) {
        t.name = trimmed(cpuinfo_get_package(0)->name);
    }
    const std::uint32_t coreCount = cpuinfo_get_cores_count();
    for (std::uint32_t c = 0; c < coreCount; ++c) {
        const cpuinfo_core* core = cpuinfo_get_core(c);
        std::vector<std::int32_t> processors;
        for (std::uint32_t p = core->processor_start;
             p < core->processor_start + core->processor_count; ++p) {
            const std::int32_t id = cpuinfo_get_processor(p)->linux_id;
            if (allowed.empty() || allowed.count(id) != 0) {
                processors.push_back(id);
            }
        }
        if (processors.empty()) {
            continue; // a core outside this process's affinity (cgroup cpuset, taskset)
        }
        std::sort(processors.begin(), processors.end());
        t.logicalProcessors += static_cast<std::int32_t>(processors.size());
        t.coreProcessors.push_back(std::move(processors));
    }
    t.physicalCores = static_cast<std::int32_t>(t.coreProcessors.size());
    if (t.physicalCores == 0) {
        throw std::runtime_error("libcpuinfo reported no CPU core this process may run on");
    }
    if (cpuinfo_get_l1d_caches_count() > 0) {
        t.l1dBytes = cpuinfo_get_l1d_cache(0)->size;
    }
    if (cpuinfo_get_l2_caches_count() > 0) {
        t.l2Bytes = cpuinfo_get_l2_cache(0)->size;
    }
    for (std::uint32_t i = 0; i < cpuinfo_get_l3_caches_count(); ++i) {
        t.l3Bytes += cpuinfo_get_l3_cache(i)->size;
    }
#if CPUINFO_ARCH_X86 || CPUINFO_ARCH_X86_64
    t.avx2 = cpuinfo_has_x86_avx2();
    t.avx512f = cpuinfo_has_x86_avx512f();
    t.fma3 = cpuinfo_has_x86_fma3();
#endif
    t.avx512fp16 = hasAvx512Fp16(t.avx512f);
    if (t.name.empty()) {
        t.name = "unknown CPU";
    }
    return t;
}

Device cpuDevice(const CpuTopology& t, std::string id, std::string name,
                 std::vector<std::int32_t> cpus, std::int32_t cores) {
    Device d;
    d.id = std::move(id);
    d.kind = "cpu";
    d.name = std::move(name);
    d.tag = DeviceTag::Real;
    std::sort(cpus.begin(), cpus.end());
    d.cpus = std::move(cpus);
    d.cores = cores;
    d.l1dBytes = t.l1dBytes;
    d.l2Bytes = t.l2Bytes * cores;
    d.l3Bytes = t.l3Bytes;
    d.avx2 = t.avx2;
    d.avx512f = t.avx512f;
    d.fma3 = t.fma3;
    d.avx512fp16 = t.avx512fp16;
    return d;
}

} // namespace

const char* deviceTagName(DeviceTag tag) {
    return tag == DeviceTag::Modelled ? "modelled" : "real";
}

const CpuTopology& cpuTopology() {
    static const CpuTopology topology = readTopology();
    return topology;
}

std::vector<Device> cpuDevices(const CpuTopology& topology) {
    std::vector<Device> devices;
    std::vector<std::int32_t> all;
    for (const std::vector<std::int32_t>& core : topology.coreProcessors) {
        all.insert(all.end(), core.begin(), core.end());
    }
    devices.push_back(cpuDevice(topology, "cpu", topology.name, all, topology.physicalCores));
    for (std::size_t c = 0; c < topology.coreProcessors.size(); ++c) {
        devices.push_back(cpuDevice(topology, "cpu:" + std::to_string(c),
                                    topology.name + " (core " + std::to_string(c) + ")",
                                    topology.coreProcessors[c], 1));
    }
    return devices;
}

std::vector<std::int32_t> sharedCpus(const Device& a, const Device& b) {
    std::vector<std::int32_t> shared;
    std::set_intersection(a.cpus.begin(), a.cpus.end(), b.cpus.begin(), b.cpus.end(),
                          std::back_inserter(shared));
    return shared;
}

std::vector<Device> catalogDevices(const DeviceCatalog& catalog) {
    std::vector<Device> devices;
    for (const DeviceSpec& spec : catalog.devices) {
        Device d;
        d.id = spec.id;
        d.kind = spec.kind;
        d.name = spec.id;
        d.tag = DeviceTag::Modelled;
        d.peakGflops = spec.peakGflops;
        d.memBwGbs = spec.memBwGbs;
        d.memoryBytes = static_cast<std::int64_t>(spec.memoryMb * kMiB);
        devices.push_back(std::move(d));
    }
    return devices;
}

const Device* DeviceInventory::find(const std::string& id) const {
    for (const Device& d : devices) {
        if (d.id == id) {
            return &d;
        }
    }
    return nullptr;
}

DeviceInventory discoverDevices(const DeviceCatalog* catalog) {
    DeviceInventory inventory;
    inventory.devices = cpuDevices(cpuTopology());

    const CudaInventory cuda = discoverCudaDevices();
    for (const CudaDeviceInfo& info : cuda.devices) {
        Device d;
        d.id = "cuda:" + std::to_string(info.index);
        d.kind = "gpu";
        d.name = info.name;
        d.tag = DeviceTag::Real;
        d.cores = info.multiprocessors;
        d.cudaIndex = info.index;
        d.computeMajor = info.computeMajor;
        d.computeMinor = info.computeMinor;
        d.clockMhz = info.clockMhz;
        d.memoryBytes = info.memoryBytes;
        inventory.devices.push_back(std::move(d));
    }
    // Without an NVIDIA driver there is nothing to say on every start: no driver, no GPU (the
    // software line of `paretune devices` shows driver 0). A driver without devices is news.
    if (cuda.devices.empty() && cuda.driverVersion > 0) {
        inventory.diagnostics.push_back(
            {Diagnostic::Severity::Info,
             "no-cuda-device",
             "no CUDA devices" + (cuda.note.empty() ? std::string() : ": " + cuda.note),
             {cuda.note}});
    }

    if (catalog != nullptr) {
        for (Device& d : catalogDevices(*catalog)) {
            if (const Device* real = inventory.find(d.id); real != nullptr) {
                // A catalog describing this machine's devices under their own ids (the bundled
                // catalogs' cpu, cpu:0 …) is the usual case; a different kind under a real id
                // is a mistake worth a warning.
                if (real->kind != d.kind) {
                    inventory.diagnostics.push_back(
                        {Diagnostic::Severity::Warning,
                         "catalog-device-shadowed",
                         catalog->origin + ": catalog device '" + d.id + "' (" + d.kind +
                             ") has the id of this machine's " + real->kind + " '" + d.id +
                             "'; the real device is listed",
                         {catalog->origin, d.id, d.kind, real->kind}});
                }
                continue;
            }
            inventory.devices.push_back(std::move(d));
        }
    }
    return inventory;
}

std::string pinCurrentThreadTo(const std::vector<int>& cpus) {
    if (cpus.empty()) {
        return "an empty CPU set cannot be pinned to";
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    for (const int cpu : cpus) {
        if (cpu < 0 || cpu >= CPU_SETSIZE) {
            return "CPU " + std::to_string(cpu) + " is outside the range sched_setaffinity accepts";
        }
        CPU_SET(static_cast<std::size_t>(cpu), &set);
    }
    const int error = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
    if (error != 0) {
        return "pinning the thread failed: " + std::generic_category().message(error);
    }
    return {};
}

std::string pinCurrentThread(const Device& device) {
    if (!device.isCpu()) {
        return "device '" + device.id +
               "' is not a CPU device of this machine; it cannot be "
               "pinned to";
    }
    if (device.cpus.empty()) {
        return "device '" + device.id + "' has no CPU to pin to";
    }
    const std::string error = pinCurrentThreadTo(device.cpus);
    return error.empty() ? error : "device '" + device.id + "': " + error;
}

} // namespace paretune
