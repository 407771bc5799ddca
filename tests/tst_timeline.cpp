// SPDX-License-Identifier: GPL-3.0-or-later
// The timeline: the time <-> pixel mapping (numerically), a plan's schedule as lanes and bars,
// zoom and pan, hover text and clicks on bars.
#include "axismapping.h"
#include "common/input_error.h"
#include "graphpalette.h"
#include "planjobs.h"
#include "planschedule.h"
#include "search_fixture.h"
#include "timelineview.h"

#include <QSignalSpy>
#include <QtTest>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

using namespace paretune;

class TestTimeline : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void mapping_data();
    void mapping();
    void zoomKeepsAnchor();
    void panMovesWindow();
    void clampKeepsWindowInside();
    void planeMappingInvertedY();
    void scheduleMatchesFront();
    void lanesAndBars();
    void clickSelectsNode();
    void hoverShowsNodeAndTimes();
    void wheelZoomsAroundCursor();
    void differingNodes();
    void measuredLanesKeepTheDeviceColour();
    void barsNameTheirPrecision();
};

void TestTimeline::mapping_data() {
    QTest::addColumn<double>("valueLo");
    QTest::addColumn<double>("valueHi");
    QTest::addColumn<double>("pixelLo");
    QTest::addColumn<double>("pixelHi");
    QTest::addColumn<double>("value");
    QTest::addColumn<double>("pixel");
    QTest::newRow("left edge") << 0.0 << 1000.0 << 120.0 << 620.0 << 0.0 << 120.0;
    QTest::newRow("right edge") << 0.0 << 1000.0 << 120.0 << 620.0 << 1000.0 << 620.0;
    QTest::newRow("middle") << 0.0 << 1000.0 << 120.0 << 620.0 << 500.0 << 370.0;
    QTest::newRow("offset window") << 250.0 << 750.0 << 0.0 << 100.0 << 300.0 << 10.0;
    QTest::newRow("outside") << 0.0 << 10.0 << 0.0 << 100.0 << 15.0 << 150.0;
    QTest::newRow("inverted pixels") << 0.0 << 4.0 << 300.0 << 100.0 << 1.0 << 250.0;
}

void TestTimeline::mapping() {
    QFETCH(double, valueLo);
    QFETCH(double, valueHi);
    QFETCH(double, pixelLo);
    QFETCH(double, pixelHi);
    QFETCH(double, value);
    QFETCH(double, pixel);
    const AxisMapping m(valueLo, valueHi, pixelLo, pixelHi);
    QCOMPARE(m.toPixel(value), pixel);
    QCOMPARE(m.toValue(pixel), value);
}

void TestTimeline::zoomKeepsAnchor() {
    AxisMapping m(0.0, 1000.0, 100.0, 600.0);
    const double anchor = 200.0; // value 200
    m.zoom(2.0, anchor);
    QCOMPARE(m.valueSpan(), 500.0);
    QCOMPARE(m.toValue(anchor), 200.0);
    QCOMPARE(m.valueLo(), 100.0);
    QCOMPARE(m.valueHi(), 600.0);
    m.zoom(0.5, anchor); // back out
    QCOMPARE(m.valueLo(), 0.0);
    QCOMPARE(m.valueHi(), 1000.0);
}

void TestTimeline::panMovesWindow() {
    AxisMapping m(0.0, 1000.0, 100.0, 600.0);
    m.pan(-50.0); // drag left by 50 px = 100 µs later
    QCOMPARE(m.valueLo(), 100.0);
    QCOMPARE(m.valueHi(), 1100.0);
    m.pan(100.0);
    QCOMPARE(m.valueLo(), -100.0);
}

