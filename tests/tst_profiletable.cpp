// SPDX-License-Identifier: GPL-3.0-or-later
// The per-layer profile of a chosen plan in the node table: figures from the search's cost
// table with their source, share of device time, per-device latency columns; sorting and
// filtering through a proxy; a well-behaved item model while plans change.
#include "nodetablemodel.h"
#include "planschedule.h"
#include "search_fixture.h"

#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>
#include <QtTest>

#include <limits>
#include <set>

using namespace paretune;

class TestProfileTable : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void modelStaysConsistentAcrossPlans();
    void figuresComeFromTheCostTable();
    void shareSumsToOne();
    void sortsAndFilters();
    void placementNamesThePrecision();

private:
    std::shared_ptr<const SearchOutcome> m_outcome;
};

void TestProfileTable::initTestCase() {
    m_outcome = sampleSearchOutcome();
    QVERIFY(m_outcome->result.front.size() >= 2);
}

void TestProfileTable::modelStaysConsistentAcrossPlans() {
    NodeTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setModel(m_outcome->model);
    QCOMPARE(model.columnCount(), int(NodeTableModel::ColumnCount));
    auto first = std::make_shared<const PlanSchedule>(simulateFrontPlan(*m_outcome, 0));
    model.setPlan(m_outcome, first);
    QCOMPARE(model.columnCount(), NodeTableModel::ColumnCount + 3);
    QCOMPARE(model.headerData(NodeTableModel::ColumnCount + 1, Qt::Horizontal).toString(),
             QStringLiteral("Latency on gpu"));
    auto last = std::make_shared<const PlanSchedule>(
        simulateFrontPlan(*m_outcome, static_cast<int>(m_outcome->result.front.size()) - 1));
    model.setPlan(m_outcome, last);
    QCOMPARE(model.columnCount(), NodeTableModel::ColumnCount + 3);
    model.setPlan(nullptr, nullptr);
    QCOMPARE(model.columnCount(), int(NodeTableModel::ColumnCount));
    QVERIFY(!model.data(model.index(0, NodeTableModel::PlanLatency)).isValid());
    // A measured column after the per-device ones, kept while plans come and go.
    std::vector<double> measured(m_outcome->model->graph.nodes.size(),
                                 std::numeric_limits<double>::quiet_NaN());
    measured[0] = 12.5;
    model.setMeasurements(QStringLiteral("cpu"), measured);
    QCOMPARE(model.measuredColumn(), int(NodeTableModel::ColumnCount));
    model.setPlan(m_outcome, first);
    QCOMPARE(model.measuredColumn(), NodeTableModel::ColumnCount + 3);
    QCOMPARE(
        model.data(model.index(0, model.measuredColumn()), NodeTableModel::SortRole).toDouble(),
        12.5);
    QCOMPARE(model.headerData(model.measuredColumn(), Qt::Horizontal).toString(),
             QStringLiteral("Measured on cpu"));
    model.setPlan(nullptr, nullptr);
    QCOMPARE(model.measuredColumn(), int(NodeTableModel::ColumnCount));
    model.setMeasurements(QStringLiteral("cpu"), {});
    QCOMPARE(model.measuredColumn(), -1);
    model.setMeasurements(QStringLiteral("cpu"), {1.0}); // not one per node: refused
    QCOMPARE(model.measuredColumn(), -1);
    model.setMeasurements(QStringLiteral("cpu"), measured);
    model.setPlan(m_outcome, first);
    model.setModel(nullptr);
    QCOMPARE(model.columnCount(), int(NodeTableModel::ColumnCount));
    QCOMPARE(model.measuredColumn(), -1);
    // A plan of another model is refused.
    model.setModel(std::make_shared<const ImportResult>(importOnnxFile(PARETUNE_SAMPLE_MODEL)));
    model.setPlan(m_outcome, first);
    QCOMPARE(model.columnCount(), int(NodeTableModel::ColumnCount));
}

