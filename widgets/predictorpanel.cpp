// SPDX-License-Identifier: GPL-3.0-or-later
#include "predictorpanel.h"

#include "accuracyrows.h"
#include "jobrunner.h"
#include "librarylocation.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

#include "qcustomplot_fenced.h"
#include "store/library_location.h"

namespace paretune {

PredictorPanel::PredictorPanel(QWidget* parent)
    : QWidget(parent), m_summaryJob(new JobRunner(this)) {
    auto* layout = new QVBoxLayout(this);
    m_status = new QLabel(tr("No sample library opened yet."), this);
    m_status->setWordWrap(true);
    m_status->setObjectName(QStringLiteral("predictorStatus"));
    layout->addWidget(m_status);
    auto* plots = new QHBoxLayout;
    m_loss = new QCustomPlot(this);
    m_loss->setMinimumSize(180, 110); // the panel shares a column with the Pareto front
    m_trainLoss = m_loss->addGraph();
    m_trainLoss->setName(tr("training loss"));
    m_trainLoss->setPen(QPen(QColor(31, 119, 180), 2));
    m_validationLoss = m_loss->addGraph();
    m_validationLoss->setName(tr("validation loss"));
    m_validationLoss->setPen(QPen(QColor(255, 127, 14), 2));
    m_loss->xAxis->setLabel(tr("Epoch"));
    m_loss->yAxis->setLabel(tr("Loss"));
    m_loss->legend->setVisible(true);
    m_scatter = new QCustomPlot(this);
    m_scatter->setMinimumSize(180, 110);
    m_diagonal = m_scatter->addGraph();
    m_diagonal->setPen(QPen(Qt::gray, 1, Qt::DashLine));
    m_heldOut = m_scatter->addGraph();
    m_heldOut->setLineStyle(QCPGraph::lsNone);
    m_heldOut->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(31, 119, 180), 5));
    m_scatter->xAxis->setLabel(tr("Measured latency (µs, held-out)"));
    m_scatter->yAxis->setLabel(tr("Predicted latency (µs)"));
    m_scatter->xAxis->setScaleType(QCPAxis::stLogarithmic);
    m_scatter->yAxis->setScaleType(QCPAxis::stLogarithmic);
    plots->addWidget(m_loss);
    plots->addWidget(m_scatter);
    layout->addLayout(plots, 1);
    m_metrics = new QTableWidget(0, 3, this);
    m_metrics->setHorizontalHeaderLabels(
        {tr("Metric"), tr("Predictor"), tr("Roofline baseline (modelled)")});
    m_metrics->horizontalHeader()->setStretchLastSection(true);
    m_metrics->verticalHeader()->setVisible(false);
    m_metrics->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_metrics->setMaximumHeight(130);
    layout->addWidget(m_metrics);
}

PredictorPanel::~PredictorPanel() = default;

QString PredictorPanel::statusText() const {
    return m_status->text();
}

void PredictorPanel::showLibrary(const QString& dbPath) {
    m_summaryJob->abandon(); // a summary still being read for another library is dropped
    m_storedPredictors = 0;
    m_metricsFromTraining = false;
    m_summaryPending = false;
    if (!isServerLocation(dbPath) && !QFileInfo(dbPath).isFile()) {
        m_status->setText(tr("No sample library at %1 yet: profile a model on a real device to "
                             "create it. No predictor is trained; costs are modelled.")
                              .arg(dbPath));
        return;
    }
    // Read on a worker: the library may be large, or on a slow disk.
    m_summaryPending = true;
    m_status->setText(tr("Reading the predictors of %1 ...").arg(dbPath));
    const std::string path = dbPath.toStdString();
    m_summaryJob->run<PredictorSummary>(
        tr("reading the predictors"),
        [path](JobResult<PredictorSummary>& r, const std::shared_ptr<JobProgress>&) {
            r.outcome = summarizePredictors(path);
        },
        [this, dbPath](const PredictorSummary& summary) {
            showSummary(dbPath, {summary, QString()});
        },
        [this, dbPath](const QString& error) {
            showSummary(dbPath, {PredictorSummary{}, error});
        });
}

