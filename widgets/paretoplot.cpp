// SPDX-License-Identifier: GPL-3.0-or-later
#include "paretoplot.h"

#include "graph/onnx_importer.h"
#include "labelplacement.h"
#include "placementsearch.h"
#include "planschedule.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

#include "qcustomplot_fenced.h"

namespace paretune {

namespace {

constexpr int kColourBins = 12;
/// Measured plans: a colour none of the other marks or the viridis scale uses.
const QColor kMeasuredColour(200, 0, 120);

QCPGraph* addScatter(QCustomPlot* plot, const QCPScatterStyle& style, const QString& name,
                     bool inLegend) {
    QCPGraph* graph = plot->addGraph();
    graph->setLineStyle(QCPGraph::lsNone);
    graph->setScatterStyle(style);
    graph->setName(name);
    graph->setSelectable(QCP::stNone);
    if (!inLegend) {
        graph->removeFromLegend();
    }
    return graph;
}

} // namespace

ParetoPlot::ParetoPlot(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    auto* controls = new QHBoxLayout;
    m_xAxis = new QComboBox(this);
    m_yAxis = new QComboBox(this);
    for (const Objective o : kShownObjectives) {
        m_xAxis->addItem(objectiveAxisLabel(o), static_cast<int>(o));
        m_yAxis->addItem(objectiveAxisLabel(o), static_cast<int>(o));
    }
    m_yAxis->setCurrentIndex(1);
    m_colourLabel = new QLabel(this);
    m_source = new QLabel(this); // the search's figures and their source; hidden before one
    m_source->setWordWrap(true);
    for (QComboBox* axis : {m_xAxis, m_yAxis}) {
        axis->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        axis->setMinimumContentsLength(12);
    }
    controls->addWidget(new QLabel(tr("X:"), this));
    controls->addWidget(m_xAxis, 1);
    controls->addWidget(new QLabel(tr("Y:"), this));
    controls->addWidget(m_yAxis, 1);
    layout->addLayout(controls);
    m_colourLabel->setWordWrap(true);
    layout->addWidget(m_colourLabel);
    layout->addWidget(m_source);

    m_plot = new QCustomPlot(this);
    // Explicit: the hint QCustomPlot derives from its legend row would make the dock too wide.
    m_plot->setMinimumSize(240, 170);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_colourScale = new QCPColorScale(m_plot);
    m_colourScale->setType(QCPAxis::atRight);
    QCPColorGradient viridis; // perceptually uniform, readable in grey
    viridis.setColorStopAt(0.0, QColor(68, 1, 84));
    viridis.setColorStopAt(0.25, QColor(59, 82, 139));
    viridis.setColorStopAt(0.5, QColor(33, 145, 140));
    viridis.setColorStopAt(0.75, QColor(94, 201, 98));
    viridis.setColorStopAt(1.0, QColor(253, 231, 37));
    m_colourScale->setGradient(viridis);
    m_plot->plotLayout()->addElement(0, 1, m_colourScale);
    for (int b = 0; b < kColourBins; ++b) {
        const double t = (b + 0.5) / kColourBins;
        m_colourBins.push_back(
            addScatter(m_plot,
                       QCPScatterStyle(QCPScatterStyle::ssDisc,
                                       m_colourScale->gradient().color(t, QCPRange(0.0, 1.0)), 8),
                       QString(), false));
    }
    m_front = addScatter(m_plot, QCPScatterStyle(QCPScatterStyle::ssCircle, QColor(40, 40, 40), 9),
                         tr("Pareto front"), true);
    m_baselines = addScatter(
        m_plot,
        QCPScatterStyle(QCPScatterStyle::ssCross, QPen(QColor(60, 60, 60), 2), Qt::NoBrush, 10),
        tr("Baselines"), true);
    m_faintBaselines =
        addScatter(m_plot, QCPScatterStyle(QCPScatterStyle::ssCross, QColor(60, 60, 60, 70), 10),
                   tr("Dominated baselines"), true);
    m_selection = addScatter(
        m_plot,
        QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(QColor(214, 39, 40), 2), Qt::NoBrush, 15),
        tr("Selected plan"), true);
    m_comparedMark = addScatter(
        m_plot,
        QCPScatterStyle(QCPScatterStyle::ssSquare, QPen(QColor(255, 127, 14), 2), Qt::NoBrush, 15),
        tr("Compared plan (Ctrl+click)"), true);
    m_measuredGraph =
        addScatter(m_plot,
                   QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(kMeasuredColour, 1.5),
                                   QColor(200, 0, 120, 110), 10),
                   tr("measured (p10–p90)"), false);
    m_measuredBars = new QCPErrorBars(m_plot->xAxis, m_plot->yAxis);
    m_measuredBars->removeFromLegend();
    m_measuredBars->setSelectable(QCP::stNone);
    m_measuredBars->setPen(QPen(kMeasuredColour, 1.5));
    m_measuredBars->setDataPlottable(m_measuredGraph);
    // The legend in a row of its own below the axes, so that it never covers a point.
    m_plot->legend->setVisible(true);
    m_plot->legend->setFont(font());
    m_plot->legend->setBorderPen(Qt::NoPen);
    m_plot->legend->setWrap(2);
    m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true); // the items added above
    m_plot->legend->setRowSpacing(0);
    m_plot->axisRect()->insetLayout()->take(m_plot->legend);
    m_plot->plotLayout()->addElement(1, 0, m_plot->legend);
    m_plot->plotLayout()->setRowStretchFactor(1, 0.001);
    m_plot->plotLayout()->setRowSpacing(0);
    // Baseline labels are placed once the axes are laid out, just before each drawing.
    connect(m_plot, &QCustomPlot::afterLayout, this, &ParetoPlot::placeBaselineLabels);
    m_empty = new QLabel(tr("No plans yet.\nOpen a model and run Search > Search placements: "
                            "the Pareto front of its placements appears here."),
                         m_plot);
    m_empty->setObjectName(QStringLiteral("noPlans"));
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    m_empty->setForegroundRole(QPalette::PlaceholderText);
    auto* overlay = new QVBoxLayout(m_plot);
    overlay->addWidget(m_empty);
    layout->addWidget(m_plot, 3);

    m_comparison = new QLabel(this);
    m_comparison->setWordWrap(true);
    m_comparison->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_comparison->setObjectName(QStringLiteral("comparison"));
    m_comparison->hide();
    layout->addWidget(m_comparison);

    m_hypervolumePlot = new QCustomPlot(this);
    m_hypervolumePlot->setMinimumSize(200, 85);
    m_hypervolume = m_hypervolumePlot->addGraph();
    m_hypervolume->setPen(QPen(QColor(31, 119, 180), 2));
    m_hypervolumePlot->xAxis->setLabel(tr("Generation"));
    m_hypervolumePlot->yAxis->setLabel(tr("Hypervolume"));
    // Few, small numbers: the plot is short on a laptop screen.
    m_hypervolumePlot->yAxis->ticker()->setTickCount(2);
    QFont small = font();
    small.setPointSizeF(std::max(6.0, font().pointSizeF() - 1.0));
    m_hypervolumePlot->yAxis->setTickLabelFont(small);
    layout->addWidget(m_hypervolumePlot, 1);

    connect(m_xAxis, &QComboBox::currentIndexChanged, this, &ParetoPlot::redraw);
    connect(m_yAxis, &QComboBox::currentIndexChanged, this, &ParetoPlot::redraw);
    connect(m_plot, &QCustomPlot::mousePress, this, &ParetoPlot::mousePressed);
    connect(m_plot, &QCustomPlot::mouseRelease, this, &ParetoPlot::mouseReleased);
    connect(m_plot, &QCustomPlot::mouseMove, this, &ParetoPlot::mouseMoved);
    redraw();
}

