// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspacecontroller.h"

#include "common/input_error.h"
#include "devicecontroller.h"
#include "documentcontroller.h"
#include "graphview.h"
#include "paretoplot.h"
#include "profilingcontroller.h"
#include "searchcontroller.h"
#include "workbenchlog.h"
#include "workspace.h"

#include <QAction>
#include <QActionGroup>
#include <QFileDialog>
#include <QFileInfo>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QSettings>
#include <QStatusBar>
#include <QUrl>

namespace paretune {

namespace {

constexpr int kMaxRecentFiles = 8;
const QString kRecentKey = QStringLiteral("recentFiles");
const QString kLanguageKey = QStringLiteral("language");
/// The dock layout's version in the saved window state: a state saved by a workbench with
/// another arrangement of the docks is not restored (the default layout is kept).
constexpr int kLayoutVersion = 2;

bool isWorkspaceFile(const QString& path) {
    return path.endsWith(QLatin1String(".paretune"), Qt::CaseInsensitive);
}

bool isOpenable(const QString& path) {
    return isWorkspaceFile(path) || path.endsWith(QLatin1String(".onnx"), Qt::CaseInsensitive);
}

} // namespace

WorkspaceController::WorkspaceController(QMainWindow* window, WorkbenchLog& log,
                                         DocumentController& document, DeviceController& devices,
                                         ProfilingController& profiling, SearchController& search,
                                         GraphView& graph)
    : QObject(window), m_window(window), m_log(log), m_document(document), m_devices(devices),
      m_profiling(profiling), m_search(search), m_graph(graph) {}

QString WorkspaceController::languageSetting() {
    return QSettings().value(kLanguageKey).toString();
}

void WorkspaceController::setLanguageSetting(const QString& language) {
    QSettings().setValue(kLanguageKey, language);
}

void WorkspaceController::addFileActions(QMenu* fileMenu) {
    QAction* beforeQuit = fileMenu->actions().size() >= 2
                              ? fileMenu->actions().at(fileMenu->actions().size() - 2)
                              : nullptr;
    auto* openWorkspaceAction = new QAction(tr("Open &workspace..."), fileMenu);
    connect(openWorkspaceAction, &QAction::triggered, this,
            &WorkspaceController::chooseWorkspaceToOpen);
    auto* saveWorkspaceAction = new QAction(tr("Save workspace &as..."), fileMenu);
    saveWorkspaceAction->setShortcut(QKeySequence::SaveAs);
    connect(saveWorkspaceAction, &QAction::triggered, this,
            &WorkspaceController::chooseWorkspaceToSave);
    m_recentMenu = new QMenu(tr("Open &recent"), fileMenu);
    m_recentMenu->setObjectName(QStringLiteral("recentMenu"));
    fileMenu->insertSeparator(beforeQuit);
    fileMenu->insertAction(beforeQuit, openWorkspaceAction);
    fileMenu->insertAction(beforeQuit, saveWorkspaceAction);
    fileMenu->insertMenu(beforeQuit, m_recentMenu);
    updateRecentMenu();
}

void WorkspaceController::addSettingsMenu(QMenuBar* menuBar) {
    QMenu* settings = menuBar->addMenu(tr("S&ettings"));
    QMenu* language = settings->addMenu(tr("&Language"));
    auto* group = new QActionGroup(language);
    const QString current = languageSetting();
    for (const auto& [code, name] :
         {std::pair{QString(), tr("System default")},
          std::pair{QStringLiteral("en"), tr("English")},
          std::pair{QStringLiteral("zh_CN"), QStringLiteral("简体中文")}}) {
        QAction* a = language->addAction(name);
        a->setCheckable(true);
        a->setChecked(code == current);
        a->setData(code);
        group->addAction(a);
        connect(a, &QAction::triggered, this, [this, code = code] {
            setLanguageSetting(code);
            m_window->statusBar()->showMessage(
                tr("The language changes when the workbench restarts."));
        });
    }
}

void WorkspaceController::continueAfterModel() {
    if (!m_document.modelPath().startsWith(QLatin1Char(':'))) {
        addRecentFile(m_document.modelPath());
    }
    if (m_pendingPlan >= 0) {
        // The workspace's search, to restore its plan.
        m_search.searchPlacements(m_search.searchOptions());
    }
}

void WorkspaceController::continueAfterSearch() {
    const int plan = m_pendingPlan;
    m_pendingPlan = -1;
    if (plan >= 0) {
        m_search.paretoPlot()->selectPlan(plan);
    }
}

void WorkspaceController::stopRestoring() {
    m_pendingPlan = -1;
}

bool WorkspaceController::restoreWindowState() {
    QSettings s;
    const bool restored =
        m_window->restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
    m_window->restoreState(s.value(QStringLiteral("window/state")).toByteArray(), kLayoutVersion);
    return restored;
}

void WorkspaceController::saveWindowState() {
    QSettings s;
    s.setValue(QStringLiteral("window/geometry"), m_window->saveGeometry());
    s.setValue(QStringLiteral("window/state"), m_window->saveState(kLayoutVersion));
}

QStringList WorkspaceController::recentFiles() const {
    return QSettings().value(kRecentKey).toStringList();
}

void WorkspaceController::addRecentFile(const QString& path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList files = recentFiles();
    files.removeAll(absolute);
    files.prepend(absolute);
    while (files.size() > kMaxRecentFiles) {
        files.removeLast();
    }
    QSettings().setValue(kRecentKey, files);
    updateRecentMenu();
}

void WorkspaceController::updateRecentMenu() {
    m_recentMenu->clear();
    const QStringList files = recentFiles();
    for (const QString& file : files) {
        QAction* a = m_recentMenu->addAction(QFileInfo(file).fileName());
        a->setToolTip(file);
        a->setData(file);
        connect(a, &QAction::triggered, this, [this, file] { openPath(file); });
    }
    if (files.isEmpty()) {
        m_recentMenu->addAction(tr("(none)"))->setEnabled(false);
    } else {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction(tr("Clear the list"), this, [this] {
            QSettings().remove(kRecentKey);
            updateRecentMenu();
        });
    }
}

void WorkspaceController::openPath(const QString& path) {
    if (isWorkspaceFile(path)) {
        openWorkspace(path);
    } else {
        m_document.openModel(path);
    }
}

bool WorkspaceController::openWorkspace(const QString& path) {
    Workspace w;
    try {
        w = loadWorkspace(path);
    } catch (const InputError& e) {
        m_log.showError(QString::fromStdString(e.what()));
        return false;
    }
    if (!w.catalogPath.isEmpty() && !m_devices.setCatalogPath(w.catalogPath)) {
        return false;
    }
    if (w.catalogPath.isEmpty() && !m_devices.catalogPath().isEmpty()) {
        m_devices.setCatalogPath(QString());
    }
    if (!w.dbPath.isEmpty()) {
        m_profiling.setDatabasePath(w.dbPath);
    }
    m_devices.setSearchDevices(w.devices);
    m_search.setSearchOptions(w.search);
    m_graph.setColouring(w.graphColouring);
    m_pendingPlan = w.chosenPlan;
    addRecentFile(path);
    m_log.log(tr("Workspace %1").arg(path));
    if (w.modelPath.startsWith(QLatin1Char(':'))) {
        m_document.openSampleModel();
    } else {
        m_document.openModel(w.modelPath);
    }
    Q_EMIT workspaceOpened(path);
    return true;
}

bool WorkspaceController::saveWorkspace(const QString& path) {
    if (m_document.modelPath().isEmpty()) {
        m_log.showError(tr("Open a model before saving a workspace."));
        return false;
    }
    Workspace w;
    w.modelPath = m_document.modelPath();
    w.dbPath = m_profiling.databasePath();
    w.catalogPath = m_devices.catalogPath();
    w.devices = m_devices.searchDevices();
    w.search = m_search.searchOptions();
    w.chosenPlan = m_search.currentSearch() ? m_search.paretoPlot()->selectedPlan() : -1;
    w.graphColouring = m_graph.colouring();
    try {
        paretune::saveWorkspace(w, path);
    } catch (const InputError& e) {
        m_log.showError(QString::fromStdString(e.what()));
        return false;
    }
    addRecentFile(path);
    m_window->statusBar()->showMessage(tr("Saved workspace %1").arg(path));
    return true;
}

void WorkspaceController::chooseWorkspaceToOpen() {
    const QString path = QFileDialog::getOpenFileName(m_window, tr("Open workspace"), QString(),
                                                      tr("Paretune workspaces (*.paretune)"));
    if (!path.isEmpty()) {
        openWorkspace(path);
    }
}

void WorkspaceController::chooseWorkspaceToSave() {
    QString path = QFileDialog::getSaveFileName(m_window, tr("Save workspace"), QString(),
                                                tr("Paretune workspaces (*.paretune)"));
    if (path.isEmpty()) {
        return;
    }
    if (!isWorkspaceFile(path)) {
        path += QLatin1String(".paretune");
    }
    saveWorkspace(path);
}

QString WorkspaceController::openableFile(const QMimeData* data) {
    const QList<QUrl> urls = data->urls();
    if (urls.size() == 1 && urls.first().isLocalFile() && isOpenable(urls.first().toLocalFile())) {
        return urls.first().toLocalFile();
    }
    return QString();
}

} // namespace paretune
