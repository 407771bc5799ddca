// SPDX-License-Identifier: GPL-3.0-or-later
#include "mainwindow.h"

#include "devicecontroller.h"
#include "documentcontroller.h"
#include "graphdock.h"
#include "graphview.h"
#include "jobstatusbar.h"
#include "memoryview.h"
#include "paretoplot.h"
#include "predictorpanel.h"
#include "profilingcontroller.h"
#include "queuepanel.h"
#include "searchcontroller.h"
#include "timelineview.h"
#include "tunecontroller.h"
#include "tunepanel.h"
#include "windowlayout.h"
#include "workbenchlog.h"
#include "workspacecontroller.h"

#include <QAction>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QScreen>
#include <QScrollArea>
#include <QStatusBar>
#include <QToolBar>

namespace paretune {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(tr("Paretune Workbench"));

    // The controllers, each after the ones it uses; the window's signals follow theirs, so that
    // the views listening to the window see a change before the workspace's restore goes on.
    m_log = new WorkbenchLog(this);
    connect(m_log, &WorkbenchLog::errorShown, this, &MainWindow::errorShown);
    m_jobStatus = new JobStatusBar(statusBar());
    m_document = new DocumentController(this, *m_log);
    connect(m_document, &DocumentController::modelShown, this, &MainWindow::modelShown);
    connect(m_document, &DocumentController::nodeSelected, this, &MainWindow::nodeSelected);
    m_devices = new DeviceController(this, *m_log);
    m_profiling = new ProfilingController(this, *m_log, *m_document, *m_devices, *m_jobStatus);
    m_search =
        new SearchController(this, *m_log, *m_document, *m_devices, *m_profiling, *m_jobStatus);
    connect(m_search, &SearchController::searchShown, this, &MainWindow::searchShown);
    connect(m_search, &SearchController::planShown, this, &MainWindow::planShown);
    m_tune = new TuneController(this, *m_log, *m_document, *m_profiling, *m_search, *m_jobStatus);
    connect(m_tune, &TuneController::tuneShown, this, &MainWindow::tuneShown);

    // The docks; arrangeDefaultLayout below puts them in place.
    addDock(tr("Per-layer profile"), QStringLiteral("profileDock"), m_document->panel(),
            Qt::BottomDockWidgetArea);
    GraphView* graph = addGraphView(*this);
    addDock(tr("Pareto front"), QStringLiteral("paretoDock"), m_search->paretoPlot(),
            Qt::RightDockWidgetArea);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(m_search->timelineView());
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    addDock(tr("Timeline"), QStringLiteral("timelineDock"), scroll, Qt::BottomDockWidgetArea);
    auto* memoryScroll = new QScrollArea(this);
    memoryScroll->setWidget(m_search->memoryView());
    memoryScroll->setWidgetResizable(true);
    memoryScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    addDock(tr("Memory"), QStringLiteral("memoryDock"), memoryScroll, Qt::BottomDockWidgetArea);
    addDock(tr("Tune"), QStringLiteral("tuneDock"), m_tune->panel(), Qt::BottomDockWidgetArea);
    addDock(tr("Log / Issues"), QStringLiteral("diagnosticsDock"), m_log->view(),
            Qt::BottomDockWidgetArea);
    addDock(tr("Devices"), QStringLiteral("devicesDock"), m_devices->panel(),
            Qt::BottomDockWidgetArea);
    addDock(tr("Predictor"), QStringLiteral("predictorDock"), m_profiling->predictorPanel(),
            Qt::BottomDockWidgetArea);
    addDock(tr("Queue"), QStringLiteral("queueDock"), m_profiling->queuePanel(),
            Qt::BottomDockWidgetArea);