ParetoPlot::~ParetoPlot() = default;

void ParetoPlot::setOutcome(std::shared_ptr<const SearchOutcome> outcome) {
    m_outcome = std::move(outcome);
    m_measured.clear();
    m_claims.clear();
    m_selected = -1;
    m_compared = -1;
    startHypervolume();
    if (m_outcome) {
        for (const double hv : m_outcome->result.hypervolumeByGeneration) {
            addHypervolume(hv);
        }
    }
    updateComparison();
    redraw();
}

void ParetoPlot::setMeasured(std::vector<MeasuredPoint> points,
                             std::vector<std::vector<PlanClaim>> claims) {
    m_measured = std::move(points);
    m_claims = std::move(claims);
    redraw();
}

void ParetoPlot::setAxes(Objective x, Objective y) {
    m_xAxis->setCurrentIndex(m_xAxis->findData(static_cast<int>(x)));
    m_yAxis->setCurrentIndex(m_yAxis->findData(static_cast<int>(y)));
}

Objective ParetoPlot::xObjective() const {
    return static_cast<Objective>(m_xAxis->currentData().toInt());
}

Objective ParetoPlot::yObjective() const {
    return static_cast<Objective>(m_yAxis->currentData().toInt());
}

int ParetoPlot::pointCount() const {
    return m_front->dataCount();
}

