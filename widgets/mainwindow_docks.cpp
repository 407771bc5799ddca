// MainWindow's docks beyond the node table (timeline, devices, log, predictor), each set up by
// its own helper, and the window's persistence.
#include "mainwindow.h"

#include "graph/onnx_importer.h"
#include "graphpalette.h"
#include "modelloader.h"
#include "nodetablemodel.h"
#include "paretoplot.h"
#include "placementsearch.h"
#include "planjobs.h"
#include "planschedule.h"
#include "timelineview.h"

#include "common/input_error.h"
#include "cost/device_catalog.h"
#include "devicelistmodel.h"
#include "jobrunner.h"
#include "jobstatusbar.h"
#include "jobstatuswidget.h"
#include "predictorpanel.h"
#include "profilejob.h"
#include "store/sample_library.h"
#include "trainjob.h"

#include <QAction>
#include <QDateTime>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QStatusBar>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>
#include <limits>
#include <optional>

namespace paretune {

void MainWindow::setupTimelineDock() {
    m_timeline = new TimelineView(this);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(m_timeline);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* dock = new QDockWidget(tr("Timeline"), this);
    dock->setObjectName(QStringLiteral("timelineDock"));
    dock->setWidget(scroll);
    addDockWidget(Qt::BottomDockWidgetArea, dock);
    connect(m_timeline, &TimelineView::nodeClicked, this, &MainWindow::selectNode);
    connect(this, &MainWindow::nodeSelected, m_timeline, &TimelineView::setSelectedNode);
}

void MainWindow::setupParetoLive() {
    connect(m_searcher, &PlacementSearch::searchStarted, m_pareto, &ParetoPlot::startHypervolume);
    connect(m_searcher, &PlacementSearch::hypervolumeReported, m_pareto,
            &ParetoPlot::addHypervolume);
}

void MainWindow::setupDevicesDock() {
    m_devices = new DeviceListModel(this);
    m_discovery = new JobRunner(this);
    auto* panel = new QWidget(this);
    auto* layout = new QVBoxLayout(panel);
    auto* table = new QTableView(panel);
    table->setModel(m_devices);
    table->verticalHeader()->setVisible(false);
    table->horizontalHeader()->setStretchLastSection(true);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_deviceNotes = new QLabel(tr("Discovering devices..."), panel);
    m_deviceNotes->setWordWrap(true);
    auto* refresh = new QPushButton(tr("Discover again"), panel);
    m_searchDeviceList = new QListWidget(panel);
    m_searchDeviceList->setObjectName(QStringLiteral("searchDevices"));
    m_searchDeviceList->setFlow(QListView::LeftToRight);
    m_searchDeviceList->setMaximumHeight(m_searchDeviceList->fontMetrics().height() * 2 + 8);
    m_searchDeviceList->setToolTip(tr("The catalog devices the placement search uses"));
    layout->addWidget(table, 1);
    layout->addWidget(new QLabel(tr("Search places operators on:"), panel));
    layout->addWidget(m_searchDeviceList);
    layout->addWidget(m_deviceNotes);
    layout->addWidget(refresh, 0, Qt::AlignRight);
    auto* dock = new QDockWidget(tr("Devices"), this);
    dock->setObjectName(QStringLiteral("devicesDock"));
    dock->setWidget(panel);
    addDockWidget(Qt::RightDockWidgetArea, dock);
    connect(refresh, &QPushButton::clicked, this, &MainWindow::discoverDevices);
    connect(m_searchDeviceList, &QListWidget::itemChanged, this, [this] {
        QStringList ticked;
        for (int i = 0; i < m_searchDeviceList->count(); ++i) {
            if (m_searchDeviceList->item(i)->checkState() == Qt::Checked) {
                ticked << m_searchDeviceList->item(i)->text();
            }
        }
        m_searchDevices = ticked.size() == m_searchDeviceList->count() ? QStringList() : ticked;
        m_searchAction->setEnabled(m_model && !ticked.isEmpty());
    });
    discoverDevices();
}

void MainWindow::setSearchDevices(const QStringList& ids) {
    m_searchDevices = ids;
    fillSearchDeviceList();
}

void MainWindow::fillSearchDeviceList() {
    QByteArray json;
    QString name;
    QStringList catalogIds;
    if (readCatalog(&json, &name)) {
        try {
            for (const DeviceSpec& d :
                 parseDeviceCatalogText(json.toStdString(), name.toStdString()).devices) {
                catalogIds << QString::fromStdString(d.id);
            }
        } catch (const InputError&) {
            // discoverDevices() reports the catalog's problem in the dock.
        }
    }
    const QSignalBlocker blocker(m_searchDeviceList);
    m_searchDeviceList->clear();
    for (const QString& id : catalogIds) {
        auto* item = new QListWidgetItem(id, m_searchDeviceList);
        item->setFlags(Qt::ItemIsUserCheckable | Qt::ItemIsEnabled);
        item->setCheckState(m_searchDevices.isEmpty() || m_searchDevices.contains(id)
                                ? Qt::Checked
                                : Qt::Unchecked);
    }
}

bool MainWindow::readCatalog(QByteArray* json, QString* name) {
    const QString path =
        m_catalogPath.isEmpty() ? QStringLiteral(":/catalogs/example.json") : m_catalogPath;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        showError(m_catalogPath.isEmpty()
                      ? tr("The bundled example catalog is missing from the resources.")
                      : tr("Cannot read the device catalog %1: %2").arg(path, file.errorString()));
        return false;
    }
    *json = file.readAll();
    *name = m_catalogPath.isEmpty() ? QStringLiteral("example.json") : m_catalogPath;
    return true;
}