    // Menus in the usual order: File, View, Search, Workflow, Settings, Help.
    m_fileMenu = menuBar()->addMenu(tr("&File"));
    m_fileMenu->setObjectName(QStringLiteral("fileMenu"));
    QAction* open = m_fileMenu->addAction(tr("&Open model..."), m_document,
                                          &DocumentController::chooseModelFile);
    open->setShortcut(QKeySequence::Open);
    m_fileMenu->addAction(tr("Open &sample model"), m_document,
                          &DocumentController::openSampleModel);
    m_fileMenu->addSeparator();
    m_fileMenu->addAction(m_profiling->libraryAction());
    m_fileMenu->addSeparator();
    QAction* quit = m_fileMenu->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    QMenu* viewMenu = menuBar()->addMenu(tr("&View"));
    viewMenu->setObjectName(QStringLiteral("viewMenu"));
    QMenu* searchMenu = menuBar()->addMenu(tr("&Search"));
    searchMenu->addAction(m_search->searchAction());
    searchMenu->addAction(m_search->variantsAction());
    setupToolBar();
    viewMenu->addMenu(graph->colouringMenu());
    viewMenu->addSeparator();
    fillViewMenu(*this, *viewMenu);
    setGeometry(defaultWindowGeometry(screen()->availableGeometry()));
    arrangeDefaultLayout(*this);

    m_workspace = new WorkspaceController(this, *m_log, *m_document, *m_devices, *m_profiling,
                                          *m_search, *graph);
    connect(m_workspace, &WorkspaceController::workspaceOpened, this, &MainWindow::workspaceOpened);
    m_workspace->addFileActions(m_fileMenu);
    m_workspace->addSettingsMenu(menuBar());
    QMenu* helpMenu = menuBar()->addMenu(tr("&Help"));
    helpMenu->addAction(tr("&About Paretune"), this, &MainWindow::showAbout);
    connect(this, &MainWindow::modelShown, m_workspace, &WorkspaceController::continueAfterModel);
    connect(this, &MainWindow::searchShown, m_workspace, &WorkspaceController::continueAfterSearch);
    connect(this, &MainWindow::errorShown, m_workspace, &WorkspaceController::stopRestoring);
    setAcceptDrops(true);
    // Last, once every dock and tool bar exists: the saved layout.
    const bool restored = m_workspace->restoreWindowState();
    const QRect available = screen()->availableGeometry();
    m_fillsScreen = !restored && defaultWindowGeometry(available) == available;
    statusBar()->showMessage(tr("Ready"));
}

MainWindow::~MainWindow() = default;

QDockWidget* MainWindow::addDock(const QString& title, const QString& objectName, QWidget* content,
                                 Qt::DockWidgetArea area) {
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(objectName);
    dock->setWidget(content);
    addDockWidget(area, dock);
    return dock;
}

void MainWindow::setupToolBar() {
    QToolBar* bar = addToolBar(tr("Workflow"));
    bar->setObjectName(QStringLiteral("workflowToolBar"));
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    QMenu* jobs = menuBar()->addMenu(tr("&Workflow"));
    auto* open = new QAction(tr("Open"), this);
    open->setObjectName(QStringLiteral("openAction"));
    open->setToolTip(tr("Open an ONNX model"));
    open->setStatusTip(open->toolTip());
    connect(open, &QAction::triggered, m_document, &DocumentController::chooseModelFile);
    for (QAction* action :
         {open, m_profiling->profileAction(), m_profiling->trainAction(),
          m_profiling->adaptAction(), m_search->searchAction(), m_search->validateAction(),
          m_tune->tuneAction(), m_search->exportAction()}) {
        bar->addAction(action);
        jobs->addAction(action);
    }
}

void MainWindow::showAbout() {
    QMessageBox::about(this, tr("About Paretune"),
                       tr("<b>Paretune Workbench</b><br>Profile, predict and place "
                          "neural-network operators on the devices of this machine."));
}

void MainWindow::closeEvent(QCloseEvent* event) {
    m_workspace->saveWindowState();
    QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (!WorkspaceController::openableFile(event->mimeData()).isEmpty()) {
        event->acceptProposedAction();
    }
}

void MainWindow::dropEvent(QDropEvent* event) {
    const QString path = WorkspaceController::openableFile(event->mimeData());
    if (!path.isEmpty()) {
        event->acceptProposedAction();
        m_workspace->openPath(path);
    }
}

// --- The window's face: what main() and the tests reach, handed to the controllers ----------

void MainWindow::openModel(const QString& path) {
    m_document->openModel(path);
}

void MainWindow::openSampleModel() {
    m_document->openSampleModel();
}

void MainWindow::searchPlacements(const SearchOptions& options) {
    m_search->searchPlacements(options);
}