void ParetoPlot::chooseColourObjective() {
    const Objective x = xObjective();
    const Objective y = yObjective();
    // The search's own third objective when there is one, else the first other choice.
    std::vector<Objective> candidates;
    if (m_outcome) {
        candidates = m_outcome->result.objectives;
    }
    candidates.insert(candidates.end(), std::begin(kShownObjectives), std::end(kShownObjectives));
    for (const Objective o : candidates) {
        if (o != x && o != y) {
            m_colour = o;
            break;
        }
    }
    m_colourLabel->setText(tr("Colour: %1").arg(objectiveAxisLabel(m_colour)));
    m_colourScale->axis()->setLabel(objectiveAxisLabel(m_colour));
}

void ParetoPlot::redraw() {
    chooseColourObjective();
    const Objective x = xObjective();
    const Objective y = yObjective();
    m_plot->clearItems();
    for (QCPGraph* g : m_colourBins) {
        g->data()->clear();
    }
    for (QCPGraph* g :
         {m_front, m_baselines, m_faintBaselines, m_selection, m_comparedMark, m_measuredGraph}) {
        g->data()->clear();
    }
    m_measuredBars->data()->clear();
    m_plot->xAxis->setLabel(objectiveAxisLabel(x));
    m_plot->yAxis->setLabel(objectiveAxisLabel(y));
    m_baselineLabels.clear();
    showAxes(m_outcome != nullptr);
    if (!m_outcome) {
        m_plot->replot();
        return;
    }
    const SearchResult& r = m_outcome->result;
    QString source =
        tr("%1 plans on the front; costs %2").arg(r.front.size()).arg(m_outcome->costSource);
    if (!m_measured.empty()) {
        source += QStringLiteral("; ") +
                  (measuredAxis(x, y) == MeasuredAxis::None
                       ? tr("%n plan(s) measured on this machine: choose latency on an axis to "
                            "see them",
                            "", static_cast<int>(m_measured.size()))
                       : tr("%n plan(s) measured on this machine, at their median latency "
                            "(p10–p90 bars), joined to their simulated points",
                            "", static_cast<int>(m_measured.size())));
    }
    m_source->setText(source);
    double lo = std::numeric_limits<double>::infinity();
    double hi = -lo;
    for (const Solution& s : r.front) {
        lo = std::min(lo, displayValue(s.objectives, m_colour));
        hi = std::max(hi, displayValue(s.objectives, m_colour));
    }
    if (!(hi > lo)) {
        hi = lo + 1.0;
    }
    m_colourScale->setDataRange(QCPRange(lo, hi));
    // QCPGraph keeps its data sorted by key; points are found by their pixel (planAt), so the
    // order inside the graphs does not matter.
    for (const Solution& s : r.front) {
        const double px = displayValue(s.objectives, x);
        const double py = displayValue(s.objectives, y);
        m_front->addData(px, py);
        const double t = (displayValue(s.objectives, m_colour) - lo) / (hi - lo);
        const int bin = std::clamp(static_cast<int>(t * kColourBins), 0, kColourBins - 1);
        m_colourBins[static_cast<std::size_t>(bin)]->addData(px, py);
    }
    for (const Solution& b : r.baselines) {
        bool dominated = !b.objectives.feasible();
        for (const Solution& f : r.front) {
            dominated = dominated || constrainedDominates(f.objectives, b.objectives, r.objectives);
        }
        const double bx = displayValue(b.objectives, x);
        const double by = displayValue(b.objectives, y);
        (dominated ? m_faintBaselines : m_baselines)->addData(bx, by);
        auto* label = new QCPItemText(m_plot);
        label->position->setCoords(bx, by);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        label->setClipToAxisRect(true);
        label->setText(QString::fromStdString(b.baseline) +
                       (b.objectives.feasible() ? QString() : tr(" (infeasible)")));
        label->setColor(dominated ? QColor(90, 90, 90) : QColor(30, 30, 30));
        label->setBrush(QColor(255, 255, 255, 210)); // readable over the points
        label->setPadding(QMargins(2, 0, 2, 0));
        m_baselineLabels.push_back({label, bx, by});
    }
    for (const auto& [index, mark] :
         {std::pair{m_selected, m_selection}, std::pair{m_compared, m_comparedMark}}) {
        if (index >= 0 && index < static_cast<int>(r.front.size())) {
            const Objectives& o = r.front[static_cast<std::size_t>(index)].objectives;
            mark->addData(displayValue(o, x), displayValue(o, y));
        }
    }
    drawMeasured(x, y);
    // The legend names only the marks drawn, so that it stays one or two short rows.
    for (QCPGraph* g : {m_faintBaselines, m_selection, m_comparedMark}) {
        if (g->dataCount() > 0) {
            g->addToLegend();
        } else {
            g->removeFromLegend();
        }
    }
    m_plot->rescaleAxes();
    m_plot->xAxis->scaleRange(1.15, m_plot->xAxis->range().center());
    m_plot->yAxis->scaleRange(1.15, m_plot->yAxis->range().center());
    m_plot->replot();
}

