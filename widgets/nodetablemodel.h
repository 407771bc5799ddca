// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cost/cost_table.h"
#include "graph/graph.h"

#include <QAbstractTableModel>

#include <cstdint>
#include <memory>
#include <vector>

namespace paretune {

struct ImportResult;
struct PlanSchedule;
struct SearchOutcome;

/// One row per graph node: name, op type, kind, output type, FLOPs, bytes, parameters and
/// operator signature; with a chosen plan (setPlan) also the per-layer profile: the node's
/// device, latency, memory, energy and share of the device time there, and its latency on every
/// device of the cost table (ColumnCount + d). Every figure names its source (measured,
/// predicted, modelled) in its text and in SourceRole. Display role gives formatted text;
/// SortRole gives the raw number or text.
class NodeTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Name,
        OpType,
        Kind,
        Device,
        Output,
        Flops,
        BytesRead,
        BytesWritten,
        Params,
        Signature,
        PlanLatency,
        PlanMemory,
        PlanEnergy,
        PlanShare,
        ColumnCount ///< the latency on cost-table device d is column ColumnCount + d
    };
    static constexpr int SortRole = Qt::UserRole + 1;
    /// "measured", "predicted" or "modelled" for a cost figure; empty otherwise.
    static constexpr int SourceRole = Qt::UserRole + 2;

    explicit NodeTableModel(QObject* parent = nullptr);
    ~NodeTableModel() override;

    void setModel(std::shared_ptr<const ImportResult> model);
    /// Device id per graph node in the selected plan (empty entries for unplaced nodes);
    /// an empty vector clears the column.
    void setPlacement(std::vector<QString> devicePerNode);
    /// The chosen plan of a search: fills the device column and the per-layer profile columns
    /// from the search's cost table. Null arguments clear them.
    void setPlan(std::shared_ptr<const SearchOutcome> outcome,
                 std::shared_ptr<const PlanSchedule> schedule);
    int deviceColumnCount() const;
    /// Latencies measured on a real device (µs per graph node, NaN where none), e.g. from a
    /// profiling run: one more column, "Measured on <device>", after the per-device ones. An
    /// empty vector removes it; a new model clears it.
    void setMeasurements(const QString& deviceId, std::vector<double> latencyUs);
    /// The same column with its own header and tooltip, e.g. the times a plan's validation
    /// measured on each node's device ("Measured in plan 3").
    void setMeasurements(const QString& header, const QString& toolTip,
                         std::vector<double> latencyUs);
    /// Index of the measured column, or -1.
    int measuredColumn() const;
    /// Whether the node of `row` is a constant (a Constant op, or folded into one at import).
    bool isConstant(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    /// "1.23 G", "456 K", "12"; the unit stays with the caller.
    static QString formatCount(double value);
    /// Where a cost comes from, as the window shows it (translated).
    static QString sourceText(CostSource source);
    /// The node kind as the window shows it (translated).
    static QString kindText(NodeKind kind);
    /// formatCount with a "B" for bytes: "1.20 MB".
    static QString formatBytes(std::int64_t bytes);

private:
    std::shared_ptr<const ImportResult> m_model;
    QVariant planData(std::size_t row, int column, int role) const;
    QVariant costData(std::size_t row, int device, int column, int role) const;
    QVariant measuredData(std::size_t row, int role) const;

    std::vector<QString> m_placement;
    std::shared_ptr<const SearchOutcome> m_outcome;
    std::shared_ptr<const PlanSchedule> m_schedule;
    double m_planBusyUs = 0.0; ///< Σ latency of the plan's nodes on their devices
    QString m_measuredHeader;
    QString m_measuredToolTip;
    std::vector<double> m_measuredUs;
};

} // namespace paretune
