#include "nodetablemodel.h"

#include "graph/onnx_importer.h"

#include <QColor>

namespace paretune {

NodeTableModel::NodeTableModel(QObject* parent) : QAbstractTableModel(parent) {}

NodeTableModel::~NodeTableModel() = default;

void NodeTableModel::setModel(std::shared_ptr<const ImportResult> model) {
    beginResetModel();
    m_model = std::move(model);
    m_placement.clear();
    endResetModel();
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
    return parent.isValid() ? 0 : ColumnCount;
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

QVariant NodeTableModel::data(const QModelIndex& index, int role) const {
    if (!m_model || !index.isValid() || index.row() >= rowCount() ||
        index.column() >= ColumnCount) {
        return {};
    }
    const Graph& g = m_model->graph;
    const auto row = static_cast<std::size_t>(index.row());
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
        return QString(QString::fromStdString(std::string(nodeKindName(node.kind))) +
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
    case ColumnCount:
        break;
    }
    return {};
}

QVariant NodeTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return QAbstractTableModel::headerData(section, orientation, role);
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
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace paretune
