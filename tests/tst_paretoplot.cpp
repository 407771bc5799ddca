// SPDX-License-Identifier: GPL-3.0-or-later
// The Pareto dock: objective <-> pixel mapping against QCustomPlot's own, clicks on points
// (real mouse events at the mapped pixels), comparison of two plans, the colour objective,
// baselines, hover text and the hypervolume curve; after a tune, measured points beside the
// simulated ones (their placement along the latency axis computed without drawing, then drawn
// with p10–p90 error bars, in the legend and the tooltips, a contradicted claim marked).
#include "labelplacement.h"
#include "paretoplot.h"
#include "planschedule.h"
#include "search_fixture.h"

#include <QSignalSpy>
#include <QtTest>

#include "qcustomplot_fenced.h"

using namespace paretune;

class TestParetoPlot : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void mappingMatchesQCustomPlot();
    void clickSelectsPlan();
    void ctrlClickCompares();
    void colourIsTheThirdObjective();
    void baselinesDrawnAndLabelled();
    void hoverShowsAllObjectives();
    void hypervolumeCurve();
    void searchReportsEachGenerationsHypervolume();
    void measuredMarksFollowTheLatencyAxis_data();
    void measuredMarksFollowTheLatencyAxis();
    void measuredPointsDrawnWithErrorBars();
    void legendOutsideTheData();
    void baselineLabelsNeitherOverlapNorClip();
    void labelPlacement_data();
    void labelPlacement();
    void emptyPlotSaysNoPlansYet();

private:
    /// A front plan that is the only one at its pixel (so a click there is unambiguous).
    int distinctPlan(const ParetoPlot& plot, int skip = -1) const;
    std::shared_ptr<const SearchOutcome> m_outcome;
};

void TestParetoPlot::initTestCase() {
    m_outcome = sampleSearchOutcome();
    QVERIFY(m_outcome->result.front.size() >= 3);
}

int TestParetoPlot::distinctPlan(const ParetoPlot& plot, int skip) const {
    for (int i = static_cast<int>(m_outcome->result.front.size()) - 1; i >= 0; --i) {
        if (i != skip && plot.planAt(plot.pointPixel(i), 0.5) == i) {
            return i;
        }
    }
    return -1;
}

void TestParetoPlot::mappingMatchesQCustomPlot() {
    ParetoPlot plot;
    plot.resize(700, 600);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setOutcome(m_outcome);
    QCOMPARE(plot.pointCount(), static_cast<int>(m_outcome->result.front.size()));
    const PlaneMapping m = plot.mapping();
    for (int i = 0; i < plot.pointCount(); ++i) {
        const Objectives& o = m_outcome->result.front[static_cast<std::size_t>(i)].objectives;
        const double x = displayValue(o, plot.xObjective());
        const double y = displayValue(o, plot.yObjective());
        QVERIFY(qAbs(m.x.toPixel(x) - plot.plot()->xAxis->coordToPixel(x)) < 1e-6);
        QVERIFY(qAbs(m.y.toPixel(y) - plot.plot()->yAxis->coordToPixel(y)) < 1e-6);
        QVERIFY(qAbs(m.x.toValue(m.x.toPixel(x)) - x) < 1e-9 * std::max(1.0, x));
        // Points lie inside the axis rect (the axes were rescaled to the data with a margin).
        QVERIFY(plot.plot()->axisRect()->rect().contains(plot.pointPixel(i).toPoint()));
    }
}

void TestParetoPlot::clickSelectsPlan() {
    ParetoPlot plot;
    plot.resize(700, 600);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setOutcome(m_outcome);
    const int target = distinctPlan(plot);
    QVERIFY(target >= 0);
    QSignalSpy selected(&plot, &ParetoPlot::planSelected);
    QTest::mouseClick(plot.plot(), Qt::LeftButton, {}, plot.pointPixel(target).toPoint());
    QCOMPARE(selected.count(), 1);
    QCOMPARE(selected.at(0).at(0).toInt(), target);
    QCOMPARE(plot.selectedPlan(), target);
    // A click on empty space selects nothing.
    const QRect r = plot.plot()->axisRect()->rect();
    QPoint empty = r.topLeft() + QPoint(2, 2);
    if (plot.planAt(empty, 8.0) < 0) {
        QTest::mouseClick(plot.plot(), Qt::LeftButton, {}, empty);
        QCOMPARE(selected.count(), 1);
    }
}

