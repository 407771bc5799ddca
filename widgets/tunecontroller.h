// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "tunejob.h"

#include <QObject>

class QAction;
class QMainWindow;

namespace paretune {

class DocumentController;
class JobStatusBar;
class ProfilingController;
class SearchController;
class TunePanel;
class WorkbenchLog;

/// The tune loop in the workbench (Workflow > Tune): its settings dialog, the TuneJob with its
/// indicator and Cancel in the status bar, and what a finished tune shows: the last round's
/// search as the Pareto front (through SearchController, as a finished search is shown), the
/// plans measured in that round beside their simulated points, the rounds with their prediction
/// errors and learned costs in the Tune panel and the log, and the final front's claims over
/// the baselines, a contradicted one marked in the panel, the plan's tooltip and the status
/// bar. The tune uses the current model, search settings, catalog devices and sample library.
class TuneController : public QObject {
    Q_OBJECT
public:
    TuneController(QMainWindow* window, WorkbenchLog& log, DocumentController& document,
                   ProfilingController& profiling, SearchController& search, JobStatusBar& jobs);

    QAction* tuneAction() const { return m_tuneAction; }
    TuneJob* tuneJob() const { return m_job; }
    TunePanel* panel() const { return m_panel; }

    /// Tunes the current model on the search's catalog devices on a worker thread; refusals
    /// (modelled devices, a library without the model's samples, …) are shown as errors.
    void tune(const TuneSettings& settings);
    /// The settings of the last tune (the dialog starts from them).
    TuneSettings tuneSettings() const { return m_settings; }

Q_SIGNALS:
    /// A finished tune was shown (its front in the Pareto plot, its rounds in the panel).
    void tuneShown();

private:
    void chooseSettings();
    void showOutcome(const TuneOutcome& outcome);
    void logRounds(const TuneOutcome& outcome);
    /// A plan of the tune's front was chosen: its contradicted claims join the status text.
    void notePlanClaims(int index);

    QMainWindow* m_window;
    WorkbenchLog& m_log;
    DocumentController& m_document;
    ProfilingController& m_profiling;
    SearchController& m_search;
    JobStatusBar& m_jobs;
    TuneJob* m_job;
    TunePanel* m_panel;
    QAction* m_tuneAction = nullptr;
    TuneSettings m_settings;
    /// The front shown by the last tune and its plans' claims (index = front index).
    std::shared_ptr<const SearchOutcome> m_shownSearch;
    std::vector<std::vector<PlanClaim>> m_shownClaims;
};

} // namespace paretune