void PredictorPanel::showSummary(const QString& dbPath, const SummaryResult& r) {
    m_summaryPending = false;
    m_storedPredictors = r.summary.count;
    if (!r.error.isEmpty()) {
        m_status->setText(tr("Cannot read the predictors of %1: %2").arg(dbPath, r.error));
        Q_EMIT summaryShown();
        return;
    }
    if (m_storedPredictors == 0) {
        m_status->setText(tr("No predictor is trained in %1 yet: costs come from measured samples "
                             "and the catalog (modelled). Train one once samples are profiled.")
                              .arg(dbPath));
        Q_EMIT summaryShown();
        return;
    }
    // The metrics of a training that just ended (setMetrics) say more than the stored ones.
    if (!m_metricsFromTraining && r.summary.latestEvaluation) {
        showRows(accuracyRows(*r.summary.latestEvaluation));
    } else if (!m_metricsFromTraining) {
        // A predictor stored before evaluations were: its top-level figures, as stored.
        AccuracyRows stored;
        for (const auto& [name, value] : r.summary.latestMetrics) {
            stored.names << QString::fromStdString(name);
            stored.predictor.push_back(value);
            stored.roofline.push_back(std::numeric_limits<double>::quiet_NaN());
        }
        showRows(stored);
    }
    const QString latest = tr("predictor #%1 trained %2")
                               .arg(r.summary.latestId)
                               .arg(QString::fromStdString(r.summary.latestCreatedAt));
    m_status->setText(
        tr("%n predictor(s) in %1; the latest: %2 (metrics as stored).", "", m_storedPredictors)
            .arg(dbPath, latest));
    Q_EMIT summaryShown();
}

void PredictorPanel::startTraining() {
    m_trainLoss->data()->clear();
    m_validationLoss->data()->clear();
    m_loss->replot();
    m_status->setText(tr("Training..."));
}

void PredictorPanel::addLoss(int epoch, double trainLoss, double validationLoss) {
    m_trainLoss->addData(epoch, trainLoss);
    m_validationLoss->addData(epoch, validationLoss);
    m_loss->rescaleAxes();
    m_loss->replot(QCustomPlot::rpQueuedReplot);
}

void PredictorPanel::setHeldOut(const std::vector<double>& measuredUs,
                                const std::vector<double>& predictedUs) {
    m_heldOut->data()->clear();
    double lo = 0.0;
    double hi = 0.0;
    for (std::size_t i = 0; i < measuredUs.size() && i < predictedUs.size(); ++i) {
        m_heldOut->addData(measuredUs[i], predictedUs[i]);
        const double small = std::min(measuredUs[i], predictedUs[i]);
        const double large = std::max(measuredUs[i], predictedUs[i]);
        lo = i == 0 ? small : std::min(lo, small);
        hi = std::max(hi, large);
    }
    m_diagonal->setData({lo, hi}, {lo, hi});
    m_scatter->rescaleAxes();
    m_scatter->replot(QCustomPlot::rpQueuedReplot);
}

void PredictorPanel::setMetrics(const AccuracyRows& rows) {
    m_metricsFromTraining = true;
    showRows(rows);
}

void PredictorPanel::showRows(const AccuracyRows& rows) {
    const auto text = [](const std::vector<double>& values, std::size_t k) {
        return k < values.size() && !std::isnan(values[k]) ? QString::number(values[k], 'g', 4)
                                                           : QString();
    };
    m_metrics->setRowCount(0);
    for (int i = 0; i < rows.names.size(); ++i) {
        const auto k = static_cast<std::size_t>(i);
        m_metrics->insertRow(i);
        m_metrics->setItem(i, 0, new QTableWidgetItem(rows.names[i]));
        m_metrics->setItem(i, 1, new QTableWidgetItem(text(rows.predictor, k)));
        m_metrics->setItem(i, 2, new QTableWidgetItem(text(rows.roofline, k)));
    }
}

QStringList PredictorPanel::metricNames() const {
    QStringList names;
    for (int row = 0; row < m_metrics->rowCount(); ++row) {
        names << m_metrics->item(row, 0)->text();
    }
    return names;
}

double PredictorPanel::predictorMetric(const QString& name) const {
    for (int row = 0; row < m_metrics->rowCount(); ++row) {
        if (m_metrics->item(row, 0)->text() == name) {
            return m_metrics->item(row, 1)->text().toDouble();
        }
    }
    return std::numeric_limits<double>::quiet_NaN();
}

int PredictorPanel::lossPointCount() const {
    return m_trainLoss->dataCount();
}

int PredictorPanel::heldOutPointCount() const {
    return m_heldOut->dataCount();
}

} // namespace paretune
