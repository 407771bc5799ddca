#pragma once

#include "search/pareto_search.h"

#include <QMainWindow>

#include <memory>

class QLabel;
class QLineEdit;
class QListWidget;
class QSortFilterProxyModel;
class QTableView;

namespace paretune {

class BundleExportJob;
class DeviceListModel;
class JobRunner;
class JobStatusBar;
class ValidateJob;
struct ImportResult;
class PredictorPanel;
class ProfileJob;
class TrainJob;
class ModelLoader;
class NodeTableModel;
class ParetoPlot;
class PlacementSearch;
struct PlanSchedule;
class TimelineView;
struct SearchOutcome;

/// The workbench's main window: the opened model's summary, its node table and the import
/// diagnostics. Models are imported on a worker thread through ModelLoader.
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

    /// Selects a node (graph node id) in every view that shows nodes; emits nodeSelected.
    /// A negative id clears the selection.
    void selectNode(int nodeId);
    int selectedNode() const { return m_selectedNode; }

    std::shared_ptr<const ImportResult> currentModel() const { return m_model; }
    std::shared_ptr<const SearchOutcome> currentSearch() const { return m_search; }
    ParetoPlot* paretoPlot() const { return m_pareto; }
    NodeTableModel* nodeTableModel() const { return m_nodeModel; }
    ModelLoader* loader() const { return m_loader; }
    TimelineView* timelineView() const { return m_timeline; }
    /// The simulated schedule of the plan shown (null before a plan is chosen).
    std::shared_ptr<const PlanSchedule> currentSchedule() const { return m_schedule; }
    DeviceListModel* deviceListModel() const { return m_devices; }
    PlacementSearch* placementSearch() const { return m_searcher; }
    ProfileJob* profileJob() const { return m_profileJob; }
    TrainJob* trainJob() const { return m_trainJob; }
    /// Trains the predictor on the sample library (Workflow > Train), holding the open model out
    /// when the library has other models.
    void trainPredictor(int epochs = 60, int members = 5);

    /// Profiles the current model's operators on a real device (id from the Devices dock) into
    /// the sample library, on a worker thread with progress and Cancel in the status bar; the
    /// latest profiling job wins. `repeats` timed runs per round, 0: adaptive.
    void profileOnDevice(const QString& deviceId, int repeats = 0);
    PredictorPanel* predictorPanel() const { return m_predictor; }

    /// Validates the plan shown (Workflow > Validate): runs it on this machine's real devices on
    /// a worker thread, stores the measurement in the sample library and adds the measured
    /// lanes to the timeline. Plans on modelled devices are refused with the engine's message.
    void validateShownPlan(int repeats = 20, int warmup = 2);
    /// Exports the plan shown as a deployment bundle at `path` (a new folder, or a zip archive
    /// when it ends in ".zip"), with `candidates` Pareto plans for run-time selection.
    void exportShownPlan(const QString& path, int candidates = 5);
    ValidateJob* validateJob() const { return m_validateJob; }
    BundleExportJob* bundleExportJob() const { return m_exportJob; }
    /// The status bar's indicators of the running jobs.
    JobStatusBar* jobStatusBar() const { return m_jobStatus; }

    /// The sample library (SQLite file) profiling writes to and the predictor panel reads.
    void setDatabasePath(const QString& path);
    QString databasePath() const { return m_dbPath; }
    /// The device catalog for modelled devices and searches; empty: the bundled example.
    /// Rediscovers the devices. Returns false (and shows the error) for a bad catalog.
    bool setCatalogPath(const QString& path);
    QString catalogPath() const { return m_catalogPath; }
    /// Catalog device ids the search places on (ticked in the Devices dock); empty: every
    /// device of the catalog.
    void setSearchDevices(const QStringList& ids);
    QStringList searchDevices() const { return m_searchDevices; }
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
    QString modelPath() const { return m_modelPath; }
    /// The language setting: empty for the system's, else a locale name ("en", "zh_CN").
    static QString languageSetting();
    static void setLanguageSetting(const QString& language);

Q_SIGNALS:
    void modelShown(const QString& displayName);
    void errorShown(const QString& message);
    void searchShown();
    void planShown(int index);
    /// The node selected in any view (table, graph, timeline); -1 when none.
    void nodeSelected(int nodeId);
    void workspaceOpened(const QString& path);

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void showModel(std::shared_ptr<const ImportResult> result, const QString& displayName);
    void showError(const QString& message);
    void chooseModelFile();
    void showAbout();
    void showSearch(std::shared_ptr<const SearchOutcome> outcome);
    void showPlan(int index);

    ModelLoader* m_loader = nullptr;
    NodeTableModel* m_nodeModel = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    QTableView* m_table = nullptr;
    QLineEdit* m_filter = nullptr;
    QLabel* m_summary = nullptr;
    QListWidget* m_diagnostics = nullptr;
    ParetoPlot* m_pareto = nullptr;
    PlacementSearch* m_searcher = nullptr;
    JobStatusBar* m_jobStatus = nullptr; ///< one indicator and Cancel per running job
    QAction* m_searchAction = nullptr;
    // Docks and actions beyond the node table, one setup helper each (mainwindow_docks.cpp).
    void setupTimelineDock();
    void setupParetoLive();
    void setupDevicesDock();
    void setupLogDock();
    void setupPredictorDock();
    void setupToolBar();
    void setupProfileJob();
    void setupTrainJob();
    void chooseDeviceToProfile();
    void setupPlanJobs();
    /// Removes the node table's "Measured in plan" column when a validation put it there.
    void clearPlanMeasurements();
    void chooseBundlePath();
    void setupPersistence();
    void addRecentFile(const QString& path);
    void updateRecentMenu();
    void chooseWorkspaceToOpen();
    void chooseWorkspaceToSave();
    void discoverDevices();
    /// The catalog's JSON text and its display name; false (error shown) when unreadable.
    bool readCatalog(QByteArray* json, QString* name);
    /// Forgets the shown plan (a new model or a new search).
    void clearPlan();

    TimelineView* m_timeline = nullptr;
    std::shared_ptr<const PlanSchedule> m_schedule;
    DeviceListModel* m_devices = nullptr;
    QLabel* m_deviceNotes = nullptr;
    QListWidget* m_searchDeviceList = nullptr; ///< catalog devices, ticked: searched on
    void fillSearchDeviceList();
    JobRunner* m_discovery = nullptr; ///< device discovery, latest wins
    PredictorPanel* m_predictor = nullptr;
    QAction* m_profileAction = nullptr;
    ProfileJob* m_profileJob = nullptr;
    TrainJob* m_trainJob = nullptr;
    int m_trainingEpochs = 0; ///< of the training job running
    QAction* m_trainAction = nullptr;
    QAction* m_validateAction = nullptr;
    QAction* m_exportAction = nullptr;
    ValidateJob* m_validateJob = nullptr;
    BundleExportJob* m_exportJob = nullptr;
    bool m_planMeasurements = false; ///< the node table's measured column came from validation
    QString m_dbPath;
    QString m_modelPath;
    QMenu* m_recentMenu = nullptr;
    SearchOptions m_searchOptions;
    int m_pendingPlan = -1; ///< plan to choose once the workspace's search is done
    QString m_catalogPath;
    QStringList m_searchDevices;

    std::shared_ptr<const ImportResult> m_model;
    std::shared_ptr<const SearchOutcome> m_search;
    int m_selectedNode = -1;
};

} // namespace paretune
