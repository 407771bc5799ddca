// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "workflow/tune_workflow.h"

#include <QAbstractTableModel>

#include <vector>

namespace paretune {

/// The rounds of a tune, one row each: how many plans were validated, the largest and the
/// median |latency error| of their predictions, and what the round's search had learned from
/// the rounds before it (nodes timed inside plans, device scales, contention factors). A row's
/// tooltip lists its plans, predicted beside measured.
class TuneRoundsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Round, Plans, MaxError, MedianError, Costs, ColumnCount };
    /// The figure behind a cell, for sorting and tests: |error| as a fraction, counts as ints.
    static constexpr int ValueRole = Qt::UserRole + 1;

    explicit TuneRoundsModel(QObject* parent = nullptr);

    void setRounds(std::vector<TuneRound> rounds);
    const std::vector<TuneRound>& rounds() const { return m_rounds; }

    /// What a round's search learned, in words: "library costs only", or "12 nodes in context,
    /// 3 scaled; cpu:0 ×1.08; cpu:1 beside cpu:0 ×1.21".
    static QString costsText(const InContextFit& fit);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    std::vector<TuneRound> m_rounds;
};

} // namespace paretune