void ParetoPlot::drawMeasured(Objective x, Objective y) {
    const std::vector<MeasuredMark> marks = measuredMarks(m_measured, x, y);
    m_measuredBars->setErrorType(measuredAxis(x, y) == MeasuredAxis::Y ? QCPErrorBars::etValueError
                                                                       : QCPErrorBars::etKeyError);
    QVector<double> minus;
    QVector<double> plus;
    for (const MeasuredMark& m : marks) {
        m_measuredGraph->addData(m.x, m.y); // in key order: the error bars follow it
        minus.push_back(m.minus);
        plus.push_back(m.plus);
        auto* line = new QCPItemLine(m_plot);
        line->start->setCoords(m.simulatedX, m.simulatedY);
        line->end->setCoords(m.x, m.y);
        line->setPen(QPen(kMeasuredColour, 1.0, Qt::DashLine));
    }
    m_measuredBars->setData(minus, plus);
    if (marks.empty()) {
        m_measuredGraph->removeFromLegend();
    } else {
        m_measuredGraph->addToLegend();
    }
}

void ParetoPlot::showAxes(bool shown) {
    m_empty->setVisible(!shown);
    m_source->setVisible(shown); // the message says it all before a search
    m_colourLabel->setVisible(shown);
    for (QCPAxis* axis : {m_plot->xAxis, m_plot->yAxis}) {
        axis->setVisible(shown);
    }
    m_plot->axisRect()->setBackground(Qt::NoBrush);
    m_colourScale->setVisible(shown);
    m_plot->legend->setVisible(shown);
    m_hypervolumePlot->setVisible(shown || m_hypervolume->dataCount() > 0);
}

