// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/diagnostic.h"

#include "cost/measured_costs.h"
#include "device/device.h"
#include "paretune/config.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace paretune {

class SampleLibrary;
struct DeviceCatalog;
struct Graph;

/// What fillCostsFromLibrary set.
struct LibraryCosts {
    int measuredCells = 0;
    int predictedCells = 0;
    /// Of the variant cells (a node in bf16 or int8 on a device): from the lowered nodes' and
    /// their conversions' samples, or predicted (the predictor's precision features) where a
    /// part has none.
    int variantMeasuredCells = 0;
    int variantPredictedCells = 0;
    std::int64_t predictorId = 0;        ///< 0 when the library has no predictor
    std::vector<MeasuredDevice> devices; ///< what applyMeasuredSamples found per device
    /// Per measured device: the model's whole-model run against its summed cells, and whether
    /// the cells were scaled by it (costsFromLibrary; applyModelRunScales).
    std::vector<ModelRunScale> modelRunScales;
    Diagnostics diagnostics; ///< devices left without samples or predictions
};

/// Fills the compute-node cells of every table device that the catalog marks measured
/// ("cost": "measured") and that is a real CPU device of this machine with the same id
/// (cpu, cpu:N): from the library's samples on that device's fingerprint (applyMeasuredSamples,
/// tagged measured) and, where none exists, from the newest predictor (tagged predicted, with
/// its uncertainty; energy = latency × the catalog's active_w, modelled). Operators the catalog
/// lists as unsupported get no prediction. Devices of the catalog that
/// are not on this machine keep their cells, with a note.
LibraryCosts fillCostsFromLibrary(CostTable& table, const Graph& graph,
                                  const DeviceCatalog& catalog, SampleLibrary& library);

/// Which of the table's devices run which of its variants' precisions: the `runs` of
/// fillVariantCells. A real device of this machine (a device the catalog does not model) runs
/// a precision when precisionRefusal says nothing (asked once per device and precision); a note
/// in `diagnostics` names each one refused and why, so that its cells stay unsupported
/// visibly. Modelled devices, and devices not on this machine, are not refused here.
std::function<bool(std::int32_t, Variant)> variantDevices(const CostTable& table,
                                                          const DeviceCatalog& catalog,
                                                          const DeviceInventory& inventory,
                                                          Diagnostics& diagnostics);

/// The costs a sample library gives the catalog's real devices, as `paretune search --db`, export
/// and the workbench's search use them: fillCostsFromLibrary in builds with LibTorch (it is in
/// paretune_predict, which callers then link); without it the measured cells only, with a note.
/// Then each device's cells are scaled by the model's whole-model run on it
/// (applyModelRunScales), when the library holds one. `model`: the model `graph` was derived
/// from (a plan's lowered graph, validated), whose runs and cells give the scales
/// (modelRunScalesOf); null when `graph` is the model.
inline LibraryCosts costsFromLibrary(CostTable& table, const Graph& graph,
                                     const DeviceCatalog& catalog, SampleLibrary& library,
                                     const Graph* model = nullptr) {
#if PARETUNE_WITH_TORCH
    LibraryCosts costs = fillCostsFromLibrary(table, graph, catalog, library);
#else
    LibraryCosts costs;
    const auto fingerprints = realDeviceFingerprints(table, discoverDevices(&catalog));
    costs.devices = applyMeasuredSamples(table, graph, library, fingerprints);
    fillFusionCells(table, graph, [&](CostTable& fusedTable, const Graph& fusedGraph) {
        applyMeasuredSamples(fusedTable, fusedGraph, library, fingerprints);
    });
    if (table.variantCount() > 1) {
        const VariantCellCount variants = fillVariantCells(
            table, graph,
            [&](CostTable& loweredTable, const Graph& lowered) {
                applyMeasuredSamples(loweredTable, lowered, library, fingerprints);
            },
            variantDevices(table, catalog, discoverDevices(), costs.diagnostics));
        costs.variantMeasuredCells = variants.measured;
        applySensitivities(table, graph, library);
    }
    for (const MeasuredDevice& m : costs.devices) {
        costs.measuredCells += m.measured;
    }
    costs.diagnostics.push_back({Diagnostic::Severity::Warning, "no-predictor-in-build",
                                 "predictions need a build with LibTorch: operators without "
                                 "samples count as unsupported on real devices"});
#endif
    std::map<std::string, std::string> measured;
    for (const MeasuredDevice& m : costs.devices) {
        measured.emplace(m.id, m.fingerprint);
    }
    if (model == nullptr) {
        costs.modelRunScales = applyModelRunScales(table, graph, library, measured);
    } else {
        costs.modelRunScales = modelRunScalesOf(*model, table, library, measured);
        scaleByModelRuns(table, graph, costs.modelRunScales);
    }
    return costs;
}

} // namespace paretune
