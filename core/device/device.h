// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/diagnostic.h"

#include <cstdint>
#include <string>
#include <vector>

namespace paretune {

struct DeviceCatalog;

/// Whether a device exists on this machine (and can be profiled) or only in a catalog.
enum class DeviceTag { Real, Modelled };

const char* deviceTagName(DeviceTag tag); ///< "real" / "modelled"

/// What libcpuinfo says about this machine's CPU, restricted to the logical processors this
/// process may run on. `coreProcessors[c]` lists the Linux CPU ids of physical core c (its SMT
/// siblings), sorted; cores are in cpuinfo's order.
struct CpuTopology {
    std::string name; ///< package name, e.g. "Intel Xeon Platinum 8480+"
    std::int32_t physicalCores = 0;
    std::int32_t logicalProcessors = 0;
    std::int64_t l1dBytes = 0; ///< per core
    std::int64_t l2Bytes = 0;  ///< per core (the L2 instance of core 0)
    std::int64_t l3Bytes = 0;  ///< total of the distinct L3 instances
    bool avx2 = false;
    bool avx512f = false;
    bool fma3 = false;
    bool avx512fp16 = false; ///< float16 arithmetic (CPUID.7.0:EDX[23]; libcpuinfo 0.0 lacks it)
    std::vector<std::vector<std::int32_t>> coreProcessors;
};

/// A device as the rest of the tool sees it: a plain value. CPU devices carry the Linux CPU ids
/// they pin to; `cpu` holds every allowed core, `cpu:N` the logical processors of physical core N
/// only, so the `cpu:N` devices are disjoint and can run at the same time. GPU devices carry the
/// CUDA properties; modelled devices the catalog's figures. Figures that do not apply are 0.
struct Device {
    std::string id;   ///< "cpu", "cpu:0", "cuda:0", or the catalog id
    std::string kind; ///< "cpu", "gpu", "npu", "dsp", …
    std::string name; ///< model name
    DeviceTag tag = DeviceTag::Real;

    // CPU
    std::vector<std::int32_t> cpus; ///< Linux CPU ids the device pins to (sorted); CPU only
    std::int32_t cores = 0;         ///< physical cores (CPU) or SMs (GPU)
    std::int64_t l1dBytes = 0;
    std::int64_t l2Bytes = 0; ///< total over the device's cores
    std::int64_t l3Bytes = 0; ///< shared last-level cache the device can use
    bool avx2 = false;
    bool avx512f = false;
    bool fma3 = false;
    bool avx512fp16 = false; ///< not in the device's fingerprint (a feature, not an identity)

    // GPU
    std::int32_t cudaIndex = -1;
    std::int32_t computeMajor = 0;
    std::int32_t computeMinor = 0;
    double clockMhz = 0.0;

    // GPU and modelled devices
    std::int64_t memoryBytes = 0;

    // Modelled devices (the catalog's figures)
    double peakGflops = 0.0;
    double memBwGbs = 0.0;

    bool isCpu() const { return kind == "cpu" && tag == DeviceTag::Real; }
};

/// The CPU as libcpuinfo reports it. Throws std::runtime_error when libcpuinfo cannot be
/// initialised (an internal error: every supported machine has a readable CPU description).
/// The set of allowed processors is the process's CPU affinity read the first time this is
/// called, so a thread pinned later does not shrink the device list.
const CpuTopology& cpuTopology();

/// Builds the device list from a topology (pure; used by discoverDevices and by tests):
/// `cpu`, then `cpu:0` … `cpu:N-1`, one per physical core.
std::vector<Device> cpuDevices(const CpuTopology& topology);

/// The Linux CPU ids both devices pin to, sorted; empty when their CPU sets are disjoint (then
/// they can run at the same time). `cpu` shares every CPU of `cpu:N`.
std::vector<std::int32_t> sharedCpus(const Device& a, const Device& b);

/// The devices of a catalog, tagged Modelled (they are never profiled), with the catalog's
/// figures. Name is the id (catalogs carry no model name).
std::vector<Device> catalogDevices(const DeviceCatalog& catalog);

/// The device list and what a user should know about how it was made.
struct DeviceInventory {
    std::vector<Device> devices;
    /// Non-fatal remarks: why there is no CUDA device, catalog entries left out, …
    Diagnostics diagnostics;

    const Device* find(const std::string& id) const;
};

/// Every device of this machine: the CPU devices, then `cuda:K` for each GPU the CUDA runtime
/// sees (none without a GPU or driver: not an error, a note says why), then, when `catalog` is
/// given, its devices tagged Modelled. A catalog entry whose id is already taken by a real
/// device is left out with a note (the real device wins), so ids are unique. Throws
/// std::runtime_error only when libcpuinfo fails.
DeviceInventory discoverDevices(const DeviceCatalog* catalog = nullptr);

/// Pins the calling thread to the device's CPU set (sched_setaffinity on the thread). Returns
/// an empty string on success, otherwise a message naming the device and the reason (not a
/// CPU device, a CPU outside the allowed set, or the errno text). Never throws.
std::string pinCurrentThread(const Device& device);

/// Pins the calling thread to a set of CPU ids; the primitive under pinCurrentThread and
/// ScopedCpuAffinity. Returns an empty string on success, otherwise the reason. Never throws.
std::string pinCurrentThreadTo(const std::vector<int>& cpus);

} // namespace paretune
