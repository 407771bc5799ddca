// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// For core/bundle's own files: the parts of a bundle that buildBundle assembles (the devices of
// the manifest, profile.csv, README.md) and the text helpers they share.
#include "bundle/model_partitioner.h"
#include "common/diagnostic.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace paretune {

class CostTable;
class Simulator;
struct DeviceCatalog;
struct DeviceInventory;
struct Plan;

namespace bundle {

using Json = nlohmann::ordered_json;

/// A CSV field, quoted when it holds a comma, a quote or a newline.
std::string csvField(const std::string& text);

/// A figure as the bundle's text files write it (%.6g).
inline std::string number(double value) {
    char text[64];
    std::snprintf(text, sizeof text, "%.6g", value);
    return text;
}

/// The manifest's "devices": per cost-table device, this machine's device for a real id (with
/// its fingerprint and software), the catalog's for a modelled one; a device that is neither
/// is tagged unknown and warned about in `diagnostics`.
Json devicesJson(const CostTable& table, const DeviceCatalog& catalog,
                 const DeviceInventory& inventory, Diagnostics& diagnostics);

/// profile.csv: the cost table's figures for every compute node on every device (the plan's
/// cells marked planned), then the measurements the sample library at `samplesPath` (empty:
/// none) holds of the same operators on the plan's real devices; their count in
/// `measuredRows`.
std::string profileCsv(const Simulator& sim, const Plan& plan, const DeviceInventory& inventory,
                       const std::string& samplesPath, std::int64_t* measuredRows);

/// README.md of a bundle, from its manifest and partitions.
std::string readme(const Graph& g, const Json& manifest, const std::vector<Partition>& parts);

} // namespace bundle

} // namespace paretune
