// SPDX-License-Identifier: GPL-3.0-or-later
// The workbench's Validate and Export bundle actions, offscreen, on the bundled sample model:
// a plan searched over the CPU's core devices (costs measured by a profile first) is validated
// on those cores, stored in the library and drawn as measured lanes beside the simulated ones;
// a plan on modelled devices is refused with the engine's message; a chosen plan exports as a
// bundle that verifies, as a folder and as a zip, and an existing path is never replaced.
#include "bundle/bundle_files.h"
#include "bundle/bundle_verify.h"
#include "device/device.h"
#include "devicelistmodel.h"
#include "graph/onnx_importer.h"
#include "mainwindow.h"
#include "nodetablemodel.h"
#include "paretoplot.h"
#include "placementsearch.h"
#include "planjobs.h"
#include "planschedule.h"
#include "profilejob.h"
#include "store/sample_library.h"
#include "testpaths.h"
#include "timelineview.h"
#include "workbench_fixture.h"

#include <QAction>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

using namespace paretune;

class TestPlanJobs : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void validatesPlanOnCoreDevices();
    void modelledPlanIsRefused();
    void exportsBundleOfChosenPlan();

private:
    static bool searchAndChoose(MainWindow& window, int plan);
    QTemporaryDir m_dir;
};

namespace {

SearchOptions quickSearch() {
    SearchOptions options;
    options.population = 16;
    options.generations = 8;
    return options;
}

} // namespace

bool TestPlanJobs::searchAndChoose(MainWindow& window, int plan) {
    QSignalSpy shown(&window, &MainWindow::searchShown);
    window.searchPlacements(quickSearch());
    if (!shown.wait(120000)) {
        return false;
    }
    QSignalSpy planShown(&window, &MainWindow::planShown);
    window.paretoPlot()->selectPlan(plan);
    return planShown.count() == 1 && window.currentSchedule() &&
           window.currentSchedule()->index == plan;
}

