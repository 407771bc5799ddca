// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "search/pareto_search.h"
#include "tunejob.h"

#include <QMainWindow>

#include <memory>

namespace paretune {

class AdaptJob;
class BundleExportJob;
class DeviceController;
class DeviceListModel;
class DocumentController;
struct ImportResult;
class JobStatusBar;
class ModelLoader;
class NodeTableModel;
class ParetoPlot;
class PlacementSearch;
struct PlanSchedule;
class PredictorPanel;
class ProfileJob;
class ProfilingController;
class SearchController;
struct SearchOutcome;
class TimelineView;
class TrainJob;
class TuneController;
class TunePanel;
class ValidateJob;
class WorkbenchLog;
class WorkspaceController;

/// The workbench's main window. It lays out the docks, menus and the tool bar, and wires the
/// controllers the workbench is made of, each owning its widgets and jobs:
/// DocumentController (the open model, its summary and node table, the node selection),
/// DeviceController (discovered and catalog devices), ProfilingController (profiling and
/// training into the sample library, the predictor panel), SearchController (placement search,
/// the Pareto front, the chosen plan's timeline, validation and bundle export), TuneController
/// (the tune loop: rounds of search, validation and learning, its panel) and
/// WorkspaceController (settings, recent files, workspace files). Problems go to one
/// WorkbenchLog; every running job has its own progress and Cancel in the status bar
/// (JobStatusBar). The functions below are the window's face for main() and the tests.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    void openModel(const QString& path);
    /// Opens the sample model bundled in the resources (":/models/sample.onnx").
    void openSampleModel();

    /// Searches placements of the current model on the chosen devices of the catalog (default:
    /// the bundled example, cpu host, gpu, npu) on a worker thread. Costs are modelled; the
    /// catalog's measured devices take measured and predicted costs from the sample library.
    void searchPlacements(const SearchOptions& options);
    void cancelSearch();
    /// The search settings Search's workspace restore and Tune use (those of the last search).
    SearchOptions searchOptions() const;
    void setSearchOptions(const SearchOptions& options);

    /// Tunes the current model (Workflow > Tune; core's runTune, as `paretune tune`) on the
    /// search's catalog devices with the current search settings and sample library, on a
    /// worker thread: its last round's front is shown as a search, the plans measured in that
    /// round beside their simulated points, the rounds in the Tune panel.
    void tune(const TuneSettings& settings = TuneSettings{});
    TuneJob* tuneJob() const;
    TunePanel* tunePanel() const;

    /// Selects a node (graph node id) in every view that shows nodes; emits nodeSelected.
    /// A negative id clears the selection.
    void selectNode(int nodeId);
    int selectedNode() const;

    std::shared_ptr<const ImportResult> currentModel() const;
    std::shared_ptr<const SearchOutcome> currentSearch() const;
    ParetoPlot* paretoPlot() const;
    NodeTableModel* nodeTableModel() const;
    ModelLoader* loader() const;
    TimelineView* timelineView() const;
    /// The simulated schedule of the plan shown (null before a plan is chosen).
    std::shared_ptr<const PlanSchedule> currentSchedule() const;
    DeviceListModel* deviceListModel() const;
    PlacementSearch* placementSearch() const;
    ProfileJob* profileJob() const;
    TrainJob* trainJob() const;
    AdaptJob* adaptJob() const;
    /// Measures the `budget` most uncertain operators of the current model on a real device,
    /// then retrains the predictor (Workflow > Adapt; core's adaptPredictor, as `paretune adapt`).
    void adaptOnDevice(const QString& deviceId, int budget);
    /// Trains the predictor on the sample library (Workflow > Train), holding the open model out
    /// when the library has other models.
    void trainPredictor(int epochs = 60, int members = 5);

    /// Profiles the current model's operators on a real device (id from the Devices dock) into
    /// the sample library, on a worker thread with progress and Cancel in the status bar; the
    /// latest profiling job wins. `repeats` timed runs per round, 0: adaptive.
    void profileOnDevice(const QString& deviceId, int repeats = 0);
    PredictorPanel* predictorPanel() const;

    /// Validates the plan shown (Workflow > Validate): runs it on this machine's real devices on
    /// a worker thread, stores the measurement in the sample library and adds the measured
    /// lanes to the timeline. Plans on modelled devices are refused with the engine's message.
    void validateShownPlan(int repeats = 20, int warmup = 2);
    /// Exports the plan shown as a deployment bundle at `path` (a new folder, or a zip archive
    /// when it ends in ".zip"), with `candidates` Pareto plans for run-time selection.
    void exportShownPlan(const QString& path, int candidates = 5);
    ValidateJob* validateJob() const;
    BundleExportJob* bundleExportJob() const;
    /// Whether the window starts maximized: no saved geometry, and a screen small enough for the
    /// window to take all of it (defaultWindowGeometry). main() shows it so, which lets the
    /// window manager fit the frame in the work area.
    bool fillsScreen() const { return m_fillsScreen; }
    /// The status bar's indicators of the running jobs.
    JobStatusBar* jobStatusBar() const { return m_jobStatus; }

    /// The sample library (SQLite file) profiling writes to and the predictor panel reads.
    void setDatabasePath(const QString& path);
    QString databasePath() const;
    /// The device catalog for modelled devices and searches; empty: the bundled example.
    /// Rediscovers the devices. Returns false (and shows the error) for a bad catalog.
    bool setCatalogPath(const QString& path);
    QString catalogPath() const;
    /// Catalog device ids the search places on (ticked in the Devices dock); empty: every
    /// device of the catalog.
    void setSearchDevices(const QStringList& ids);
    QStringList searchDevices() const;
    /// Adds a line to the Log / Issues dock.
    void logMessage(const QString& text);

    /// Opens a model (.onnx) or a workspace (.paretune) by its suffix.
    void openPath(const QString& path);
    /// Restores a workspace: database, catalog, devices, search settings, the model, and (after
    /// the same search again) the chosen plan. Returns false and shows the error for a bad file.
    bool openWorkspace(const QString& path);
    /// Saves the current state as a workspace; false (error shown) when it cannot be written.
    bool saveWorkspace(const QString& path);
    /// Files opened recently (models and workspaces), newest first.
    QStringList recentFiles() const;
    /// The path of the model shown or being opened (":/models/sample.onnx" for the bundled one).
    QString modelPath() const;
    /// The language setting: empty for the system's, else a locale name ("en", "zh_CN").
    static QString languageSetting();
    static void setLanguageSetting(const QString& language);

Q_SIGNALS:
    void modelShown(const QString& displayName);
    void errorShown(const QString& message);
    void searchShown();
    void planShown(int index);
    /// A finished tune was shown.
    void tuneShown();
    /// The node selected in any view (table, graph, timeline); -1 when none.
    void nodeSelected(int nodeId);
    void workspaceOpened(const QString& path);

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    QDockWidget* addDock(const QString& title, const QString& objectName, QWidget* content,
                         Qt::DockWidgetArea area);
    void setupToolBar();
    void showAbout();

    WorkbenchLog* m_log = nullptr;
    JobStatusBar* m_jobStatus = nullptr; ///< one indicator and Cancel per running job
    DocumentController* m_document = nullptr;
    DeviceController* m_devices = nullptr;
    ProfilingController* m_profiling = nullptr;
    SearchController* m_search = nullptr;
    TuneController* m_tune = nullptr;
    WorkspaceController* m_workspace = nullptr;
    QMenu* m_fileMenu = nullptr;
    bool m_fillsScreen = false;
};

} // namespace paretune
