// The Pareto dock: objective <-> pixel mapping against QCustomPlot's own, clicks on points
// (real mouse events at the mapped pixels), comparison of two plans, the colour objective,
// baselines, hover text and the hypervolume curve.
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

QTEST_MAIN(TestParetoPlot)
#include "tst_paretoplot.moc"
