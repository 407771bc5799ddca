// SPDX-License-Identifier: GPL-3.0-or-later
#include "tuneroundsmodel.h"

#include <QStringList>

namespace paretune {

namespace {

QString percent(double fraction) {
    return QStringLiteral("%1 %").arg(fraction * 100.0, 0, 'f', 1);
}

QString signedPercent(double fraction) {
    return QStringLiteral("%1%2 %")
        .arg(fraction >= 0 ? QStringLiteral("+") : QString())
        .arg(fraction * 100.0, 0, 'f', 1);
}

} // namespace

TuneRoundsModel::TuneRoundsModel(QObject* parent) : QAbstractTableModel(parent) {}

void TuneRoundsModel::setRounds(std::vector<TuneRound> rounds) {
    beginResetModel();
    m_rounds = std::move(rounds);
    endResetModel();
}

QString TuneRoundsModel::costsText(const InContextFit& fit) {
    if (fit.nodesInContext == 0 && fit.nodesScaled == 0 && fit.fusedInContext == 0 &&
        fit.fusedScaled == 0 && fit.contention.empty() && fit.gaps.dispatchUs.empty() &&
        fit.gaps.handoffs.empty() && fit.turns.empty() && fit.gaps.turnGapUs.empty() &&
        fit.gaps.turnCopyScale.empty() && fit.receives.empty()) {
        return tr("library costs only");
    }
    QStringList parts{
        tr("%1 nodes in context, %2 scaled").arg(fit.nodesInContext).arg(fit.nodesScaled)};
    if (fit.fusedInContext > 0 || fit.fusedScaled > 0) {
        parts << tr("%1 fused groups in context, %2 scaled")
                     .arg(fit.fusedInContext)
                     .arg(fit.fusedScaled);
    }
    if (fit.shrinkage) {
        parts << tr("%1 cells in context drawn toward their nodes on other devices (a time's noise "
                    "%2 %, the cells' spread %3 %)")
                     .arg(fit.shrinkage->cells)
                     .arg(fit.shrinkage->noiseSd * 100.0, 0, 'f', 1)
                     .arg(fit.shrinkage->spreadSd * 100.0, 0, 'f', 1);
    }
    for (const auto& [device, scale] : fit.deviceScale) {
        parts << tr("%1 ×%2").arg(QString::fromStdString(device)).arg(scale, 0, 'f', 2);
    }
    for (const FittedContention& c : fit.contention) {
        parts << tr("%1 beside %2 ×%3")
                     .arg(QString::fromStdString(c.device), QString::fromStdString(c.other))
                     .arg(c.factor, 0, 'f', 2);
    }
    for (const auto& [device, us] : fit.gaps.dispatchUs) {
        parts << tr("%1 +%2 µs a node (measured)")
                     .arg(QString::fromStdString(device))
                     .arg(us, 0, 'f', 1);
    }
    for (const FittedTurn& t : fit.turns) {
        parts << tr("%1 +%2 µs a turn on shared cores (measured)")
                     .arg(QString::fromStdString(t.device))
                     .arg(t.us, 0, 'f', 1);
    }
    for (const FittedReceive& r : fit.receives) {
        parts << tr("%1 ×%2 reading a tensor from another device (measured)")
                     .arg(QString::fromStdString(r.device))
                     .arg(r.factor, 0, 'f', 3);
    }
    for (const auto& [device, us] : fit.gaps.turnGapUs) {
        parts << tr("%1 +%2 µs before a turn on shared cores (measured)")
                     .arg(QString::fromStdString(device))
                     .arg(us, 0, 'f', 1);
    }
    for (const auto& [device, scale] : fit.gaps.turnCopyScale) {
        parts << tr("copies into %1 at its turns ×%2 the catalog's time (measured)")
                     .arg(QString::fromStdString(device))
                     .arg(scale, 0, 'f', 2);
    }
    for (const FittedHandoff& h : fit.gaps.handoffs) {
        parts << tr("%1 → %2 handoff %3 µs (catalog %4 µs)")
                     .arg(QString::fromStdString(h.from), QString::fromStdString(h.to))
                     .arg(h.latencyUs, 0, 'f', 1)
                     .arg(h.modelledLatencyUs, 0, 'f', 1);
    }
    if (fit.roundSpeedScales.size() > 1) {
        QStringList scales;
        for (const double s : fit.roundSpeedScales) {
            scales << QStringLiteral("×%1").arg(s, 0, 'f', 2);
        }
        parts << tr("earlier rounds' times at the latest speed: %1")
                     .arg(scales.join(QStringLiteral(", ")));
    }
    return parts.join(QStringLiteral("; "));
}

int TuneRoundsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rounds.size());
}

int TuneRoundsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TuneRoundsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) {
        return {};
    }
    const TuneRound& r = m_rounds[static_cast<std::size_t>(index.row())];
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Round:
            return r.resumed ? tr("%1 (stored)").arg(r.index + 1) : QString::number(r.index + 1);
        case Plans:
            return static_cast<int>(r.plans.size());
        case MaxError:
            if (r.speedChange && r.maxAbsErrorAtSpeed) {
                return tr("%1 (%2 at ×%3 speed)")
                    .arg(percent(r.maxAbsError), percent(*r.maxAbsErrorAtSpeed))
                    .arg(*r.speedChange, 0, 'f', 2);
            }
            return percent(r.maxAbsError);
        case MedianError:
            return percent(r.medianAbsError);
        case Costs:
            return costsText(r.fit);
        default:
            return {};
        }
    }
    if (role == ValueRole) {
        switch (index.column()) {
        case Round:
            return r.index + 1;
        case Plans:
            return static_cast<int>(r.plans.size());
        case MaxError:
            return r.maxAbsError;
        case MedianError:
            return r.medianAbsError;
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        QStringList lines{tr("Round %1: plans validated on this machine").arg(r.index + 1)};
        if (r.calibration && r.calibration->speed) {
            lines << tr("Predicted at the machine's speed measured around the runs: ×%1 the "
                        "round before's (baselines in rehearsals before and after: %2 compared, "
                        "%3 runs each)")
                         .arg(*r.calibration->speed, 0, 'f', 2)
                         .arg(r.calibration->compared)
                         .arg(r.calibration->runs);
        }
        if (r.newPlanBias.plans > 0) {
            lines << tr("New plans over several devices predicted ×%1: how much longer %2 such "
                        "plans of earlier rounds measured than predicted")
                         .arg(r.newPlanBias.factor, 0, 'f', 3)
                         .arg(r.newPlanBias.plans);
        }
        if (r.calibration && r.calibration->attempts > 1) {
            lines << tr("Timed %1 times: the machine's speed moved during the runs (kept: %2)")
                         .arg(r.calibration->attempts)
                         .arg(percent(r.calibration->speedMoved()));
        }
        if (r.speedChange && r.maxAbsErrorAtSpeed) {
            lines << tr("The plans run again from the round before took ×%1 as long (the "
                        "machine's speed drifted); at that speed the largest error is %2")
                         .arg(*r.speedChange, 0, 'f', 2)
                         .arg(percent(*r.maxAbsErrorAtSpeed));
        }
        for (const TunedPlan& p : r.plans) {
            lines << tr("%1: predicted %2 ms, measured %3 ms (p10 %4, p90 %5, %6 runs), error %7")
                         .arg(QString::fromStdString(p.label))
                         .arg(p.predictedUs / 1000.0, 0, 'f', 3)
                         .arg(p.measured.medianUs / 1000.0, 0, 'f', 3)
                         .arg(p.measured.p10Us / 1000.0, 0, 'f', 3)
                         .arg(p.measured.p90Us / 1000.0, 0, 'f', 3)
                         .arg(p.measured.runs)
                         .arg(signedPercent(p.error));
        }
        return lines.join(QLatin1Char('\n'));
    }
    if (role == Qt::TextAlignmentRole && index.column() != Costs) {
        return int(Qt::AlignRight | Qt::AlignVCenter);
    }
    return {};
}

QVariant TuneRoundsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
    case Round:
        return tr("Round");
    case Plans:
        return tr("Plans validated");
    case MaxError:
        return tr("Max |error|");
    case MedianError:
        return tr("Median |error|");
    case Costs:
        return tr("Costs the round searched with");
    default:
        return {};
    }
}

} // namespace paretune
