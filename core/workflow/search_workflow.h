// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The placement-search workflow, as `paretune search` and the workbench's Search run it.
#include "common/diagnostic.h"
#include "cost/cost_table.h"
#include "predict/library_costs.h"
#include "search/pareto_search.h"
#include "search/plans_document.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace paretune {

struct DeviceCatalog;
struct Graph;
struct Progress;
class SampleLibrary;
class Simulator;

struct SearchRequest {
    std::vector<std::string> deviceIds; ///< catalog ids; the host is added when missing
    SearchOptions options;
    std::string catalogOrigin; ///< where the catalog came from (its path), for the document
    /// The sample library measured devices take their costs from; empty: none.
    std::string dbPath;
    /// Required: the library must exist (InputError otherwise). IfPresent: it is read only when
    /// a measured device is searched and the file exists (the workbench's default library may
    /// not exist yet).
    enum class Library { Required, IfPresent } library = Library::Required;
    /// Applied to the cost table once the library's costs are in, before the search (the tune
    /// loop's in-plan measurements).
    std::function<void(CostTable&, const Graph&)> refineCosts;
};

/// One search and everything its callers show or write. The simulator refers to `costs` and
/// the graph given to runSearch, which must outlive the result; both stay put when it moves.
struct SearchRun {
    std::unique_ptr<CostTable> costs;
    std::unique_ptr<Simulator> simulator;
    SearchResult result;
    /// The simulator's priority when the search ended (compact compute indices): the front's
    /// genomes evaluate to their objectives with it.
    std::vector<std::int32_t> priority;
    std::optional<LibraryCosts> library; ///< when the sample library was read
    PlansDocumentSource source;          ///< what plansDocument needs beside the result
    bool hostAdded = false;              ///< the catalog's host was not among deviceIds
    Diagnostics diagnostics;             ///< notes (measured cells, predictor) and warnings

    SearchRun();
    SearchRun(SearchRun&&) noexcept;
    SearchRun& operator=(SearchRun&&) noexcept;
    ~SearchRun();
};

/// What a search takes from the sample library for the catalog's measured devices: their cells
/// (costsFromLibrary) and the shared resources of the real CPU devices (applyDeviceResources;
/// its notes among the diagnostics). Validation of a searched plan fills its rebuilt table the
/// same way; `model` as in costsFromLibrary.
LibraryCosts searchCostsFromLibrary(CostTable& table, const Graph& graph,
                                    const DeviceCatalog& catalog, SampleLibrary& library,
                                    const Graph* model = nullptr);

/// Builds the cost table (modelled from the catalog; measured and predicted cells from the
/// library for the catalog's measured devices; the shared cores and measured contention of
/// this machine's CPU devices, applyDeviceResources, noted in the diagnostics), then searches.
/// Throws InputError for unusable input (unknown devices, a library that is not there when
/// Required, bad options); a cancelled search returns what it found so far (result.cancelled).
SearchRun runSearch(const Graph& graph, const DeviceCatalog& catalog, const SearchRequest& request,
                    Progress* progress = nullptr);

} // namespace paretune
