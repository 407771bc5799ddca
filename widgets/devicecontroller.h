// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QObject>
#include <QString>
#include <QStringList>

class QLabel;
class QListWidget;
class QWidget;

namespace paretune {

class DeviceListModel;
class JobRunner;
class WorkbenchLog;

/// The devices the workbench works with: this machine's, discovered on a worker thread (the
/// latest discovery wins), and the device catalog's modelled ones; which catalog devices the
/// search places on; the Devices panel (device table, ticked catalog devices, discovery notes).
class DeviceController : public QObject {
    Q_OBJECT
public:
    /// Starts the first discovery.
    DeviceController(QWidget* window, WorkbenchLog& log);

    /// The Devices panel, for a dock.
    QWidget* panel() const { return m_panel; }
    DeviceListModel* deviceListModel() const { return m_devices; }

    /// Discovers the devices again (with the catalog's modelled ones).
    void discoverDevices();
    /// The catalog's JSON text and its display name; false (error shown) when unreadable.
    bool readCatalog(QByteArray* json, QString* name);
    /// The device catalog for modelled devices and searches; empty: the bundled example.
    /// Rediscovers the devices. Returns false (and shows the error) for a bad catalog.
    bool setCatalogPath(const QString& path);
    QString catalogPath() const { return m_catalogPath; }
    /// Catalog device ids the search places on (ticked); empty: every device of the catalog.
    void setSearchDevices(const QStringList& ids);
    QStringList searchDevices() const { return m_searchDevices; }

Q_SIGNALS:
    /// A discovery finished: deviceListModel() holds its inventory.
    void devicesDiscovered();
    /// The user ticked or unticked a catalog device; `ticked` devices are ticked now.
    void searchDevicesTicked(int ticked);

private:
    void fillSearchDeviceList();

    WorkbenchLog& m_log;
    DeviceListModel* m_devices;
    JobRunner* m_discovery;
    QWidget* m_panel = nullptr;
    QLabel* m_deviceNotes = nullptr;
    QListWidget* m_searchDeviceList = nullptr; ///< catalog devices, ticked: searched on
    QString m_catalogPath;
    QStringList m_searchDevices;
};

} // namespace paretune
