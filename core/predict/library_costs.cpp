// SPDX-License-Identifier: GPL-3.0-or-later
#include "library_costs.h"

#include "cost/cost_table.h"
#include "cost/device_catalog.h"
#include "cost/measured_costs.h"
#include "device/device.h"
#include "device/device_fingerprint.h"
#include "performance_predictor.h"
#include "predictor_dataset.h"
#include "profile/precision_support.h"
#include "store/sample_library.h"

#include <map>
#include <optional>
#include <set>

namespace paretune {

namespace {

LibraryCosts fillNodeCosts(CostTable& table, const Graph& graph, const DeviceCatalog& catalog,
                           SampleLibrary& library) {
    LibraryCosts result;
    const DeviceInventory inventory = discoverDevices();
    std::map<std::string, std::string> fingerprints; // the catalog's measured CPU devices here
    for (std::int32_t d = 0; d < table.deviceCount(); ++d) {
        const std::string& id = table.device(d).id;
        if (catalog.devices[static_cast<std::size_t>(catalog.findDevice(id))].modelled) {
            continue;
        }
        const Device* device = inventory.find(id);
        if (device == nullptr ||
            !(device->isCpu() || (device->tag == DeviceTag::Real && device->cudaIndex >= 0))) {
            result.diagnostics.push_back({Diagnostic::Severity::Warning, "device-not-here",
                                          "device '" + id +
                                              "' is not a CPU or CUDA device of this machine: "
                                              "no samples or predictions for it"});
            continue;
        }
        fingerprints[id] = deviceFingerprint(*device);
    }
    result.devices = applyMeasuredSamples(table, graph, library, fingerprints);
    for (const MeasuredDevice& m : result.devices) {
        result.measuredCells += m.measured;
    }

    const auto record = library.latestPredictor();
    if (!record) {
        return result;
    }
    const PerformancePredictor predictor = PerformancePredictor::fromRecord(*record);
    result.predictorId = record->id;
    for (const auto& [id, fingerprint] : fingerprints) {
        const std::int32_t d = table.findDevice(id);
        const DeviceSpec& spec = catalog.devices[static_cast<std::size_t>(catalog.findDevice(id))];
        const std::optional<DeviceRecord> stored = library.device(fingerprint);
        const DeviceFigures figures =
            stored ? storedDeviceFigures(library, *stored) : DeviceFigures{};
        if (!figures.hasMicroBenchmark()) {
            result.diagnostics.push_back(
                {Diagnostic::Severity::Warning, "device-without-benchmark",
                 "device '" + id +
                     "' has no micro-benchmark figures in the library (training or predicting "
                     "once measures them): no predictions for it"});
            continue;
        }
        const std::vector<PredictorRow> rows = nodeRows(graph, fingerprint);
        const std::vector<LatencyPrediction> predictions =
            predictor.predict(rows, {{fingerprint, figures}});
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const NodeId node = graph.findNode(rows[i].nodeName);
            // A node on its own threads (a -tN variant) is measured or not offered: the
            // features do not hold the thread count.
            if (!spec.supports(rows[i].opType) ||
                table.cell(node, d).source == CostSource::Measured ||
                graph.nodes[static_cast<std::size_t>(node)].threads > 0) {
                continue;
            }
            CostCell cell;
            cell.latencyUs = predictions[i].latencyUs;
            cell.energyUj = cell.latencyUs * spec.activeW;
            cell.uncertainty = predictions[i].uncertainty;
            cell.source = CostSource::Predicted;
            table.setCell(node, d, cell);
            ++result.predictedCells;
        }
    }
    return result;
}

} // namespace

std::function<bool(std::int32_t, Variant)> variantDevices(const CostTable& table,
                                                          const DeviceCatalog& catalog,
                                                          const DeviceInventory& inventory,
                                                          Diagnostics& diagnostics) {
    std::vector<std::pair<std::int32_t, Variant>> refused;
    for (std::int32_t v = 1; v < table.variantCount(); ++v) {
        for (std::int32_t d = 0; d < table.deviceCount(); ++d) {
            const std::string& id = table.device(d).id;
            const int index = catalog.findDevice(id);
            const Device* device = inventory.find(id);
            if (device == nullptr ||
                (index >= 0 && catalog.devices[static_cast<std::size_t>(index)].modelled)) {
                continue;
            }
            const std::string why = variantRefusal(*device, table.variant(v));
            if (!why.empty()) {
                refused.emplace_back(d, table.variant(v));
                diagnostics.push_back({Diagnostic::Severity::Info, "variant-not-on-device",
                                       std::string(variantName(table.variant(v))) +
                                           " is not offered on " + id +
                                           " (its cells stay unsupported): " + why});
            }
        }
    }
    return [refused = std::move(refused)](std::int32_t d, Variant v) {
        return std::find(refused.begin(), refused.end(), std::pair{d, v}) == refused.end();
    };
}

LibraryCosts fillCostsFromLibrary(CostTable& table, const Graph& graph,
                                  const DeviceCatalog& catalog, SampleLibrary& library) {
    LibraryCosts result = fillNodeCosts(table, graph, catalog, library);
    // The fusion groups' cells: their fused nodes' own samples, else predictions.
    const FusionCellCount fused =
        fillFusionCells(table, graph, [&](CostTable& fusedTable, const Graph& fusedGraph) {
            fillNodeCosts(fusedTable, fusedGraph, catalog, library);
        });
    if (!table.fusionOptions().empty()) {
        result.diagnostics.push_back({Diagnostic::Severity::Info, "fusion-cells",
                                      std::to_string(table.fusionOptions().size()) +
                                          " fusion groups: " + std::to_string(fused.measured) +
                                          " measured and " + std::to_string(fused.predicted) +
                                          " predicted cells"});
    }
    if (table.variantCount() > 1) {
        // Each variant's cells: its lowered nodes' and conversions' samples, else predictions;
        // then the deviation each causes, from the model's sensitivity table.
        const VariantCellCount variants = fillVariantCells(
            table, graph,
            [&](CostTable& loweredTable, const Graph& lowered) {
                fillNodeCosts(loweredTable, lowered, catalog, library);
            },
            variantDevices(table, catalog, discoverDevices(), result.diagnostics));
        result.variantMeasuredCells = variants.measured;
        result.variantPredictedCells = variants.predicted;
        std::vector<std::string> keys;
        const int unknown = applySensitivities(table, graph, library, {}, &keys);
        std::string read;
        for (const std::string& k : keys) {
            read += (read.empty() ? "" : ", ") + k;
        }
        result.diagnostics.push_back(
            {Diagnostic::Severity::Info, "variant-cells",
             std::to_string(table.variantCount() - 1) +
                 " variants: " + std::to_string(variants.measured) + " measured and " +
                 std::to_string(variants.predicted) +
                 " predicted cells; deviations from the sensitivity table measured " +
                 (read.empty() ? std::string("nowhere") : "in " + read)});
        if (unknown > 0) {
            result.diagnostics.push_back(
                {Diagnostic::Severity::Warning, "variant-without-sensitivity",
                 std::to_string(unknown) +
                     " nodes have no measured sensitivity in the library and stay in fp32 "
                     "(paretune profile --variants measures it)"});
        }
    }
    return result;
}

} // namespace paretune
