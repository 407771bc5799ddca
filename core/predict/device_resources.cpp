// SPDX-License-Identifier: GPL-3.0-or-later
#include "device_resources.h"

#include "cost/cost_table.h"
#include "device/device.h"
#include "device/device_fingerprint.h"
#include "store/sample_library.h"

#include <cstdio>
#include <optional>
#include <string>
#include <utility>

namespace paretune {

namespace {

/// "CPU 0" or "CPUs 0, 8".
std::string cpusText(const std::vector<std::int32_t>& cpus) {
    std::string text = cpus.size() == 1 ? "CPU " : "CPUs ";
    for (std::size_t i = 0; i < cpus.size(); ++i) {
        text += (i == 0 ? "" : ", ") + std::to_string(cpus[i]);
    }
    return text;
}

std::string factorText(double factor) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", factor);
    return text;
}

} // namespace

Diagnostics applyDeviceResources(CostTable& table, const std::vector<Device>& realDevices,
                                 const SampleLibrary* library) {
    // The table's devices that are real CPU devices, with their fingerprints.
    struct Matched {
        std::int32_t index;
        const Device* device;
        std::string fingerprint;
    };
    std::vector<Matched> matched;
    for (std::int32_t d = 0; d < table.deviceCount(); ++d) {
        for (const Device& real : realDevices) {
            if (real.isCpu() && real.id == table.device(d).id) {
                matched.push_back({d, &real, deviceFingerprint(real)});
                break;
            }
        }
    }
    // Exclusive pairs, each reported once, under the device with more CPUs (`cpu`, not cpu:N).
    std::vector<std::vector<std::pair<const Device*, std::string>>> shared(matched.size());
    for (std::size_t i = 0; i < matched.size(); ++i) {
        for (std::size_t j = i + 1; j < matched.size(); ++j) {
            const std::vector<std::int32_t> common =
                sharedCpus(*matched[i].device, *matched[j].device);
            if (common.empty()) {
                continue;
            }
            table.setExclusive(matched[i].index, matched[j].index);
            const bool iOwns = matched[i].device->cpus.size() >= matched[j].device->cpus.size();
            shared[iOwns ? i : j].emplace_back(matched[iOwns ? j : i].device, cpusText(common));
        }
    }
    Diagnostics notes;
    for (std::size_t i = 0; i < matched.size(); ++i) {
        const Matched& a = matched[i];
        const std::string& id = a.device->id;
        if (shared[i].size() == 1) {
            notes.push_back({Diagnostic::Severity::Info, "shared-cores",
                             id + " and " + shared[i][0].first->id + " share " +
                                 shared[i][0].second + ": never run at once"});
        } else if (!shared[i].empty()) {
            std::string list;
            for (const auto& [device, cpus] : shared[i]) {
                list += (list.empty() ? "" : ", ") + cpus + " with " + device->id;
            }
            notes.push_back({Diagnostic::Severity::Info, "shared-cores",
                             id + " shares " + list + ": never runs at once with them"});
        }
    }
    // Contention of each device beside each device it can run with, one note per device.
    for (const Matched& a : matched) {
        std::string measured; // "cpu:1: contention 1.12 (measured 2026-12-01), beside …"
        std::string missing;  // "cpu:2, cpu:3"
        for (const Matched& b : matched) {
            if (a.index == b.index || !sharedCpus(*a.device, *b.device).empty()) {
                continue;
            }
            const std::optional<ContentionRecord> stored =
                library != nullptr ? library->contention(a.fingerprint, b.fingerprint)
                                   : std::nullopt;
            if (!stored) {
                missing += (missing.empty() ? "" : ", ") + b.device->id;
                continue;
            }
            table.setContention(a.index, b.index, stored->factor, CostSource::Measured);
            measured += std::string(measured.empty() ? "" : ", beside ") + b.device->id +
                        ": contention " + factorText(stored->factor) + " (measured " +
                        stored->measuredAt.substr(0, 10) + ")";
        }
        const std::string& id = a.device->id;
        if (!measured.empty()) {
            notes.push_back(
                {Diagnostic::Severity::Info, "contention-measured", id + " beside " + measured});
        }
        if (!missing.empty()) {
            notes.push_back({Diagnostic::Severity::Info, "contention-not-measured",
                             id + " beside " + missing +
                                 ": contention not measured yet, none assumed (paretune "
                                 "profile MODEL --device " +
                                 id + " measures it)"});
        }
    }
    return notes;
}

Diagnostics applyMeasuredLinks(CostTable& table, const std::vector<Device>& realDevices,
                               const SampleLibrary* library) {
    std::vector<std::pair<std::int32_t, const Device*>> cpus;
    std::vector<std::pair<std::int32_t, const Device*>> gpus;
    for (std::int32_t d = 0; d < table.deviceCount(); ++d) {
        for (const Device& real : realDevices) {
            if (real.id != table.device(d).id || real.tag != DeviceTag::Real) {
                continue;
            }
            if (real.isCpu()) {
                cpus.emplace_back(d, &real);
            } else if (real.cudaIndex >= 0) {
                gpus.emplace_back(d, &real);
            }
        }
    }
    Diagnostics notes;
    for (const auto& [gpu, device] : gpus) {
        const std::optional<BenchmarkRecord> stored =
            library != nullptr ? library->newestHostLink(deviceFingerprint(*device)) : std::nullopt;
        if (!stored) {
            notes.push_back({Diagnostic::Severity::Info, "link-not-measured",
                             device->id +
                                 " and the host: link not measured yet, the catalog's modelled "
                                 "figures stay (paretune profile MODEL --device " +
                                 device->id + " measures it)"});
            continue;
        }
        const HostLinkFigures& link = *stored->hostLink;
        int changed = 0;
        for (const auto& [cpu, cpuDevice] : cpus) {
            changed += table.setHopFigures(cpu, gpu, link.latencyUs, link.h2dGbs * 1e3,
                                           CostSource::Measured);
            changed += table.setHopFigures(gpu, cpu, link.latencyUs, link.d2hGbs * 1e3,
                                           CostSource::Measured);
        }
        if (changed == 0) {
            continue; // no CPU device of the table talks to this GPU directly
        }
        char text[160];
        std::snprintf(text, sizeof text,
                      " and the host: measured link, %.1f GB/s to the GPU, %.1f GB/s back, "
                      "%.1f µs (measured %s)",
                      link.h2dGbs, link.d2hGbs, link.latencyUs,
                      stored->measuredAt.substr(0, 10).c_str());
        notes.push_back({Diagnostic::Severity::Info, "link-measured", device->id + text});
    }
    return notes;
}

Diagnostics applyMachineResources(CostTable& table, const SampleLibrary* library) {
    Diagnostics notes = applyDeviceResources(table, cpuDevices(cpuTopology()), library);
    bool gpu = false;
    for (const CostDevice& d : table.devices()) {
        gpu = gpu || d.id.starts_with("cuda:");
    }
    if (gpu) {
        const Diagnostics links = applyMeasuredLinks(table, discoverDevices().devices, library);
        notes.insert(notes.end(), links.begin(), links.end());
    }
    return notes;
}

} // namespace paretune
