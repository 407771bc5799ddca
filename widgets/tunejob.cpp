// SPDX-License-Identifier: GPL-3.0-or-later
#include "tunejob.h"

#include "common/input_error.h"
#include "cost/device_catalog.h"
#include "graph/onnx_importer.h"
#include "paretune/config.h"
#include "placementsearch.h"
#include "store/library_location.h"
#include "workflow/in_context_costs.h"

#include <QFileInfo>

namespace paretune {

namespace {

MeasuredPoint measuredPointOf(const TunedPlan& p) {
    MeasuredPoint m;
    m.label = QString::fromStdString(p.label);
    m.genome = p.genome;
    m.simulated = p.simulated;
    m.predictedUs = p.predictedUs;
    m.medianUs = p.measured.medianUs;
    m.p10Us = p.measured.p10Us;
    m.p90Us = p.measured.p90Us;
    m.runs = p.measured.runs;
    m.energyMj = p.measuredEnergyMj;
    m.memoryMb = p.measuredMemoryMb;
    m.error = p.error;
    return m;
}

/// The claims of the plans document's plans 0 .. frontSize-1 (plan id = front index: the
/// document lists the whole front first).
std::vector<std::vector<PlanClaim>> claimsOf(const nlohmann::json& document,
                                             std::size_t frontSize) {
    std::vector<std::vector<PlanClaim>> claims(frontSize);
    const nlohmann::json& plans = document.at("plans");
    for (std::size_t i = 0; i < frontSize && i < plans.size(); ++i) {
        for (const nlohmann::json& c : plans[i].at("claims")) {
            if (c.at("status") == "within error") {
                continue; // the predictions cannot tell the two apart: nothing is claimed
            }
            PlanClaim claim;
            claim.baseline = QString::fromStdString(c.at("baseline").get<std::string>());
            claim.dominates = c.at("dominates").get<bool>();
            claim.status = QString::fromStdString(c.at("status").get<std::string>());
            for (const auto& [name, status] : c.at("better").items()) {
                claim.objectives.emplace_back(QString::fromStdString(name),
                                              QString::fromStdString(status.get<std::string>()));
            }
            claims[i].push_back(std::move(claim));
        }
    }
    return claims;
}

} // namespace

TuneJob::TuneJob(QObject* parent) : JobRunner(parent) {
    connect(this, &JobRunner::progressed, this, &TuneJob::tuneProgressed);
    connect(this, &JobRunner::sampled, this, &TuneJob::hypervolumeReported);
}

bool TuneJob::available() {
    return PARETUNE_WITH_TORCH != 0;
}

void TuneJob::start(std::shared_ptr<const ImportResult> model, const QByteArray& catalogJson,
                    const QString& catalogName, const std::vector<std::string>& deviceIds,
                    const SearchOptions& options, const QString& dbPath,
                    const TuneSettings& settings) {
    Q_EMIT tuneStarted();
    const std::string catalogText = catalogJson.toStdString();
    run<TuneOutcome>(
        tr("tuning"),
        [=](JobResult<TuneOutcome>& r, const std::shared_ptr<JobProgress>& progress) {
            TuneOutcome& out = r.outcome;
            out.settings = settings;
            out.dbPath = dbPath;
#if PARETUNE_WITH_TORCH
            if (!isServerLibrary(dbPath.toStdString()) && !QFileInfo::exists(dbPath)) {
                r.error = tr("The sample library %1 does not exist: profile the model on each "
                             "device to tune on first (Workflow > Profile).")
                              .arg(dbPath);
                return;
            }
            const DeviceCatalog catalog =
                parseDeviceCatalogText(catalogText, catalogName.toStdString());
            TuneRequest request;
            request.deviceIds = deviceIds;
            request.options = options;
            request.catalogOrigin = catalogName.toStdString();
            request.dbPath = dbPath.toStdString();
            request.rounds = settings.rounds;
            request.validate = settings.plansPerRound;
            request.repeats = settings.repeats;
            request.windowS = settings.windowS;
            request.warmup = settings.warmup;
            request.maxPlans = 0; // the whole front: plan id = front index, as the plot has it
            out.targetError = request.targetError;
            TuneRun run;
            try {
                run = runTune(model->graph, catalog, request, progress.get());
            } catch (const InputError& e) {
                // The settings in the workbench's words; anything else as the engine says it.
                const QString problem = QString::fromStdString(e.problem());
                if (e.setting() == "db") {
                    r.error = tr("Sample library: %1").arg(problem);
                } else if (e.setting() == "devices") {
                    r.error =
                        tr("Devices to tune on (ticked in the Devices dock): %1").arg(problem);
                } else {
                    throw;
                }
                return;
            }
            out.rounds = run.rounds;
            out.converged = run.converged;
            out.cancelled = run.cancelled;
            for (const Diagnostic& d : run.diagnostics) {
                out.notes << QString::fromStdString(d.message);
            }
            if (run.rounds.empty()) {
                return; // cancelled in the first round: nothing to show
            }
            const TuneRound& last = run.rounds.back();
            for (const TunedPlan& p : last.plans) {
                out.measured.push_back(measuredPointOf(p));
            }
            out.claims = claimsOf(run.document, run.search.result.front.size());
            // The last round searched with the costs learned from the rounds before it:
            // validation and export of its plans rebuild the table the same way.
            std::vector<PlanObservation> learned;
            for (std::size_t i = 0; i + 1 < run.rounds.size(); ++i) {
                learned.insert(learned.end(), run.rounds[i].observations.begin(),
                               run.rounds[i].observations.end());
            }
            auto search = searchOutcomeOf(std::move(run.search), model, catalogText, catalogName,
                                          options, dbPath);
            if (!learned.empty()) {
                search->costSource +=
                    tr("; in-plan times of %n earlier tune round(s) (%1 nodes in context, %2 "
                       "scaled)",
                       "", static_cast<int>(run.rounds.size() - 1))
                        .arg(last.fit.nodesInContext)
                        .arg(last.fit.nodesScaled);
                search->refineCosts = [learned](CostTable& table, const Graph& graph) {
                    applyInContextCosts(table, graph, learned);
                };
            }
            out.search = std::move(search);
#else
            (void)model;
            (void)deviceIds;
            (void)options;
            (void)progress;
            r.error = tr("Tuning needs LibTorch, which this build does not include.");
#endif
        },
        [this](const TuneOutcome& outcome) { Q_EMIT tuneFinished(outcome); },
        [this](const QString& error) { Q_EMIT tuneFailed(error); });
}

} // namespace paretune
