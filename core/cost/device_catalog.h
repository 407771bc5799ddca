// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graph/precision.h"

#include <nlohmann/json_fwd.hpp>

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace paretune {

/// One device of a catalog: a modelled accelerator (NPU, DSP) or a real device given power
/// figures, memory and links. Units follow the catalog: GFLOP/s and GB/s are 1e9, MB is MiB,
/// times are µs, power is W.
struct DeviceSpec {
    std::string id;
    std::string kind; ///< "cpu", "gpu", "npu", "dsp", …
    /// true when latencies come from the roofline model ("cost": "modelled", the default);
    /// false for a real device ("cost": "measured") whose latencies come from samples.
    bool modelled = true;
    double peakGflops = 0.0;
    double memBwGbs = 0.0;
    double launchUs = 0.0;
    double activeW = 0.0;
    double idleW = 0.0;
    double memoryMb = 0.0;
    double defaultEfficiency = 1.0;
    std::map<std::string, double, std::less<>> opEfficiency;
    std::vector<std::string> unsupportedOps; ///< sorted
    /// Exclusive resources the device occupies while it runs a node ("resources": ["dma0"]):
    /// two devices listing a common one never run at the same time. Sorted, unique. Real CPU
    /// devices get their cores from discovery instead.
    std::vector<std::string> resources;
    /// Memory domain whose bandwidth the device shares ("memory_domain"; empty: its own).
    std::string memoryDomain;
    /// Modelled slowdown of the device's nodes while another device of its memory domain runs
    /// ("contention", >= 1; 1: none; other than 1 only with a memory domain). Measured devices
    /// get the co-run micro-benchmark's figure.
    double contention = 1.0;
    /// Peak GFLOP/s of lower precisions the device runs ("precisions": {"bf16": {"peak_gflops":
    /// 180}}), modelled devices only; a precision not listed is not offered there (its cells
    /// stay unsupported). fp32's peak is peak_gflops. Sorted by precision, unique.
    std::vector<std::pair<Precision, double>> precisionPeaks;

    /// peak_gflops for Fp32, the "precisions" figure for another, 0 where the device lists none.
    double peakGflopsFor(Precision precision) const;
    double efficiency(std::string_view opType) const;
    bool supports(std::string_view opType) const;
    /// Roofline latency in µs:
    /// launch_us + max(flops / (peak_gflops · eff · 1e3), bytes / (mem_bw_gbs · 1e3)).
    double rooflineLatencyUs(std::string_view opType, double flops, double bytes) const;
};

/// A physical link between two devices. A full-duplex link has one serial queue per direction,
/// a half-duplex link one queue shared by both directions.
struct LinkSpec {
    std::string a;
    std::string b;
    double bandwidthGbs = 0.0;
    double latencyUs = 0.0;
    bool fullDuplex = true;

    /// latency_us + bytes / (bandwidth_gbs · 1e3), in µs.
    double transferUs(double bytes) const { return latencyUs + bytes / (bandwidthGbs * 1e3); }
};

/// Store-and-forward path for a device pair without a direct link: src → via… → dst.
struct RouteSpec {
    std::string src;
    std::string dst;
    std::vector<std::string> via;
};

/// A device catalog, schema "paretune.devices/1". Value type; loading validates it completely.
struct DeviceCatalog {
    static constexpr const char* kSchema = "paretune.devices/1";

    std::string origin; ///< file path (or a label) used in error messages
    std::string host;   ///< id of the host device; graph inputs start there
    std::vector<DeviceSpec> devices;
    std::vector<LinkSpec> links;
    std::vector<RouteSpec> routes;

    /// Index into devices, or -1.
    int findDevice(std::string_view id) const;
    /// Index into links of the link joining a and b (either order), or -1.
    int findLink(std::string_view a, std::string_view b) const;
    /// Hops (device ids, src first, dst last) a transfer from src to dst takes: the direct link
    /// when there is one, else the catalog's route, else via the host when both ends have a link
    /// to it. Empty when dst cannot be reached.
    std::vector<std::string> path(std::string_view src, std::string_view dst) const;
};

/// Parses and validates a catalog. Throws InputError naming `origin` and the offending field
/// ("catalog.json: devices[1].peak_gflops: expected a positive number").
DeviceCatalog parseDeviceCatalog(const nlohmann::json& document, const std::string& origin);
/// Same, from JSON text.
DeviceCatalog parseDeviceCatalogText(std::string_view text, const std::string& origin);
/// Reads, parses and validates a catalog file: a path, or the name of an installed catalog
/// ("cpu_cores", found by findDeviceCatalog() in common/data_folders.h; `origin` is then the
/// path found). Throws InputError (missing file or name, bad JSON, bad field), always naming
/// the file.
DeviceCatalog loadDeviceCatalog(const std::string& nameOrPath);

} // namespace paretune
