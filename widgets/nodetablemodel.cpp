// SPDX-License-Identifier: GPL-3.0-or-later
#include "nodetablemodel.h"

#include "graph/onnx_importer.h"
#include "graphpalette.h"
#include "placementsearch.h"
#include "planschedule.h"
#include "timelineview.h"

#include <QColor>

#include <cmath>
#include <limits>

namespace paretune {

namespace {

QColor sourceColor(CostSource source) {
    switch (source) {
    case CostSource::Measured:
        return {0, 110, 40};
    case CostSource::Predicted:
        return {30, 80, 170};
    case CostSource::Modelled:
        return {110, 110, 110};
    case CostSource::Unsupported:
        break;
    }
    return {180, 40, 40};
}

} // namespace

NodeTableModel::NodeTableModel(QObject* parent) : QAbstractTableModel(parent) {}

NodeTableModel::~NodeTableModel() = default;

void NodeTableModel::setModel(std::shared_ptr<const ImportResult> model) {
    beginResetModel();
    m_model = std::move(model);
    m_placement.clear();
    m_outcome.reset();
    m_schedule.reset();
    m_planBusyUs = 0.0;
    m_measuredHeader.clear();
    m_measuredToolTip.clear();
    m_measuredUs.clear();
    endResetModel();
}

int NodeTableModel::measuredColumn() const {
    return m_measuredUs.empty() ? -1 : ColumnCount + deviceColumnCount();
}

void NodeTableModel::setMeasurements(const QString& deviceId, std::vector<double> latencyUs) {
    setMeasurements(tr("Measured on %1").arg(deviceId),
                    tr("Median latency measured on %1 (sample library)").arg(deviceId),
                    std::move(latencyUs));
}

void NodeTableModel::setMeasurements(const QString& header, const QString& toolTip,
                                     std::vector<double> latencyUs) {
    if (!m_model || latencyUs.size() != m_model->graph.nodes.size()) {
        latencyUs.clear();
    }
    const int column = ColumnCount + deviceColumnCount();
    const bool had = !m_measuredUs.empty();
    const bool has = !latencyUs.empty();
    if (had && !has) {
        beginRemoveColumns({}, column, column);
    } else if (!had && has) {
        beginInsertColumns({}, column, column);
    }
    m_measuredHeader = header;
    m_measuredToolTip = toolTip;
    m_measuredUs = std::move(latencyUs);
    if (had && !has) {
        endRemoveColumns();
    } else if (!had && has) {
        endInsertColumns();
    } else if (has && rowCount() > 0) {
        Q_EMIT dataChanged(index(0, column), index(rowCount() - 1, column));
        Q_EMIT headerDataChanged(Qt::Horizontal, column, column);
    }
}

QVariant NodeTableModel::measuredData(std::size_t row, int role) const {
    const double us = m_measuredUs[row];
    const bool known = !std::isnan(us);
    switch (role) {
    case Qt::DisplayRole:
        return known ? tr("%1 · %2").arg(formatMicroseconds(us), tr("measured")) : QVariant();
    case SortRole:
        return known ? us : std::numeric_limits<double>::infinity();
    case SourceRole:
        return known ? QVariant(tr("measured")) : QVariant();
    case Qt::ForegroundRole:
        return known ? QVariant(sourceColor(CostSource::Measured)) : QVariant();
    case Qt::ToolTipRole:
        return known ? QVariant(m_measuredToolTip) : QVariant();
    default:
        return {};
    }
}

int NodeTableModel::deviceColumnCount() const {
    return m_outcome && m_schedule ? m_outcome->costs.deviceCount() : 0;
}

void NodeTableModel::setPlan(std::shared_ptr<const SearchOutcome> outcome,
                             std::shared_ptr<const PlanSchedule> schedule) {
    if (!outcome || !schedule || !m_model || outcome->model != m_model) {
        outcome.reset();
        schedule.reset();
    }
    const int before = deviceColumnCount();
    const int after = outcome && schedule ? outcome->costs.deviceCount() : 0;
    if (after < before) {
        beginRemoveColumns({}, ColumnCount + after, ColumnCount + before - 1);
    } else if (after > before) {
        beginInsertColumns({}, ColumnCount + before, ColumnCount + after - 1);
    }
    m_outcome = std::move(outcome);
    m_schedule = std::move(schedule);
    if (after < before) {
        endRemoveColumns();
    } else if (after > before) {
        endInsertColumns();
    }
    m_planBusyUs = 0.0;
    std::vector<QString> devices;
    if (m_schedule) {
        const std::vector<std::int32_t>& placed = m_schedule->plan.device;
        const std::vector<std::int32_t>& variant = m_schedule->plan.variant;
        for (std::size_t n = 0; n < placed.size(); ++n) {
            const std::int32_t d = placed[n];
            const std::int32_t v = n < variant.size() ? variant[n] : 0;
            QString where =
                d < 0 ? QString()
                      : QString::fromStdString(m_outcome->deviceIds[static_cast<std::size_t>(d)]);
            if (d >= 0 && v > 0) { // the node's variant beside its device: "cpu:0 · bf16"
                where = tr("%1 · %2").arg(where, QString::fromStdString(std::string(
                                                     variantName(m_outcome->costs.variant(v)))));
            }
            devices.push_back(where);
            if (d >= 0 && m_model->graph.nodes[n].kind == NodeKind::Compute) {
                m_planBusyUs += m_outcome->costs.cell(static_cast<NodeId>(n), d, v).latencyUs;
            }
        }
    }
    m_placement = std::move(devices);
    if (rowCount() > 0) {
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
    }
    Q_EMIT headerDataChanged(Qt::Horizontal, 0, columnCount() - 1);
}

QVariant NodeTableModel::costData(std::size_t row, int device, int column, int role) const {
    const CostCell& cell = m_outcome->costs.cell(static_cast<NodeId>(row), device);
    if (role == SourceRole) {
        return cell.supported() ? sourceText(cell.source) : QVariant();
    }
    if (role == Qt::ForegroundRole) {
        return sourceColor(cell.source);
    }
    if (role == Qt::ToolTipRole) {
        return tr("%1 on %2: %3")
            .arg(headerData(column, Qt::Horizontal).toString(),
                 QString::fromStdString(m_outcome->deviceIds[static_cast<std::size_t>(device)]),
                 sourceText(cell.source) + (cell.source == CostSource::Modelled
                                                ? tr(" (%1)").arg(m_outcome->costSource)
                                                : QString()));
    }
    const bool display = role == Qt::DisplayRole;
    if (!cell.supported()) {
        return display ? QVariant(tr("unsupported"))
                       : QVariant(std::numeric_limits<double>::infinity());
    }
    double value = 0.0;
    QString text;
    switch (column) {
    case PlanMemory:
        value = static_cast<double>(m_model->graph.metrics[row].bytesWritten + cell.workspaceBytes);
        text = formatBytes(static_cast<std::int64_t>(value));
        break;
    case PlanEnergy:
        value = cell.energyUj;
        text = tr("%1 µJ").arg(value, 0, 'f', value < 10 ? 2 : 1);
        break;
    case PlanShare:
        value = m_planBusyUs > 0.0 ? cell.latencyUs / m_planBusyUs : 0.0;
        text = tr("%1 %").arg(value * 100.0, 0, 'f', 1);
        break;
    default: // latency
        value = cell.latencyUs;
        text = formatMicroseconds(value);
        break;
    }
    if (!display) {
        return value;
    }
    return column == PlanShare ? text : tr("%1 · %2").arg(text, sourceText(cell.source));
}

QVariant NodeTableModel::planData(std::size_t row, int column, int role) const {
    if (!m_outcome || !m_schedule) {
        return {};
    }
    if (m_model->graph.nodes[row].kind != NodeKind::Compute) {
        // Nothing runs for these nodes; they sort as costing nothing.
        return role == SortRole ? QVariant(0.0) : QVariant();
    }
    if (column >= ColumnCount) {
        return costData(row, column - ColumnCount, PlanLatency, role);
    }
    const std::int32_t d = row < m_schedule->plan.device.size() ? m_schedule->plan.device[row] : -1;
    if (d < 0) {
        return role == SortRole ? QVariant(0.0) : QVariant();
    }
    return costData(row, d, column, role);
}

void NodeTableModel::setPlacement(std::vector<QString> devicePerNode) {
    m_placement = std::move(devicePerNode);
    if (rowCount() > 0) {
        Q_EMIT dataChanged(index(0, Device), index(rowCount() - 1, Device));
    }
}

int NodeTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_model ? 0 : static_cast<int>(m_model->graph.nodes.size());
}

int NodeTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0
                            : ColumnCount + deviceColumnCount() + (m_measuredUs.empty() ? 0 : 1);
}

QString NodeTableModel::sourceText(CostSource source) {
    switch (source) {
    case CostSource::Measured:
        return NodeTableModel::tr("measured");
    case CostSource::Predicted:
        return NodeTableModel::tr("predicted");
    case CostSource::Modelled:
        return NodeTableModel::tr("modelled");
    case CostSource::Unsupported:
        break;
    }
    return NodeTableModel::tr("unsupported");
}

QString NodeTableModel::kindText(NodeKind kind) {
    switch (kind) {
    case NodeKind::Compute:
        return tr("compute");
    case NodeKind::Constant:
        return tr("constant");
    case NodeKind::PassThrough:
        return tr("pass-through");
    case NodeKind::ShapeComputation:
        return tr("shape computation");
    }
    return tr("compute");
}

QString NodeTableModel::formatCount(double value) {
    static const char* const kPrefixes[] = {"", " K", " M", " G", " T", " P"};
    int p = 0;
    while (value >= 1000.0 && p < 5) {
        value /= 1000.0;
        ++p;
    }
    return p == 0 ? QString::number(value, 'f', 0)
                  : QString::number(value, 'f', 2) + QLatin1String(kPrefixes[p]);
}

