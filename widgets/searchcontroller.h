// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "search/pareto_search.h"

#include <QObject>
#include <QString>

#include <memory>
#include <string>
#include <vector>

class QAction;
class QMainWindow;

namespace paretune {

class BundleExportJob;
class DeviceController;
class DocumentController;
class JobStatusBar;
class ParetoPlot;
class PlacementSearch;
struct PlanSchedule;
class ProfilingController;
struct SearchOutcome;
class MemoryView;
class TimelineView;
class ValidateJob;
class WorkbenchLog;

/// `options` offering other variants: bf16, int8 and fp32-nhwc beside fp32, with accuracy (the
/// estimated output deviation) among the objectives, in place of the third one when there are
/// three.
SearchOptions withVariants(SearchOptions options);

/// Placement search and the plans it finds: the Search, Validate and Export bundle actions and
/// their jobs (each with its indicator in the status bar), the Pareto front, the chosen plan
/// (its simulated schedule in the timeline and the node table, its memory plan in the memory
/// view, its measured times once
/// validated) and its export as a deployment bundle.
class SearchController : public QObject {
    Q_OBJECT
public:
    SearchController(QMainWindow* window, WorkbenchLog& log, DocumentController& document,
                     DeviceController& devices, ProfilingController& profiling, JobStatusBar& jobs);

    ParetoPlot* paretoPlot() const { return m_pareto; }
    TimelineView* timelineView() const { return m_timeline; }
    /// The memory plan of the plan shown, per device (arena occupancy over its steps).
    MemoryView* memoryView() const { return m_memory; }
    QAction* searchAction() const { return m_searchAction; }
    /// Checkable: the Search menu's searches also choose each node's variant (bf16, int8,
    /// fp32-nhwc) with the estimated output deviation as an objective (withVariants).
    QAction* variantsAction() const { return m_variantsAction; }
    QAction* validateAction() const { return m_validateAction; }
    QAction* exportAction() const { return m_exportAction; }
    PlacementSearch* placementSearch() const { return m_searcher; }
    ValidateJob* validateJob() const { return m_validateJob; }
    BundleExportJob* bundleExportJob() const { return m_exportJob; }

    /// Searches placements of the current model on the chosen devices of the catalog on a
    /// worker thread. Costs are modelled; the catalog's measured devices take measured and
    /// predicted costs from the sample library.
    void searchPlacements(const SearchOptions& options);
    void cancelSearch();
    /// The catalog (JSON text and name) and the catalog devices a search places on now: the
    /// ticked ones, else every device of the catalog. False after showing why there are none.
    bool searchTarget(QByteArray* catalog, QString* catalogName, std::vector<std::string>* ids);
    /// Shows a finished search (PlacementSearch's, or a tune's last round): the Pareto front,
    /// no plan chosen yet; emits searchShown.
    void showSearch(std::shared_ptr<const SearchOutcome> outcome);
    /// The settings of the last search (or the ones a workspace asked for).
    SearchOptions searchOptions() const { return m_searchOptions; }
    void setSearchOptions(const SearchOptions& options);

    std::shared_ptr<const SearchOutcome> currentSearch() const { return m_search; }
    /// The simulated schedule of the plan shown (null before a plan is chosen).
    std::shared_ptr<const PlanSchedule> currentSchedule() const { return m_schedule; }

    /// Validates the plan shown on this machine's real devices on a worker thread, stores the
    /// measurement in the sample library and adds the measured lanes to the timeline.
    void validateShownPlan(int repeats = 20, int warmup = 2);
    /// Exports the plan shown as a deployment bundle at `path` (a new folder, or a zip archive
    /// when it ends in ".zip"), with `candidates` Pareto plans for run-time selection.
    void exportShownPlan(const QString& path, int candidates = 5);

Q_SIGNALS:
    void searchShown();
    void planShown(int index);

private:
    void showPlan(int index);
    /// Forgets the shown plan (a new model or a new search).
    void clearPlan();
    void setupPlanJobs();
    void chooseBundlePath();

    QMainWindow* m_window;
    WorkbenchLog& m_log;
    DocumentController& m_document;
    DeviceController& m_devices;
    ProfilingController& m_profiling;
    JobStatusBar& m_jobs;
    ParetoPlot* m_pareto;
    TimelineView* m_timeline;
    MemoryView* m_memory;
    PlacementSearch* m_searcher;
    ValidateJob* m_validateJob;
    BundleExportJob* m_exportJob;
    QAction* m_searchAction = nullptr;
    QAction* m_variantsAction = nullptr;
    QAction* m_validateAction = nullptr;
    QAction* m_exportAction = nullptr;
    SearchOptions m_searchOptions;
    std::shared_ptr<const SearchOutcome> m_search;
    std::shared_ptr<const PlanSchedule> m_schedule;
};

} // namespace paretune
