// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "search/pareto_search.h"
#include "search/plans_file.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace paretune {

/// One plan of a plans document: a plan of the front, or a baseline listed beside it.
struct ListedPlan {
    Solution solution;
    bool onFront = false;
    std::int32_t dominatedBy = -1; ///< index (plan id) of a listed front plan that dominates it
};

/// The plans a search writes out, ids in order: the front (all of it when `maxPlans` is 0, else
/// `maxPlans` plans spread along it, in front order), then the baselines not among them, each
/// marked on the front (left out of the subset) or dominated by a listed plan.
std::vector<ListedPlan> listPlans(const SearchResult& result,
                                  const std::vector<Objective>& objectives, std::size_t maxPlans);

/// Where the search's costs and devices came from, for the document's header.
struct PlansDocumentSource {
    std::string catalog; ///< catalog file (bundle export and validation read it again)
    std::string host;
    /// "library" field: null, or {"db", "predictor_id", "measured_cells", "predicted_cells"}.
    nlohmann::json library;
};

/// The plans document `paretune search --out` writes and `validate`, `export` and the workbench
/// read (README, "paretune search"): header (tool, model fingerprint, catalog, devices,
/// objectives, search settings, hypervolume reference and curve) and one entry per listed plan
/// with its full assignment (every node except constants; pass-through nodes with their input),
/// objectives, baseline label and the count of cost cells of each source it used. `sim` must be
/// the simulator the search ran on (its graph, costs and priority).
nlohmann::json plansDocument(const Simulator& sim, const SearchOptions& options,
                             const SearchResult& result, const std::vector<ListedPlan>& plans,
                             const PlansDocumentSource& source);

/// The plans document of the whole front (listPlans without a limit: plan id = front index,
/// then the baselines) as a PlansFile named `origin`, as validation and export read a plans
/// file: the workbench's search, handed on without a file.
PlansFile frontPlansFile(const Simulator& sim, const SearchOptions& options,
                         const SearchResult& result, const PlansDocumentSource& source,
                         const std::string& origin);

} // namespace paretune
