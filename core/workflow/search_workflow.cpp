// SPDX-License-Identifier: GPL-3.0-or-later
#include "workflow/search_workflow.h"

#include "common/input_error.h"
#include "cost/device_catalog.h"
#include "device/device.h"
#include "plan/simulator.h"
#include "predict/device_resources.h"
#include "store/sample_library.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>

namespace paretune {

SearchRun::SearchRun() = default;
SearchRun::SearchRun(SearchRun&&) noexcept = default;
SearchRun& SearchRun::operator=(SearchRun&&) noexcept = default;
SearchRun::~SearchRun() = default;

namespace {

bool searchesMeasuredDevice(const DeviceCatalog& catalog, const std::vector<std::string>& ids) {
    return std::any_of(ids.begin(), ids.end(), [&](const std::string& id) {
        const int index = catalog.findDevice(id);
        return index >= 0 && !catalog.devices[static_cast<std::size_t>(index)].modelled;
    });
}

/// The request's sample library, open, when it is to be read.
std::optional<SampleLibrary> requestedLibrary(const DeviceCatalog& catalog,
                                              const SearchRequest& request) {
    if (request.dbPath.empty()) {
        return std::nullopt;
    }
    if (request.library == SearchRequest::Library::IfPresent) {
        std::error_code error;
        if (!searchesMeasuredDevice(catalog, request.deviceIds) ||
            (!isServerLibrary(request.dbPath) &&
             !std::filesystem::is_regular_file(request.dbPath, error))) {
            return std::nullopt;
        }
    }
    return SampleLibrary::open(request.dbPath, SampleLibrary::OpenMode::ExistingOnly);
}

/// Throws InputError when a compute node has a cost on none of the searched devices: no plan
/// could run it, and the search would end with no plan at all. The message says why.
void requireRunnableNodes(const Graph& graph, const CostTable& table, const DeviceCatalog& catalog,
                          const SearchRequest& request, bool libraryRead) {
    std::size_t compute = 0;
    std::vector<NodeId> stranded;
    for (NodeId n = 0; n < table.nodeCount(); ++n) {
        if (graph.nodes[static_cast<std::size_t>(n)].kind != NodeKind::Compute) {
            continue;
        }
        ++compute;
        bool runs = false;
        for (std::int32_t d = 0; d < table.deviceCount() && !runs; ++d) {
            runs = table.cell(n, d).supported();
        }
        if (!runs) {
            stranded.push_back(n);
        }
    }
    if (stranded.empty()) {
        return;
    }
    const Node& first = graph.nodes[static_cast<std::size_t>(stranded.front())];
    std::string message = "no plan can run this model: " + std::to_string(stranded.size()) +
                          " of " + std::to_string(compute) +
                          " operators have a cost on none of the devices searched (first: '" +
                          first.name + "', " + first.opType + ")";
    std::string measured;
    for (std::int32_t d = 0; d < table.deviceCount(); ++d) {
        const int index = catalog.findDevice(table.device(d).id);
        if (index >= 0 && !catalog.devices[static_cast<std::size_t>(index)].modelled) {
            measured += (measured.empty() ? "" : ", ") + table.device(d).id;
        }
    }
    if (!measured.empty()) {
        const std::string firstMeasured = measured.substr(0, measured.find(','));
        message += "; measured devices (" + measured + ") take their costs from samples, and ";
        message += request.dbPath.empty() ? std::string("no sample library was given")
                   : libraryRead          ? "the library " + request.dbPath + " has none for them"
                                 : "there is no sample library at " + request.dbPath + " yet";
        message += ": profile the model on them first, e.g. paretune profile MODEL --device " +
                   firstMeasured + (request.dbPath.empty() ? "" : " --db " + request.dbPath);
    } else {
        message += "; the catalog gives those operators no cost on its devices";
    }
    throw InputError(message);
}

std::string milliseconds(double us) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f ms", us / 1000.0);
    return text;
}

/// One line per device: how its costs relate to the model's whole-model run.
std::string modelRunScaleText(const ModelRunScale& m) {
    if (!m.applied) {
        return "device '" + m.id + "': costs are its operators measured one at a time; " + m.why;
    }
    char factor[32];
    std::snprintf(factor, sizeof factor, "%.2f", m.scale);
    return "device '" + m.id + "': the model ran end to end in " + milliseconds(m.endToEndUs) +
           " (measured " + m.measuredAt + ") against its operators' " +
           milliseconds(m.summedCellsUs) + " summed: its costs are scaled x" + factor;
}

nlohmann::json modelRunScaleJson(const ModelRunScale& m) {
    nlohmann::json j = {{"device", m.id}, {"applied", m.applied}};
    if (m.endToEndUs > 0.0) {
        j["end_to_end_us"] = m.endToEndUs;
        j["end_to_end_source"] = "measured";
        j["measured_at"] = m.measuredAt;
    }
    if (m.summedCellsUs > 0.0) {
        j["summed_cells_us"] = m.summedCellsUs;
        j["scale"] = m.scale;
    }
    if (!m.applied) {
        j["why"] = m.why;
    }
    return j;
}
} // namespace

LibraryCosts searchCostsFromLibrary(CostTable& table, const Graph& graph,
                                    const DeviceCatalog& catalog, SampleLibrary& library,
                                    const Graph* model) {
    LibraryCosts costs = costsFromLibrary(table, graph, catalog, library, model);
    const Diagnostics resources = applyMachineResources(table, &library);
    costs.diagnostics.insert(costs.diagnostics.end(), resources.begin(), resources.end());
    return costs;
}

