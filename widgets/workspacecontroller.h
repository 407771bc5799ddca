// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>

class QMainWindow;
class QMenu;
class QMenuBar;
class QMimeData;

namespace paretune {

class DeviceController;
class DocumentController;
class GraphView;
class ProfilingController;
class SearchController;
class WorkbenchLog;

/// What the workbench remembers: the window layout, recent files and the language in
/// QSettings, and workspace files (.paretune) that restore the sample library, the catalog, the
/// searched devices, the search settings, the model, the graph's colouring and, after the same
/// search again, the chosen plan; opening by menu, recent list and drag-and-drop.
class WorkspaceController : public QObject {
    Q_OBJECT
public:
    WorkspaceController(QMainWindow* window, WorkbenchLog& log, DocumentController& document,
                        DeviceController& devices, ProfilingController& profiling,
                        SearchController& search, GraphView& graph);

    /// Adds Open workspace, Save workspace as and Open recent to `fileMenu`, before its last
    /// separator and action (Quit).
    void addFileActions(QMenu* fileMenu);
    /// Adds the Settings menu (language) to `menuBar`.
    void addSettingsMenu(QMenuBar* menuBar);
    /// Restores the saved window layout; call once every dock and tool bar exists. Returns
    /// whether a saved geometry was restored.
    bool restoreWindowState();
    void saveWindowState();

    /// Opens a model (.onnx) or a workspace (.paretune) by its suffix.
    void openPath(const QString& path);
    /// Restores a workspace; false (error shown) for a bad file.
    bool openWorkspace(const QString& path);
    /// Saves the current state as a workspace; false (error shown) when it cannot be written.
    bool saveWorkspace(const QString& path);
    /// Files opened recently (models and workspaces), newest first.
    QStringList recentFiles() const;
    /// The one local file a drag carries that the workbench opens; empty when none.
    static QString openableFile(const QMimeData* data);

    /// The language setting: empty for the system's, else a locale name ("en", "zh_CN").
    static QString languageSetting();
    static void setLanguageSetting(const QString& language);

    // How a workspace being restored goes on, called in the window's signal order:
    /// A model is shown: it goes to the recent files; a workspace's search is started again.
    void continueAfterModel();
    /// A search is shown: the workspace's chosen plan is chosen again.
    void continueAfterSearch();
    /// An error was shown: the restore stops.
    void stopRestoring();

Q_SIGNALS:
    void workspaceOpened(const QString& path);

private:
    void addRecentFile(const QString& path);
    void updateRecentMenu();
    void chooseWorkspaceToOpen();
    void chooseWorkspaceToSave();

    QMainWindow* m_window;
    WorkbenchLog& m_log;
    DocumentController& m_document;
    DeviceController& m_devices;
    ProfilingController& m_profiling;
    SearchController& m_search;
    GraphView& m_graph;
    QMenu* m_recentMenu = nullptr;
    int m_pendingPlan = -1; ///< plan to choose once the workspace's search is done
};

} // namespace paretune