void MainWindow::cancelSearch() {
    m_search->cancelSearch();
}

SearchOptions MainWindow::searchOptions() const {
    return m_search->searchOptions();
}

void MainWindow::setSearchOptions(const SearchOptions& options) {
    m_search->setSearchOptions(options);
}

void MainWindow::tune(const TuneSettings& settings) {
    m_tune->tune(settings);
}

TuneJob* MainWindow::tuneJob() const {
    return m_tune->tuneJob();
}

TunePanel* MainWindow::tunePanel() const {
    return m_tune->panel();
}

void MainWindow::selectNode(int nodeId) {
    m_document->selectNode(nodeId);
}

int MainWindow::selectedNode() const {
    return m_document->selectedNode();
}

std::shared_ptr<const ImportResult> MainWindow::currentModel() const {
    return m_document->model();
}

std::shared_ptr<const SearchOutcome> MainWindow::currentSearch() const {
    return m_search->currentSearch();
}

ParetoPlot* MainWindow::paretoPlot() const {
    return m_search->paretoPlot();
}

NodeTableModel* MainWindow::nodeTableModel() const {
    return m_document->nodeTableModel();
}

ModelLoader* MainWindow::loader() const {
    return m_document->loader();
}

TimelineView* MainWindow::timelineView() const {
    return m_search->timelineView();
}

std::shared_ptr<const PlanSchedule> MainWindow::currentSchedule() const {
    return m_search->currentSchedule();
}

DeviceListModel* MainWindow::deviceListModel() const {
    return m_devices->deviceListModel();
}

PlacementSearch* MainWindow::placementSearch() const {
    return m_search->placementSearch();
}

ProfileJob* MainWindow::profileJob() const {
    return m_profiling->profileJob();
}

TrainJob* MainWindow::trainJob() const {
    return m_profiling->trainJob();
}

AdaptJob* MainWindow::adaptJob() const {
    return m_profiling->adaptJob();
}

void MainWindow::adaptOnDevice(const QString& deviceId, int budget) {
    m_profiling->adaptOnDevice(deviceId, budget);
}

void MainWindow::trainPredictor(int epochs, int members) {
    m_profiling->trainPredictor(epochs, members);
}

void MainWindow::profileOnDevice(const QString& deviceId, int repeats) {
    m_profiling->profileOnDevice(deviceId, repeats);
}

PredictorPanel* MainWindow::predictorPanel() const {
    return m_profiling->predictorPanel();
}

void MainWindow::validateShownPlan(int repeats, int warmup) {
    m_search->validateShownPlan(repeats, warmup);
}

void MainWindow::exportShownPlan(const QString& path, int candidates) {
    m_search->exportShownPlan(path, candidates);
}

ValidateJob* MainWindow::validateJob() const {
    return m_search->validateJob();
}

BundleExportJob* MainWindow::bundleExportJob() const {
    return m_search->bundleExportJob();
}

void MainWindow::setDatabasePath(const QString& path) {
    m_profiling->setDatabasePath(path);
}

QString MainWindow::databasePath() const {
    return m_profiling->databasePath();
}

bool MainWindow::setCatalogPath(const QString& path) {
    return m_devices->setCatalogPath(path);
}

QString MainWindow::catalogPath() const {
    return m_devices->catalogPath();
}

void MainWindow::setSearchDevices(const QStringList& ids) {
    m_devices->setSearchDevices(ids);
}

QStringList MainWindow::searchDevices() const {
    return m_devices->searchDevices();
}

void MainWindow::logMessage(const QString& text) {
    m_log->log(text);
}

void MainWindow::openPath(const QString& path) {
    m_workspace->openPath(path);
}

bool MainWindow::openWorkspace(const QString& path) {
    return m_workspace->openWorkspace(path);
}

bool MainWindow::saveWorkspace(const QString& path) {
    return m_workspace->saveWorkspace(path);
}

QStringList MainWindow::recentFiles() const {
    return m_workspace->recentFiles();
}

QString MainWindow::modelPath() const {
    return m_document->modelPath();
}

QString MainWindow::languageSetting() {
    return WorkspaceController::languageSetting();
}

void MainWindow::setLanguageSetting(const QString& language) {
    WorkspaceController::setLanguageSetting(language);
}

} // namespace paretune