SearchRun runSearch(const Graph& graph, const DeviceCatalog& catalog, const SearchRequest& request,
                    Progress* progress) {
    SearchRun run;
    CostTableOptions tableOptions;
    tableOptions.fusion = request.options.fusion;
    // Lowerable nodes get modelled variant cells on modelled devices listing the precision.
    tableOptions.variants = request.options.variants;
    run.costs = std::make_unique<CostTable>(
        buildCostTable(graph, catalog, request.deviceIds, tableOptions));
    CostTable& table = *run.costs;
    run.source.catalog = request.catalogOrigin;
    run.source.host = catalog.host;
    std::optional<SampleLibrary> samples = requestedLibrary(catalog, request);
    if (samples) {
        // With variants, their cells and deviations (the sensitivity table) too.
        run.library = costsFromLibrary(table, graph, catalog, *samples);
    }
    if (run.library) {
        const LibraryCosts& costs = *run.library;
        for (const MeasuredDevice& m : costs.devices) {
            run.diagnostics.push_back({Diagnostic::Severity::Info, "measured-cells",
                                       "device '" + m.id + "': " + std::to_string(m.measured) +
                                           " operators measured, " + std::to_string(m.missing) +
                                           " without samples"});
        }
        nlohmann::json scales = nlohmann::json::array();
        for (const ModelRunScale& m : costs.modelRunScales) {
            run.diagnostics.push_back(
                {Diagnostic::Severity::Info, "model-run-scale", modelRunScaleText(m)});
            scales.push_back(modelRunScaleJson(m));
        }
        run.diagnostics.insert(run.diagnostics.end(), costs.diagnostics.begin(),
                               costs.diagnostics.end());
        run.source.library = {{"db", request.dbPath},
                              {"predictor_id", costs.predictorId > 0
                                                   ? nlohmann::json(costs.predictorId)
                                                   : nlohmann::json(nullptr)},
                              {"measured_cells", costs.measuredCells},
                              {"predicted_cells", costs.predictedCells},
                              {"model_run_scales", scales}};
        if (table.variantCount() > 1) {
            run.source.library["variant_measured_cells"] = costs.variantMeasuredCells;
            run.source.library["variant_predicted_cells"] = costs.variantPredictedCells;
        }
    }
    for (std::int32_t d = 0; d < table.deviceCount(); ++d) {
        const int index = catalog.findDevice(table.device(d).id);
        bool filled = false;
        for (NodeId n = 0; n < table.nodeCount() && !filled; ++n) {
            filled = graph.nodes[static_cast<std::size_t>(n)].kind == NodeKind::Compute &&
                     table.cell(n, d).supported();
        }
        if (!catalog.devices[static_cast<std::size_t>(index)].modelled && !filled) {
            run.diagnostics.push_back(
                {Diagnostic::Severity::Warning, "no-samples",
                 "device '" + table.device(d).id +
                     "' is a measured device without samples here; its operators count as "
                     "unsupported"});
        }
    }
    // Devices sharing a core never run at once; beside each other they contend for memory; a
    // GPU's measured link to the host replaces the catalog's.
    const Diagnostics resources = applyMachineResources(table, samples ? &*samples : nullptr);
    run.diagnostics.insert(run.diagnostics.end(), resources.begin(), resources.end());
    samples.reset();
    if (request.refineCosts) {
        request.refineCosts(table, graph);
    }
    requireRunnableNodes(graph, table, catalog, request, run.library.has_value());
    for (std::int32_t v = 1; v < table.variantCount(); ++v) {
        std::int32_t cells = 0;
        std::int32_t withDeviation = 0; // cells with a measured sensitivity
        for (NodeId n = 0; n < table.nodeCount(); ++n) {
            for (std::int32_t d = 0; d < table.deviceCount(); ++d) {
                const CostCell& cell = table.cell(n, d, v);
                if (graph.nodes[static_cast<std::size_t>(n)].kind == NodeKind::Compute &&
                    cell.supported()) {
                    ++cells;
                    withDeviation += cell.deviationPct > 0.0 ? 1 : 0;
                }
            }
        }
        const std::string name(variantName(table.variant(v)));
        run.diagnostics.push_back(
            {cells > 0 ? Diagnostic::Severity::Info : Diagnostic::Severity::Warning,
             "variant-cells",
             cells > 0 ? name + ": " + std::to_string(cells) + " (node, device) cells offered"
                       : name +
                             ": no node can run in it on these devices (a modelled device "
                             "needs \"precisions\": {\"" +
                             name + "\": …} in the catalog)"});
        if (cells > 0 && withDeviation < cells) {
            run.diagnostics.push_back(
                {Diagnostic::Severity::Warning, "no-sensitivity",
                 name + ": " + std::to_string(cells - withDeviation) + " of " +
                     std::to_string(cells) +
                     " cells have no measured deviation (the sensitivity table): their accuracy "
                     "loss counts as 0, so plans using them look more accurate than they are"});
        }
    }
    run.hostAdded = std::find(request.deviceIds.begin(), request.deviceIds.end(), catalog.host) ==
                    request.deviceIds.end();
    if (run.hostAdded) {
        run.diagnostics.push_back(
            {Diagnostic::Severity::Info, "host-added",
             "host '" + catalog.host + "' added to the devices (graph inputs start there)"});
    }
    run.simulator = std::make_unique<Simulator>(graph, table);
    run.result = searchPareto(*run.simulator, request.options, progress);
    run.priority.assign(run.simulator->priority().begin(), run.simulator->priority().end());
    return run;
}

} // namespace paretune
