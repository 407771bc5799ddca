// MainWindow's persistence: window layout, recent files and language in QSettings; workspace
// files (.paretune); opening by menu, recent list and drag-and-drop.
#include "mainwindow.h"

#include "common/input_error.h"
#include "paretoplot.h"
#include "workspace.h"

#include <QAction>
#include <QActionGroup>
#include <QCloseEvent>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QSettings>
#include <QStatusBar>

namespace paretune {

namespace {

constexpr int kMaxRecentFiles = 8;
const QString kRecentKey = QStringLiteral("recentFiles");
const QString kLanguageKey = QStringLiteral("language");

bool isWorkspaceFile(const QString& path) {
    return path.endsWith(QLatin1String(".paretune"), Qt::CaseInsensitive);
}

bool isOpenable(const QString& path) {
    return isWorkspaceFile(path) || path.endsWith(QLatin1String(".onnx"), Qt::CaseInsensitive);
}

} // namespace

QString MainWindow::languageSetting() {
    return QSettings().value(kLanguageKey).toString();
}

void MainWindow::setLanguageSetting(const QString& language) {
    QSettings().setValue(kLanguageKey, language);
}

void MainWindow::setupPersistence() {
    setAcceptDrops(true);
    auto* fileMenu = menuBar()->findChild<QMenu*>(QStringLiteral("fileMenu"));
    QAction* beforeQuit = fileMenu->actions().size() >= 2
                              ? fileMenu->actions().at(fileMenu->actions().size() - 2)
                              : nullptr;
    auto* openWorkspaceAction = new QAction(tr("Open &workspace..."), fileMenu);
    connect(openWorkspaceAction, &QAction::triggered, this, &MainWindow::chooseWorkspaceToOpen);
    auto* saveWorkspaceAction = new QAction(tr("Save workspace &as..."), fileMenu);
    saveWorkspaceAction->setShortcut(QKeySequence::SaveAs);
    connect(saveWorkspaceAction, &QAction::triggered, this, &MainWindow::chooseWorkspaceToSave);
    m_recentMenu = new QMenu(tr("Open &recent"), fileMenu);
    m_recentMenu->setObjectName(QStringLiteral("recentMenu"));
    fileMenu->insertSeparator(beforeQuit);
    fileMenu->insertAction(beforeQuit, openWorkspaceAction);
    fileMenu->insertAction(beforeQuit, saveWorkspaceAction);
    fileMenu->insertMenu(beforeQuit, m_recentMenu);
    updateRecentMenu();

    QMenu* settings = menuBar()->addMenu(tr("S&ettings"));
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
            statusBar()->showMessage(tr("The language changes when the workbench restarts."));
        });
    }

    connect(this, &MainWindow::modelShown, this, [this] {
        if (!m_modelPath.startsWith(QLatin1Char(':'))) {
            addRecentFile(m_modelPath);
        }
        if (m_pendingPlan >= 0) {
            searchPlacements(m_searchOptions); // the workspace's search, to restore its plan
        }
    });
    connect(this, &MainWindow::searchShown, this, [this] {
        const int plan = m_pendingPlan;
        m_pendingPlan = -1;
        if (plan >= 0) {
            m_pareto->selectPlan(plan);
        }
    });
    connect(this, &MainWindow::errorShown, this, [this] { m_pendingPlan = -1; });

    // Last, once every dock and tool bar exists: the saved layout.
    QSettings s;
    restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(s.value(QStringLiteral("window/state")).toByteArray());
}

void MainWindow::closeEvent(QCloseEvent* event) {
    QSettings s;
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    s.setValue(QStringLiteral("window/state"), saveState());
    QMainWindow::closeEvent(event);
}

QStringList MainWindow::recentFiles() const {
    return QSettings().value(kRecentKey).toStringList();
}

void MainWindow::addRecentFile(const QString& path) {
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

void MainWindow::updateRecentMenu() {
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

void MainWindow::openPath(const QString& path) {
    if (isWorkspaceFile(path)) {
        openWorkspace(path);
    } else {
        openModel(path);
    }
}

bool MainWindow::openWorkspace(const QString& path) {
    Workspace w;
    try {
        w = loadWorkspace(path);
    } catch (const InputError& e) {
        showError(QString::fromStdString(e.what()));
        return false;
    }
    if (!w.catalogPath.isEmpty() && !setCatalogPath(w.catalogPath)) {
        return false;
    }
    if (w.catalogPath.isEmpty() && !m_catalogPath.isEmpty()) {
        setCatalogPath(QString());
    }
    if (!w.dbPath.isEmpty()) {
        setDatabasePath(w.dbPath);
    }
    setSearchDevices(w.devices);
    m_searchOptions = w.search;
    m_pendingPlan = w.chosenPlan;
    addRecentFile(path);
    logMessage(tr("Workspace %1").arg(path));
    if (w.modelPath.startsWith(QLatin1Char(':'))) {
        openSampleModel();
    } else {
        openModel(w.modelPath);
    }
    Q_EMIT workspaceOpened(path);
    return true;
}

bool MainWindow::saveWorkspace(const QString& path) {
    if (m_modelPath.isEmpty()) {
        showError(tr("Open a model before saving a workspace."));
        return false;
    }
    Workspace w;
    w.modelPath = m_modelPath;
    w.dbPath = m_dbPath;
    w.catalogPath = m_catalogPath;
    w.devices = m_searchDevices;
    w.search = m_searchOptions;
    w.chosenPlan = m_search ? m_pareto->selectedPlan() : -1;
    try {
        paretune::saveWorkspace(w, path);
    } catch (const InputError& e) {
        showError(QString::fromStdString(e.what()));
        return false;
    }
    addRecentFile(path);
    statusBar()->showMessage(tr("Saved workspace %1").arg(path));
    return true;
}

void MainWindow::chooseWorkspaceToOpen() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open workspace"), QString(),
                                                      tr("Paretune workspaces (*.paretune)"));
    if (!path.isEmpty()) {
        openWorkspace(path);
    }
}

void MainWindow::chooseWorkspaceToSave() {
    QString path = QFileDialog::getSaveFileName(this, tr("Save workspace"), QString(),
                                                tr("Paretune workspaces (*.paretune)"));
    if (path.isEmpty()) {
        return;
    }
    if (!isWorkspaceFile(path)) {
        path += QLatin1String(".paretune");
    }
    saveWorkspace(path);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.size() == 1 && urls.first().isLocalFile() && isOpenable(urls.first().toLocalFile())) {
        event->acceptProposedAction();
    }
}

void MainWindow::dropEvent(QDropEvent* event) {
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.size() == 1 && urls.first().isLocalFile() && isOpenable(urls.first().toLocalFile())) {
        event->acceptProposedAction();
        openPath(urls.first().toLocalFile());
    }
}

} // namespace paretune
