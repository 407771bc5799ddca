// SPDX-License-Identifier: GPL-3.0-or-later
// CUDA discovery: compiled in when nvcc is present; a machine without a GPU or driver simply has
// no CUDA device.
#include "device/cuda_devices.h"
#include "paretune/config.h"

#include <QtTest>

using namespace paretune;

class TestDevices : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void inventoryMatchesBuild();
    void devicesAreDescribed();
};

void TestDevices::inventoryMatchesBuild() {
    const CudaInventory inventory = discoverCudaDevices();
    QCOMPARE(inventory.builtWithCuda, bool(PARETUNE_WITH_CUDA));
    if (!inventory.builtWithCuda) {
        QVERIFY(inventory.devices.empty());
        QVERIFY(!inventory.note.empty());
        return;
    }
    QVERIFY(inventory.runtimeVersion > 0);
    if (inventory.devices.empty()) {
        // No GPU: the reason is given, and calling again is harmless.
        QVERIFY(!inventory.note.empty());
        QVERIFY(discoverCudaDevices().devices.empty());
    }
}

void TestDevices::devicesAreDescribed() {
    const CudaInventory inventory = discoverCudaDevices();
    if (inventory.devices.empty()) {
        QSKIP("no CUDA device on this machine");
    }
    for (const CudaDeviceInfo& d : inventory.devices) {
        QVERIFY(!d.name.empty());
        QVERIFY(d.multiprocessors > 0);
        QVERIFY(d.memoryBytes > 0);
        QVERIFY(d.computeMajor > 0);
    }
}

QTEST_APPLESS_MAIN(TestDevices)
#include "tst_devices.moc"
