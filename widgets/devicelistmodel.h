// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "device/device.h"

#include <QAbstractTableModel>

namespace paretune {

/// The devices of this machine and of the catalog in use (DeviceInventory), one row each,
/// tagged real (discovered, can be profiled) or modelled (catalog figures only).
class DeviceListModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Id, Tag, Kind, Name, Compute, Memory, ColumnCount };

    explicit DeviceListModel(QObject* parent = nullptr);

    void setInventory(DeviceInventory inventory);
    const DeviceInventory& inventory() const { return m_inventory; }
    /// Ids of the real devices that can be profiled in this version (CPU devices).
    QStringList profilableDevices() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    DeviceInventory m_inventory;
};

} // namespace paretune
