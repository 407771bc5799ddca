// SPDX-License-Identifier: GPL-3.0-or-later
// The memory view: where a tensor's block is drawn (steps across, offsets up, numerically),
// hover text and clicks, and a front plan's memory plan shown in it.
#include "memoryview.h"
#include "plan/memory_plan.h"
#include "planschedule.h"
#include "search_fixture.h"

#include <QSignalSpy>
#include <QtTest>

using namespace paretune;

namespace {

/// One device, four steps, an arena of 1000 bytes: a (0-600, steps 0-1), b (600-1000, steps
/// 1-2), c in place of a (0-600, steps 2-3), a workspace of node 7 (600-800, step 3).
MemoryViewData handData() {
    MemoryViewData data;
    MemoryViewData::Device d;
    d.id = QStringLiteral("cpu:0");
    d.steps = 4;
    d.arenaBytes = 1000;
    d.naiveBytes = 1800;
    d.livePeakBytes = 1000;
    d.weightsBytes = 2048;
    d.workspaceBytes = 200;
    d.inPlace = 1;
    d.blocks = {
        {0, 1, 0, 600, QStringLiteral("a"), QStringLiteral("activation"), false, 1},
        {1, 2, 600, 400, QStringLiteral("b"), QStringLiteral("activation"), false, 2},
        {2, 3, 0, 600, QStringLiteral("c"), QStringLiteral("activation"), true, 3},
        {3, 3, 600, 200, QStringLiteral("workspace of n7"), QStringLiteral("workspace"), false, 7}};
    data.devices.push_back(d);
    return data;
}

} // namespace

class TestMemoryView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void blocksAreWhereTheyLive();
    void hoverAndClick();
    void emptyViewSaysWhy();
    void frontPlanIsShown();
};

void TestMemoryView::blocksAreWhereTheyLive() {
    MemoryView view;
    view.resize(MemoryView::kAxisWidth + 400 + MemoryView::kMargin, 300);
    view.setData(handData());
    const QRectF plot = view.plotRect(0);
    QCOMPARE(plot.left(), double(MemoryView::kAxisWidth));
    QCOMPARE(plot.width(), 400.0);
    QCOMPARE(plot.top(), double(MemoryView::kMargin + MemoryView::kHeadingHeight));
    QCOMPARE(plot.height(), double(MemoryView::kBandHeight));
    // 100 px per step, 0.15 px per byte, offset 0 at the bottom.
    const QRectF b = view.blockRect(0, 1);
    QCOMPARE(b.left(), plot.left() + 100.0);
    QCOMPARE(b.right(), plot.left() + 300.0);
    QCOMPARE(b.bottom(), plot.bottom() - 600 * 0.15);
    QCOMPARE(b.top(), plot.bottom() - 1000 * 0.15);
    const QRectF c = view.blockRect(0, 2);
    QCOMPARE(c.left(), plot.left() + 200.0);
    QCOMPARE(c.right(), plot.right());
    QCOMPARE(c.bottom(), plot.bottom());
    QVERIFY(view.blockRect(0, 9).isNull());
    QVERIFY(view.blockRect(3, 0).isNull());
    QVERIFY(MemoryView::headingOf(view.data().devices[0]).contains(QStringLiteral("1 written")));
    QVERIFY(!view.grab().isNull());
}

void TestMemoryView::hoverAndClick() {
    MemoryView view;
    view.resize(MemoryView::kAxisWidth + 400 + MemoryView::kMargin, 300);
    view.setData(handData());
    const QPoint inC = view.blockRect(0, 2).center().toPoint();
    QCOMPARE(view.blockAt(inC), std::make_pair(0, 2));
    QVERIFY(view.toolTipAt(inC).contains(QStringLiteral("in place")));
    QVERIFY(view.toolTipAt(inC).contains(QStringLiteral("steps 2 to 3")));
    QCOMPARE(view.blockAt(QPoint(2, 2)), std::make_pair(-1, -1));
    QVERIFY(view.toolTipAt(QPoint(2, 2)).isEmpty());
    QSignalSpy clicked(&view, &MemoryView::nodeClicked);
    QTest::mouseClick(&view, Qt::LeftButton, {}, view.blockRect(0, 3).center().toPoint());
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.at(0).at(0).toInt(), 7);
}

void TestMemoryView::emptyViewSaysWhy() {
    MemoryView view;
    view.resize(400, 200);
    QVERIFY(view.data().devices.empty());
    QCOMPARE(view.blockAt(QPoint(100, 100)), std::make_pair(-1, -1));
    QVERIFY(!view.grab().isNull());
}

void TestMemoryView::frontPlanIsShown() {
    const auto outcome = sampleSearchOutcome(5);
    QVERIFY(!outcome->result.front.empty());
    const PlanSchedule schedule = simulateFrontPlan(*outcome, 0);
    const MemoryViewData data =
        memoryViewData(outcome->model->graph, outcome->costs, schedule.memory);
    QVERIFY(!data.devices.empty());
    std::size_t blocks = 0;
    for (const MemoryViewData::Device& d : data.devices) {
        QVERIFY(d.arenaBytes > 0);
        QVERIFY(d.naiveBytes >= d.livePeakBytes);
        for (const MemoryViewData::Block& b : d.blocks) {
            QVERIFY(b.offset + b.bytes <= d.arenaBytes);
            QVERIFY(b.first <= b.last && b.last < d.steps);
            QVERIFY(!b.label.isEmpty());
        }
        blocks += d.blocks.size();
    }
    QVERIFY(blocks > 0);
    MemoryView view;
    view.resize(700, 600);
    view.setData(data);
    QVERIFY(view.sizeHint().height() >=
            static_cast<int>(data.devices.size()) * MemoryView::kBandHeight);
    QVERIFY(!view.grab().isNull());
}

QTEST_MAIN(TestMemoryView)
#include "tst_memoryview.moc"