void TestTimeline::clampKeepsWindowInside() {
    AxisMapping m(-100.0, 400.0, 0.0, 100.0);
    m.clampTo(0.0, 1000.0, 1.0);
    QCOMPARE(m.valueLo(), 0.0);
    QCOMPARE(m.valueHi(), 500.0);
    m.setValueRange(900.0, 1400.0);
    m.clampTo(0.0, 1000.0, 1.0);
    QCOMPARE(m.valueLo(), 500.0);
    QCOMPARE(m.valueHi(), 1000.0);
    m.setValueRange(-10.0, 5000.0); // wider than allowed
    m.clampTo(0.0, 1000.0, 1.0);
    QCOMPARE(m.valueLo(), 0.0);
    QCOMPARE(m.valueHi(), 1000.0);
    m.setValueRange(10.0, 10.5); // narrower than the minimum span
    m.clampTo(0.0, 1000.0, 2.0);
    QCOMPARE(m.valueSpan(), 2.0);
    QCOMPARE(m.valueLo(), 9.25);
}

void TestTimeline::planeMappingInvertedY() {
    const PlaneMapping m{AxisMapping(0.0, 10.0, 50.0, 450.0), AxisMapping(0.0, 2.0, 300.0, 20.0)};
    QCOMPARE(m.toPixel(QPointF(5.0, 0.5)), QPointF(250.0, 230.0));
    QCOMPARE(m.toValues(QPointF(450.0, 20.0)), QPointF(10.0, 2.0));
}

void TestTimeline::scheduleMatchesFront() {
    const auto outcome = sampleSearchOutcome();
    QVERIFY(!outcome->result.front.empty());
    for (int i = 0; i < static_cast<int>(outcome->result.front.size()); ++i) {
        const PlanSchedule s = simulateFrontPlan(*outcome, i);
        const Objectives& expected = outcome->result.front[static_cast<std::size_t>(i)].objectives;
        QCOMPARE(s.simulation.objectives.latencyUs, expected.latencyUs);
        QCOMPARE(s.simulation.objectives.energyMj, expected.energyMj);
        QVERIFY(!s.simulation.timeline.empty());
    }
    QVERIFY_THROWS_EXCEPTION(InputError, simulateFrontPlan(*outcome, -1));
    QVERIFY_THROWS_EXCEPTION(
        InputError, simulateFrontPlan(*outcome, static_cast<int>(outcome->result.front.size())));
}

void TestTimeline::lanesAndBars() {
    const auto outcome = sampleSearchOutcome();
    const PlanSchedule s = simulateFrontPlan(*outcome, 0);
    const TimelineData data = timelineData(outcome->model->graph, outcome->costs, s.simulation,
                                           QStringLiteral("simulated"));
    QVERIFY(data.lanes.size() >= 3);
    QCOMPARE(data.lanes[0].label, QStringLiteral("cpu (cpu)"));
    QVERIFY(!data.lanes[0].link);
    QCOMPARE(data.endUs, s.simulation.objectives.latencyUs);
    // One device bar per compute node, on the lane of the plan's device.
    std::set<int> nodes;
    for (const TimelineData::Bar& b : data.bars) {
        QVERIFY(b.endUs >= b.beginUs);
        QVERIFY(b.endUs <= data.endUs + 1e-9);
        if (b.node >= 0) {
            QVERIFY(nodes.insert(b.node).second);
            QCOMPARE(b.lane, s.plan.device[static_cast<std::size_t>(b.node)]);
            // A fusion group the plan takes is one bar, its last member's, named after the group.
            if (!b.label.endsWith(QStringLiteral("+fused"))) {
                QCOMPARE(b.label,
                         QString::fromStdString(
                             outcome->model->graph.nodes[static_cast<std::size_t>(b.node)].name));
            } else {
                QVERIFY(b.kind.contains(QLatin1Char('+')));
            }
        } else {
            QVERIFY(data.lanes[static_cast<std::size_t>(b.lane)].link);
        }
    }
    int compute = 0;
    for (const Node& n : outcome->model->graph.nodes) {
        compute += n.kind == NodeKind::Compute ? 1 : 0;
    }
    std::size_t hidden = 0; // the members of taken groups but the last
    for (const std::int32_t k : s.simulation.fusedGroups) {
        hidden +=
            outcome->costs.fusionOptions()[static_cast<std::size_t>(k)].group.members.size() - 1;
    }
    QCOMPARE(static_cast<int>(nodes.size() + hidden), compute);
}