void TestProfileTable::figuresComeFromTheCostTable() {
    NodeTableModel model;
    model.setModel(m_outcome->model);
    auto schedule = std::make_shared<const PlanSchedule>(simulateFrontPlan(*m_outcome, 0));
    model.setPlan(m_outcome, schedule);
    const Graph& g = m_outcome->model->graph;
    int checked = 0;
    for (int row = 0; row < model.rowCount(); ++row) {
        const auto n = static_cast<std::size_t>(row);
        const QModelIndex latency = model.index(row, NodeTableModel::PlanLatency);
        if (g.nodes[n].kind != NodeKind::Compute) {
            QVERIFY(!model.data(latency).isValid());
            continue;
        }
        const std::int32_t d = schedule->plan.device[n];
        const CostCell& cell = m_outcome->costs.cell(static_cast<NodeId>(row), d);
        QCOMPARE(model.data(latency, NodeTableModel::SortRole).toDouble(), cell.latencyUs);
        QCOMPARE(model.data(latency, NodeTableModel::SourceRole).toString(),
                 QStringLiteral("modelled"));
        QVERIFY(model.data(latency).toString().endsWith(QStringLiteral("modelled")));
        QCOMPARE(model.data(model.index(row, NodeTableModel::PlanEnergy), NodeTableModel::SortRole)
                     .toDouble(),
                 cell.energyUj);
        QCOMPARE(model.data(model.index(row, NodeTableModel::PlanMemory), NodeTableModel::SortRole)
                     .toDouble(),
                 static_cast<double>(g.metrics[n].bytesWritten + cell.workspaceBytes));
        QCOMPARE(model.data(model.index(row, NodeTableModel::Device)).toString(),
                 QString::fromStdString(m_outcome->deviceIds[static_cast<std::size_t>(d)]));
        for (std::int32_t other = 0; other < m_outcome->costs.deviceCount(); ++other) {
            const CostCell& c = m_outcome->costs.cell(static_cast<NodeId>(row), other);
            const QModelIndex i = model.index(row, NodeTableModel::ColumnCount + other);
            if (c.supported()) {
                QCOMPARE(model.data(i, NodeTableModel::SortRole).toDouble(), c.latencyUs);
            } else {
                QCOMPARE(model.data(i).toString(), QStringLiteral("unsupported"));
                QVERIFY(!model.data(i, NodeTableModel::SourceRole).isValid());
            }
        }
        ++checked;
    }
    QVERIFY(checked > 0);
}

void TestProfileTable::shareSumsToOne() {
    NodeTableModel model;
    model.setModel(m_outcome->model);
    model.setPlan(m_outcome,
                  std::make_shared<const PlanSchedule>(simulateFrontPlan(*m_outcome, 0)));
    double sum = 0.0;
    for (int row = 0; row < model.rowCount(); ++row) {
        sum += model.data(model.index(row, NodeTableModel::PlanShare), NodeTableModel::SortRole)
                   .toDouble();
    }
    QVERIFY(qAbs(sum - 1.0) < 1e-9);
}

void TestProfileTable::sortsAndFilters() {
    NodeTableModel model;
    model.setModel(m_outcome->model);
    model.setPlan(m_outcome,
                  std::make_shared<const PlanSchedule>(simulateFrontPlan(*m_outcome, 0)));
    QSortFilterProxyModel proxy;
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    proxy.setSourceModel(&model);
    proxy.setSortRole(NodeTableModel::SortRole);
    proxy.setFilterKeyColumn(-1);
    proxy.sort(NodeTableModel::PlanLatency, Qt::DescendingOrder);
    double largest = 0.0;
    for (int row = 0; row < model.rowCount(); ++row) {
        const QVariant v =
            model.data(model.index(row, NodeTableModel::PlanLatency), NodeTableModel::SortRole);
        largest = std::max(largest, v.isValid() ? v.toDouble() : 0.0);
    }
    QCOMPARE(proxy.data(proxy.index(0, NodeTableModel::PlanLatency), NodeTableModel::SortRole)
                 .toDouble(),
             largest);
    proxy.setFilterFixedString(QStringLiteral("Conv"));
    QVERIFY(proxy.rowCount() > 0);
    QVERIFY(proxy.rowCount() < model.rowCount());
    for (int row = 0; row < proxy.rowCount(); ++row) {
        bool found = false;
        for (int c = 0; c < proxy.columnCount(); ++c) {
            found = found || proxy.data(proxy.index(row, c))
                                 .toString()
                                 .contains(QStringLiteral("Conv"), Qt::CaseInsensitive);
        }
        QVERIFY(found);
    }
}

void TestProfileTable::placementNamesThePrecision() {
    // A node the plan lowers reads "cpu · bf16" in the device column; an fp32 one its device.
    const auto outcome = sampleLoweredOutcome();
    auto schedule = std::make_shared<const PlanSchedule>(simulateFrontPlan(*outcome, 0));
    NodeTableModel model;
    model.setModel(outcome->model);
    model.setPlan(outcome, schedule);
    std::set<QString> shown;
    for (int n = 0; n < model.rowCount(); ++n) {
        const auto i = static_cast<std::size_t>(n);
        const std::int32_t d = schedule->plan.device[i];
        const QString text = model.data(model.index(n, NodeTableModel::Device)).toString();
        if (d < 0) {
            QVERIFY(text.isEmpty());
            continue;
        }
        const QString device =
            QString::fromStdString(outcome->deviceIds[static_cast<std::size_t>(d)]);
        const std::int32_t v = schedule->plan.variant[i];
        QCOMPARE(text, v == 0 ? device
                              : device + QStringLiteral(" · ") +
                                    QString::fromStdString(
                                        std::string(variantName(outcome->costs.variant(v)))));
        shown.insert(text);
    }
    QVERIFY(shown.count(QStringLiteral("cpu · bf16")));
    QVERIFY(shown.count(QStringLiteral("cpu · int8")));
    QVERIFY(shown.count(QStringLiteral("cpu")));
}

QTEST_MAIN(TestProfileTable)
#include "tst_profiletable.moc"
