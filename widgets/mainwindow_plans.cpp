// The chosen plan's jobs: validation on this machine's devices and export as a bundle.
#include "mainwindow.h"

#include "graph/onnx_importer.h"
#include "graphpalette.h"
#include "jobstatusbar.h"
#include "nodetablemodel.h"
#include "placementsearch.h"
#include "planjobs.h"
#include "planschedule.h"
#include "timelineview.h"

#include <QAction>
#include <QFileDialog>
#include <QInputDialog>
#include <QStatusBar>

#include <limits>

namespace paretune {

namespace {

QString percentText(const std::optional<double>& error) {
    return error ? QStringLiteral("%1%2%")
                       .arg(*error >= 0 ? QStringLiteral("+") : QString())
                       .arg(*error * 100.0, 0, 'f', 1)
                 : QStringLiteral("-");
}

} // namespace

void MainWindow::setupPlanJobs() {
    m_validateJob = new ValidateJob(this);
    m_exportJob = new BundleExportJob(this);
    m_jobStatus->follow(m_validateJob, tr("Validating..."));
    connect(this, &MainWindow::planShown, this, [this] {
        m_validateAction->setEnabled(ValidateJob::available());
        m_exportAction->setEnabled(true);
    });
    connect(m_validateJob, &ValidateJob::validationFailed, this, &MainWindow::showError);
    connect(m_validateJob, &ValidateJob::validationFinished, this,
            [this](const ValidationOutcome& o) {
                if (o.report.cancelled) {
                    logMessage(
                        tr("Validation of plan %1 cancelled; nothing was stored").arg(o.planIndex));
                    statusBar()->showMessage(tr("Validation cancelled"));
                    return;
                }
                const PlanValidation& r = o.report;
                QString devices;
                for (const ValidatedDevice& d : r.devices) {
                    devices += (devices.isEmpty() ? QString() : QStringLiteral(", ")) +
                               QString::fromStdString(d.id);
                }
                const QString text =
                    tr("Plan %1 validated on %2: latency %3 measured (median of %4 runs, p10 %5, "
                       "p90 %6) vs %7 predicted (%8), error %9; stored in %10 (plan row %11, "
                       "%12 per-operator samples)")
                        .arg(o.planIndex)
                        .arg(devices, formatMicroseconds(*r.latencyUs.measured))
                        .arg(r.repeats)
                        .arg(formatMicroseconds(r.latencyP10Us), formatMicroseconds(r.latencyP90Us),
                             r.latencyUs.predicted ? formatMicroseconds(*r.latencyUs.predicted)
                                                   : tr("none"),
                             QString::fromStdString(r.predictionSource),
                             percentText(r.latencyUs.error), o.dbPath)
                        .arg(r.storedPlanRow)
                        .arg(r.storedSamples);
                logMessage(text);
                if (r.energyMj.measured) {
                    logMessage(tr("Energy %1 mJ measured (%2) vs %3 predicted, error %4")
                                   .arg(*r.energyMj.measured, 0, 'f', 2)
                                   .arg(QString::fromStdString(r.energyMj.measuredSource),
                                        r.energyMj.predicted
                                            ? QString::number(*r.energyMj.predicted, 'f', 2)
                                            : tr("none"),
                                        percentText(r.energyMj.error)));
                } else {
                    logMessage(tr("Energy not measured: no power counter is readable here"));
                }
                statusBar()->showMessage(text);
                if (m_schedule && o.search == m_search && o.planIndex == m_schedule->index) {
                    m_timeline->setData(withMeasuredLanes(m_timeline->data(), *m_model, o));
                    std::vector<double> measured(m_model->graph.nodes.size(),
                                                 std::numeric_limits<double>::quiet_NaN());
                    for (const ValidatedNode& n : r.nodes) {
                        measured[static_cast<std::size_t>(n.node)] = n.measuredUs;
                    }
                    m_nodeModel->setMeasurements(
                        tr("Measured in plan %1").arg(o.planIndex),
                        tr("Median of %1 runs of plan %2 on this machine, each node on its "
                           "device in the plan (validation)")
                            .arg(r.repeats)
                            .arg(o.planIndex),
                        std::move(measured));
                    m_planMeasurements = true;
                }
            });
    // The export reports no fractions: a busy bar, and Cancel before anything is written.
    m_jobStatus->follow(m_exportJob, tr("Exporting the bundle..."), JobStatusBar::Progress::Busy);
    connect(m_exportJob, &BundleExportJob::exportStarted, this,
            [this] { statusBar()->showMessage(tr("Exporting the bundle...")); });
    connect(m_exportJob, &BundleExportJob::exportFailed, this, &MainWindow::showError);
    connect(
        m_exportJob, &BundleExportJob::exportFinished, this, [this](const BundleExportOutcome& o) {
            if (o.cancelled) {
                logMessage(tr("Export of plan %1 cancelled; nothing was written").arg(o.planIndex));
                statusBar()->showMessage(tr("Export cancelled"));
                return;
            }
            for (const QString& warning : o.warnings) {
                logMessage(tr("Export warning: %1").arg(warning));
            }
            QStringList candidates;
            for (const std::int64_t id : o.candidateIds) {
                candidates << QString::number(id);
            }
            const QString text = tr("Wrote the bundle %1%2: plan %3 in %4 partitions, "
                                    "candidate plans %5; %6 files, %7 MB")
                                     .arg(o.path, o.zip ? tr(" (zip)") : QString())
                                     .arg(o.planIndex)
                                     .arg(o.partitions)
                                     .arg(candidates.join(QStringLiteral(", ")))
                                     .arg(o.files)
                                     .arg(o.megabytes, 0, 'f', 1);
            logMessage(text);
            statusBar()->showMessage(text);
        });
}

void MainWindow::clearPlanMeasurements() {
    if (m_planMeasurements) {
        m_nodeModel->setMeasurements(QString(), QString(), {});
        m_planMeasurements = false;
    }
}

void MainWindow::validateShownPlan(int repeats, int warmup) {
    if (!m_search || !m_schedule || m_search->model != m_model) {
        showError(tr("Choose a plan on the Pareto front before validating."));
        return;
    }
    logMessage(tr("Validating plan %1 on this machine (%2 timed runs) into %3")
                   .arg(m_schedule->index)
                   .arg(repeats)
                   .arg(m_dbPath));
    m_validateJob->start(m_search, m_schedule->index, m_dbPath, repeats, warmup);
}

void MainWindow::exportShownPlan(const QString& path, int candidates) {
    if (!m_search || !m_schedule || m_search->model != m_model) {
        showError(tr("Choose a plan on the Pareto front before exporting a bundle."));
        return;
    }
    logMessage(tr("Exporting plan %1 as a bundle to %2").arg(m_schedule->index).arg(path));
    m_exportJob->start(m_search, m_schedule->index, m_modelPath, path, candidates, m_dbPath);
}

void MainWindow::chooseBundlePath() {
    QString selected;
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export bundle"), QString(),
                                     tr("Bundle folder (*);;Zip archive (*.zip)"), &selected);
    if (path.isEmpty()) {
        return;
    }
    bool ok = false;
    const int candidates = QInputDialog::getInt(
        this, tr("Export bundle"), tr("Pareto plans to include for run-time selection:"), 5, 1, 64,
        1, &ok);
    if (ok) {
        exportShownPlan(selected.contains(QStringLiteral("zip")) &&
                                !path.endsWith(QStringLiteral(".zip"))
                            ? path + QStringLiteral(".zip")
                            : path,
                        candidates);
    }
}

} // namespace paretune