void TestParetoPlot::ctrlClickCompares() {
    ParetoPlot plot;
    plot.resize(700, 600);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setOutcome(m_outcome);
    const int a = distinctPlan(plot);
    const int b = distinctPlan(plot, a);
    QVERIFY(a >= 0 && b >= 0);
    plot.selectPlan(a);
    QSignalSpy compared(&plot, &ParetoPlot::comparisonChanged);
    QTest::mouseClick(plot.plot(), Qt::LeftButton, Qt::ControlModifier,
                      plot.pointPixel(b).toPoint());
    QCOMPARE(compared.count(), 1);
    QCOMPARE(compared.at(0).at(0).toInt(), a);
    QCOMPARE(compared.at(0).at(1).toInt(), b);
    QCOMPARE(plot.selectedPlan(), a); // Ctrl+click keeps the selection
    const QString text = plot.comparisonText();
    const auto moved = nodesOnDifferentDevices(*m_outcome, a, b);
    QVERIFY2(text.contains(QStringLiteral("%1 node").arg(moved.size())), qPrintable(text));
    const Objectives& oa = m_outcome->result.front[static_cast<std::size_t>(a)].objectives;
    const Objectives& ob = m_outcome->result.front[static_cast<std::size_t>(b)].objectives;
    const double delta = (ob.latencyUs - oa.latencyUs) / 1000.0;
    QVERIFY2(text.contains(QStringLiteral("latency %1%2 ms")
                               .arg(delta >= 0 ? QStringLiteral("+") : QString())
                               .arg(delta, 0, 'g', 4)),
             qPrintable(text));
    if (!moved.empty()) {
        QVERIFY(text.contains(QString::fromStdString(
            m_outcome->model->graph.nodes[static_cast<std::size_t>(moved[0])].name)));
    }
    // A plain click ends the comparison.
    plot.selectPlan(b);
    QCOMPARE(plot.comparedPlan(), -1);
    QVERIFY(plot.comparisonText().isEmpty());
}

void TestParetoPlot::colourIsTheThirdObjective() {
    ParetoPlot plot;
    plot.setOutcome(m_outcome); // searched on latency, energy, memory
    plot.setAxes(Objective::Latency, Objective::Energy);
    QCOMPARE(plot.colourObjective(), Objective::PeakMemory);
    plot.setAxes(Objective::PeakMemory, Objective::Latency);
    QCOMPARE(plot.colourObjective(), Objective::Energy);
    plot.setAxes(Objective::Energy, Objective::PeakMemory);
    QCOMPARE(plot.colourObjective(), Objective::Latency);
    QCOMPARE(plot.pointCount(), static_cast<int>(m_outcome->result.front.size()));
}

void TestParetoPlot::baselinesDrawnAndLabelled() {
    ParetoPlot plot;
    plot.setOutcome(m_outcome);
    const auto& baselines = m_outcome->result.baselines;
    QVERIFY(!baselines.empty());
    QCOMPARE(plot.plot()->itemCount(), static_cast<int>(baselines.size()));
    QStringList labels;
    for (int i = 0; i < plot.plot()->itemCount(); ++i) {
        labels << qobject_cast<QCPItemText*>(plot.plot()->item(i))->text();
    }
    QVERIFY2(labels.join(QLatin1Char(' ')).contains(QStringLiteral("heft")),
             qPrintable(labels.join(QLatin1Char(' '))));
    QVERIFY(labels.join(QLatin1Char(' ')).contains(QStringLiteral("all:cpu")));
}

void TestParetoPlot::hoverShowsAllObjectives() {
    ParetoPlot plot;
    plot.resize(700, 600);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setOutcome(m_outcome);
    const int i = distinctPlan(plot);
    const QString tip = plot.toolTipAt(plot.pointPixel(i));
    for (const char* word : {"latency", "energy", "average power", "peak memory", "modelled"}) {
        QVERIFY2(tip.contains(QLatin1String(word)), qPrintable(tip));
    }
    const Objectives& o = m_outcome->result.front[static_cast<std::size_t>(i)].objectives;
    QVERIFY(tip.contains(QString::number(o.latencyUs / 1000.0, 'g', 5)));
    QVERIFY(plot.toolTipAt(QPointF(-100, -100)).isEmpty());
}

void TestParetoPlot::hypervolumeCurve() {
    ParetoPlot plot;
    plot.setOutcome(m_outcome);
    QCOMPARE(plot.hypervolumePointCount(),
             static_cast<int>(m_outcome->result.hypervolumeByGeneration.size()));
    plot.startHypervolume();
    QCOMPARE(plot.hypervolumePointCount(), 0);
    plot.addHypervolume(0.1);
    plot.addHypervolume(0.2);
    QCOMPARE(plot.hypervolumePointCount(), 2);
}

