#include "placementsearch.h"

#include "common/input_error.h"
#include "cost/device_catalog.h"
#include "graph/onnx_importer.h"
#include "jobprogress.h"
#include "workflow/search_workflow.h"

#include <QtConcurrent/QtConcurrentRun>

namespace paretune {

PlacementSearch::PlacementSearch(QObject* parent) : QObject(parent) {}

PlacementSearch::~PlacementSearch() {
    m_jobs.abandon(this);
}

bool PlacementSearch::isRunning() const {
    return m_jobs.isRunning();
}

void PlacementSearch::cancel() {
    m_jobs.cancel();
}

void PlacementSearch::start(std::shared_ptr<const ImportResult> model,
                            const QByteArray& catalogJson, const QString& catalogName,
                            const std::vector<std::string>& deviceIds, const SearchOptions& options,
                            const QString& dbPath) {
    auto* watcher = new QFutureWatcher<Result>(this);
    // The latest job wins.
    const int job = m_jobs.begin(watcher, this, [this](double fraction, const QString& message) {
        Q_EMIT searchProgressed(fraction, message);
    });
    const std::shared_ptr<JobProgress> progress = m_jobs.progress();
    // Each generation's hypervolume, as searchPareto samples it.
    connect(
        progress.get(), &JobProgress::sampled, this,
        [this, job](int, double hypervolume) {
            if (m_jobs.isCurrent(job)) {
                Q_EMIT hypervolumeReported(hypervolume);
            }
        },
        Qt::QueuedConnection);
    connect(watcher, &QFutureWatcher<Result>::finished, this,
            [this, watcher] { deliver(watcher); });
    Q_EMIT searchStarted();
    const std::string catalogText = catalogJson.toStdString();
    const std::string origin = catalogName.toStdString();
    const std::string db = dbPath.toStdString();
    watcher->setFuture(QtConcurrent::run([=]() {
        Result r;
        r.job = job;
        try {
            const DeviceCatalog catalog = parseDeviceCatalogText(catalogText, origin);
            auto outcome = std::make_shared<SearchOutcome>();
            outcome->model = model;
            outcome->costSource = tr("modelled from %1").arg(catalogName);
            outcome->options = options;
            outcome->catalogJson = catalogText;
            SearchRequest request;
            request.deviceIds = deviceIds;
            request.options = options;
            request.catalogOrigin = origin;
            request.dbPath = db;
            request.library = SearchRequest::Library::IfPresent;
            SearchRun run = runSearch(model->graph, catalog, request, progress.get());
            if (run.library) {
                outcome->dbPath = db;
                outcome->costSource =
                    tr("measured (%1 cells) and predicted (%2 cells) from %3, else modelled "
                       "from %4")
                        .arg(run.library->measuredCells)
                        .arg(run.library->predictedCells)
                        .arg(dbPath, catalogName);
            }
            outcome->documentSource = run.source;
            outcome->result = std::move(run.result);
            outcome->priority = std::move(run.priority);
            run.simulator.reset(); // it refers to the table, which the outcome keeps
            outcome->costs = std::move(*run.costs);
            for (std::int32_t d = 0; d < outcome->costs.deviceCount(); ++d) {
                outcome->deviceIds.push_back(outcome->costs.device(d).id);
            }
            r.outcome = std::move(outcome);
        } catch (const InputError& e) {
            r.error = QString::fromStdString(e.what());
        } catch (const std::exception& e) {
            r.error = tr("Internal error in the search: %1").arg(QString::fromStdString(e.what()));
        }
        return r;
    }));
}

void PlacementSearch::deliver(QFutureWatcher<Result>* watcher) {
    const Result r = watcher->result();
    if (!m_jobs.isCurrent(watcher, r.job)) {
        return;
    }
    if (r.outcome) {
        Q_EMIT searchFinished(r.outcome);
    } else {
        Q_EMIT searchFailed(r.error);
    }
}

} // namespace paretune
