#include "mainwindow.h"

#include "common/input_error.h"
#include "cost/device_catalog.h"
#include "graph/onnx_importer.h"
#include "graphdock.h"
#include "jobstatusbar.h"
#include "modelloader.h"
#include "nodetablemodel.h"
#include "paretoplot.h"
#include "placementsearch.h"
#include "plan/simulator.h"
#include "planschedule.h"
#include "timelineview.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QTableView>
#include <QVBoxLayout>

#include <map>

namespace paretune {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), m_loader(new ModelLoader(this)), m_nodeModel(new NodeTableModel(this)),
      m_proxy(new QSortFilterProxyModel(this)) {
    setWindowTitle(tr("Paretune Workbench"));
    resize(1200, 760);

    m_proxy->setSourceModel(m_nodeModel);
    m_proxy->setSortRole(NodeTableModel::SortRole);
    m_proxy->setFilterKeyColumn(-1);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);

    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    m_summary = new QLabel(tr("No model open. Use File > Open to import an ONNX model."), central);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setObjectName(QStringLiteral("summary"));
    m_filter = new QLineEdit(central);
    m_filter->setPlaceholderText(tr("Filter nodes by name, op type, kind or shape"));
    m_filter->setClearButtonEnabled(true);
    m_table = new QTableView(central);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->setAlternatingRowColors(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->sortByColumn(-1, Qt::AscendingOrder);
    layout->addWidget(m_summary);
    layout->addWidget(m_filter);
    layout->addWidget(m_table, 1);
    m_table->setObjectName(QStringLiteral("nodeTable"));
    auto* profileDock = new QDockWidget(tr("Per-layer profile"), this);
    profileDock->setObjectName(QStringLiteral("profileDock"));
    profileDock->setWidget(central);
    addDockWidget(Qt::BottomDockWidgetArea, profileDock);
    addGraphView(*this);

    m_diagnostics = new QListWidget(this);
    auto* dock = new QDockWidget(tr("Diagnostics"), this);
    dock->setObjectName(QStringLiteral("diagnosticsDock"));
    dock->setWidget(m_diagnostics);
    addDockWidget(Qt::BottomDockWidgetArea, dock);
    resizeDocks({profileDock, dock}, {260, 140}, Qt::Vertical);

    QMenu* fileMenu = menuBar()->addMenu(tr("&File"));
    fileMenu->setObjectName(QStringLiteral("fileMenu"));
    QAction* open = fileMenu->addAction(tr("&Open model..."), this, &MainWindow::chooseModelFile);
    open->setShortcut(QKeySequence::Open);
    fileMenu->addAction(tr("Open &sample model"), this, &MainWindow::openSampleModel);
    fileMenu->addSeparator();
    QAction* quit = fileMenu->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    m_pareto = new ParetoPlot(this);
    auto* paretoDock = new QDockWidget(tr("Pareto front"), this);
    paretoDock->setObjectName(QStringLiteral("paretoDock"));
    paretoDock->setWidget(m_pareto);
    addDockWidget(Qt::RightDockWidgetArea, paretoDock);
    m_searcher = new PlacementSearch(this);
    m_jobStatus = new JobStatusBar(statusBar());
    m_jobStatus->follow(m_searcher, tr("Searching placements..."));

    QMenu* searchMenu = menuBar()->addMenu(tr("&Search"));
    m_searchAction =
        searchMenu->addAction(tr("Search &placements on the catalog's modelled devices"), this,
                              [this] { searchPlacements(SearchOptions{}); });
    m_searchAction->setEnabled(false);
    QMenu* helpMenu = menuBar()->addMenu(tr("&Help"));
    helpMenu->addAction(tr("&About Paretune"), this, &MainWindow::showAbout);

    connect(m_filter, &QLineEdit::textChanged, m_proxy,
            &QSortFilterProxyModel::setFilterFixedString);
    connect(m_loader, &ModelLoader::loadStarted, this, [this](const QString& name) {
        statusBar()->showMessage(tr("Importing %1...").arg(name));
    });
    connect(m_loader, &ModelLoader::modelLoaded, this, &MainWindow::showModel);
    connect(m_loader, &ModelLoader::loadFailed, this, &MainWindow::showError);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                selectNode(current.isValid() ? m_proxy->mapToSource(current).row() : -1);
            });
    connect(m_searcher, &PlacementSearch::searchStarted, this,
            [this] { statusBar()->showMessage(tr("Searching placements...")); });
    connect(m_searcher, &PlacementSearch::searchFinished, this, &MainWindow::showSearch);
    connect(m_searcher, &PlacementSearch::searchFailed, this, &MainWindow::showError);
    connect(m_pareto, &ParetoPlot::planSelected, this, &MainWindow::showPlan);
    setupTimelineDock();
    setupParetoLive();
    setupDevicesDock();
    setupLogDock();
    setupPredictorDock();
    setupToolBar();
    setupProfileJob();
    setupTrainJob();
    setupPlanJobs();
    setupPersistence();
    statusBar()->showMessage(tr("Ready"));
}