QString NodeTableModel::formatBytes(std::int64_t bytes) {
    return QString(formatCount(static_cast<double>(bytes)) +
                   QLatin1String(bytes < 1000 ? " B" : "B"));
}

bool NodeTableModel::isConstant(int row) const {
    return m_model && row >= 0 && row < rowCount() &&
           m_model->graph.nodes[static_cast<std::size_t>(row)].kind == NodeKind::Constant;
}

QVariant NodeTableModel::data(const QModelIndex& index, int role) const {
    if (!m_model || !index.isValid() || index.row() >= rowCount() ||
        index.column() >= columnCount()) {
        return {};
    }
    const Graph& g = m_model->graph;
    const auto row = static_cast<std::size_t>(index.row());
    if (index.column() >= PlanLatency) {
        if (role == Qt::TextAlignmentRole) {
            return int(Qt::AlignRight | Qt::AlignVCenter);
        }
        if (index.column() == measuredColumn()) {
            return measuredData(row, role);
        }
        return role == Qt::DisplayRole || role == SortRole || role == SourceRole ||
                       role == Qt::ForegroundRole || role == Qt::ToolTipRole
                   ? planData(row, index.column(), role)
                   : QVariant();
    }
    const Node& node = g.nodes[row];
    const OpMetrics& m = g.metrics[row];
    if (role == Qt::ForegroundRole) {
        return node.kind == NodeKind::Compute ? QVariant() : QVariant(QColor(Qt::gray));
    }
    if (role == Qt::TextAlignmentRole) {
        const bool numeric = index.column() >= Flops && index.column() <= Params;
        return numeric ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    }
    if (role == Qt::ToolTipRole && index.column() == Signature) {
        return QString::fromStdString(g.signatures[row]);
    }
    if (role != Qt::DisplayRole && role != SortRole) {
        return {};
    }
    const bool display = role == Qt::DisplayRole;
    switch (static_cast<Column>(index.column())) {
    case Name:
        return QString::fromStdString(node.name);
    case OpType:
        return QString::fromStdString(node.domain.empty() ? node.opType
                                                          : node.domain + "." + node.opType);
    case Kind:
        return QString(kindText(node.kind) +
                       (node.knownOperator ? QString() : tr(" (unknown op)")));
    case Device:
        return row < m_placement.size() ? m_placement[row] : QString();
    case Output: {
        const auto outs = g.nodeOutputs.row(static_cast<NodeId>(row));
        return outs.empty() || outs[0] == kNone
                   ? QString()
                   : QString::fromStdString(
                         g.tensors[static_cast<std::size_t>(outs[0])].typeString());
    }
    case Flops:
        return display ? formatCount(m.flops) : QVariant(m.flops);
    case BytesRead:
        return display ? QVariant(formatBytes(m.bytesRead))
                       : QVariant(static_cast<qlonglong>(m.bytesRead));
    case BytesWritten:
        return display ? QVariant(formatBytes(m.bytesWritten))
                       : QVariant(static_cast<qlonglong>(m.bytesWritten));
    case Params:
        return display ? QVariant(formatBytes(m.paramBytes))
                       : QVariant(static_cast<qlonglong>(m.paramBytes));
    case Signature:
        return QString::fromStdString(
            g.signatures[row].substr(0, display ? 12 : std::string::npos));
    case PlanLatency:
    case PlanMemory:
    case PlanEnergy:
    case PlanShare:
    case ColumnCount:
        break;
    }
    return {};
}

QVariant NodeTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return QAbstractTableModel::headerData(section, orientation, role);
    }
    if (section == measuredColumn()) {
        return m_measuredHeader;
    }
    if (section >= ColumnCount && section < columnCount()) {
        return tr("Latency on %1")
            .arg(QString::fromStdString(
                m_outcome->deviceIds[static_cast<std::size_t>(section - ColumnCount)]));
    }
    switch (static_cast<Column>(section)) {
    case Name:
        return tr("Node");
    case OpType:
        return tr("Op type");
    case Kind:
        return tr("Kind");
    case Device:
        return tr("Device (selected plan)");
    case Output:
        return tr("Output");
    case Flops:
        return tr("FLOPs (from shapes)");
    case BytesRead:
        return tr("Read");
    case BytesWritten:
        return tr("Written");
    case Params:
        return tr("Weights");
    case Signature:
        return tr("Signature");
    case PlanLatency:
        return tr("Latency (plan)");
    case PlanMemory:
        return tr("Memory (plan)");
    case PlanEnergy:
        return tr("Energy (plan)");
    case PlanShare:
        return tr("Share of device time");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace paretune
