// SPDX-License-Identifier: GPL-3.0-or-later
#include "searchcontroller.h"

#include "common/input_error.h"
#include "cost/device_catalog.h"
#include "devicecontroller.h"
#include "documentcontroller.h"
#include "graph/onnx_importer.h"
#include "graphpalette.h"
#include "jobstatusbar.h"
#include "memoryview.h"
#include "nodetablemodel.h"
#include "paretoplot.h"
#include "placementsearch.h"
#include "plan/simulator.h"
#include "planjobs.h"
#include "planschedule.h"
#include "profilingcontroller.h"
#include "timelineview.h"
#include "workbenchlog.h"

#include <QAction>
#include <QFileDialog>
#include <QInputDialog>
#include <QMainWindow>
#include <QStatusBar>

#include <algorithm>
#include <limits>

namespace paretune {

namespace {

QString percentText(const std::optional<double>& error) {
    return error ? QStringLiteral("%1%2%")
                       .arg(*error >= 0 ? QStringLiteral("+") : QString())
                       .arg(*error * 100.0, 0, 'f', 1)
                 : QStringLiteral("-");
}

} // namespace

SearchOptions withVariants(SearchOptions options) {
    options.variants = {Precision::Bf16, Precision::Int8, {Precision::Fp32, Layout::ChannelsLast}};
    if (std::find(options.objectives.begin(), options.objectives.end(), Objective::Accuracy) ==
        options.objectives.end()) {
        // A search has two or three objectives: accuracy takes the third one's place.
        if (options.objectives.size() >= 3) {
            options.objectives.resize(2);
        }
        options.objectives.push_back(Objective::Accuracy);
    }
    return options;
}

SearchController::SearchController(QMainWindow* window, WorkbenchLog& log,
                                   DocumentController& document, DeviceController& devices,
                                   ProfilingController& profiling, JobStatusBar& jobs)
    : QObject(window), m_window(window), m_log(log), m_document(document), m_devices(devices),
      m_profiling(profiling), m_jobs(jobs), m_pareto(new ParetoPlot(window)),
      m_timeline(new TimelineView(window)), m_memory(new MemoryView(window)),
      m_searcher(new PlacementSearch(this)), m_validateJob(new ValidateJob(this)),
      m_exportJob(new BundleExportJob(this)) {
    m_searchAction = new QAction(tr("Search &placements on the catalog's modelled devices"), this);
    m_searchAction->setObjectName(QStringLiteral("searchAction"));
    m_searchAction->setEnabled(false);
    connect(m_searchAction, &QAction::triggered, this, [this] {
        searchPlacements(m_variantsAction->isChecked() ? withVariants({}) : SearchOptions{});
    });
    m_variantsAction = new QAction(tr("Offer other &variants (bf16, int8, fp32-nhwc)"), this);
    m_variantsAction->setObjectName(QStringLiteral("variantsAction"));
    m_variantsAction->setCheckable(true);
    const QString variantsTip =
        tr("Searches also choose how each node runs: bf16 for Conv, MatMul, Gemm and their Relu, "
           "Clip and Add, int8 for Conv, MatMul and Gemm, fp32-nhwc (channels-last activations) "
           "for Conv and their Relu, Clip and Add, with the estimated accuracy loss as an "
           "objective (in place of the third one, memory by default). Measured devices need "
           "the variants profiled (paretune profile --variants bf16,int8,fp32-nhwc).");
    m_variantsAction->setToolTip(variantsTip);
    m_variantsAction->setStatusTip(variantsTip);
    const QString validateTip =
        ValidateJob::available()
            ? tr("Run the chosen plan on this machine's devices and compare the measured "
                 "times with the plan's")
            : tr("Validation needs LibTorch, which this build does not include");
    m_validateAction = new QAction(tr("Validate"), this);
    m_validateAction->setObjectName(QStringLiteral("validateAction"));
    m_validateAction->setToolTip(validateTip);
    m_validateAction->setStatusTip(validateTip);
    m_validateAction->setEnabled(false); // once a plan is chosen
    m_validateAction->setData(ValidateJob::available());
    connect(m_validateAction, &QAction::triggered, this, [this] { validateShownPlan(); });
    const QString exportTip = tr("Export the chosen plan as a deployment bundle (partitions, "
                                 "manifest, profile and candidate plans)");
    m_exportAction = new QAction(tr("Export bundle"), this);
    m_exportAction->setObjectName(QStringLiteral("exportAction"));
    m_exportAction->setToolTip(exportTip);
    m_exportAction->setStatusTip(exportTip);
    m_exportAction->setEnabled(false); // once a plan is chosen
    connect(m_exportAction, &QAction::triggered, this, &SearchController::chooseBundlePath);

    m_jobs.follow(m_searcher, tr("Searching placements..."));
    connect(m_searcher, &PlacementSearch::searchStarted, this,
            [this] { m_window->statusBar()->showMessage(tr("Searching placements...")); });
    connect(m_searcher, &PlacementSearch::searchStarted, m_pareto, &ParetoPlot::startHypervolume);
    connect(m_searcher, &PlacementSearch::hypervolumeReported, m_pareto,
            &ParetoPlot::addHypervolume);
    connect(m_searcher, &PlacementSearch::searchStarted, this,
            [this] { m_log.log(tr("Placement search started")); });
    connect(m_searcher, &PlacementSearch::searchFinished, this, &SearchController::showSearch);
    connect(m_searcher, &PlacementSearch::searchFailed, &m_log, &WorkbenchLog::showError);
    connect(this, &SearchController::searchShown, this, [this] {
        const SearchResult& r = m_search->result;
        m_log.log(tr("Placement search %1 after %2 generations: %3 plans on the front "
                     "(costs %4)")
                      .arg(r.cancelled ? tr("cancelled") : tr("finished"))
                      .arg(r.generationsRun)
                      .arg(r.front.size())
                      .arg(m_search->costSource));
    });
    connect(m_pareto, &ParetoPlot::planSelected, this, &SearchController::showPlan);
    connect(m_timeline, &TimelineView::nodeClicked, &m_document, &DocumentController::selectNode);
    connect(m_memory, &MemoryView::nodeClicked, &m_document, &DocumentController::selectNode);
    connect(&m_document, &DocumentController::nodeSelected, m_timeline,
            &TimelineView::setSelectedNode);
    connect(&m_document, &DocumentController::modelReplaced, this, [this] {
        clearPlan();
        m_searchAction->setEnabled(true);
    });
    connect(&m_devices, &DeviceController::searchDevicesTicked, this,
            [this](int ticked) { m_searchAction->setEnabled(m_document.model() && ticked > 0); });
    setupPlanJobs();
}

bool SearchController::searchTarget(QByteArray* catalog, QString* catalogName,
                                    std::vector<std::string>* ids) {
    if (!m_devices.readCatalog(catalog, catalogName)) {
        return false;
    }
    ids->clear();
    for (const QString& id : m_devices.searchDevices()) {
        ids->push_back(id.toStdString());
    }
    if (ids->empty()) {
        try {
            for (const DeviceSpec& d :
                 parseDeviceCatalogText(catalog->toStdString(), catalogName->toStdString())
                     .devices) {
                ids->push_back(d.id);
            }
        } catch (const InputError& e) {
            m_log.showError(QString::fromStdString(e.what()));
            return false;
        }
    }
    return true;
}

void SearchController::searchPlacements(const SearchOptions& options) {
    if (!m_document.model()) {
        m_log.showError(tr("Open a model before searching placements."));
        return;
    }
    QByteArray catalog;
    QString catalogName;
    std::vector<std::string> ids;
    if (!searchTarget(&catalog, &catalogName, &ids)) {
        return;
    }
    m_searchOptions = options;
    m_variantsAction->setChecked(!options.variants.empty());
    m_searcher->start(m_document.model(), catalog, catalogName, ids, options,
                      m_profiling.databasePath());
}

void SearchController::setSearchOptions(const SearchOptions& options) {
    m_searchOptions = options;
    m_variantsAction->setChecked(!options.variants.empty());
}

void SearchController::cancelSearch() {
    m_searcher->cancel();
}

void SearchController::showSearch(std::shared_ptr<const SearchOutcome> outcome) {
    m_search = std::move(outcome);
    clearPlan();
    m_pareto->setOutcome(m_search);
    const SearchResult& r = m_search->result;
    const double hypervolume =
        r.hypervolumeByGeneration.empty() ? 0.0 : r.hypervolumeByGeneration.back();
    m_window->statusBar()->showMessage(
        tr("Search %1: %2 plans on the front, %3 evaluated, hypervolume %4")
            .arg(r.cancelled ? tr("cancelled") : tr("finished"))
            .arg(r.front.size())
            .arg(r.evaluations)
            .arg(hypervolume, 0, 'f', 4));
    Q_EMIT searchShown();
}

void SearchController::showPlan(int index) {
    if (!m_search || m_search->model != m_document.model() || index < 0 ||
        index >= static_cast<int>(m_search->result.front.size())) {
        return;
    }
    const Solution& chosen = m_search->result.front[static_cast<std::size_t>(index)];
    auto schedule = std::make_shared<PlanSchedule>(simulateFrontPlan(*m_search, index));
    m_document.clearPlanMeasurements();
    m_schedule = schedule;
    m_document.nodeTableModel()->setPlan(m_search, m_schedule);
    m_timeline->setData(
        timelineData(m_document.model()->graph, m_search->costs, schedule->simulation,
                     tr("simulated; costs %1").arg(m_search->costSource), schedule->plan.variant));
    m_memory->setData(memoryViewData(m_document.model()->graph, m_search->costs, schedule->memory));
    const Objectives& o = chosen.objectives;
    m_window->statusBar()->showMessage(
        tr("Plan %1 (costs %2): latency %3 ms, energy %4 mJ, peak memory %5 MiB")
            .arg(index)
            .arg(m_search->costSource)
            .arg(o.latencyUs / 1000.0, 0, 'f', 3)
            .arg(o.energyMj, 0, 'f', 3)
            .arg(o.peakMemoryBytes / (1024.0 * 1024.0), 0, 'f', 2));
    Q_EMIT planShown(index);
}

void SearchController::clearPlan() {
    m_document.clearPlanMeasurements();
    m_schedule.reset();
    m_validateAction->setEnabled(false);
    m_exportAction->setEnabled(false);
    m_timeline->clear();
    m_memory->clear();
    m_document.nodeTableModel()->setPlan(nullptr, nullptr);
}

void SearchController::setupPlanJobs() {
    m_jobs.follow(m_validateJob, tr("Validating..."));
    connect(this, &SearchController::planShown, this, [this] {
        m_validateAction->setEnabled(ValidateJob::available());
        m_exportAction->setEnabled(true);
    });
    connect(m_validateJob, &ValidateJob::validationFailed, &m_log, &WorkbenchLog::showError);
    connect(
        m_validateJob, &ValidateJob::validationFinished, this, [this](const ValidationOutcome& o) {
            if (o.report.cancelled) {
                m_log.log(
                    tr("Validation of plan %1 cancelled; nothing was stored").arg(o.planIndex));
                m_window->statusBar()->showMessage(tr("Validation cancelled"));
                return;
            }
            const PlanValidation& r = o.report;
            QString devices;
            for (const ValidatedDevice& d : r.devices) {
                devices += (devices.isEmpty() ? QString() : QStringLiteral(", ")) +
                           QString::fromStdString(d.id);
            }
            const QString text =
                tr("Plan %1 validated on %2: latency %3 measured (median of %4 runs, p10 %5, "
                   "p90 %6) vs %7 predicted (%8), error %9; stored in %10 (plan row %11, "
                   "%12 per-operator samples)")
                    .arg(o.planIndex)
                    .arg(devices, formatMicroseconds(*r.latencyUs.measured))
                    .arg(r.repeats)
                    .arg(formatMicroseconds(r.latencyP10Us), formatMicroseconds(r.latencyP90Us),
                         r.latencyUs.predicted ? formatMicroseconds(*r.latencyUs.predicted)
                                               : tr("none"),
                         QString::fromStdString(r.predictionSource), percentText(r.latencyUs.error),
                         o.dbPath)
                    .arg(r.storedPlanRow)
                    .arg(r.storedSamples);
            m_log.log(text);
            if (r.energyMj.measured) {
                m_log.log(tr("Energy %1 mJ measured (%2) vs %3 predicted, error %4")
                              .arg(*r.energyMj.measured, 0, 'f', 2)
                              .arg(QString::fromStdString(r.energyMj.measuredSource),
                                   r.energyMj.predicted
                                       ? QString::number(*r.energyMj.predicted, 'f', 2)
                                       : tr("none"),
                                   percentText(r.energyMj.error)));
            } else {
                m_log.log(tr("Energy not measured: no power counter is readable here"));
            }
            m_window->statusBar()->showMessage(text);
            if (m_schedule && o.search == m_search && o.planIndex == m_schedule->index) {
                m_timeline->setData(withMeasuredLanes(m_timeline->data(), *m_document.model(), o));
                std::vector<double> measured(m_document.model()->graph.nodes.size(),
                                             std::numeric_limits<double>::quiet_NaN());
                for (const ValidatedNode& n : r.nodes) {
                    measured[static_cast<std::size_t>(n.node)] = n.measuredUs;
                }
                m_document.showPlanMeasurements(
                    tr("Measured in plan %1").arg(o.planIndex),
                    tr("Median of %1 runs of plan %2 on this machine, each node on its "
                       "device in the plan (validation)")
                        .arg(r.repeats)
                        .arg(o.planIndex),
                    std::move(measured));
            }
        });
    // The export reports no fractions: a busy bar, and Cancel before anything is written.
    m_jobs.follow(m_exportJob, tr("Exporting the bundle..."), JobStatusBar::Progress::Busy);
    connect(m_exportJob, &BundleExportJob::exportStarted, this,
            [this] { m_window->statusBar()->showMessage(tr("Exporting the bundle...")); });
    connect(m_exportJob, &BundleExportJob::exportFailed, &m_log, &WorkbenchLog::showError);
    connect(
        m_exportJob, &BundleExportJob::exportFinished, this, [this](const BundleExportOutcome& o) {
            if (o.cancelled) {
                m_log.log(tr("Export of plan %1 cancelled; nothing was written").arg(o.planIndex));
                m_window->statusBar()->showMessage(tr("Export cancelled"));
                return;
            }
            for (const QString& warning : o.warnings) {
                m_log.log(tr("Export warning: %1").arg(warning));
            }
            QStringList candidates;
            for (const std::int64_t id : o.candidateIds) {
                candidates << QString::number(id);
            }
            const QString text = tr("Wrote the bundle %1%2: plan %3 in %4 partitions, "
                                    "candidate plans %5; %6 files, %7 MiB")
                                     .arg(o.path, o.zip ? tr(" (zip)") : QString())
                                     .arg(o.planIndex)
                                     .arg(o.partitions)
                                     .arg(candidates.join(QStringLiteral(", ")))
                                     .arg(o.files)
                                     .arg(o.megabytes, 0, 'f', 1);
            m_log.log(text);
            m_window->statusBar()->showMessage(text);
        });
}

void SearchController::validateShownPlan(int repeats, int warmup) {
    if (!m_search || !m_schedule || m_search->model != m_document.model()) {
        m_log.showError(tr("Choose a plan on the Pareto front before validating."));
        return;
    }
    m_log.log(tr("Validating plan %1 on this machine (%2 timed runs) into %3")
                  .arg(m_schedule->index)
                  .arg(repeats)
                  .arg(m_profiling.databasePath()));
    m_validateJob->start(m_search, m_schedule->index, m_profiling.databasePath(), repeats, warmup);
}

void SearchController::exportShownPlan(const QString& path, int candidates) {
    if (!m_search || !m_schedule || m_search->model != m_document.model()) {
        m_log.showError(tr("Choose a plan on the Pareto front before exporting a bundle."));
        return;
    }
    m_log.log(tr("Exporting plan %1 as a bundle to %2").arg(m_schedule->index).arg(path));
    m_exportJob->start(m_search, m_schedule->index, m_document.modelPath(), path, candidates,
                       m_profiling.databasePath());
}

void SearchController::chooseBundlePath() {
    QString selected;
    const QString path =
        QFileDialog::getSaveFileName(m_window, tr("Export bundle"), QString(),
                                     tr("Bundle folder (*);;Zip archive (*.zip)"), &selected);
    if (path.isEmpty()) {
        return;
    }
    bool ok = false;
    const int candidates = QInputDialog::getInt(
        m_window, tr("Export bundle"), tr("Pareto plans to include for run-time selection:"), 5, 1,
        64, 1, &ok);
    if (ok) {
        exportShownPlan(selected.contains(QStringLiteral("zip")) &&
                                !path.endsWith(QStringLiteral(".zip"))
                            ? path + QStringLiteral(".zip")
                            : path,
                        candidates);
    }
}

} // namespace paretune