void ParetoPlot::placeBaselineLabels() {
    const QRectF area = m_plot->axisRect()->rect();
    std::vector<QPointF> anchors;
    std::vector<QSizeF> sizes;
    std::vector<QRectF> marks;
    for (const BaselineLabel& b : m_baselineLabels) {
        const QPointF anchor(m_plot->xAxis->coordToPixel(b.x), m_plot->yAxis->coordToPixel(b.y));
        const QFontMetricsF metrics(b.item->font());
        anchors.push_back(anchor);
        sizes.push_back(metrics.size(Qt::TextSingleLine, b.item->text()) + QSizeF(6.0, 0.0));
        marks.push_back(QRectF(anchor - QPointF(5.0, 5.0), QSizeF(10.0, 10.0)));
    }
    const std::vector<QRectF> placed = placeLabels(anchors, sizes, area, marks, 6.0);
    for (std::size_t i = 0; i < m_baselineLabels.size(); ++i) {
        QCPItemText* item = m_baselineLabels[i].item;
        item->setVisible(!placed[i].isEmpty());
        if (!placed[i].isEmpty()) {
            item->position->setCoords(m_plot->xAxis->pixelToCoord(placed[i].left()),
                                      m_plot->yAxis->pixelToCoord(placed[i].top()));
        }
    }
}

std::vector<QRectF> ParetoPlot::baselineLabelRects() const {
    std::vector<QRectF> rects;
    for (const BaselineLabel& b : m_baselineLabels) {
        if (b.item->visible()) {
            const QFontMetricsF metrics(b.item->font());
            rects.emplace_back(b.item->position->pixelPosition(),
                               metrics.size(Qt::TextSingleLine, b.item->text()) + QSizeF(4.0, 0.0));
        }
    }
    return rects;
}

PlaneMapping ParetoPlot::mapping() const {
    // QCPAxis::coordToPixel for linear axes: x from the rect's left edge over its width, y from
    // its bottom edge upwards over its height.
    const QRect rect = m_plot->axisRect()->rect();
    const QCPRange xr = m_plot->xAxis->range();
    const QCPRange yr = m_plot->yAxis->range();
    return {AxisMapping(xr.lower, xr.upper, rect.left(), rect.left() + rect.width()),
            AxisMapping(yr.lower, yr.upper, rect.bottom(), rect.bottom() - rect.height())};
}

QPointF ParetoPlot::pointPixel(int index) const {
    if (!m_outcome || index < 0 || index >= static_cast<int>(m_outcome->result.front.size())) {
        return {};
    }
    const Objectives& o = m_outcome->result.front[static_cast<std::size_t>(index)].objectives;
    return mapping().toPixel(QPointF(displayValue(o, xObjective()), displayValue(o, yObjective())));
}

std::pair<int, bool> ParetoPlot::pointAt(QPointF pixel, double radius) const {
    if (!m_outcome) {
        return {-1, false};
    }
    const PlaneMapping m = mapping();
    const Objective x = xObjective();
    const Objective y = yObjective();
    std::pair<int, bool> best{-1, false};
    double bestDistance = radius;
    auto consider = [&](const std::vector<Solution>& solutions, bool baseline) {
        for (std::size_t i = 0; i < solutions.size(); ++i) {
            const QPointF p = m.toPixel(QPointF(displayValue(solutions[i].objectives, x),
                                                displayValue(solutions[i].objectives, y)));
            const double distance = std::hypot(p.x() - pixel.x(), p.y() - pixel.y());
            if (distance <= bestDistance) {
                best = {static_cast<int>(i), baseline};
                bestDistance = distance;
            }
        }
    };
    consider(m_outcome->result.baselines, true);
    consider(m_outcome->result.front, false); // a front point wins a tie with a baseline
    return best;
}

int ParetoPlot::planAt(QPointF pixel, double radius) const {
    const auto [index, baseline] = pointAt(pixel, radius);
    return baseline ? -1 : index;
}

QString ParetoPlot::describe(const Solution& solution, const QString& title) const {
    QString text = QStringLiteral("<b>") + title.toHtmlEscaped() + QStringLiteral("</b>");
    for (const Objective o : kShownObjectives) {
        text += QStringLiteral("<br>") + objectiveTitle(o) + QStringLiteral(": ") +
                QString::number(displayValue(solution.objectives, o), 'g', 5) +
                QStringLiteral(" ") + objectiveUnit(o);
    }
    if (!solution.objectives.feasible()) {
        text += QStringLiteral("<br>") +
                tr("infeasible (violation %1)").arg(solution.objectives.violation, 0, 'g', 3);
    }
    return text + QStringLiteral("<br><i>") +
           tr("simulated; costs %1").arg(m_outcome->costSource).toHtmlEscaped() +
           QStringLiteral("</i>");
}

