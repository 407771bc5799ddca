// SPDX-License-Identifier: GPL-3.0-or-later
#include "profilingcontroller.h"

#include "adaptjob.h"
#include "devicecontroller.h"
#include "devicelistmodel.h"
#include "documentcontroller.h"
#include "graph/onnx_importer.h"
#include "graphpalette.h"
#include "jobstatusbar.h"
#include "jobstatuswidget.h"
#include "librarydialog.h"
#include "librarylocation.h"
#include "predictorpanel.h"
#include "profilejob.h"
#include "queuepanel.h"
#include "store/sample_library.h"
#include "trainjob.h"
#include "workbenchlog.h"

#include <QAction>
#include <QInputDialog>
#include <QMainWindow>
#include <QStatusBar>

#include <algorithm>
#include <limits>

namespace paretune {

ProfilingController::ProfilingController(QMainWindow* window, WorkbenchLog& log,
                                         DocumentController& document, DeviceController& devices,
                                         JobStatusBar& jobs)
    : QObject(window), m_window(window), m_log(log), m_document(document), m_devices(devices),
      m_jobs(jobs), m_predictor(new PredictorPanel(window)), m_queue(new QueuePanel(window)),
      m_profileJob(new ProfileJob(this)), m_trainJob(new TrainJob(this)),
      m_adaptJob(new AdaptJob(this)) {
    const QString profileTip = tr("Profile the model's operators on a real device of this "
                                  "machine into the sample library");
    m_profileAction = new QAction(tr("Profile"), this);
    m_profileAction->setObjectName(QStringLiteral("profileAction"));
    m_profileAction->setToolTip(profileTip);
    m_profileAction->setStatusTip(profileTip);
    m_profileAction->setEnabled(false); // once a real device is discovered
    m_profileAction->setData(ProfileJob::available());
    if (!ProfileJob::available()) {
        m_profileAction->setToolTip(tr("Profiling needs LibTorch, which this build does not "
                                       "include"));
    }
    connect(m_profileAction, &QAction::triggered, this,
            &ProfilingController::chooseDeviceToProfile);
    connect(&m_devices, &DeviceController::devicesDiscovered, this, [this] {
        m_profileAction->setEnabled(m_profileAction->data().toBool() &&
                                    !m_devices.deviceListModel()->profilableDevices().isEmpty());
    });
    const QString trainTip =
        TrainJob::available()
            ? tr("Train the performance predictor on the sample library's samples")
            : tr("Training needs LibTorch, which this build does not include");
    m_trainAction = new QAction(tr("Train"), this);
    m_trainAction->setObjectName(QStringLiteral("trainAction"));
    m_trainAction->setToolTip(trainTip);
    m_trainAction->setStatusTip(trainTip);
    m_trainAction->setEnabled(TrainJob::available());
    connect(m_trainAction, &QAction::triggered, this, [this] { trainPredictor(); });
    const QString adaptTip =
        AdaptJob::available()
            ? tr("Measure the operators whose predicted latency is most uncertain on a real "
                 "device, then retrain the predictor")
            : tr("Adapting the predictor needs LibTorch, which this build does not include");
    m_adaptAction = new QAction(tr("Adapt"), this);
    m_adaptAction->setObjectName(QStringLiteral("adaptAction"));
    m_adaptAction->setToolTip(adaptTip);
    m_adaptAction->setStatusTip(adaptTip);
    m_adaptAction->setEnabled(AdaptJob::available());
    connect(m_adaptAction, &QAction::triggered, this, &ProfilingController::chooseAdaptation);
    m_libraryAction = new QAction(tr("Sample &library..."), this);
    m_libraryAction->setObjectName(QStringLiteral("libraryAction"));
    m_libraryAction->setStatusTip(tr("Choose the sample library: a file on this machine or a "
                                     "team's PostgreSQL server"));
    connect(m_libraryAction, &QAction::triggered, this, &ProfilingController::chooseLibrary);
    setupProfileJob();
    setupTrainJob();
    setupAdaptJob();
    const QString remembered = rememberedLibrary();
    setDatabasePath(remembered.isEmpty()
                        ? QString::fromStdString(defaultSampleLibraryPath().string())
                        : remembered);
}

void ProfilingController::chooseLibrary() {
    LibraryDialog dialog(m_dbPath, m_window);
    if (dialog.exec() != QDialog::Accepted) {
        return;
    }
    dialog.applyPassword();
    setDatabasePath(dialog.location());
    rememberLibrary(dialog.location());
    m_log.log(tr("Sample library: %1").arg(withoutPassword(dialog.location())));
}

void ProfilingController::setDatabasePath(const QString& path) {
    m_dbPath = path;
    m_predictor->showLibrary(path);
    m_queue->showLibrary(path);
}

void ProfilingController::setupProfileJob() {
    m_jobs.follow(m_profileJob, tr("Profiling..."));
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
        m_log.log(text);
        m_window->statusBar()->showMessage(text);
        if (!o.speedChange.isEmpty()) {
            m_log.log(tr("Warning: the machine's speed changed while profiling (%1): these "
                         "samples may not compare with others. Profile again later to average "
                         "them; the predictor learns the median of repeated measurements.")
                          .arg(o.speedChange));
        }
        m_predictor->showLibrary(m_dbPath);
        m_queue->refresh();
        if (o.model == m_document.model()) {
            m_document.showProfileMeasurements(o.deviceId, o.nodeLatencyUs);
        }
    });
    connect(m_profileJob, &ProfileJob::profileFailed, &m_log, &WorkbenchLog::showError);
}

