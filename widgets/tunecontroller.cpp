// SPDX-License-Identifier: GPL-3.0-or-later
#include "tunecontroller.h"

#include "documentcontroller.h"
#include "graph/onnx_importer.h"
#include "jobstatusbar.h"
#include "paretoplot.h"
#include "placementsearch.h"
#include "profilingcontroller.h"
#include "searchcontroller.h"
#include "tunedialog.h"
#include "tunepanel.h"
#include "tuneroundsmodel.h"
#include "workbenchlog.h"

#include <QAction>
#include <QMainWindow>
#include <QStatusBar>

namespace paretune {

namespace {

QString objectiveNames(const std::vector<Objective>& objectives) {
    QStringList names;
    for (const Objective o : objectives) {
        names << QString::fromUtf8(objectiveName(o).data(),
                                   static_cast<qsizetype>(objectiveName(o).size()));
    }
    return names.join(QStringLiteral(", "));
}

QString joined(const std::vector<std::string>& ids) {
    QStringList list;
    for (const std::string& id : ids) {
        list << QString::fromStdString(id);
    }
    return list.join(QStringLiteral(", "));
}

} // namespace

TuneController::TuneController(QMainWindow* window, WorkbenchLog& log, DocumentController& document,
                               ProfilingController& profiling, SearchController& search,
                               JobStatusBar& jobs)
    : QObject(window), m_window(window), m_log(log), m_document(document), m_profiling(profiling),
      m_search(search), m_jobs(jobs), m_job(new TuneJob(this)), m_panel(new TunePanel(window)) {
    const QString tip =
        TuneJob::available()
            ? tr("Search, validate plans along the front and the best baselines on this "
                 "machine's devices, learn from what was measured, and search again")
            : tr("Tuning needs LibTorch, which this build does not include");
    m_tuneAction = new QAction(tr("Tune"), this);
    m_tuneAction->setObjectName(QStringLiteral("tuneAction"));
    m_tuneAction->setToolTip(tip);
    m_tuneAction->setStatusTip(tip);
    m_tuneAction->setEnabled(false); // once a model is open
    m_tuneAction->setData(TuneJob::available());
    connect(m_tuneAction, &QAction::triggered, this, &TuneController::chooseSettings);
    connect(&m_document, &DocumentController::modelReplaced, this, [this] {
        m_tuneAction->setEnabled(TuneJob::available());
        m_panel->clear();
    });

    m_jobs.follow(m_job, tr("Tuning..."));
    connect(m_job, &TuneJob::tuneStarted, this, [this] {
        m_window->statusBar()->showMessage(tr("Tuning..."));
        m_search.paretoPlot()->startHypervolume();
    });
    // Each round's search draws its hypervolume curve anew.
    connect(m_job, &TuneJob::hypervolumeReported, this, [this](int generation, double hv) {
        if (generation <= 1) {
            m_search.paretoPlot()->startHypervolume();
        }
        m_search.paretoPlot()->addHypervolume(hv);
    });
    connect(m_job, &TuneJob::tuneFailed, &m_log, &WorkbenchLog::showError);
    connect(m_job, &TuneJob::tuneFinished, this, &TuneController::showOutcome);
    connect(&m_search, &SearchController::planShown, this, &TuneController::notePlanClaims);
}

void TuneController::chooseSettings() {
    QByteArray catalog;
    QString catalogName;
    std::vector<std::string> ids;
    if (!m_search.searchTarget(&catalog, &catalogName, &ids)) {
        return;
    }
    const SearchOptions o = m_search.searchOptions();
    const QString context =
        tr("Search: population %1, %2 generations, seed %3, objectives %4. Devices: %5 "
           "(catalog %6). Sample library: %7.")
            .arg(o.population)
            .arg(o.generations)
            .arg(o.seed)
            .arg(objectiveNames(o.objectives), joined(ids), catalogName,
                 m_profiling.databasePath());
    TuneDialog dialog(m_settings, context, m_window);
    if (dialog.exec() == QDialog::Accepted) {
        tune(dialog.settings());
    }
}

void TuneController::tune(const TuneSettings& settings) {
    if (!m_document.model()) {
        m_log.showError(tr("Open a model before tuning."));
        return;
    }
    QByteArray catalog;
    QString catalogName;
    std::vector<std::string> ids;
    if (!m_search.searchTarget(&catalog, &catalogName, &ids)) {
        return;
    }
    m_settings = settings;
    m_log.log(tr("Tuning on %1: up to %2 rounds, %3 front plans per round and the best "
                 "baselines, %4 interleaved runs each, into %5")
                  .arg(joined(ids))
                  .arg(settings.rounds)
                  .arg(settings.plansPerRound)
                  .arg(settings.repeats)
                  .arg(m_profiling.databasePath()));
    m_job->start(m_document.model(), catalog, catalogName, ids, m_search.searchOptions(),
                 m_profiling.databasePath(), settings);
}

void TuneController::showOutcome(const TuneOutcome& outcome) {
    for (const QString& note : outcome.notes) {
        m_log.log(note);
    }
    if (!outcome.search) {
        m_log.log(tr("Tune cancelled during its first round; nothing was stored"));
        m_window->statusBar()->showMessage(tr("Tune cancelled"));
        return;
    }
    if (outcome.search->model != m_document.model()) {
        return; // another model was opened meanwhile
    }
    m_shownSearch = outcome.search;
    m_shownClaims = outcome.claims;
    m_search.showSearch(outcome.search);
    m_search.paretoPlot()->setMeasured(outcome.measured, outcome.claims);
    m_panel->showOutcome(outcome);
    logRounds(outcome);

    int contradicted = 0;
    int confirmed = 0;
    for (std::size_t i = 0; i < outcome.claims.size(); ++i) {
        for (const PlanClaim& c : outcome.claims[i]) {
            confirmed += c.status == QLatin1String("confirmed") ? 1 : 0;
            if (c.contradicted()) {
                ++contradicted;
                m_log.log(tr("Claim contradicted by the measurements: plan %1 %2")
                              .arg(i)
                              .arg(claimText(c)));
            }
        }
    }
    const TuneRound& last = outcome.rounds.back();
    const QString text =
        tr("Tune %1 after %n round(s): last round's latency error max %2 %, median %3 %; "
           "claims over the baselines: %4 confirmed, %5 contradicted",
           "", static_cast<int>(outcome.rounds.size()))
            .arg(outcome.cancelled   ? tr("cancelled")
                 : outcome.converged ? tr("converged")
                                     : tr("finished"))
            .arg(last.maxAbsError * 100.0, 0, 'f', 1)
            .arg(last.medianAbsError * 100.0, 0, 'f', 1)
            .arg(confirmed)
            .arg(contradicted);
    m_log.log(text);
    m_window->statusBar()->showMessage(text);
    Q_EMIT tuneShown();
}

void TuneController::notePlanClaims(int index) {
    if (!m_shownSearch || m_search.currentSearch() != m_shownSearch || index < 0 ||
        index >= static_cast<int>(m_shownClaims.size())) {
        return;
    }
    QStringList contradicted;
    for (const PlanClaim& c : m_shownClaims[static_cast<std::size_t>(index)]) {
        if (c.contradicted()) {
            contradicted << claimText(c);
        }
    }
    if (!contradicted.isEmpty()) {
        m_window->statusBar()->showMessage(
            tr("Plan %1: claim contradicted by the measurements: %2; %3")
                .arg(index)
                .arg(contradicted.join(QStringLiteral("; ")),
                     m_window->statusBar()->currentMessage()));
    }
}

void TuneController::logRounds(const TuneOutcome& outcome) {
    for (const TuneRound& r : outcome.rounds) {
        m_log.log(tr("Tune round %1%2: %3 plans validated, latency error max %4 %, median %5 %; "
                     "costs: %6")
                      .arg(r.index + 1)
                      .arg(r.resumed ? tr(" (stored)") : QString())
                      .arg(r.plans.size())
                      .arg(r.maxAbsError * 100.0, 0, 'f', 1)
                      .arg(r.medianAbsError * 100.0, 0, 'f', 1)
                      .arg(TuneRoundsModel::costsText(r.fit)));
    }
}

} // namespace paretune
