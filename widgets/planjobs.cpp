// SPDX-License-Identifier: GPL-3.0-or-later
#include "planjobs.h"

#include "bundle/bundle_export.h"
#include "bundle/bundle_files.h"
#include "common/input_error.h"
#include "cost/device_catalog.h"
#include "graph/onnx_importer.h"
#include "paretune/config.h"
#include "placementsearch.h"
#include "planschedule.h"
#include "predict/device_resources.h"
#include "predict/library_costs.h"
#include "search/plans_file.h"
#include "store/library_location.h"
#include "store/sample_library.h"
#include "timelineview.h"
#include "workflow/search_workflow.h"

#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <filesystem>

namespace paretune {

namespace {

/// The costs the search gave the catalog's measured devices, for re-simulating its plan: the
/// same sample library again (searchCostsFromLibrary: cells and shared cores), or only the real
/// devices' shared cores when the search modelled all; then what the search refined them with
/// (a tune's in-plan costs). `model`: the model a validated plan's lowered graph came from
/// (its whole-model runs scale the cells), null for the model itself.
std::function<void(CostTable&, const Graph&, const DeviceCatalog&, const Graph*)>
searchCostFill(const SearchOutcome& search) {
    const std::string db = search.dbPath;
    const auto refine = search.refineCosts;
    return [db, refine](CostTable& table, const Graph& graph, const DeviceCatalog& catalog,
                        const Graph* model) {
        if (!db.empty()) {
            SampleLibrary library = SampleLibrary::open(db, SampleLibrary::OpenMode::ExistingOnly);
            searchCostsFromLibrary(table, graph, catalog, library, model);
        } else {
            applyDeviceResources(table, cpuDevices(cpuTopology()), nullptr);
        }
        if (refine) {
            refine(table, graph);
        }
    };
}

/// The search's plans as the plans document `paretune search --out` writes them (the whole
/// front, plan id = front index, then the baselines), read back as validation and export read
/// a plans file.
PlansFile plansFileOf(const SearchOutcome& search) {
    Simulator sim(search.model->graph, search.costs);
    sim.setPriority(search.priority);
    return frontPlansFile(sim, search.options, search.result, search.documentSource, "plans.json");
}

} // namespace

// --- Validation ---------------------------------------------------------------------------

ValidateJob::ValidateJob(QObject* parent) : JobRunner(parent) {
    connect(this, &JobRunner::progressed, this, &ValidateJob::validationProgressed);
}

bool ValidateJob::available() {
    return PARETUNE_WITH_TORCH != 0;
}

void ValidateJob::start(std::shared_ptr<const SearchOutcome> search, int planIndex,
                        const QString& dbPath, int repeats, int warmup) {
    Q_EMIT validationStarted();
    run<ValidationOutcome>(
        tr("validating the plan"),
        [=](JobResult<ValidationOutcome>& out, const std::shared_ptr<JobProgress>& progress) {
            out.outcome.search = search;
            out.outcome.planIndex = planIndex;
            out.outcome.dbPath = dbPath;
#if PARETUNE_WITH_TORCH
            const Graph& g = search->model->graph;
            frontPlan(*search, planIndex); // throws for a plan not on the front
            const PlanToValidate plan =
                planToValidate(g, plansFileOf(*search), planIndex,
                               "plan " + std::to_string(planIndex) + " of the search");
            const DeviceCatalog catalog =
                parseDeviceCatalogText(search->catalogJson, search->documentSource.catalog);
            SampleLibrary library = SampleLibrary::open(dbPath.toStdString());
            ValidationOptions options;
            options.repeats = repeats;
            options.warmup = warmup;
            options.catalog = &catalog;
            options.fillCosts = searchCostFill(*search);
            options.progress = progress.get();
            out.outcome.report = validatePlan(g, plan, library, options);
#else
            (void)repeats;
            (void)warmup;
            (void)progress;
            out.error = tr("Validation needs LibTorch, which this build does not include.");
#endif
        },
        [this](const ValidationOutcome& outcome) { Q_EMIT validationFinished(outcome); },
        [this](const QString& error) { Q_EMIT validationFailed(error); });
}

TimelineData withMeasuredLanes(TimelineData simulated, const ImportResult& model,
                               const ValidationOutcome& validation) {
    const PlanValidation& report = validation.report;
    const int firstLane = static_cast<int>(simulated.lanes.size());
    for (const ValidatedDevice& d : report.devices) {
        // The device's colour and name as in its simulated lane; the lane's tag says "measured".
        TimelineData::Lane lane{QString::fromStdString(d.id), false, QString::fromStdString(d.id),
                                -1, true};
        for (int l = 0; l < firstLane; ++l) {
            const TimelineData::Lane& s = simulated.lanes[static_cast<std::size_t>(l)];
            if (!s.link && !s.measured && s.deviceId == lane.deviceId) {
                lane.label = s.label;
                lane.colour = s.colour >= 0 ? s.colour : l;
            }
        }
        if (lane.colour < 0) {
            lane.colour = static_cast<int>(simulated.lanes.size()); // a device not simulated
        }
        simulated.lanes.push_back(lane);
    }
    // Each measured bar names the precision it ran in where the simulated ones name theirs.
    const bool precisions =
        std::any_of(simulated.bars.begin(), simulated.bars.end(),
                    [](const TimelineData::Bar& b) { return !b.precision.isEmpty(); });
    for (const ValidatedNode& n : report.nodes) {
        const Node& node = model.graph.nodes[static_cast<std::size_t>(n.node)];
        TimelineData::Bar bar;
        bar.lane = firstLane + n.device;
        bar.beginUs = n.measuredBeginUs;
        bar.endUs = n.measuredEndUs;
        bar.node = n.node;
        bar.label = QString::fromStdString(node.name);
        bar.kind = QString::fromStdString(node.opType);
        if (precisions) {
            bar.precision = QString::fromStdString(std::string(variantName(n.variant)));
        }
        if (!n.fusedMembers.empty()) { // a fusion group, run as one node: one bar
            QStringList ops;
            for (const NodeId m : n.fusedMembers) {
                ops << QString::fromStdString(
                    model.graph.nodes[static_cast<std::size_t>(m)].opType);
            }
            bar.label = QString::fromStdString(
                            model.graph.nodes[static_cast<std::size_t>(n.fusedMembers[0])].name) +
                        QStringLiteral("+fused");
            bar.kind = ops.join(QLatin1Char('+'));
        }
        simulated.endUs = std::max(simulated.endUs, bar.endUs);
        simulated.bars.push_back(bar);
    }
    simulated.source = TimelineView::tr("%1; measured lanes: validation on this machine, the run "
                                        "of median wall time of %2")
                           .arg(simulated.source)
                           .arg(report.repeats);
    return simulated;
}

// --- Bundle export ------------------------------------------------------------------------

BundleExportJob::BundleExportJob(QObject* parent) : JobRunner(parent) {}

void BundleExportJob::start(std::shared_ptr<const SearchOutcome> search, int planIndex,
                            const QString& modelPath, const QString& path, int candidates,
                            const QString& dbPath) {
    Q_EMIT exportStarted();
    run<BundleExportOutcome>(
        tr("exporting the bundle"),
        [=](JobResult<BundleExportOutcome>& out, const std::shared_ptr<JobProgress>& progress) {
            out.outcome.path = path;
            out.outcome.zip = path.endsWith(QStringLiteral(".zip"), Qt::CaseInsensitive);
            out.outcome.planIndex = planIndex;
            const std::string target = path.toStdString();
            checkNewBundlePath(target);
            frontPlan(*search, planIndex); // throws for a plan not on the front
            BundleExportOptions options;
            // A model from the resources (the bundled sample) is exported from memory.
            options.modelPath = modelPath.toStdString();
            if (modelPath.startsWith(QLatin1Char(':'))) {
                QFile model(modelPath);
                if (!model.open(QIODevice::ReadOnly)) {
                    throw InputError(modelPath.toStdString() +
                                     ": cannot read the model file to export it");
                }
                options.modelPath = QFileInfo(modelPath).fileName().toStdString();
                options.modelBytes = model.readAll().toStdString();
            }
            options.plans = plansFileOf(*search);
            options.catalog =
                parseDeviceCatalogText(search->catalogJson, search->documentSource.catalog);
            options.planId = planIndex;
            options.candidates = candidates;
            std::error_code error;
            if (isServerLibrary(dbPath.toStdString()) ||
                std::filesystem::is_regular_file(dbPath.toStdString(), error)) {
                options.samplesPath = dbPath.toStdString();
            }
            options.fillCosts = [fill = searchCostFill(*search)](CostTable& table, const Graph& g,
                                                                 const DeviceCatalog& catalog) {
                fill(table, g, catalog, nullptr); // an export's table is the model's
            };
            const BundleContents bundle = buildBundle(options);
            if (progress->cancelled()) {
                out.outcome.cancelled = true;
                return;
            }
            if (out.outcome.zip) {
                writeBundleZip(target, bundle.files);
            } else {
                writeBundleFolder(target, bundle.files);
            }
            std::size_t bytes = 0;
            for (const auto& [name, data] : bundle.files) {
                bytes += data.size();
            }
            out.outcome.partitions = bundle.partitionCount;
            out.outcome.candidateIds = bundle.candidateIds;
            out.outcome.files = static_cast<int>(bundle.files.size());
            out.outcome.megabytes = static_cast<double>(bytes) / (1024.0 * 1024.0);
            for (const Diagnostic& d : bundle.diagnostics) {
                out.outcome.warnings << QString::fromStdString(d.message);
            }
        },
        [this](const BundleExportOutcome& outcome) { Q_EMIT exportFinished(outcome); },
        [this](const QString& error) { Q_EMIT exportFailed(error); });
}

} // namespace paretune