void ProfilingController::setupTrainJob() {
    m_jobs.follow(m_trainJob, tr("Training..."));
    connect(m_trainJob, &TrainJob::trainingStarted, this, [this](int epochs) {
        m_trainingEpochs = epochs;
        m_predictor->startTraining();
    });
    connect(m_trainJob, &TrainJob::trainingEpoch, this, [this](int epoch, double loss) {
        const int epochs = std::max(1, m_trainingEpochs);
        if (JobStatusWidget* status = m_jobs.indicator(m_trainJob)) {
            status->setProgress(static_cast<double>(epoch) / epochs,
                                tr("Training: epoch %1/%2").arg(epoch).arg(epochs));
        }
        m_predictor->addLoss(epoch, loss, std::numeric_limits<double>::quiet_NaN());
    });
    connect(m_trainJob, &TrainJob::trainingFinished, this, [this](const TrainOutcome& o) {
        for (const QString& note : o.notes) {
            m_log.log(note);
        }
        m_predictor->showLibrary(o.dbPath);
        m_predictor->setHeldOut(o.measuredUs, o.predictedUs);
        m_predictor->setMetrics(o.metrics);
        const QString text = tr("Predictor %1 trained and stored in %2; evaluated on the %3 "
                                "(%4 operators, predicted beside measured)")
                                 .arg(o.predictorId)
                                 .arg(o.dbPath, o.evaluatedOn)
                                 .arg(o.measuredUs.size());
        m_log.log(text);
        m_window->statusBar()->showMessage(text);
    });
    connect(m_trainJob, &TrainJob::trainingFailed, &m_log, &WorkbenchLog::showError);
}

