// SPDX-License-Identifier: GPL-3.0-or-later
#include "placementsearch.h"

#include "cost/device_catalog.h"
#include "graph/onnx_importer.h"
#include "workflow/search_workflow.h"

namespace paretune {

PlacementSearch::PlacementSearch(QObject* parent) : JobRunner(parent) {
    connect(this, &JobRunner::progressed, this, [this](double fraction, const QString& message) {
        Q_EMIT searchProgressed(fraction, message);
    });
    // Each generation's hypervolume, as searchPareto samples it.
    connect(this, &JobRunner::sampled, this,
            [this](int, double hypervolume) { Q_EMIT hypervolumeReported(hypervolume); });
}

std::shared_ptr<SearchOutcome>
searchOutcomeOf(SearchRun&& run, std::shared_ptr<const ImportResult> model,
                const std::string& catalogJson, const QString& catalogName,
                const SearchOptions& options, const QString& dbPath) {
    auto outcome = std::make_shared<SearchOutcome>();
    outcome->model = std::move(model);
    outcome->costSource = PlacementSearch::tr("modelled from %1").arg(catalogName);
    outcome->options = options;
    outcome->catalogJson = catalogJson;
    if (run.library) {
        outcome->dbPath = dbPath.toStdString();
        outcome->costSource =
            PlacementSearch::tr("measured (%1 cells) and predicted (%2 cells) from %3, else "
                                "modelled from %4")
                .arg(run.library->measuredCells)
                .arg(run.library->predictedCells)
                .arg(dbPath, catalogName);
        QStringList scaled; // devices whose costs the model's whole-model run scaled
        for (const ModelRunScale& m : run.library->modelRunScales) {
            if (m.applied) {
                scaled << QStringLiteral("%1 \u00d7%2")
                              .arg(QString::fromStdString(m.id))
                              .arg(m.scale, 0, 'f', 2);
            }
        }
        if (!scaled.isEmpty()) {
            outcome->costSource +=
                PlacementSearch::tr("; scaled by the model's measured whole-model runs (%1)")
                    .arg(scaled.join(QStringLiteral(", ")));
        }
    }
    outcome->documentSource = run.source;
    outcome->result = std::move(run.result);
    outcome->priority = std::move(run.priority);
    run.simulator.reset(); // it refers to the table, which the outcome keeps
    outcome->costs = std::move(*run.costs);
    for (std::int32_t d = 0; d < outcome->costs.deviceCount(); ++d) {
        outcome->deviceIds.push_back(outcome->costs.device(d).id);
    }
    return outcome;
}

void PlacementSearch::start(std::shared_ptr<const ImportResult> model,
                            const QByteArray& catalogJson, const QString& catalogName,
                            const std::vector<std::string>& deviceIds, const SearchOptions& options,
                            const QString& dbPath) {
    Q_EMIT searchStarted();
    const std::string catalogText = catalogJson.toStdString();
    const std::string origin = catalogName.toStdString();
    const std::string db = dbPath.toStdString();
    using Outcome = std::shared_ptr<const SearchOutcome>;
    run<Outcome>(
        tr("searching placements"),
        [=](JobResult<Outcome>& r, const std::shared_ptr<JobProgress>& progress) {
            const DeviceCatalog catalog = parseDeviceCatalogText(catalogText, origin);
            SearchRequest request;
            request.deviceIds = deviceIds;
            request.options = options;
            request.catalogOrigin = origin;
            request.dbPath = db;
            request.library = SearchRequest::Library::IfPresent;
            r.outcome = searchOutcomeOf(runSearch(model->graph, catalog, request, progress.get()),
                                        model, catalogText, catalogName, options, dbPath);
        },
        [this](const Outcome& outcome) { Q_EMIT searchFinished(outcome); },
        [this](const QString& error) { Q_EMIT searchFailed(error); });
}

} // namespace paretune
