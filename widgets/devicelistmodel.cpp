// SPDX-License-Identifier: GPL-3.0-or-later
#include "devicelistmodel.h"

#include "nodetablemodel.h"

#include <QColor>

namespace paretune {

namespace {

/// A device kind as the window shows it; a catalog's own kinds stay as written.
QString kindText(const std::string& kind) {
    if (kind == "cpu") {
        return DeviceListModel::tr("CPU");
    }
    if (kind == "gpu") {
        return DeviceListModel::tr("GPU");
    }
    if (kind == "npu") {
        return DeviceListModel::tr("NPU");
    }
    if (kind == "dsp") {
        return DeviceListModel::tr("DSP");
    }
    return QString::fromStdString(kind);
}

} // namespace

DeviceListModel::DeviceListModel(QObject* parent) : QAbstractTableModel(parent) {}

void DeviceListModel::setInventory(DeviceInventory inventory) {
    beginResetModel();
    m_inventory = std::move(inventory);
    endResetModel();
}

QStringList DeviceListModel::profilableDevices() const {
    QStringList ids;
    for (const Device& d : m_inventory.devices) {
        if (d.isCpu()) {
            ids << QString::fromStdString(d.id);
        }
    }
    return ids;
}

int DeviceListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_inventory.devices.size());
}

int DeviceListModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DeviceListModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) {
        return {};
    }
    const Device& d = m_inventory.devices[static_cast<std::size_t>(index.row())];
    const bool real = d.tag == DeviceTag::Real;
    if (role == Qt::ForegroundRole) {
        return real ? QVariant() : QVariant(QColor(110, 110, 110));
    }
    if (role == Qt::ToolTipRole) {
        return real ? tr("Discovered on this machine: can be profiled (CPU devices in this "
                         "version); its samples are measured.")
                    : tr("From the device catalog: its costs are modelled from the catalog's "
                         "figures, never measured.");
    }
    if (role != Qt::DisplayRole) {
        return {};
    }
    switch (static_cast<Column>(index.column())) {
    case Id:
        return QString::fromStdString(d.id);
    case Tag:
        return real ? tr("real") : tr("modelled");
    case Kind:
        return kindText(d.kind);
    case Name:
        return QString::fromStdString(d.name);
    case Compute:
        if (real && d.isCpu()) {
            return tr("%n core(s)", "", d.cores);
        }
        if (real) {
            return tr("%n SM(s), %1 MHz", "", d.cores).arg(d.clockMhz, 0, 'f', 0);
        }
        return tr("%1 GFLOP/s, %2 GB/s (catalog)").arg(d.peakGflops).arg(d.memBwGbs);
    case Memory:
        return d.memoryBytes > 0 ? NodeTableModel::formatBytes(d.memoryBytes) : QString();
    case ColumnCount:
        break;
    }
    return {};
}

QVariant DeviceListModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return QAbstractTableModel::headerData(section, orientation, role);
    }
    switch (static_cast<Column>(section)) {
    case Id:
        return tr("Device");
    case Tag:
        return tr("Real / modelled");
    case Kind:
        return tr("Kind");
    case Name:
        return tr("Name");
    case Compute:
        return tr("Compute");
    case Memory:
        return tr("Memory");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace paretune
