// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QString>

class QAction;
class QMainWindow;

namespace paretune {

class AdaptJob;
class DeviceController;
class DocumentController;
class JobStatusBar;
class PredictorPanel;
class ProfileJob;
class QueuePanel;
class TrainJob;
class WorkbenchLog;
struct Device;

/// Profiling and training into the sample library: the library's path, the Profile, Train and
/// Adapt actions and their jobs (ProfileJob, TrainJob, AdaptJob, each with its indicator in the
/// status bar), and the predictor panel that shows what the library holds and how training
/// goes.
class ProfilingController : public QObject {
    Q_OBJECT
public:
    /// Shows the library the workbench used last (rememberedLibrary), else the default one
    /// (defaultSampleLibraryPath).
    ProfilingController(QMainWindow* window, WorkbenchLog& log, DocumentController& document,
                        DeviceController& devices, JobStatusBar& jobs);

    /// The predictor panel, for a dock.
    PredictorPanel* predictorPanel() const { return m_predictor; }
    /// The profiling queue of the library (QueuePanel), for a dock.
    QueuePanel* queuePanel() const { return m_queue; }
    QAction* profileAction() const { return m_profileAction; }
    QAction* trainAction() const { return m_trainAction; }
    QAction* adaptAction() const { return m_adaptAction; }
    /// File > Sample library: the LibraryDialog, then the chosen library is used and remembered.
    QAction* libraryAction() const { return m_libraryAction; }
    AdaptJob* adaptJob() const { return m_adaptJob; }
    ProfileJob* profileJob() const { return m_profileJob; }
    TrainJob* trainJob() const { return m_trainJob; }

    /// Profiles the current model's operators on a real device (id from the Devices dock) into
    /// the sample library, on a worker thread; the latest profiling job wins. `repeats` timed
    /// runs per round, 0: adaptive.
    void profileOnDevice(const QString& deviceId, int repeats = 0);
    /// Trains the predictor on the sample library, holding the open model out when the library
    /// has other models.
    void trainPredictor(int epochs = 60, int members = 5);
    /// Measures the `budget` operators of the current model whose prediction on the real
    /// device is most uncertain, then retrains the predictor (core's adaptPredictor).
    void adaptOnDevice(const QString& deviceId, int budget);

    /// The sample library profiling writes to and the predictor panel reads: an SQLite file or a
    /// PostgreSQL server (`postgresql://…`, without password).
    void setDatabasePath(const QString& path);
    QString databasePath() const { return m_dbPath; }

private:
    void chooseDeviceToProfile();
    void chooseAdaptation();
    void chooseLibrary();
    /// The real device `deviceId` for a job on the current model, or null after saying why.
    const Device* realDeviceFor(const QString& deviceId, const QString& job);
    void setupAdaptJob();
    void setupProfileJob();
    void setupTrainJob();

    QMainWindow* m_window;
    WorkbenchLog& m_log;
    DocumentController& m_document;
    DeviceController& m_devices;
    JobStatusBar& m_jobs;
    PredictorPanel* m_predictor;
    QueuePanel* m_queue;
    ProfileJob* m_profileJob;
    TrainJob* m_trainJob;
    QAction* m_profileAction = nullptr;
    QAction* m_trainAction = nullptr;
    AdaptJob* m_adaptJob;
    QAction* m_adaptAction = nullptr;
    QAction* m_libraryAction = nullptr;
    int m_trainingEpochs = 0; ///< of the training job running
    QString m_dbPath;
};

} // namespace paretune
