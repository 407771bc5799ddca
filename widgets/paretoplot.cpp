#include "paretoplot.h"

#include "placementsearch.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include <algorithm>
#include <numeric>

// qcustomplot.h uses the lower-case Qt keywords that QT_NO_KEYWORDS removes.
#define signals Q_SIGNALS
#define slots Q_SLOTS
#define emit Q_EMIT
#define foreach Q_FOREACH
#include <qcustomplot.h>
#undef signals
#undef slots
#undef emit
#undef foreach

namespace paretune {

namespace {

constexpr Objective kChoices[] = {Objective::Latency, Objective::Energy, Objective::AveragePower,
                                  Objective::PeakMemory};

} // namespace

double displayValue(const Objectives& objectives, Objective objective) {
    switch (objective) {
    case Objective::Latency:
        return objectives.latencyUs / 1000.0;
    case Objective::Energy:
        return objectives.energyMj;
    case Objective::AveragePower:
        return objectives.averagePowerW;
    case Objective::PeakMemory:
        return objectives.peakMemoryBytes / (1024.0 * 1024.0);
    }
    return 0.0;
}

QString objectiveAxisLabel(Objective objective) {
    switch (objective) {
    case Objective::Latency:
        return ParetoPlot::tr("Latency (ms)");
    case Objective::Energy:
        return ParetoPlot::tr("Energy per inference (mJ)");
    case Objective::AveragePower:
        return ParetoPlot::tr("Average power (W)");
    case Objective::PeakMemory:
        return ParetoPlot::tr("Peak memory (MiB)");
    }
    return {};
}

ParetoPlot::ParetoPlot(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    auto* controls = new QHBoxLayout;
    m_xAxis = new QComboBox(this);
    m_yAxis = new QComboBox(this);
    for (const Objective o : kChoices) {
        m_xAxis->addItem(objectiveAxisLabel(o), static_cast<int>(o));
        m_yAxis->addItem(objectiveAxisLabel(o), static_cast<int>(o));
    }
    m_yAxis->setCurrentIndex(1);
    m_source = new QLabel(tr("No search yet: run Search > Search placements."), this);
    controls->addWidget(new QLabel(tr("X:"), this));
    controls->addWidget(m_xAxis);
    controls->addWidget(new QLabel(tr("Y:"), this));
    controls->addWidget(m_yAxis);
    controls->addWidget(m_source, 1);
    layout->addLayout(controls);

    m_plot = new QCustomPlot(this);
    m_plot->setMinimumHeight(220);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom | QCP::iSelectPlottables);
    m_front = m_plot->addGraph();
    m_front->setLineStyle(QCPGraph::lsNone);
    m_front->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QColor(31, 119, 180), 7));
    m_front->setName(tr("Pareto front"));
    m_baselines = m_plot->addGraph();
    m_baselines->setLineStyle(QCPGraph::lsNone);
    m_baselines->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCross, QColor(120, 120, 120), 9));
    m_baselines->setName(tr("Baselines"));
    m_selection = m_plot->addGraph();
    m_selection->setLineStyle(QCPGraph::lsNone);
    m_selection->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(QColor(214, 39, 40), 2), Qt::NoBrush, 14));
    m_selection->setName(tr("Selected plan"));
    m_plot->legend->setVisible(true);
    layout->addWidget(m_plot, 1);

    connect(m_xAxis, &QComboBox::currentIndexChanged, this, &ParetoPlot::redraw);
    connect(m_yAxis, &QComboBox::currentIndexChanged, this, &ParetoPlot::redraw);
    connect(m_plot, &QCustomPlot::plottableClick, this,
            [this](QCPAbstractPlottable* plottable, int dataIndex, QMouseEvent*) {
                pointClicked(plottable, dataIndex);
            });
}

ParetoPlot::~ParetoPlot() = default;

void ParetoPlot::setOutcome(std::shared_ptr<const SearchOutcome> outcome) {
    m_outcome = std::move(outcome);
    m_selected = -1;
    redraw();
}

void ParetoPlot::setAxes(Objective x, Objective y) {
    m_xAxis->setCurrentIndex(m_xAxis->findData(static_cast<int>(x)));
    m_yAxis->setCurrentIndex(m_yAxis->findData(static_cast<int>(y)));
}

int ParetoPlot::pointCount() const {
    return m_front->dataCount();
}

void ParetoPlot::redraw() {
    const auto x = static_cast<Objective>(m_xAxis->currentData().toInt());
    const auto y = static_cast<Objective>(m_yAxis->currentData().toInt());
    m_plot->clearItems();
    m_front->data()->clear();
    m_baselines->data()->clear();
    m_selection->data()->clear();
    m_frontOrder.clear();
    m_plot->xAxis->setLabel(objectiveAxisLabel(x));
    m_plot->yAxis->setLabel(objectiveAxisLabel(y));
    if (!m_outcome) {
        m_plot->replot();
        return;
    }
    const SearchResult& r = m_outcome->result;
    m_source->setText(
        tr("%1 plans on the front; costs %2").arg(r.front.size()).arg(m_outcome->costSource));
    // QCPGraph keeps its data sorted by key: add the front sorted by x and remember the order.
    m_frontOrder.resize(r.front.size());
    std::iota(m_frontOrder.begin(), m_frontOrder.end(), 0);
    std::stable_sort(m_frontOrder.begin(), m_frontOrder.end(), [&](int a, int b) {
        return displayValue(r.front[static_cast<std::size_t>(a)].objectives, x) <
               displayValue(r.front[static_cast<std::size_t>(b)].objectives, x);
    });
    QVector<double> keys;
    QVector<double> values;
    for (const int i : m_frontOrder) {
        keys.push_back(displayValue(r.front[static_cast<std::size_t>(i)].objectives, x));
        values.push_back(displayValue(r.front[static_cast<std::size_t>(i)].objectives, y));
    }
    m_front->setData(keys, values, true);
    for (const Solution& b : r.baselines) {
        const double bx = displayValue(b.objectives, x);
        const double by = displayValue(b.objectives, y);
        m_baselines->addData(bx, by);
        auto* label = new QCPItemText(m_plot);
        label->position->setCoords(bx, by);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
        label->setText(QString::fromStdString(b.baseline) +
                       (b.objectives.feasible() ? QString() : tr(" (infeasible)")));
        label->setColor(QColor(90, 90, 90));
    }
    if (m_selected >= 0 && m_selected < static_cast<int>(r.front.size())) {
        const Objectives& o = r.front[static_cast<std::size_t>(m_selected)].objectives;
        m_selection->addData(displayValue(o, x), displayValue(o, y));
    }
    m_plot->rescaleAxes();
    m_plot->xAxis->scaleRange(1.15, m_plot->xAxis->range().center());
    m_plot->yAxis->scaleRange(1.15, m_plot->yAxis->range().center());
    m_plot->replot();
}

void ParetoPlot::pointClicked(QCPAbstractPlottable* plottable, int dataIndex) {
    if (plottable != m_front || dataIndex < 0 ||
        dataIndex >= static_cast<int>(m_frontOrder.size())) {
        return;
    }
    selectPlan(m_frontOrder[static_cast<std::size_t>(dataIndex)]);
}

void ParetoPlot::selectPlan(int index) {
    if (!m_outcome || index < 0 || index >= static_cast<int>(m_outcome->result.front.size())) {
        return;
    }
    m_selected = index;
    redraw();
    Q_EMIT planSelected(index);
}

} // namespace paretune
