#include "library_costs.h"

#include "cost/cost_table.h"
#include "cost/device_catalog.h"
#include "device/device.h"
#include "device/device_fingerprint.h"
#include "performance_predictor.h"
#include "store/sample_library.h"

#include <optional>

namespace paretune {

LibraryCosts fillCostsFromLibrary(CostTable& table, const Graph& graph,
                                  const DeviceCatalog& catalog, SampleLibrary& library) {
    LibraryCosts result;
    std::optional<PerformancePredictor> predictor;
    if (const auto record = library.latestPredictor()) {
        predictor.emplace(PerformancePredictor::fromRecord(*record));
        result.predictorId = record->id;
    }
    const DeviceInventory inventory = discoverDevices();
    for (std::int32_t d = 0; d < table.deviceCount(); ++d) {
        const std::string& id = table.device(d).id;
        const DeviceSpec& spec = catalog.devices[static_cast<std::size_t>(catalog.findDevice(id))];
        if (spec.modelled) {
            continue;
        }
        const Device* device = inventory.find(id);
        if (device == nullptr || !device->isCpu()) {
            result.notes.push_back("device '" + id +
                                   "' is not a CPU device of this machine: no samples or "
                                   "predictions for it");
            continue;
        }
        const std::string fingerprint = deviceFingerprint(*device);
        const std::optional<DeviceRecord> stored = library.device(fingerprint);
        std::vector<PredictorRow> rows = nodeRows(graph, fingerprint);
        std::vector<LatencyPrediction> predictions;
        if (predictor && stored && deviceFiguresOf(*stored).hasMicroBenchmark()) {
            predictions = predictor->predict(rows, {{fingerprint, deviceFiguresOf(*stored)}});
        } else if (predictor) {
            result.notes.push_back("device '" + id +
                                   "' has no micro-benchmark figures in the library (run "
                                   "paretune predict or train once): no predictions for it");
        }
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const NodeId node = graph.findNode(rows[i].nodeName);
            if (!spec.supports(rows[i].opType)) {
                continue;
            }
            CostCell cell;
            if (const auto sample = library.findSample(rows[i].signature, fingerprint)) {
                cell.latencyUs = sample->latencyUs;
                cell.energyUj = sample->energyUj.value_or(sample->latencyUs * spec.activeW);
                cell.source = CostSource::Measured;
                ++result.measuredCells;
            } else if (!predictions.empty()) {
                cell.latencyUs = predictions[i].latencyUs;
                cell.energyUj = cell.latencyUs * spec.activeW;
                cell.uncertainty = predictions[i].uncertainty;
                cell.source = CostSource::Predicted;
                ++result.predictedCells;
            } else {
                continue;
            }
            table.setCell(node, d, cell);
        }
    }
    return result;
}

} // namespace paretune