MainWindow::~MainWindow() = default;

void MainWindow::openModel(const QString& path) {
    m_modelPath = QFileInfo(path).absoluteFilePath();
    m_loader->load(path);
}

void MainWindow::searchPlacements(const SearchOptions& options) {
    if (!m_model) {
        showError(tr("Open a model before searching placements."));
        return;
    }
    QByteArray catalog;
    QString catalogName;
    if (!readCatalog(&catalog, &catalogName)) {
        return;
    }
    std::vector<std::string> ids;
    for (const QString& id : m_searchDevices) {
        ids.push_back(id.toStdString());
    }
    if (ids.empty()) {
        try {
            for (const DeviceSpec& d :
                 parseDeviceCatalogText(catalog.toStdString(), catalogName.toStdString()).devices) {
                ids.push_back(d.id);
            }
        } catch (const InputError& e) {
            showError(QString::fromStdString(e.what()));
            return;
        }
    }
    m_searchOptions = options;
    m_searcher->start(m_model, catalog, catalogName, ids, options, m_dbPath);
}

void MainWindow::cancelSearch() {
    m_searcher->cancel();
}

void MainWindow::showSearch(std::shared_ptr<const SearchOutcome> outcome) {
    m_search = std::move(outcome);
    clearPlan();
    m_pareto->setOutcome(m_search);
    const SearchResult& r = m_search->result;
    const double hypervolume =
        r.hypervolumeByGeneration.empty() ? 0.0 : r.hypervolumeByGeneration.back();
    statusBar()->showMessage(tr("Search %1: %2 plans on the front, %3 evaluated, hypervolume %4")
                                 .arg(r.cancelled ? tr("cancelled") : tr("finished"))
                                 .arg(r.front.size())
                                 .arg(r.evaluations)
                                 .arg(hypervolume, 0, 'f', 4));
    Q_EMIT searchShown();
}

void MainWindow::showPlan(int index) {
    if (!m_search || m_search->model != m_model || index < 0 ||
        index >= static_cast<int>(m_search->result.front.size())) {
        return;
    }
    const Solution& chosen = m_search->result.front[static_cast<std::size_t>(index)];
    auto schedule = std::make_shared<PlanSchedule>(simulateFrontPlan(*m_search, index));
    clearPlanMeasurements();
    m_schedule = schedule;
    m_nodeModel->setPlan(m_search, m_schedule);
    m_timeline->setData(timelineData(m_model->graph, m_search->costs, schedule->simulation,
                                     tr("simulated; costs %1").arg(m_search->costSource)));
    const Objectives& o = chosen.objectives;
    statusBar()->showMessage(
        tr("Plan %1 (costs %2): latency %3 ms, energy %4 mJ, peak memory %5 MiB")
            .arg(index)
            .arg(m_search->costSource)
            .arg(o.latencyUs / 1000.0, 0, 'f', 3)
            .arg(o.energyMj, 0, 'f', 3)
            .arg(o.peakMemoryBytes / (1024.0 * 1024.0), 0, 'f', 2));
    Q_EMIT planShown(index);
}

void MainWindow::selectNode(int nodeId) {
    if (nodeId >= m_nodeModel->rowCount()) {
        nodeId = -1;
    }
    if (nodeId == m_selectedNode) {
        return;
    }
    m_selectedNode = nodeId;
    const QModelIndex row =
        nodeId < 0 ? QModelIndex() : m_proxy->mapFromSource(m_nodeModel->index(nodeId, 0));
    if (row.isValid()) {
        m_table->selectionModel()->setCurrentIndex(row, QItemSelectionModel::ClearAndSelect |
                                                            QItemSelectionModel::Rows);
        m_table->scrollTo(row);
    } else {
        m_table->clearSelection();
    }
    Q_EMIT nodeSelected(nodeId);
}

