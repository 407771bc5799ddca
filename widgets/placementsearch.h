// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cost/cost_table.h"
#include "search/pareto_search.h"
#include "search/plans_document.h"

#include "jobrunner.h"

#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace paretune {

struct Graph;
struct ImportResult;
struct SearchRun;

/// A finished placement search, as a value the views share.
struct SearchOutcome {
    std::shared_ptr<const ImportResult> model;
    std::vector<std::string> deviceIds; ///< in the cost table's device order
    CostTable costs;
    SearchResult result;
    QString costSource;      ///< where the costs came from, e.g. "modelled from example.json"
    SearchOptions options;   ///< the settings searched with
    std::string catalogJson; ///< the catalog searched with (validation and export read it again)
    /// Catalog name, host and the sample library's share of the costs (plans document header).
    PlansDocumentSource documentSource;
    /// Sample library that gave the catalog's measured devices their costs; empty: none (all
    /// costs modelled, or no library file).
    std::string dbPath;
    /// The simulator's priority when the search ended (compact compute indices): the front's
    /// genomes evaluate to their objectives with it (see simulateFrontPlan).
    std::vector<std::int32_t> priority;
    /// Applied after the library's costs when validation or export rebuild the search's cost
    /// table (a tune's in-plan costs, so a re-simulated plan keeps its objectives); empty: none.
    std::function<void(CostTable&, const Graph&)> refineCosts;
};

/// A finished search (PlacementSearch's, or a tune's last round) as the views share it: takes
/// the run's result, priority and cost table. `dbPath` is the sample library the run may have
/// read; the outcome keeps it when the run read it.
std::shared_ptr<SearchOutcome> searchOutcomeOf(SearchRun&& run,
                                               std::shared_ptr<const ImportResult> model,
                                               const std::string& catalogJson,
                                               const QString& catalogName,
                                               const SearchOptions& options, const QString& dbPath);

/// Runs searchPareto on a worker thread. Settings are snapshot when start() is called; the
/// latest start wins (an older job's result is dropped); cancel() stops the running job, which
/// still delivers what it found, flagged cancelled.
class PlacementSearch : public JobRunner {
    Q_OBJECT
public:
    explicit PlacementSearch(QObject* parent = nullptr);

    /// Costs are modelled from the catalog; the catalog's measured devices ("cost": "measured")
    /// take measured and predicted costs from the sample library at `dbPath` when that file
    /// exists (costsFromLibrary, as `paretune search --db`).
    void start(std::shared_ptr<const ImportResult> model, const QByteArray& catalogJson,
               const QString& catalogName, const std::vector<std::string>& deviceIds,
               const SearchOptions& options, const QString& dbPath = QString());

Q_SIGNALS:
    void searchStarted();
    void searchProgressed(double fraction, const QString& message);
    /// One generation's hypervolume (normalised), in generation order, while the search runs.
    void hypervolumeReported(double hypervolume);
    void searchFinished(std::shared_ptr<const paretune::SearchOutcome> outcome);
    void searchFailed(const QString& message);
};

} // namespace paretune