void TestPlanJobs::validatesPlanOnCoreDevices() {
    MainWindow window;
    QVERIFY(openSampleAndWait(window));
    QTRY_VERIFY_WITH_TIMEOUT(
        window.deviceListModel()->profilableDevices().contains(QStringLiteral("cpu:0")), 30000);
    if (!window.deviceListModel()->profilableDevices().contains(QStringLiteral("cpu:1"))) {
        QSKIP("needs two CPU cores (cpu:0 and cpu:1)");
    }
    const QString db = m_dir.filePath(QStringLiteral("cores.db"));
    window.setDatabasePath(db);
    QVERIFY(window.setCatalogPath(
        QStringLiteral(PARETUNE_SOURCE_DIR "/resources/catalogs/cpu_cores.json")));
    window.setSearchDevices({QStringLiteral("cpu:0"), QStringLiteral("cpu:1")});
    QSignalSpy profiled(window.profileJob(), &ProfileJob::profileFinished);
    for (const QString& device : {QStringLiteral("cpu:0"), QStringLiteral("cpu:1")}) {
        window.profileOnDevice(device, 2);
        QTRY_COMPARE_WITH_TIMEOUT(profiled.count(), device == QStringLiteral("cpu:0") ? 1 : 2,
                                  120000);
    }
    QVERIFY(searchAndChoose(window, 0));
    // The search took the profiled costs of the cores from the library.
    QVERIFY(window.currentSearch()->costSource.contains(QStringLiteral("measured")));
    QVERIFY(window.currentSearch()->result.front.front().objectives.feasible());
    auto* validate = window.findChild<QAction*>(QStringLiteral("validateAction"));
    QVERIFY(validate && validate->isEnabled());

    const int simulatedLanes = static_cast<int>(window.timelineView()->data().lanes.size());
    const std::size_t plansBefore = SampleLibrary::open(db.toStdString()).plans().size();
    QSignalSpy finished(window.validateJob(), &ValidateJob::validationFinished);
    QSignalSpy failed(window.validateJob(), &ValidateJob::validationFailed);
    window.validateShownPlan(3, 1);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count() + failed.count(), 1, 120000);
    QCOMPARE(failed.count(), 0);
    const auto outcome = finished.at(0).at(0).value<ValidationOutcome>();
    const PlanValidation& report = outcome.report;
    QVERIFY(!report.cancelled);
    QVERIFY(report.latencyUs.measured && *report.latencyUs.measured > 0);
    QVERIFY(report.latencyUs.predicted && report.latencyUs.error);
    QCOMPARE(report.repeats, 3);
    QVERIFY(report.storedPlanRow > 0);

    // Every compute node was measured on the device the plan gave it.
    const Graph& g = window.currentModel()->graph;
    const PlanSchedule& schedule = *window.currentSchedule();
    const SearchOutcome& search = *window.currentSearch();
    std::size_t computeNodes = 0;
    for (const Node& n : g.nodes) {
        computeNodes += n.kind == NodeKind::Compute ? 1 : 0;
    }
    // A fusion group the plan takes is one row (and one sample) for all its members.
    std::size_t covered = 0;
    for (const ValidatedNode& n : report.nodes) {
        covered += n.fusedMembers.empty() ? 1 : n.fusedMembers.size();
    }
    QCOMPARE(covered, computeNodes);
    QCOMPARE(report.storedSamples, report.nodes.size());
    for (const ValidatedNode& n : report.nodes) {
        const std::string& planned = search.deviceIds[static_cast<std::size_t>(
            schedule.plan.device[static_cast<std::size_t>(n.node)])];
        QCOMPARE(report.devices[static_cast<std::size_t>(n.device)].id, planned);
        QVERIFY(n.measuredEndUs >= n.measuredBeginUs);
        QVERIFY(n.predictedUs.has_value()); // profiled: the cell is measured
        QCOMPARE(n.predictedSource, std::string("measured"));
    }
    // Stored: one more plan measurement.
    const std::vector<PlanRecord> plans = SampleLibrary::open(db.toStdString()).plans();
    QCOMPARE(plans.size(), plansBefore + 1);
    QCOMPARE(plans.back().source, std::string("validated"));

    // The timeline keeps the simulated lanes and adds one measured lane per device used.
    const TimelineData& data = window.timelineView()->data();
    QCOMPARE(static_cast<int>(data.lanes.size()),
             simulatedLanes + static_cast<int>(report.devices.size()));
    std::size_t measuredBars = 0;
    for (const TimelineData::Bar& bar : data.bars) {
        if (bar.lane < simulatedLanes) {
            continue;
        }
        ++measuredBars;
        const QString device = QString::fromStdString(search.deviceIds[static_cast<std::size_t>(
            schedule.plan.device[static_cast<std::size_t>(bar.node)])]);
        // The device's lane, tagged measured, in the colour of its simulated lane.
        const TimelineData::Lane& lane = data.lanes[static_cast<std::size_t>(bar.lane)];
        QCOMPARE(lane.deviceId, device);
        QVERIFY(lane.measured);
        const int simulatedLane =
            static_cast<int>(schedule.plan.device[static_cast<std::size_t>(bar.node)]);
        QCOMPARE(laneColour(data, bar.lane), laneColour(data, simulatedLane));
    }
    QCOMPARE(measuredBars, report.nodes.size()); // one bar per fusion group the plan takes
    QVERIFY(data.source.contains(QStringLiteral("measured")));

    // The per-layer profile gets the in-plan times as a measured column, until the plan changes.
    const NodeTableModel* table = window.nodeTableModel();
    const int column = table->measuredColumn();
    QVERIFY(column >= 0);
    QCOMPARE(table->headerData(column, Qt::Horizontal).toString(),
             QStringLiteral("Measured in plan 0"));
    for (const ValidatedNode& n : report.nodes) {
        const QModelIndex i = table->index(n.node, column);
        QCOMPARE(table->data(i, NodeTableModel::SortRole).toDouble(), n.measuredUs);
        QCOMPARE(table->data(i, NodeTableModel::SourceRole).toString(), QStringLiteral("measured"));
    }
    if (search.result.front.size() > 1) {
        window.paretoPlot()->selectPlan(1);
        QCOMPARE(table->measuredColumn(), -1);
    }
}

