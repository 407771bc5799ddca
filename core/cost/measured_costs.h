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

/// A device's in-context scale from a whole-model run (applyModelRunScales).
struct ModelRunScale {
    std::string id;             ///< the table's device
    double scale = 1.0;         ///< end to end / summed cells (when applied)
    double endToEndUs = 0.0;    ///< the newest model run's median, measured
    double summedCellsUs = 0.0; ///< the device's fp32 cells of the model's compute nodes
    std::string measuredAt;     ///< the model run's
    bool applied = false;
    std::string why; ///< why not applied
};

/// Scales each real device's cells of this model by how much slower the model ran end to end
/// than its cells add up to. Operators are measured one at a time, repeatedly, on warm caches;
/// in a model, caches hold the other nodes' weights and tensors and the framework runs between
/// nodes (MobileNet-V2 on one core here: 15.7 ms end to end against 10.6 ms summed). For each
/// device named in `fingerprints` (device id → fingerprint) with a whole-model run of the graph
/// in the library (ModelRunRecord, the newest) and a measured fp32 cell for every compute node,
/// scale = the run's median / those cells summed; every supported cell of the device (compute
/// nodes in every variant, fusion options) is multiplied by it, energy in proportion. A scale
/// outside [0.25, 4] is not applied (the run and the samples disagree too much to be the same
/// model on the same device). One entry per device in `fingerprints`, in table order.
std::vector<ModelRunScale>
applyModelRunScales(CostTable& table, const Graph& graph, const SampleLibrary& library,
                    const std::map<std::string, std::string>& fingerprints);
/// applyModelRunScales in two steps: the scales of `graph`'s devices (the table unchanged),
/// then those applied to a table of the same devices, of the graph or of a graph derived from
/// it (a plan's lowered graph, whose conversions are not in the model's run).
std::vector<ModelRunScale> modelRunScales(const CostTable& table, const Graph& graph,
                                          const SampleLibrary& library,
                                          const std::map<std::string, std::string>& fingerprints);
void scaleByModelRuns(CostTable& table, const Graph& graph,
                      const std::vector<ModelRunScale>& scales);
/// The scales of `model`'s runs for the devices of `table`, a table of a graph derived from the
/// model (a plan's lowered graph, which has no runs of its own): the model's fp32 cells
/// measured (applyMeasuredSamples) in a table of the same devices, then modelRunScales.
std::vector<ModelRunScale> modelRunScalesOf(const Graph& model, const CostTable& table,
                                            const SampleLibrary& library,
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

/// Fills the cells of the table's variants (v ≥ 1) as `fill` fills a graph's cells: per
/// variant, the graph with every node lowerable to it lowered (lowerGraph) gets a table with the
/// same devices, then `fill(loweredTable, loweredGraph)`; each lowered node's variant cell is
/// the sum of its parts there (the node in the precision and its conversions, which it runs
/// with): latencies and energies added, the largest workspace, the weakest source (unsupported
/// when a part is, predicted when one is). `runs`, when given, says whether table device d runs
/// precision p at all (precisionRefusal): a device that does not keeps its cells in that
/// variant unsupported, whatever samples or predictions its parts have. Returns the variant
/// cells now measured and predicted.
struct VariantCellCount {
    int measured = 0;
    int predicted = 0;
};
VariantCellCount fillVariantCells(CostTable& table, const Graph& graph,
                                  const std::function<void(CostTable&, const Graph&)>& fill,
                                  const std::function<bool(std::int32_t, Variant)>& runs = {});

/// Sets each supported variant cell's deviation from the library's sensitivity table of the
/// model for `inputsKey` (CalibrationInputs::key; empty: the inputs it was measured on most
/// recently, per precision). A node without a stored sensitivity in the variant's precision has
/// its variant cells made unsupported: a plan never lowers a node whose effect on the outputs
/// was not measured. Returns the nodes so left out (over all variants); `usedKeys` gets the
/// keys read.
int applySensitivities(CostTable& table, const Graph& graph, const SampleLibrary& library,
                       const std::string& inputsKey = {},
                       std::vector<std::string>* usedKeys = nullptr);

} // namespace paretune
