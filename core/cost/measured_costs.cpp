// SPDX-License-Identifier: GPL-3.0-or-later
#include "measured_costs.h"

#include "common/int8_products.h"
#include "graph/fusion.h"

#include "device/device.h"
#include "device/device_fingerprint.h"
#include "store/sample_library.h"

#include <map>
#include <tuple>

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

namespace {

/// The weaker of two sources: unsupported < modelled < predicted < measured, as the enum orders
/// them (a sum is only as good as its weakest part).
CostSource weaker(CostSource a, CostSource b) {
    return static_cast<std::uint8_t>(a) < static_cast<std::uint8_t>(b) ? a : b;
}

} // namespace

VariantCellCount fillVariantCells(CostTable& table, const Graph& graph,
                                  const std::function<void(CostTable&, const Graph&)>& fill,
                                  const std::function<bool(std::int32_t, Variant)>& runs) {
    VariantCellCount count;
    std::vector<ConversionCost> conversions;
    // The modelled conversions the table has (buildCostTable), by what they convert.
    std::map<std::tuple<NodeId, std::int32_t, TensorId, bool>, std::vector<ConversionCost>>
        modelled;
    for (const ConversionCost& c : table.conversions()) {
        modelled[{c.node, c.variant, c.tensor, c.output}].push_back(c);
    }
    for (std::int32_t v = 1; v < table.variantCount(); ++v) {
        const Variant variant = table.variant(v);
        const std::vector<Variant> variants = lowerAll(graph, variant);
        // Each node with its own conversions: the cell of a node alone, and what a chain saves.
        const LoweredGraph lowered =
            lowerGraph(graph, variants, nullptr, int8InputLevels(), LoweredChains::Isolated);
        CostTable loweredTable(static_cast<std::int32_t>(lowered.graph.nodes.size()),
                               table.devices(), table.host());
        fill(loweredTable, lowered.graph);
        for (std::size_t n = 0; n < graph.nodes.size(); ++n) {
            if (variants[n] != variant) {
                continue;
            }
            for (std::int32_t d = 0; d < table.deviceCount(); ++d) {
                if (runs && !runs(d, variant)) {
                    table.setCell(static_cast<NodeId>(n), d, v, CostCell{});
                    continue;
                }
                CostCell sum;
                sum.source = CostSource::Measured;
                for (const NodeId part : lowered.parts[n]) {
                    const CostCell& c = loweredTable.cell(part, d);
                    sum.latencyUs += c.latencyUs;
                    sum.energyUj += c.energyUj;
                    sum.workspaceBytes = std::max(sum.workspaceBytes, c.workspaceBytes);
                    sum.uncertainty = std::max(sum.uncertainty, c.uncertainty);
                    sum.source = weaker(sum.source, c.source);
                }
                if (!sum.supported()) {
                    continue; // a modelled cell, or none, stays
                }
                sum.deviationPct = table.cell(static_cast<NodeId>(n), d, v).deviationPct;
                table.setCell(static_cast<NodeId>(n), d, v, sum);
                count.measured += sum.source == CostSource::Measured ? 1 : 0;
                count.predicted += sum.source == CostSource::Predicted ? 1 : 0;
            }
            for (const LoweredGraph::Conversion& c : lowered.conversions[n]) {
                ConversionCost cost{static_cast<NodeId>(n), v, c.tensor, c.output, {}};
                auto& before = modelled[{cost.node, v, c.tensor, c.output}];
                for (std::int32_t d = 0; d < table.deviceCount(); ++d) {
                    const CostCell& part = loweredTable.cell(c.node, d);
                    const bool counted = table.cell(static_cast<NodeId>(n), d, v).supported() &&
                                         (!runs || runs(d, variant));
                    // A cell left modelled keeps its modelled conversion.
                    cost.cells.push_back(!counted           ? CostCell{}
                                         : part.supported() ? part
                                         : !before.empty()
                                             ? before.front().cells[static_cast<std::size_t>(d)]
                                             : CostCell{});
                }
                if (!before.empty()) {
                    before.erase(before.begin());
                }
                conversions.push_back(std::move(cost));
            }
        }
    }
    table.setConversions(std::move(conversions));
    return count;
}