void MainWindow::openSampleModel() {
    QFile file(QStringLiteral(":/models/sample.onnx"));
    if (!file.open(QIODevice::ReadOnly)) {
        showError(tr("The bundled sample model is missing from the resources."));
        return;
    }
    m_modelPath = QStringLiteral(":/models/sample.onnx");
    m_loader->loadBytes(file.readAll(), tr("sample.onnx (bundled)"));
}

void MainWindow::chooseModelFile() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open ONNX model"), QString(),
                                                      tr("ONNX models (*.onnx);;All files (*)"));
    if (!path.isEmpty()) {
        openModel(path);
    }
}

void MainWindow::showModel(std::shared_ptr<const ImportResult> result, const QString& displayName) {
    m_model = std::move(result);
    m_nodeModel->setModel(m_model);
    clearPlan();
    m_selectedNode = -1;
    Q_EMIT nodeSelected(-1);
    m_searchAction->setEnabled(true);
    const Graph& g = m_model->graph;
    std::map<NodeKind, int> kinds;
    for (const Node& n : g.nodes) {
        ++kinds[n.kind];
    }
    QString inputs;
    for (const TensorId t : g.inputs) {
        const Tensor& tensor = g.tensors[static_cast<std::size_t>(t)];
        inputs += (inputs.isEmpty() ? QString() : QStringLiteral(", ")) +
                  QString::fromStdString(tensor.name + " " + tensor.typeString());
    }
    m_summary->setText(
        tr("<b>%1</b> &nbsp; opset %2 &nbsp; fingerprint <tt>%3</tt><br>"
           "Inputs: %4<br>"
           "%5 nodes (%6 compute, %7 pass-through, %8 constant, %9 folded shape ops) &nbsp; "
           "%10 parameters &nbsp; %11FLOPs <i>(computed from shapes)</i> &nbsp; %12 unknown shapes")
            .arg(displayName.toHtmlEscaped())
            .arg(g.opset)
            .arg(QString::fromStdString(g.fingerprint.substr(0, 16)))
            .arg(inputs.toHtmlEscaped())
            .arg(g.nodes.size())
            .arg(kinds[NodeKind::Compute])
            .arg(kinds[NodeKind::PassThrough])
            .arg(kinds[NodeKind::Constant])
            .arg(kinds[NodeKind::ShapeComputation])
            .arg(NodeTableModel::formatCount(static_cast<double>(g.parameterCount())))
            .arg(NodeTableModel::formatCount(g.totalFlops()))
            .arg(g.unknownShapeCount()));
    logMessage(tr("Imported %1: %n warning(s)", "", static_cast<int>(m_model->diagnostics.size()))
                   .arg(displayName));
    for (const Diagnostic& d : m_model->diagnostics) {
        m_diagnostics->addItem(QString::fromStdString(d.message));
    }
    m_table->resizeColumnsToContents();
    setWindowTitle(tr("%1 - Paretune Workbench").arg(QFileInfo(displayName).fileName()));
    statusBar()->showMessage(tr("Imported %1: %2 nodes, %3 warnings")
                                 .arg(displayName)
                                 .arg(g.nodes.size())
                                 .arg(m_model->diagnostics.size()));
    Q_EMIT modelShown(displayName);
}

void MainWindow::showError(const QString& message) {
    statusBar()->showMessage(tr("Failed: %1").arg(message.section(QLatin1Char('\n'), 0, 0)));
    m_diagnostics->addItem(message);
    Q_EMIT errorShown(message);
    if (isVisible() && !QApplication::platformName().startsWith(QLatin1String("offscreen"))) {
        QMessageBox::warning(this, tr("Paretune"), message);
    }
}

void MainWindow::showAbout() {
    QMessageBox::about(this, tr("About Paretune"),
                       tr("<b>Paretune Workbench</b><br>Profile, predict and place "
                          "neural-network operators on the devices of this machine."));
}

} // namespace paretune