namespace {

TimelineData twoBars() {
    TimelineData data;
    data.lanes = {{QStringLiteral("cpu (cpu)"), false}, {QStringLiteral("cpu->gpu"), true}};
    data.bars = {
        {0, 0.0, 600.0, 7, QStringLiteral("conv1"), QStringLiteral("Conv"), QString()},
        {1, 600.0, 1000.0, -1, QStringLiteral("x"), QStringLiteral("transfer"), QString()}};
    data.endUs = 1000.0;
    data.source = QStringLiteral("simulated");
    return data;
}

} // namespace

void TestTimeline::clickSelectsNode() {
    TimelineView view;
    view.resize(TimelineView::kLabelWidth + 508, 200); // 500 px of time axis
    view.setData(twoBars());
    QCOMPARE(view.timeAxis().toPixel(600.0), TimelineView::kLabelWidth + 300.0);
    const QRectF conv = view.barRect(0);
    QCOMPARE(conv.left(), double(TimelineView::kLabelWidth));
    QCOMPARE(conv.right(), TimelineView::kLabelWidth + 300.0);
    QSignalSpy clicked(&view, &TimelineView::nodeClicked);
    QTest::mouseClick(&view, Qt::LeftButton, {}, conv.center().toPoint());
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.at(0).at(0).toInt(), 7);
    QCOMPARE(view.selectedNode(), 7);
    // A transfer bar selects no node; neither does the label column.
    QTest::mouseClick(&view, Qt::LeftButton, {}, view.barRect(1).center().toPoint());
    QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(10, int(conv.center().y())));
    QCOMPARE(clicked.count(), 1);
}

void TestTimeline::hoverShowsNodeAndTimes() {
    TimelineView view;
    view.resize(TimelineView::kLabelWidth + 508, 200);
    view.setData(twoBars());
    const QString tip = view.toolTipAt(view.barRect(0).center().toPoint());
    QVERIFY2(tip.contains(QStringLiteral("conv1")), qPrintable(tip));
    QVERIFY(tip.contains(QStringLiteral("Conv")));
    QVERIFY(tip.contains(paretune::formatMicroseconds(600.0)));
    QVERIFY(tip.contains(QStringLiteral("simulated")));
    QVERIFY(view.toolTipAt(QPoint(5, 5)).isEmpty());
}