int applySensitivities(CostTable& table, const Graph& graph, const SampleLibrary& library,
                       const std::string& inputsKey, std::vector<std::string>* usedKeys) {
    int missing = 0;
    for (std::int32_t v = 1; v < table.variantCount(); ++v) {
        const std::string precision(variantName(table.variant(v)));
        std::string key = inputsKey.empty() ? "" : sensitivityInputsKey(inputsKey, precision);
        if (key.empty()) {
            for (const std::string& stored :
                 library.sensitivityInputs(graph.fingerprint, precision)) {
                // The newest on the model's weights, with this CPU's int8 input levels.
                if (!stored.starts_with(kMadeUpWeightsPrefix) &&
                    sensitivityKeyFitsLevels(stored, precision)) {
                    key = stored;
                    break;
                }
            }
        }
        if (usedKeys != nullptr && !key.empty()) {
            usedKeys->push_back(precision + " on " + key);
        }
        std::map<std::string, double> byNode;
        for (const SensitivityRecord& r :
             library.sensitivities(graph.fingerprint, precision, key)) {
            byNode[r.nodeName] = r.deviationPct;
        }
        for (std::size_t n = 0; n < graph.nodes.size(); ++n) {
            const auto node = static_cast<NodeId>(n);
            bool supported = false;
            for (std::int32_t d = 0; d < table.deviceCount(); ++d) {
                supported = supported || table.cell(node, d, v).supported();
            }
            if (!supported) {
                continue;
            }
            const auto it = byNode.find(graph.nodes[n].name);
            for (std::int32_t d = 0; d < table.deviceCount(); ++d) {
                CostCell cell = table.cell(node, d, v);
                if (it == byNode.end()) {
                    cell = CostCell{};
                } else {
                    cell.deviationPct = it->second;
                }
                table.setCell(node, d, v, cell);
            }
            missing += it == byNode.end() ? 1 : 0;
        }
    }
    return missing;
}

std::vector<ModelRunScale> modelRunScales(const CostTable& table, const Graph& graph,
                                          const SampleLibrary& library,
                                          const std::map<std::string, std::string>& fingerprints) {
    std::vector<ModelRunScale> scales;
    for (std::int32_t d = 0; d < table.deviceCount(); ++d) {
        const auto fingerprint = fingerprints.find(table.device(d).id);
        if (fingerprint == fingerprints.end()) {
            continue;
        }
        ModelRunScale& entry = scales.emplace_back();
        entry.id = table.device(d).id;
        const std::optional<ModelRunRecord> run =
            library.newestModelRun(graph.fingerprint, fingerprint->second);
        if (!run) {
            entry.why = "no whole-model run of this model on it (paretune profile runs one)";
            continue;
        }
        entry.endToEndUs = run->medianUs;
        entry.measuredAt = run->measuredAt;
        int unmeasured = 0;
        for (NodeId n = 0; n < table.nodeCount(); ++n) {
            if (graph.nodes[static_cast<std::size_t>(n)].kind != NodeKind::Compute) {
                continue;
            }
            const CostCell& cell = table.cell(n, d);
            if (cell.source == CostSource::Measured && cell.latencyUs > 0.0) {
                entry.summedCellsUs += cell.latencyUs;
            } else {
                ++unmeasured;
            }
        }
        if (unmeasured > 0 || !(entry.summedCellsUs > 0.0)) {
            entry.why = std::to_string(unmeasured) + " of its operators have no measured sample";
            continue;
        }
        entry.scale = entry.endToEndUs / entry.summedCellsUs;
        if (!(entry.scale >= 0.25 && entry.scale <= 4.0)) {
            entry.why = "the model run and the summed samples differ too much to scale by";
            continue;
        }
        entry.applied = true;
    }
    return scales;
}

std::vector<ModelRunScale>
modelRunScalesOf(const Graph& model, const CostTable& table, const SampleLibrary& library,
                 const std::map<std::string, std::string>& fingerprints) {
    CostTable modelTable(static_cast<std::int32_t>(model.nodes.size()), table.devices(),
                         table.host());
    applyMeasuredSamples(modelTable, model, library, fingerprints);
    return modelRunScales(modelTable, model, library, fingerprints);
}

void scaleByModelRuns(CostTable& table, const Graph& graph,
                      const std::vector<ModelRunScale>& scales) {
    const auto scaled = [](CostCell& cell, double factor) {
        if (cell.supported() && cell.latencyUs > 0.0) {
            cell.latencyUs *= factor;
            cell.energyUj *= factor;
        }
    };
    std::vector<FusionOption> options = table.fusionOptions();
    std::vector<ConversionCost> conversions = table.conversions();
    bool fusionChanged = false;
    for (const ModelRunScale& m : scales) {
        const std::int32_t d = table.findDevice(m.id);
        if (!m.applied || d < 0) {
            continue;
        }
        for (NodeId n = 0; n < table.nodeCount(); ++n) {
            if (graph.nodes[static_cast<std::size_t>(n)].kind != NodeKind::Compute) {
                continue;
            }
            for (std::int32_t v = 0; v < table.variantCount(); ++v) {
                CostCell cell = table.cell(n, d, v);
                scaled(cell, m.scale);
                table.setCell(n, d, v, cell);
            }
        }
        for (FusionOption& option : options) {
            scaled(option.cells[static_cast<std::size_t>(d)], m.scale);
            fusionChanged = true;
        }
        for (ConversionCost& c : conversions) { // part of the cells they are taken off
            scaled(c.cells[static_cast<std::size_t>(d)], m.scale);
        }
    }
    if (fusionChanged) {
        table.setFusionOptions(std::move(options));
    }
    table.setConversions(std::move(conversions));
}

std::vector<ModelRunScale>
applyModelRunScales(CostTable& table, const Graph& graph, const SampleLibrary& library,
                    const std::map<std::string, std::string>& fingerprints) {
    std::vector<ModelRunScale> scales = modelRunScales(table, graph, library, fingerprints);
    scaleByModelRuns(table, graph, scales);
    return scales;
}

} // namespace paretune