QString ParetoPlot::tuneNotes(const Solution& solution, int frontIndex) const {
    QString text;
    for (const MeasuredPoint& p : m_measured) {
        if (p.genome == solution.genome) {
            text +=
                QStringLiteral("<br>") + tr("measured: %1").arg(measuredText(p).toHtmlEscaped());
        }
    }
    if (frontIndex >= 0 && frontIndex < static_cast<int>(m_claims.size())) {
        text += claimsHtml(m_claims[static_cast<std::size_t>(frontIndex)]);
    }
    return text;
}

QString ParetoPlot::toolTipAt(QPointF pixel) const {
    const auto [index, baseline] = pointAt(pixel, 8.0);
    if (index < 0) {
        // A measured point, away from every simulated one.
        const PlaneMapping m = mapping();
        for (const MeasuredMark& mark : measuredMarks(m_measured, xObjective(), yObjective())) {
            const QPointF p = m.toPixel(QPointF(mark.x, mark.y));
            if (std::hypot(p.x() - pixel.x(), p.y() - pixel.y()) <= 8.0) {
                const MeasuredPoint& point = m_measured[static_cast<std::size_t>(mark.point)];
                return QStringLiteral("<b>") +
                       tr("%1, measured on this machine").arg(point.label).toHtmlEscaped() +
                       QStringLiteral("</b><br>") + measuredText(point).toHtmlEscaped();
            }
        }
        return {};
    }
    const SearchResult& r = m_outcome->result;
    if (baseline) {
        const Solution& b = r.baselines[static_cast<std::size_t>(index)];
        return describe(b, tr("Baseline %1").arg(QString::fromStdString(b.baseline))) +
               tuneNotes(b, -1);
    }
    const Solution& s = r.front[static_cast<std::size_t>(index)];
    return describe(s, s.baseline.empty() ? tr("Plan %1").arg(index)
                                          : tr("Plan %1 (baseline %2)")
                                                .arg(index)
                                                .arg(QString::fromStdString(s.baseline))) +
           tuneNotes(s, index);
}

void ParetoPlot::mousePressed(QMouseEvent* event) {
    m_pressPos = event->position();
}

void ParetoPlot::mouseReleased(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton ||
        (event->position() - m_pressPos).manhattanLength() > 4.0) {
        return; // a drag pans the plot
    }
    const int index = planAt(event->position());
    if (index < 0) {
        return;
    }
    if (event->modifiers() & Qt::ControlModifier) {
        comparePlan(index);
    } else {
        selectPlan(index);
    }
}

void ParetoPlot::mouseMoved(QMouseEvent* event) {
    if (event->buttons() != Qt::NoButton) {
        return;
    }
    const QString text = toolTipAt(event->position());
    if (text.isEmpty()) {
        QToolTip::hideText();
    } else {
        QToolTip::showText(m_plot->mapToGlobal(event->position().toPoint()), text, m_plot);
    }
}

void ParetoPlot::selectPlan(int index) {
    if (!m_outcome || index < 0 || index >= static_cast<int>(m_outcome->result.front.size())) {
        return;
    }
    m_selected = index;
    m_compared = -1;
    updateComparison();
    redraw();
    Q_EMIT planSelected(index);
}

void ParetoPlot::startHypervolume() {
    m_hypervolume->data()->clear();
    m_hypervolumePlot->setVisible(m_outcome != nullptr);
    m_hypervolumePlot->replot();
}

void ParetoPlot::addHypervolume(double hypervolume) {
    m_hypervolume->addData(m_hypervolume->dataCount(), hypervolume);
    m_hypervolumePlot->show(); // live while a search runs
    m_hypervolumePlot->rescaleAxes();
    m_hypervolumePlot->replot(QCustomPlot::rpQueuedReplot);
}

int ParetoPlot::hypervolumePointCount() const {
    return m_hypervolume->dataCount();
}

} // namespace paretune