void MainWindow::discoverDevices() {
    fillSearchDeviceList();
    QByteArray json;
    QString name;
    std::optional<DeviceCatalog> catalog;
    QString catalogError;
    if (readCatalog(&json, &name)) {
        try {
            catalog = parseDeviceCatalogText(json.toStdString(), name.toStdString());
        } catch (const InputError& e) {
            catalogError = QString::fromStdString(e.what());
        }
    }
    const auto show = [this, catalogError](DeviceInventory inventory) {
        QStringList notes;
        if (!catalogError.isEmpty()) {
            notes << catalogError;
        }
        for (const std::string& note : inventory.notes) {
            notes << QString::fromStdString(note);
        }
        m_devices->setInventory(std::move(inventory));
        m_deviceNotes->setText(notes.join(QLatin1Char('\n')));
        if (m_profileAction) {
            m_profileAction->setEnabled(m_profileAction->data().toBool() &&
                                        !m_devices->profilableDevices().isEmpty());
        }
    };
    // The latest discovery wins; an older one finishes on its own and is dropped.
    m_discovery->run<DeviceInventory>(
        tr("discovering devices"),
        [catalog](JobResult<DeviceInventory>& r, const std::shared_ptr<JobProgress>&) {
            r.outcome = paretune::discoverDevices(catalog ? &*catalog : nullptr);
        },
        show,
        [show](const QString& error) {
            DeviceInventory failed;
            failed.notes.push_back(error.toStdString());
            show(std::move(failed));
        });
}

bool MainWindow::setCatalogPath(const QString& path) {
    const QString previous = m_catalogPath;
    m_catalogPath = path;
    QByteArray json;
    QString name;
    if (!readCatalog(&json, &name)) {
        m_catalogPath = previous;
        return false;
    }
    try {
        parseDeviceCatalogText(json.toStdString(), name.toStdString());
    } catch (const InputError& e) {
        m_catalogPath = previous;
        showError(QString::fromStdString(e.what()));
        return false;
    }
    logMessage(tr("Device catalog: %1").arg(name));
    m_searchDevices.clear(); // the new catalog's devices, all of them
    discoverDevices();
    return true;
}

void MainWindow::setupLogDock() {
    m_diagnostics->setObjectName(QStringLiteral("log"));
    if (auto* dock = findChild<QDockWidget*>(QStringLiteral("diagnosticsDock"))) {
        dock->setWindowTitle(tr("Log / Issues"));
    }
    connect(m_loader, &ModelLoader::loadStarted, this,
            [this](const QString& name) { logMessage(tr("Importing %1").arg(name)); });
    connect(m_searcher, &PlacementSearch::searchStarted, this,
            [this] { logMessage(tr("Placement search started")); });
    connect(this, &MainWindow::searchShown, this, [this] {
        const SearchResult& r = m_search->result;
        logMessage(tr("Placement search %1 after %2 generations: %3 plans on the front "
                      "(costs %4)")
                       .arg(r.cancelled ? tr("cancelled") : tr("finished"))
                       .arg(r.generationsRun)
                       .arg(r.front.size())
                       .arg(m_search->costSource));
    });
}

void MainWindow::logMessage(const QString& text) {
    m_diagnostics->addItem(QTime::currentTime().toString(QStringLiteral("HH:mm:ss  ")) + text);
    m_diagnostics->scrollToBottom();
}

