// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "store/predictor_summary.h"

#include <QWidget>

#include <vector>

class QCustomPlot;
class QCPGraph;
class QLabel;
class QTableWidget;

namespace paretune {

struct AccuracyRows;
class JobRunner;

/// The predictor dock: whether the sample library holds a trained predictor (and its stored
/// metrics), the training loss curves while training, predicted-vs-measured on the held-out
/// split, and the metrics beside the roofline baseline (overall, per (model, device) pair and,
/// once variants are among the rows, per precision: after a training, and for the newest
/// stored predictor from its stored evaluation). It shows only figures it is given or reads
/// from the database; with no predictor it says so.
class PredictorPanel : public QWidget {
    Q_OBJECT
public:
    explicit PredictorPanel(QWidget* parent = nullptr);
    ~PredictorPanel() override;

    /// Shows what the sample library at `dbPath` holds about its predictors, read on a worker
    /// thread (summarizePredictors; summaryShown() when it is shown). A later call wins.
    void showLibrary(const QString& dbPath);
    bool summaryPending() const { return m_summaryPending; }
    QString statusText() const;
    int storedPredictorCount() const { return m_storedPredictors; }

    // For the training job (called in the GUI thread):
    void startTraining();
    void addLoss(int epoch, double trainLoss, double validationLoss);
    /// Held-out pairs, µs (measured on the device, predicted by the model).
    void setHeldOut(const std::vector<double>& measuredUs, const std::vector<double>& predictedUs);
    /// One row per metric: the predictor's value and the roofline baseline's.
    void setMetrics(const AccuracyRows& rows);
    int lossPointCount() const;
    int heldOutPointCount() const;
    /// The metric names shown, in row order.
    QStringList metricNames() const;
    /// The predictor's value shown in the row named `name`; NaN when no row has that name.
    double predictorMetric(const QString& name) const;

Q_SIGNALS:
    void summaryShown();

private:
    struct SummaryResult {
        PredictorSummary summary;
        QString error;
    };
    void showSummary(const QString& dbPath, const SummaryResult& result);
    void showRows(const AccuracyRows& rows);

    QLabel* m_status = nullptr;
    QCustomPlot* m_loss = nullptr;
    QCPGraph* m_trainLoss = nullptr;
    QCPGraph* m_validationLoss = nullptr;
    QCustomPlot* m_scatter = nullptr;
    QCPGraph* m_heldOut = nullptr;
    QCPGraph* m_diagonal = nullptr;
    QTableWidget* m_metrics = nullptr;
    JobRunner* m_summaryJob = nullptr; ///< reads the library's predictors, latest wins
    int m_storedPredictors = 0;
    bool m_summaryPending = false;
    bool m_metricsFromTraining = false; ///< setMetrics since the last showLibrary
};

} // namespace paretune
