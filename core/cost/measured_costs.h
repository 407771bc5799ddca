// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cost/cost_table.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace paretune {

class SampleLibrary;
struct DeviceInventory;

/// What applyMeasuredSamples found for one device of a cost table.
struct MeasuredDevice {
    std::string id;
    std::string fingerprint;
    int measured = 0; ///< compute nodes whose cell now holds a measured sample
    int missing = 0;  ///< compute nodes without a sample that is not stale on this device
};

/// Fingerprints of the table's devices that are real devices of this machine (by id); modelled
/// devices and ids the inventory does not know are left out.
std::map<std::string, std::string> realDeviceFingerprints(const CostTable& table,
                                                          const DeviceInventory& inventory);

/// Sets measured cells from the sample library: for each table device named in `fingerprints`
/// (device id → device fingerprint) and each compute node, the newest sample that is not stale
/// of the node's operator signature on that fingerprint (from any model) becomes a Measured
/// cell: latency = the sample's median, energy = the sample's energy (measured, or modelled at
/// profiling time) or latency × the device's active power when it has none, workspace = what
/// the sample's peak memory holds beyond the node's inputs and outputs (the kernel's own
/// buffers: im2col, reorders). Other cells are left as they are (a real device's cell without a
/// sample stays unsupported). Returns one entry per device filled.
std::vector<MeasuredDevice>
applyMeasuredSamples(CostTable& table, const Graph& graph, const SampleLibrary& library,
                     const std::map<std::string, std::string>& fingerprints);

/// Fills the cells of the table's fusion options as `fill` fills a graph's cells: the fused
/// graph of the options' groups gets a table with the same devices, its fused nodes' cells the
/// options' current ones, then `fill(fusedTable, fusedGraph)`; the fused nodes' cells become
/// the options' again. Returns the options' cells now measured and predicted (sum over devices).
struct FusionCellCount {
    int measured = 0;
    int predicted = 0;
};
FusionCellCount fillFusionCells(CostTable& table, const Graph& graph,
                                const std::function<void(CostTable&, const Graph&)>& fill);

} // namespace paretune