void MainWindow::setupPredictorDock() {
    m_predictor = new PredictorPanel(this);
    auto* dock = new QDockWidget(tr("Predictor"), this);
    dock->setObjectName(QStringLiteral("predictorDock"));
    dock->setWidget(m_predictor);
    addDockWidget(Qt::RightDockWidgetArea, dock);
    // Below the Pareto front, the devices and the predictor share a tabbed dock area.
    if (auto* devices = findChild<QDockWidget*>(QStringLiteral("devicesDock"))) {
        tabifyDockWidget(devices, dock);
        devices->raise();
    }
    // The bottom row is one wide, tabbed area: per-layer profile, timeline, log.
    if (auto* profile = findChild<QDockWidget*>(QStringLiteral("profileDock"))) {
        for (const char* name : {"timelineDock", "diagnosticsDock"}) {
            if (auto* other = findChild<QDockWidget*>(QLatin1String(name))) {
                tabifyDockWidget(profile, other);
            }
        }
        profile->raise();
    }
    setDatabasePath(QString::fromStdString(defaultSampleLibraryPath().string()));
}

void MainWindow::setDatabasePath(const QString& path) {
    m_dbPath = path;
    m_predictor->showLibrary(path);
}

void MainWindow::setupToolBar() {
    QToolBar* bar = addToolBar(tr("Workflow"));
    bar->setObjectName(QStringLiteral("workflowToolBar"));
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    QMenu* jobs = menuBar()->addMenu(tr("&Workflow"));
    auto add = [&](const QString& text, const QString& objectName, const QString& tooltip) {
        auto* action = new QAction(text, this);
        action->setObjectName(objectName);
        action->setToolTip(tooltip);
        action->setStatusTip(tooltip);
        bar->addAction(action);
        jobs->addAction(action);
        return action;
    };
    QAction* open = add(tr("Open"), QStringLiteral("openAction"), tr("Open an ONNX model"));
    connect(open, &QAction::triggered, this, &MainWindow::chooseModelFile);
    m_profileAction = add(tr("Profile"), QStringLiteral("profileAction"),
                          tr("Profile the model's operators on a real device of this machine "
                             "into the sample library"));
    m_profileAction->setEnabled(false); // once a real device is discovered
    m_profileAction->setData(ProfileJob::available());
    if (!ProfileJob::available()) {
        m_profileAction->setToolTip(tr("Profiling needs LibTorch, which this build does not "
                                       "include"));
    }
    connect(m_profileAction, &QAction::triggered, this, &MainWindow::chooseDeviceToProfile);
    m_trainAction = add(tr("Train"), QStringLiteral("trainAction"),
                        TrainJob::available()
                            ? tr("Train the performance predictor on the sample library's samples")
                            : tr("Training needs LibTorch, which this build does not include"));
    m_trainAction->setEnabled(TrainJob::available());
    connect(m_trainAction, &QAction::triggered, this, [this] { trainPredictor(); });
    m_searchAction->setObjectName(QStringLiteral("searchAction"));
    bar->addAction(m_searchAction);
    jobs->addAction(m_searchAction);
    m_validateAction =
        add(tr("Validate"), QStringLiteral("validateAction"),
            ValidateJob::available()
                ? tr("Run the chosen plan on this machine's devices and compare the measured "
                     "times with the plan's")
                : tr("Validation needs LibTorch, which this build does not include"));
    m_validateAction->setEnabled(false); // once a plan is chosen
    m_validateAction->setData(ValidateJob::available());
    connect(m_validateAction, &QAction::triggered, this, [this] { validateShownPlan(); });
    m_exportAction = add(tr("Export bundle"), QStringLiteral("exportAction"),
                         tr("Export the chosen plan as a deployment bundle (partitions, "
                            "manifest, profile and candidate plans)"));
    m_exportAction->setEnabled(false); // once a plan is chosen
    connect(m_exportAction, &QAction::triggered, this, &MainWindow::chooseBundlePath);
}