void TestParetoPlot::searchReportsEachGenerationsHypervolume() {
    // A real search of the workbench: every generation's hypervolume reaches the curve as a
    // number (no progress text parsed), in order, equal to the result's.
    QFile catalog(QStringLiteral(PARETUNE_SOURCE_DIR "/resources/catalogs/example.json"));
    QVERIFY(catalog.open(QIODevice::ReadOnly));
    PlacementSearch search;
    QSignalSpy reported(&search, &PlacementSearch::hypervolumeReported);
    QSignalSpy finished(&search, &PlacementSearch::searchFinished);
    SearchOptions options;
    options.population = 16;
    options.generations = 7;
    search.start(m_outcome->model, catalog.readAll(), QStringLiteral("example.json"),
                 {"cpu", "gpu", "npu"}, options);
    QVERIFY(finished.wait(120000));
    const auto outcome = finished.at(0).at(0).value<std::shared_ptr<const SearchOutcome>>();
    const std::vector<double>& curve = outcome->result.hypervolumeByGeneration;
    QCOMPARE(reported.count(), options.generations);
    QCOMPARE(static_cast<int>(curve.size()), options.generations + 1);
    for (int g = 0; g < options.generations; ++g) {
        QCOMPARE(reported.at(g).at(0).toDouble(), curve[static_cast<std::size_t>(g) + 1]);
    }
}

namespace {

/// A plan of `outcome` as if measured: median `factor` times its simulated latency, p10 and p90
/// 10 % either side.
MeasuredPoint measuredAs(const Solution& s, const QString& label, double factor) {
    MeasuredPoint p;
    p.label = label;
    p.genome = s.genome;
    p.simulated = s.objectives;
    p.medianUs = s.objectives.latencyUs * factor;
    p.p10Us = p.medianUs * 0.9;
    p.p90Us = p.medianUs * 1.1;
    p.runs = 20;
    p.error = (p.simulated.latencyUs - p.medianUs) / p.medianUs;
    return p;
}

} // namespace

void TestParetoPlot::measuredMarksFollowTheLatencyAxis_data() {
    QTest::addColumn<int>("x");
    QTest::addColumn<int>("y");
    QTest::addColumn<int>("axis");
    QTest::newRow("latency on X") << int(Objective::Latency) << int(Objective::Energy)
                                  << int(MeasuredAxis::X);
    QTest::newRow("latency on Y") << int(Objective::PeakMemory) << int(Objective::Latency)
                                  << int(MeasuredAxis::Y);
    QTest::newRow("no latency") << int(Objective::Energy) << int(Objective::PeakMemory)
                                << int(MeasuredAxis::None);
    QTest::newRow("latency and memory")
        << int(Objective::Latency) << int(Objective::PeakMemory) << int(MeasuredAxis::X);
}

void TestParetoPlot::measuredMarksFollowTheLatencyAxis() {
    QFETCH(int, x);
    QFETCH(int, y);
    QFETCH(int, axis);
    const auto ox = static_cast<Objective>(x);
    const auto oy = static_cast<Objective>(y);
    QCOMPARE(int(measuredAxis(ox, oy)), axis);
    Objectives a;
    a.latencyUs = 3000.0;
    a.energyMj = 5.0;
    a.peakMemoryBytes = 2.0 * 1024 * 1024;
    Objectives b = a;
    b.latencyUs = 1000.0;
    b.energyMj = 9.0;
    std::vector<MeasuredPoint> points(2);
    points[0].simulated = a;
    points[0].medianUs = 2500.0; // measured faster than predicted
    points[0].p10Us = 2400.0;
    points[0].p90Us = 2800.0;
    points[1].simulated = b;
    points[1].medianUs = 1200.0;
    points[1].p10Us = 1100.0;
    points[1].p90Us = 1250.0;
    points[1].memoryMb = 2.5; // memory measured for one plan only
    const std::vector<MeasuredMark> marks = measuredMarks(points, ox, oy);
    if (axis == int(MeasuredAxis::None)) {
        QVERIFY(marks.empty());
        return;
    }
    QCOMPARE(marks.size(), std::size_t{2});
    QVERIFY(marks[0].x <= marks[1].x); // in key order, as the graph keeps its data
    for (const MeasuredMark& m : marks) {
        const MeasuredPoint& p = points[static_cast<std::size_t>(m.point)];
        const double along = axis == int(MeasuredAxis::X) ? m.x : m.y;
        const double across = axis == int(MeasuredAxis::X) ? m.y : m.x;
        const double simulatedAcross = axis == int(MeasuredAxis::X) ? m.simulatedY : m.simulatedX;
        QCOMPARE(along, p.medianUs / 1000.0);
        QCOMPARE(along - m.minus, p.p10Us / 1000.0);
        QCOMPARE(along + m.plus, p.p90Us / 1000.0);
        const Objective other = axis == int(MeasuredAxis::X) ? oy : ox;
        if (other == Objective::PeakMemory && p.memoryMb) {
            QCOMPARE(across, *p.memoryMb); // measured memory, where the plan has it
        } else {
            QCOMPARE(across, simulatedAcross); // else the other axis keeps the simulated value
        }
        QCOMPARE(axis == int(MeasuredAxis::X) ? m.simulatedX : m.simulatedY,
                 p.simulated.latencyUs / 1000.0);
    }
}