void ProfilingController::setupAdaptJob() {
    m_jobs.follow(m_adaptJob, tr("Adapting..."));
    connect(m_adaptJob, &AdaptJob::adaptFinished, this, [this](const AdaptOutcome& o) {
        QString text;
        if (o.measured.isEmpty()) {
            text = tr("Adapt on %1: every operator of the model is already measured; predictor "
                      "%2 kept")
                       .arg(o.deviceId)
                       .arg(o.predictorBefore);
        } else {
            for (const QString& line : o.measured) {
                m_log.log(line);
            }
            text = tr("Adapt on %1: %2 operators measured; MAPE on them %3% before (measured "
                      "against predicted), %4% after (in-sample); predictor %5 replaces %6 in %7")
                       .arg(o.deviceId)
                       .arg(o.measured.size())
                       .arg(o.mapeBefore, 0, 'f', 1)
                       .arg(o.mapeAfterInSample, 0, 'f', 1)
                       .arg(o.predictorAfter)
                       .arg(o.predictorBefore)
                       .arg(o.dbPath);
        }
        m_log.log(text);
        m_window->statusBar()->showMessage(text);
        m_predictor->showLibrary(o.dbPath);
    });
    connect(m_adaptJob, &AdaptJob::adaptFailed, &m_log, &WorkbenchLog::showError);
}

void ProfilingController::chooseAdaptation() {
    const QStringList devices = m_devices.deviceListModel()->profilableDevices();
    if (devices.isEmpty()) {
        m_log.showError(tr("No real device to measure on was discovered."));
        return;
    }
    bool ok = false;
    const QString id =
        QInputDialog::getItem(m_window, tr("Adapt"), tr("Measure the most uncertain operators on:"),
                              devices, 0, false, &ok);
    if (!ok) {
        return;
    }
    const int budget = QInputDialog::getInt(m_window, tr("Adapt"), tr("Operators to measure:"), 10,
                                            1, 1000, 1, &ok);
    if (ok) {
        adaptOnDevice(id, budget);
    }
}

void ProfilingController::adaptOnDevice(const QString& deviceId, int budget) {
    if (const Device* device = realDeviceFor(deviceId, tr("adapting"))) {
        m_log.log(tr("Adapting the predictor on %1 (%2 operators) in %3")
                      .arg(deviceId)
                      .arg(budget)
                      .arg(m_dbPath));
        m_adaptJob->start(m_document.model(), *device, m_dbPath, budget);
    }
}

const Device* ProfilingController::realDeviceFor(const QString& deviceId, const QString& job) {
    if (!m_document.model()) {
        m_log.showError(tr("Open a model before %1.").arg(job));
        return nullptr;
    }
    const Device* device = m_devices.deviceListModel()->inventory().find(deviceId.toStdString());
    if (!device) {
        m_log.showError(tr("No device '%1' (see the Devices dock).").arg(deviceId));
        return nullptr;
    }
    if (device->tag != DeviceTag::Real) {
        m_log.showError(
            tr("%1 is a modelled device: only real devices are profiled.").arg(deviceId));
        return nullptr;
    }
    return device;
}

void ProfilingController::trainPredictor(int epochs, int members) {
    m_log.log(tr("Training the predictor on %1").arg(m_dbPath));
    const std::shared_ptr<const ImportResult> model = m_document.model();
    m_trainJob->start(m_dbPath,
                      model ? QString::fromStdString(model->graph.fingerprint) : QString(), epochs,
                      members);
}

void ProfilingController::chooseDeviceToProfile() {
    const QStringList devices = m_devices.deviceListModel()->profilableDevices();
    if (devices.isEmpty()) {
        m_log.showError(tr("No real device to profile on was discovered."));
        return;
    }
    bool ok = false;
    const QString id = QInputDialog::getItem(
        m_window, tr("Profile"), tr("Profile the model's operators on:"), devices, 0, false, &ok);
    if (ok) {
        profileOnDevice(id);
    }
}

void ProfilingController::profileOnDevice(const QString& deviceId, int repeats) {
    const Device* device = realDeviceFor(deviceId, tr("profiling"));
    if (!device) {
        return;
    }
    m_log.log(tr("Profiling %1 on %2 into %3").arg(m_document.modelPath(), deviceId, m_dbPath));
    m_profileJob->start(m_document.model(), *device, m_dbPath, repeats);
}

} // namespace paretune