void TestPlanJobs::modelledPlanIsRefused() {
    MainWindow window;
    QVERIFY(openSampleAndWait(window));
    window.setDatabasePath(m_dir.filePath(QStringLiteral("modelled.db")));
    QVERIFY(searchAndChoose(window, 0)); // the example catalog: cpu, gpu, npu, all modelled
    QSignalSpy errors(&window, &MainWindow::errorShown);
    QSignalSpy finished(window.validateJob(), &ValidateJob::validationFinished);
    window.validateShownPlan(2, 0);
    QTRY_COMPARE_WITH_TIMEOUT(errors.count(), 1, 60000);
    QVERIFY2(errors.at(0).at(0).toString().contains(QStringLiteral("modelled devices")),
             qPrintable(errors.at(0).at(0).toString()));
    QCOMPARE(finished.count(), 0);
}

void TestPlanJobs::exportsBundleOfChosenPlan() {
    MainWindow window;
    QVERIFY(openSampleAndWait(window));
    window.setDatabasePath(m_dir.filePath(QStringLiteral("export.db")));
    QVERIFY(searchAndChoose(window, 0));
    auto* exportAction = window.findChild<QAction*>(QStringLiteral("exportAction"));
    QVERIFY(exportAction && exportAction->isEnabled());
    QSignalSpy finished(window.bundleExportJob(), &BundleExportJob::exportFinished);
    QSignalSpy failed(window.bundleExportJob(), &BundleExportJob::exportFailed);

    const QString folder = m_dir.filePath(QStringLiteral("bundle"));
    window.exportShownPlan(folder, 3);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count() + failed.count(), 1, 120000);
    QCOMPARE(failed.count(), 0);
    const auto outcome = finished.at(0).at(0).value<BundleExportOutcome>();
    QVERIFY(outcome.partitions >= 1);
    QVERIFY(!outcome.candidateIds.empty() && outcome.candidateIds.size() <= 3);
    QCOMPARE(outcome.candidateIds.front(), std::int64_t{0});
    const BundleFileMap files = readBundleFiles(folder.toStdString());
    const BundleVerification verified = verifyBundle(files, discoverDevices());
    QVERIFY2(verified.ok(), verified.failures().empty() ? "" : verified.failures().front().c_str());
    // The manifest names the exported plan and the model with its fingerprint.
    const nlohmann::json manifest = nlohmann::json::parse(files.at("manifest.json"));
    QCOMPARE(manifest.at("schema").get<std::string>(), std::string("paretune.bundle/1"));
    QCOMPARE(manifest.dump().find(window.currentModel()->graph.fingerprint) != std::string::npos,
             true);

    // A zip archive; then the same folder again, which is refused and left as it was.
    const QString zip = m_dir.filePath(QStringLiteral("bundle.zip"));
    window.exportShownPlan(zip, 2);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count() + failed.count(), 2, 120000);
    QCOMPARE(failed.count(), 0);
    QVERIFY(finished.at(1).at(0).value<BundleExportOutcome>().zip);
    QVERIFY(verifyBundle(readBundleFiles(zip.toStdString()), discoverDevices()).ok());
    window.exportShownPlan(folder, 3);
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 60000);
    QVERIFY2(failed.at(0).at(0).toString().contains(QStringLiteral("exists")),
             qPrintable(failed.at(0).at(0).toString()));
    QCOMPARE(readBundleFiles(folder.toStdString()), files);
}

QTEST_MAIN(TestPlanJobs)
#include "tst_planjobs.moc"