void TestParetoPlot::measuredPointsDrawnWithErrorBars() {
    ParetoPlot plot;
    plot.resize(700, 600);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setOutcome(m_outcome);
    QCOMPARE(plot.measuredGraph()->dataCount(), 0);
    QVERIFY(!plot.plot()->legend->hasItemWithPlottable(plot.measuredGraph()));
    const int itemsBefore = plot.plot()->itemCount();

    const int front = distinctPlan(plot);
    QVERIFY(front >= 0);
    const Solution& plan = m_outcome->result.front[static_cast<std::size_t>(front)];
    const Solution& baseline = m_outcome->result.baselines.front();
    PlanClaim claim;
    claim.baseline = QString::fromStdString(baseline.baseline);
    claim.status = QStringLiteral("contradicted");
    claim.objectives = {{QStringLiteral("latency"), QStringLiteral("contradicted")}};
    std::vector<std::vector<PlanClaim>> claims(m_outcome->result.front.size());
    claims[static_cast<std::size_t>(front)].push_back(claim);
    plot.setMeasured({measuredAs(plan, QStringLiteral("front %1").arg(front), 2.0),
                      measuredAs(baseline, claim.baseline, 1.5)},
                     claims);

    QCOMPARE(plot.measuredGraph()->dataCount(), 2);
    QCOMPARE(plot.measuredErrorBars()->dataCount(), 2);
    QCOMPARE(plot.measuredErrorBars()->errorType(), QCPErrorBars::etKeyError);
    QCOMPARE(plot.measuredGraph()->name(), QStringLiteral("measured (p10–p90)"));
    QVERIFY(plot.plot()->legend->hasItemWithPlottable(plot.measuredGraph()));
    QVERIFY(!plot.plot()->legend->hasItemWithPlottable(plot.measuredErrorBars()));
    for (int i = 0; i < 2; ++i) {
        const double median = plot.measuredGraph()->data()->at(i)->key;
        const QCPErrorBarsData& e = plot.measuredErrorBars()->data()->at(i);
        QVERIFY(e.errorMinus >= 0 && e.errorPlus >= 0);
        QVERIFY(qAbs(e.errorMinus - median * 0.1) < 1e-9 * median); // p10 is 10 % below
    }
    // One line from each simulated point to its measured one, beside the baselines' labels.
    QCOMPARE(plot.plot()->itemCount(), itemsBefore + 2);
    QVERIFY(plot.plot()->xAxis->range().contains(plan.objectives.latencyUs * 2.0 / 1000.0));

    // The front plan's tooltip says what was measured and that its claim is contradicted.
    const QString tip = plot.toolTipAt(plot.pointPixel(front));
    QVERIFY2(tip.contains(QStringLiteral("measured: latency")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("Claim contradicted: better than ") + claim.baseline),
             qPrintable(tip));
    // The measured marker itself, away from every simulated point.
    const PlaneMapping m = plot.mapping();
    const QPointF marker = m.toPixel(QPointF(plan.objectives.latencyUs * 2.0 / 1000.0,
                                             displayValue(plan.objectives, plot.yObjective())));
    if (plot.planAt(marker, 8.0) < 0) {
        QVERIFY2(plot.toolTipAt(marker).contains(QStringLiteral("measured on this machine")),
                 qPrintable(plot.toolTipAt(marker)));
    }

    // Latency on Y: vertical bars; on neither axis: nothing drawn (the source line says why).
    plot.setAxes(Objective::Energy, Objective::Latency);
    QCOMPARE(plot.measuredGraph()->dataCount(), 2);
    QCOMPARE(plot.measuredErrorBars()->errorType(), QCPErrorBars::etValueError);
    plot.setAxes(Objective::Energy, Objective::PeakMemory);
    QCOMPARE(plot.measuredGraph()->dataCount(), 0);
    QVERIFY(!plot.plot()->legend->hasItemWithPlottable(plot.measuredGraph()));
    // A new search clears them.
    plot.setAxes(Objective::Latency, Objective::Energy);
    plot.setOutcome(m_outcome);
    QCOMPARE(plot.measuredGraph()->dataCount(), 0);
    QVERIFY(plot.measuredPoints().empty());
}

