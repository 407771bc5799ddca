// SPDX-License-Identifier: GPL-3.0-or-later
#include "measured_costs.h"

#include "device/device.h"
#include "device/device_fingerprint.h"
#include "store/sample_library.h"

namespace paretune {

std::map<std::string, std::string> realDeviceFingerprints(const CostTable& table,
                                                          const DeviceInventory& inventory) {
    std::map<std::string, std::string> fingerprints;
    for (const CostDevice& d : table.devices()) {
        const Device* device = inventory.find(d.id);
        if (device && device->tag == DeviceTag::Real) {
            fingerprints[d.id] = deviceFingerprint(*device);
        }
    }
    return fingerprints;
}

std::vector<MeasuredDevice>
applyMeasuredSamples(CostTable& table, const Graph& graph, const SampleLibrary& library,
                     const std::map<std::string, std::string>& fingerprints) {
    std::vector<MeasuredDevice> filled;
    for (const auto& [id, fingerprint] : fingerprints) {
        const std::int32_t d = table.findDevice(id);
        if (d < 0) {
            continue;
        }
        MeasuredDevice report{id, fingerprint, 0, 0};
        std::map<std::string, std::optional<Sample>> bySignature; // one lookup per signature
        for (std::size_t n = 0; n < graph.nodes.size(); ++n) {
            if (graph.nodes[n].kind != NodeKind::Compute) {
                continue;
            }
            const std::string& signature = graph.signatures[n];
            auto it = bySignature.find(signature);
            if (it == bySignature.end()) {
                it = bySignature.emplace(signature, library.findSample(signature, fingerprint))
                         .first;
            }
            if (!it->second) {
                ++report.missing;
                continue;
            }
            const Sample& s = *it->second;
            CostCell cell;
            cell.latencyUs = s.latencyUs;
            cell.energyUj = s.energyUj ? *s.energyUj : s.latencyUs * table.device(d).activeW;
            cell.source = CostSource::Measured;
            table.setCell(static_cast<NodeId>(n), d, cell);
            ++report.measured;
        }
        filled.push_back(report);
    }
    return filled;
}

FusionCellCount fillFusionCells(CostTable& table, const Graph& graph,
                                const std::function<void(CostTable&, const Graph&)>& fill) {
    std::vector<FusionOption> options = table.fusionOptions();
    FusionCellCount count;
    if (options.empty()) {
        return count;
    }
    std::vector<FusionGroup> groups;
    for (const FusionOption& option : options) {
        groups.push_back(option.group);
    }
    const FusedGraph fused = fuseGroups(graph, groups);
    CostTable fusedTable(static_cast<std::int32_t>(fused.graph.nodes.size()), table.devices(),
                         table.host());
    for (std::size_t g = 0; g < options.size(); ++g) {
        for (std::int32_t d = 0; d < table.deviceCount(); ++d) {
            fusedTable.setCell(fused.groupNode[g], d, options[g].cells[static_cast<std::size_t>(d)]);
        }
    }
    fill(fusedTable, fused.graph);
    for (std::size_t g = 0; g < options.size(); ++g) {
        for (std::int32_t d = 0; d < table.deviceCount(); ++d) {
            const CostCell& cell = fusedTable.cell(fused.groupNode[g], d);
            count.measured += cell.source == CostSource::Measured ? 1 : 0;
            count.predicted += cell.source == CostSource::Predicted ? 1 : 0;
            options[g].cells[static_cast<std::size_t>(d)] = cell;
        }
    }
    table.setFusionOptions(std::move(options));
    return count;
}

} // namespace paretune
