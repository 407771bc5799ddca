#include "placementsearch.h"

#include "common/input_error.h"
#include "cost/device_catalog.h"
#include "graph/onnx_importer.h"
#include "jobprogress.h"
#include "plan/simulator.h"
#include "predict/library_costs.h"
#include "store/sample_library.h"

#include <QRegularExpression>
#include <QtConcurrent/QtConcurrentRun>

#include <filesystem>

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
        if (const auto hypervolume = hypervolumeOf(message)) {
            Q_EMIT hypervolumeReported(*hypervolume);
        }
    });
    const std::shared_ptr<JobProgress> progress = m_jobs.progress();
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
            outcome->costs = buildCostTable(model->graph, catalog, deviceIds);
            for (std::int32_t d = 0; d < outcome->costs.deviceCount(); ++d) {
                outcome->deviceIds.push_back(outcome->costs.device(d).id);
            }
            outcome->costSource = QStringLiteral("modelled from %1").arg(catalogName);
            outcome->options = options;
            outcome->catalogJson = catalogText;
            outcome->documentSource.catalog = origin;
            outcome->documentSource.host = catalog.host;
            bool measuredDevices = false;
            for (const std::string& id : deviceIds) {
                const int index = catalog.findDevice(id);
                measuredDevices =
                    measuredDevices ||
                    (index >= 0 && !catalog.devices[static_cast<std::size_t>(index)].modelled);
            }
            std::error_code error;
            if (measuredDevices && !db.empty() && std::filesystem::is_regular_file(db, error)) {
                SampleLibrary library =
                    SampleLibrary::open(db, SampleLibrary::OpenMode::ExistingOnly);
                const LibraryCosts costs =
                    costsFromLibrary(outcome->costs, model->graph, catalog, library);
                outcome->dbPath = db;
                outcome->documentSource.library = {
                    {"db", db},
                    {"predictor_id", costs.predictorId > 0 ? nlohmann::json(costs.predictorId)
                                                           : nlohmann::json(nullptr)},
                    {"measured_cells", costs.measuredCells},
                    {"predicted_cells", costs.predictedCells}};
                outcome->costSource =
                    tr("measured (%1 cells) and predicted (%2 cells) from %3, else modelled "
                       "from %4")
                        .arg(costs.measuredCells)
                        .arg(costs.predictedCells)
                        .arg(dbPath, catalogName);
            }
            Simulator simulator(model->graph, outcome->costs);
            outcome->result = searchPareto(simulator, options, progress.get());
            outcome->priority.assign(simulator.priority().begin(), simulator.priority().end());
            r.outcome = std::move(outcome);
        } catch (const InputError& e) {
            r.error = QString::fromStdString(e.what());
        } catch (const std::exception& e) {
            r.error = tr("Internal error in the search: %1").arg(QString::fromStdString(e.what()));
        }
        return r;
    }));
}

std::optional<double> PlacementSearch::hypervolumeOf(const QString& progressMessage) {
    static const QRegularExpression pattern(
        QStringLiteral("^(?:coarse |fine )?generation \\d+/\\d+, hypervolume ([0-9.eE+-]+)$"));
    const QRegularExpressionMatch match = pattern.match(progressMessage);
    bool ok = false;
    const double value = match.hasMatch() ? match.captured(1).toDouble(&ok) : 0.0;
    return ok ? std::optional<double>(value) : std::nullopt;
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