void TestParetoPlot::legendOutsideTheData() {
    ParetoPlot plot;
    plot.resize(520, 480);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setOutcome(m_outcome);
    plot.selectPlan(0);
    plot.plot()->replot();
    const QCPLegend* legend = plot.plot()->legend;
    QVERIFY(legend->visible());
    QVERIFY(legend->itemCount() >= 3); // front, baselines, the selected plan
    const QRect data = plot.plot()->axisRect()->rect();
    QVERIFY2(!legend->outerRect().intersects(data),
             qPrintable(QStringLiteral("legend %1,%2 %3x%4; data %5,%6 %7x%8")
                            .arg(legend->outerRect().x())
                            .arg(legend->outerRect().y())
                            .arg(legend->outerRect().width())
                            .arg(legend->outerRect().height())
                            .arg(data.x())
                            .arg(data.y())
                            .arg(data.width())
                            .arg(data.height())));
    QVERIFY(plot.plot()->rect().contains(legend->outerRect()));
}

void TestParetoPlot::baselineLabelsNeitherOverlapNorClip() {
    for (const QSize size : {QSize(700, 600), QSize(420, 380)}) {
        ParetoPlot plot;
        plot.resize(size);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        plot.setOutcome(m_outcome);
        plot.plot()->replot();
        const std::vector<QRectF> labels = plot.baselineLabelRects();
        QVERIFY(!labels.empty());
        const QRectF area = plot.plot()->axisRect()->rect();
        for (std::size_t i = 0; i < labels.size(); ++i) {
            QVERIFY(area.contains(labels[i]));
            for (std::size_t j = i + 1; j < labels.size(); ++j) {
                QVERIFY(!labels[i].intersects(labels[j]));
            }
        }
    }
}

void TestParetoPlot::labelPlacement_data() {
    QTest::addColumn<QList<QPointF>>("anchors");
    QTest::addColumn<int>("placedAtLeast");
    QTest::newRow("apart") << QList<QPointF>{{100, 100}, {300, 200}} << 2;
    QTest::newRow("on one spot") << QList<QPointF>{{200, 150}, {200, 150}, {200, 150}} << 3;
    QTest::newRow("at the right edge") << QList<QPointF>{{395, 100}, {395, 104}} << 2;
    QTest::newRow("in a corner") << QList<QPointF>{{399, 1}} << 1;
}

void TestParetoPlot::labelPlacement() {
    QFETCH(QList<QPointF>, anchors);
    QFETCH(int, placedAtLeast);
    const QRectF bounds(0, 0, 400, 300);
    const std::vector<QPointF> points(anchors.begin(), anchors.end());
    const std::vector<QSizeF> sizes(points.size(), QSizeF(60, 14));
    std::vector<QRectF> marks;
    for (const QPointF& p : points) {
        marks.emplace_back(p - QPointF(5, 5), QSizeF(10, 10));
    }
    const std::vector<QRectF> placed = placeLabels(points, sizes, bounds, marks, 6.0);
    QCOMPARE(placed.size(), points.size());
    int count = 0;
    for (std::size_t i = 0; i < placed.size(); ++i) {
        if (placed[i].isEmpty()) {
            continue;
        }
        ++count;
        QVERIFY(bounds.contains(placed[i]));
        for (const QRectF& m : marks) {
            QVERIFY(!placed[i].intersects(m));
        }
        for (std::size_t j = i + 1; j < placed.size(); ++j) {
            QVERIFY(placed[j].isEmpty() || !placed[i].intersects(placed[j]));
        }
    }
    QVERIFY(count >= placedAtLeast);
}

void TestParetoPlot::emptyPlotSaysNoPlansYet() {
    ParetoPlot plot;
    plot.resize(520, 480);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    QVERIFY(plot.emptyMessage()->isVisible());
    QVERIFY(plot.emptyMessage()->text().contains(QStringLiteral("No plans yet")));
    QVERIFY(!plot.plot()->xAxis->visible());
    QVERIFY(!plot.plot()->legend->visible());
    plot.setOutcome(m_outcome);
    QVERIFY(!plot.emptyMessage()->isVisible());
    QVERIFY(plot.plot()->xAxis->visible());
    plot.setOutcome(nullptr);
    QVERIFY(plot.emptyMessage()->isVisible());
}

QTEST_MAIN(TestParetoPlot)
#include "tst_paretoplot.moc"
