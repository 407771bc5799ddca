// SPDX-License-Identifier: GPL-3.0-or-later
#include "measured_costs.h"

#include "graph/fusion.h"

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

namespace {

/// What a node's kernel allocated beyond its outputs, from its sample: the sample's peak is its
/// inputs (weights included) + the larger of the allocator's high-water mark and its outputs
/// (MemoryEstimate), so the workspace is what is left of it over the inputs and outputs.
std::int64_t workspaceOf(const Sample& s, const OpMetrics& m) {
    if (!s.peakMemoryMb) {
        return 0;
    }
    const double peak = *s.peakMemoryMb * 1024.0 * 1024.0;
    const double beyond = peak - static_cast<double>(m.bytesRead + m.bytesWritten);
    // Below a page the difference is the MiB figure's rounding, not a buffer.
    return beyond > 4096.0 ? static_cast<std::int64_t>(beyond) : 0;
}

} // namespace

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
            cell.workspaceBytes = workspaceOf(s, graph.metrics[n]);
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
            fusedTable.setCell(fused.groupNode[g], d,
                               options[g].cells[static_cast<std::size_t>(d)]);
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