void TestTimeline::wheelZoomsAroundCursor() {
    TimelineView view;
    view.resize(TimelineView::kLabelWidth + 508, 200);
    view.setData(twoBars());
    const QPointF at(TimelineView::kLabelWidth + 100.0, 40.0); // 200 µs
    QWheelEvent wheel(at, view.mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(&view, &wheel);
    QCOMPARE(view.timeAxis().valueSpan(), 800.0);
    QCOMPARE(view.timeAxis().toValue(at.x()), 200.0);
    // Dragging left shows later times; it never leaves the schedule.
    QTest::mousePress(&view, Qt::LeftButton, {}, QPoint(400, 40));
    QTest::mouseMove(&view, QPoint(300, 40));
    QTest::mouseMove(&view, QPoint(100, 40));
    QTest::mouseRelease(&view, Qt::LeftButton, {}, QPoint(100, 40));
    QCOMPARE(view.timeAxis().valueHi(), 1000.0);
    QCOMPARE(view.timeAxis().valueLo(), 200.0);
    view.fit();
    QCOMPARE(view.timeAxis().valueLo(), 0.0);
}

void TestTimeline::differingNodes() {
    const auto outcome = sampleSearchOutcome();
    QCOMPARE(nodesOnDifferentDevices(*outcome, 0, 0).size(), std::size_t(0));
    const int last = static_cast<int>(outcome->result.front.size()) - 1;
    const std::vector<NodeId> diff = nodesOnDifferentDevices(*outcome, 0, last);
    const PlanSchedule a = simulateFrontPlan(*outcome, 0);
    const PlanSchedule b = simulateFrontPlan(*outcome, last);
    std::vector<NodeId> expected;
    for (std::size_t n = 0; n < a.plan.device.size(); ++n) {
        if (outcome->model->graph.nodes[n].kind == NodeKind::Compute &&
            a.plan.device[n] != b.plan.device[n]) {
            expected.push_back(static_cast<NodeId>(n));
        }
    }
    QCOMPARE(diff, expected);
}

void TestTimeline::measuredLanesKeepTheDeviceColour() {
    // A plan over two devices, validated: each device's measured lane takes the colour (and the
    // name) of its simulated lane, and the legend names each device once.
    const auto outcome = sampleSearchOutcome();
    int plan = -1;
    PlanSchedule s;
    for (int i = 0; i < static_cast<int>(outcome->result.front.size()) && plan < 0; ++i) {
        s = simulateFrontPlan(*outcome, i);
        const std::set<std::int32_t> used(s.plan.device.begin(), s.plan.device.end());
        if (used.size() >= 2) {
            plan = i;
        }
    }
    QVERIFY2(plan >= 0, "no front plan uses two devices");
    const TimelineData simulated = timelineData(outcome->model->graph, outcome->costs, s.simulation,
                                                QStringLiteral("simulated"));
    ValidationOutcome validation;
    validation.search = outcome;
    validation.planIndex = plan;
    // The validation lists its devices in its own order, not the cost table's.
    std::vector<std::int32_t> order(s.plan.device.begin(), s.plan.device.end());
    std::sort(order.begin(), order.end(), std::greater<>());
    order.erase(std::unique(order.begin(), order.end()), order.end());
    for (const std::int32_t d : order) {
        ValidatedDevice device;
        device.id = outcome->costs.device(d).id;
        validation.report.devices.push_back(device);
    }
    for (const TimelineData::Bar& b : simulated.bars) {
        if (b.node < 0) {
            continue;
        }
        ValidatedNode n;
        n.node = b.node;
        n.device = static_cast<std::int32_t>(std::find(order.begin(), order.end(), b.lane) -
                                             order.begin());
        n.measuredBeginUs = b.beginUs;
        n.measuredEndUs = b.endUs * 1.1;
        validation.report.nodes.push_back(n);
    }
    const TimelineData data = withMeasuredLanes(simulated, *outcome->model, validation);
    QCOMPARE(data.lanes.size(), simulated.lanes.size() + order.size());
    int measured = 0;
    for (int lane = 0; lane < static_cast<int>(data.lanes.size()); ++lane) {
        const TimelineData::Lane& l = data.lanes[static_cast<std::size_t>(lane)];
        if (!l.measured) {
            continue;
        }
        ++measured;
        int twin = -1;
        for (int other = 0; other < static_cast<int>(simulated.lanes.size()); ++other) {
            if (data.lanes[static_cast<std::size_t>(other)].deviceId == l.deviceId) {
                twin = other;
            }
        }
        QVERIFY2(twin >= 0, qPrintable(l.deviceId));
        QCOMPARE(laneColour(data, lane), laneColour(data, twin));
        QCOMPARE(l.label, data.lanes[static_cast<std::size_t>(twin)].label);
    }
    QCOMPARE(measured, static_cast<int>(order.size()));
    // Different devices, different colours; one legend entry per device (and one for links).
    std::set<QRgb> colours;
    std::set<QString> devices;
    for (int lane = 0; lane < static_cast<int>(data.lanes.size()); ++lane) {
        const TimelineData::Lane& l = data.lanes[static_cast<std::size_t>(lane)];
        if (!l.link && devices.insert(l.deviceId).second) {
            QVERIFY(colours.insert(laneColour(data, lane).rgb()).second);
        }
    }
    const auto legend = timelineLegend(data);
    bool links = false;
    for (const TimelineData::Lane& l : data.lanes) {
        links = links || l.link;
    }
    QCOMPARE(legend.size(), devices.size() + (links ? 1 : 0));
    for (const auto& [name, colour] : legend) {
        QVERIFY2(devices.count(name) || (links && name == QStringLiteral("transfer")),
                 qPrintable(name));
    }

    // Drawn: the lanes, their tags and the legend fit the widget's minimum height.
    TimelineView view;
    view.setData(data);
    view.resize(900, view.minimumHeight());
    QVERIFY(view.minimumHeight() >=
            TimelineView::kRulerHeight +
                static_cast<int>(data.lanes.size()) * TimelineView::kLaneHeight +
                TimelineView::kLegendHeight);
    QVERIFY(!view.grab().isNull());
}

void TestTimeline::barsNameTheirPrecision() {
    // A plan with nodes in bf16 and int8: every node's bar names the precision it runs in, and
    // so does its hover text, beside the device ("cpu (cpu) · bf16").
    const auto outcome = sampleLoweredOutcome();
    const PlanSchedule s = simulateFrontPlan(*outcome, 0);
    const TimelineData data = timelineData(outcome->model->graph, outcome->costs, s.simulation,
                                           QStringLiteral("simulated"), s.plan.variant);
    std::map<QString, int> widest; // precision -> its widest bar
    for (int i = 0; i < static_cast<int>(data.bars.size()); ++i) {
        const TimelineData::Bar& b = data.bars[static_cast<std::size_t>(i)];
        if (b.node < 0) {
            QVERIFY(b.precision.isEmpty());
            continue;
        }
        const std::int32_t v = s.plan.variant[static_cast<std::size_t>(b.node)];
        QCOMPARE(b.precision,
                 QString::fromStdString(std::string(variantName(outcome->costs.variant(v)))));
        const auto w = widest.find(b.precision);
        if (w == widest.end() ||
            b.endUs - b.beginUs > data.bars[static_cast<std::size_t>(w->second)].endUs -
                                      data.bars[static_cast<std::size_t>(w->second)].beginUs) {
            widest[b.precision] = i;
        }
    }
    for (const char* p : {"fp32", "bf16", "int8"}) {
        QVERIFY2(widest.count(QLatin1String(p)), p);
    }
    TimelineView view;
    view.resize(TimelineView::kLabelWidth + 4008, 200);
    view.setData(data);
    for (const auto& [precision, bar] : widest) {
        const TimelineData::Bar& b = data.bars[static_cast<std::size_t>(bar)];
        const QString tip = view.toolTipAt(view.barRect(bar).center().toPoint());
        QVERIFY2(tip.contains(b.label.toHtmlEscaped()), qPrintable(tip));
        QVERIFY2(tip.contains(data.lanes[static_cast<std::size_t>(b.lane)].label +
                              QStringLiteral(" · ") + precision),
                 qPrintable(tip));
    }
    // Its measured bars, after validation, name the precision each node ran in.
    ValidationOutcome validation;
    validation.search = outcome;
    validation.planIndex = 0;
    ValidatedDevice host;
    host.id = outcome->costs.device(outcome->costs.host()).id;
    validation.report.devices.push_back(host);
    for (const TimelineData::Bar& b : data.bars) {
        if (b.node >= 0) {
            ValidatedNode n;
            n.node = b.node;
            n.variant = outcome->costs.variant(s.plan.variant[static_cast<std::size_t>(b.node)]);
            n.measuredBeginUs = b.beginUs;
            n.measuredEndUs = b.endUs;
            validation.report.nodes.push_back(n);
        }
    }
    const TimelineData measured = withMeasuredLanes(data, *outcome->model, validation);
    int checked = 0;
    for (std::size_t i = data.bars.size(); i < measured.bars.size(); ++i) {
        const TimelineData::Bar& b = measured.bars[i];
        const std::int32_t v = s.plan.variant[static_cast<std::size_t>(b.node)];
        QCOMPARE(b.precision,
                 QString::fromStdString(std::string(variantName(outcome->costs.variant(v)))));
        ++checked;
    }
    QVERIFY(checked > 0);
    // Where the search offered fp32 alone, nothing is added.
    const auto plain = sampleSearchOutcome();
    const PlanSchedule p = simulateFrontPlan(*plain, 0);
    const TimelineData fp32 = timelineData(plain->model->graph, plain->costs, p.simulation,
                                           QStringLiteral("simulated"), p.plan.variant);
    for (const TimelineData::Bar& b : fp32.bars) {
        QVERIFY(b.precision.isEmpty());
    }
    view.setData(fp32);
    QVERIFY(!view.toolTipAt(view.barRect(0).center().toPoint()).contains(QStringLiteral(" · ")));
}

QTEST_MAIN(TestTimeline)
#include "tst_timeline.moc"