void MainWindow::setupProfileJob() {
    m_profileJob = new ProfileJob(this);
    m_jobStatus->follow(m_profileJob, tr("Profiling..."));
    connect(m_profileJob, &ProfileJob::profileFinished, this, [this](const ProfileOutcome& o) {
        const QString text =
            tr("Profiling on %1 %2: %3 operators measured, %4 reused, %5 failed, %6 not "
               "run; sum of measured medians %7 (measured), end to end %8; stored in %9")
                .arg(o.deviceId, o.cancelled ? tr("cancelled") : tr("finished"))
                .arg(o.measured)
                .arg(o.reused)
                .arg(o.failed)
                .arg(o.notRun)
                .arg(formatMicroseconds(o.sumOfOpsUs),
                     o.endToEndUs > 0 ? formatMicroseconds(o.endToEndUs) : tr("not run"), o.dbPath);
        logMessage(text);
        statusBar()->showMessage(text);
        if (!o.speedChange.isEmpty()) {
            logMessage(tr("Warning: the machine's speed changed while profiling (%1): these "
                          "samples may not compare with others. Profile again later to average "
                          "them; the predictor learns the median of repeated measurements.")
                           .arg(o.speedChange));
        }
        m_predictor->showLibrary(m_dbPath);
        if (o.model == m_model) {
            m_planMeasurements = false;
            m_nodeModel->setMeasurements(o.deviceId, o.nodeLatencyUs);
        }
    });
    connect(m_profileJob, &ProfileJob::profileFailed, this, &MainWindow::showError);
}

void MainWindow::setupTrainJob() {
    m_trainJob = new TrainJob(this);
    m_jobStatus->follow(m_trainJob, tr("Training..."));
    connect(m_trainJob, &TrainJob::trainingStarted, this, [this](int epochs) {
        m_trainingEpochs = epochs;
        m_predictor->startTraining();
    });
    connect(m_trainJob, &TrainJob::trainingEpoch, this, [this](int epoch, double loss) {
        const int epochs = std::max(1, m_trainingEpochs);
        if (JobStatusWidget* status = m_jobStatus->indicator(m_trainJob)) {
            status->setProgress(static_cast<double>(epoch) / epochs,
                                tr("Training: epoch %1/%2").arg(epoch).arg(epochs));
        }
        m_predictor->addLoss(epoch, loss, std::numeric_limits<double>::quiet_NaN());
    });
    connect(m_trainJob, &TrainJob::trainingFinished, this, [this](const TrainOutcome& o) {
        for (const QString& note : o.notes) {
            logMessage(note);
        }
        m_predictor->showLibrary(o.dbPath);
        m_predictor->setHeldOut(o.measuredUs, o.predictedUs);
        m_predictor->setMetrics(o.metricNames, o.predictorMetrics, o.rooflineMetrics);
        const QString text = tr("Predictor %1 trained and stored in %2; evaluated on the %3 "
                                "(%4 operators, predicted beside measured)")
                                 .arg(o.predictorId)
                                 .arg(o.dbPath, o.evaluatedOn)
                                 .arg(o.measuredUs.size());
        logMessage(text);
        statusBar()->showMessage(text);
    });
    connect(m_trainJob, &TrainJob::trainingFailed, this, &MainWindow::showError);
}

void MainWindow::trainPredictor(int epochs, int members) {
    logMessage(tr("Training the predictor on %1").arg(m_dbPath));
    m_trainJob->start(m_dbPath,
                      m_model ? QString::fromStdString(m_model->graph.fingerprint) : QString(),
                      epochs, members);
}

void MainWindow::chooseDeviceToProfile() {
    const QStringList devices = m_devices->profilableDevices();
    if (devices.isEmpty()) {
        showError(tr("No real device to profile on was discovered."));
        return;
    }
    bool ok = false;
    const QString id = QInputDialog::getItem(
        this, tr("Profile"), tr("Profile the model's operators on:"), devices, 0, false, &ok);
    if (ok) {
        profileOnDevice(id);
    }
}

void MainWindow::profileOnDevice(const QString& deviceId, int repeats) {
    if (!m_model) {
        showError(tr("Open a model before profiling."));
        return;
    }
    const Device* device = m_devices->inventory().find(deviceId.toStdString());
    if (!device) {
        showError(tr("No device '%1' (see the Devices dock).").arg(deviceId));
        return;
    }
    if (device->tag != DeviceTag::Real) {
        showError(tr("%1 is a modelled device: only real devices are profiled.").arg(deviceId));
        return;
    }
    logMessage(tr("Profiling %1 on %2 into %3").arg(m_modelPath, deviceId, m_dbPath));
    m_profileJob->start(m_model, *device, m_dbPath, repeats);
}

void MainWindow::clearPlan() {
    clearPlanMeasurements();
    m_schedule.reset();
    m_validateAction->setEnabled(false);
    m_exportAction->setEnabled(false);
    m_timeline->clear();
    m_nodeModel->setPlan(nullptr, nullptr);
}

} // namespace paretune
