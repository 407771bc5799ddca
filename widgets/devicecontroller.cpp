// SPDX-License-Identifier: GPL-3.0-or-later
#include "devicecontroller.h"

#include "common/input_error.h"
#include "cost/device_catalog.h"
#include "devicelistmodel.h"
#include "jobrunner.h"
#include "workbenchlog.h"

#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSignalBlocker>
#include <QTableView>
#include <QVBoxLayout>

#include <optional>

namespace paretune {

DeviceController::DeviceController(QWidget* window, WorkbenchLog& log)
    : QObject(window), m_log(log), m_devices(new DeviceListModel(this)),
      m_discovery(new JobRunner(this)) {
    m_panel = new QWidget(window);
    auto* layout = new QVBoxLayout(m_panel);
    auto* table = new QTableView(m_panel);
    table->setModel(m_devices);
    table->verticalHeader()->setVisible(false);
    table->horizontalHeader()->setStretchLastSection(true);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_deviceNotes = new QLabel(tr("Discovering devices..."), m_panel);
    m_deviceNotes->setWordWrap(true);
    auto* refresh = new QPushButton(tr("Discover again"), m_panel);
    m_searchDeviceList = new QListWidget(m_panel);
    m_searchDeviceList->setObjectName(QStringLiteral("searchDevices"));
    m_searchDeviceList->setFlow(QListView::LeftToRight);
    m_searchDeviceList->setMaximumHeight(m_searchDeviceList->fontMetrics().height() * 2 + 8);
    m_searchDeviceList->setToolTip(tr("The catalog devices the placement search uses"));
    layout->addWidget(table, 1);
    layout->addWidget(new QLabel(tr("Search places operators on:"), m_panel));
    layout->addWidget(m_searchDeviceList);
    layout->addWidget(m_deviceNotes);
    layout->addWidget(refresh, 0, Qt::AlignRight);
    connect(refresh, &QPushButton::clicked, this, &DeviceController::discoverDevices);
    connect(m_searchDeviceList, &QListWidget::itemChanged, this, [this] {
        QStringList ticked;
        for (int i = 0; i < m_searchDeviceList->count(); ++i) {
            if (m_searchDeviceList->item(i)->checkState() == Qt::Checked) {
                ticked << m_searchDeviceList->item(i)->text();
            }
        }
        m_searchDevices = ticked.size() == m_searchDeviceList->count() ? QStringList() : ticked;
        Q_EMIT searchDevicesTicked(static_cast<int>(ticked.size()));
    });
    discoverDevices();
}

void DeviceController::setSearchDevices(const QStringList& ids) {
    m_searchDevices = ids;
    fillSearchDeviceList();
}

void DeviceController::fillSearchDeviceList() {
    QByteArray json;
    QString name;
    QStringList catalogIds;
    if (readCatalog(&json, &name)) {
        try {
            for (const DeviceSpec& d :
                 parseDeviceCatalogText(json.toStdString(), name.toStdString()).devices) {
                catalogIds << QString::fromStdString(d.id);
            }
        } catch (const InputError&) {
            // discoverDevices() reports the catalog's problem in the dock.
        }
    }
    const QSignalBlocker blocker(m_searchDeviceList);
    m_searchDeviceList->clear();
    for (const QString& id : catalogIds) {
        auto* item = new QListWidgetItem(id, m_searchDeviceList);
        item->setFlags(Qt::ItemIsUserCheckable | Qt::ItemIsEnabled);
        item->setCheckState(m_searchDevices.isEmpty() || m_searchDevices.contains(id)
                                ? Qt::Checked
                                : Qt::Unchecked);
    }
}

bool DeviceController::readCatalog(QByteArray* json, QString* name) {
    const QString path =
        m_catalogPath.isEmpty() ? QStringLiteral(":/catalogs/example.json") : m_catalogPath;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        m_log.showError(
            m_catalogPath.isEmpty()
                ? tr("The bundled example catalog is missing from the resources.")
                : tr("Cannot read the device catalog %1: %2").arg(path, file.errorString()));
        return false;
    }
    *json = file.readAll();
    *name = m_catalogPath.isEmpty() ? QStringLiteral("example.json") : m_catalogPath;
    return true;
}

namespace {

/// A discovery note in the window's language where its code is known, else as core wrote it.
QString noteText(const Diagnostic& d) {
    const auto arg = [&d](std::size_t i) {
        return i < d.arguments.size() ? QString::fromStdString(d.arguments[i]) : QString();
    };
    if (d.code == "no-cuda-device" && d.arguments.size() == 1) {
        return arg(0).isEmpty() ? DeviceController::tr("No CUDA devices.")
                                : DeviceController::tr("No CUDA devices (%1).").arg(arg(0));
    }
    if (d.code == "catalog-device-shadowed" && d.arguments.size() == 4) {
        return DeviceController::tr("%1: the catalog's %2 '%3' has the id of this machine's %4; "
                                    "the real device is listed.")
            .arg(arg(0), arg(2), arg(1), arg(3));
    }
    return QString::fromStdString(d.message);
}

} // namespace

void DeviceController::discoverDevices() {
    fillSearchDeviceList();
    QByteArray json;
    QString name;
    std::optional<DeviceCatalog> catalog;
    QString catalogError;
    if (readCatalog(&json, &name)) {
        try {
            catalog = parseDeviceCatalogText(json.toStdString(), name.toStdString());
        } catch (const InputError& e) {
            catalogError = QString::fromStdString(e.what());
        }
    }
    const auto show = [this, catalogError](DeviceInventory inventory) {
        QStringList notes;
        if (!catalogError.isEmpty()) {
            notes << catalogError;
        }
        for (const Diagnostic& d : inventory.diagnostics) {
            notes << noteText(d);
        }
        m_devices->setInventory(std::move(inventory));
        m_deviceNotes->setText(notes.join(QLatin1Char('\n')));
        Q_EMIT devicesDiscovered();
    };
    // The latest discovery wins; an older one finishes on its own and is dropped.
    m_discovery->run<DeviceInventory>(
        tr("discovering devices"),
        [catalog](JobResult<DeviceInventory>& r, const std::shared_ptr<JobProgress>&) {
            r.outcome = paretune::discoverDevices(catalog ? &*catalog : nullptr);
        },
        show,
        [show](const QString& error) {
            DeviceInventory failed;
            failed.diagnostics.push_back(
                {Diagnostic::Severity::Warning, "discovery-failed", error.toStdString()});
            show(std::move(failed));
        });
}

bool DeviceController::setCatalogPath(const QString& path) {
    const QString previous = m_catalogPath;
    m_catalogPath = path;
    QByteArray json;
    QString name;
    if (!readCatalog(&json, &name)) {
        m_catalogPath = previous;
        return false;
    }
    try {
        parseDeviceCatalogText(json.toStdString(), name.toStdString());
    } catch (const InputError& e) {
        m_catalogPath = previous;
        m_log.showError(QString::fromStdString(e.what()));
        return false;
    }
    m_log.log(tr("Device catalog: %1").arg(name));
    m_searchDevices.clear(); // the new catalog's devices, all of them
    discoverDevices();
    return true;
}

} // namespace paretune
