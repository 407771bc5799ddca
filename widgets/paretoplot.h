// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "axismapping.h"
#include "measuredpoints.h"
#include "objectivetexts.h"
#include "search/objective.h"

#include <QRectF>
#include <QWidget>

#include <memory>
#include <vector>

class QComboBox;
class QCustomPlot;
class QCPColorScale;
class QCPErrorBars;
class QCPGraph;
class QCPItemText;
class QLabel;
class QMouseEvent;

namespace paretune {

struct SearchOutcome;
struct Solution;

/// Scatter of a search's Pareto front (QCustomPlot): X and Y objectives chosen in combo boxes,
/// the third objective as the points' colour (with a colour scale), baselines drawn and labelled
/// (dominated ones faint). Hovering a point shows all its objectives; a click selects that plan,
/// a Ctrl+click picks a second plan to compare with the selected one (objective deltas and the
/// nodes whose device differs). Below, the hypervolume by generation, live while a search runs.
/// Every figure is tagged with the source of its costs. Point positions come from
/// mapping(), an objective <-> pixel PlaneMapping of the plot's current axes. After a tune, the
/// plans measured on this machine are drawn beside their simulated points: at the measured
/// median latency (p10–p90 as error bars along the latency axis), joined to the simulated point
/// by a line; the front plans' tooltips say which claims over the baselines the measurements
/// confirm or contradict.
class ParetoPlot : public QWidget {
    Q_OBJECT
public:
    explicit ParetoPlot(QWidget* parent = nullptr);
    ~ParetoPlot() override;

    /// Shows a search's front; clears the measured points.
    void setOutcome(std::shared_ptr<const SearchOutcome> outcome);
    /// Plans of the shown outcome measured on this machine (a tune's last round), and the
    /// claims of its front plans over the baselines (`claims[i]`: front plan i; may be shorter).
    void setMeasured(std::vector<MeasuredPoint> points,
                     std::vector<std::vector<PlanClaim>> claims = {});
    const std::vector<MeasuredPoint>& measuredPoints() const { return m_measured; }
    /// The graph of the measured points drawn now (none when neither axis shows latency) and
    /// its p10–p90 error bars, in the graph's (key-sorted) order.
    QCPGraph* measuredGraph() const { return m_measuredGraph; }
    QCPErrorBars* measuredErrorBars() const { return m_measuredBars; }
    void setAxes(Objective x, Objective y);
    Objective xObjective() const;
    Objective yObjective() const;
    /// The objective shown as colour (neither X nor Y).
    Objective colourObjective() const { return m_colour; }

    /// Selects front plan `index` (in SearchResult::front), as a click on it does.
    void selectPlan(int index);
    int selectedPlan() const { return m_selected; }
    /// Compares the selected plan with front plan `index` (-1 ends the comparison).
    void comparePlan(int index);
    int comparedPlan() const { return m_compared; }
    /// The comparison text (empty without a comparison).
    QString comparisonText() const;

    /// Number of front points drawn.
    int pointCount() const;
    QCustomPlot* plot() const { return m_plot; }
    /// Objective values <-> pixels of plot() for the axes as drawn now.
    PlaneMapping mapping() const;
    /// Where front plan `index` is drawn, in plot() pixels.
    QPointF pointPixel(int index) const;
    /// Front plan drawn within `radius` pixels of a plot() point (the nearest), or -1.
    int planAt(QPointF pixel, double radius = 8.0) const;
    /// Hover text at a plot() point: all objectives of the plan or baseline there.
    QString toolTipAt(QPointF pixel) const;

    /// Where the baseline labels shown are drawn, in plot() pixels (as of the last drawing);
    /// a label that fits nowhere without overlapping another or the plot's edge is hidden.
    std::vector<QRectF> baselineLabelRects() const;
    /// The "No plans yet" message shown in place of axes before there is a search.
    QLabel* emptyMessage() const { return m_empty; }

    /// Hypervolume curve: clears it for a new search / appends one generation's value.
    void startHypervolume();
    void addHypervolume(double hypervolume);
    int hypervolumePointCount() const;

Q_SIGNALS:
    void planSelected(int index);
    void comparisonChanged(int selected, int compared);

private:
    void redraw();
    void chooseColourObjective();
    void updateComparison();
    void mousePressed(QMouseEvent* event);
    void mouseReleased(QMouseEvent* event);
    void mouseMoved(QMouseEvent* event);
    /// Front plan or baseline nearest to a plot() point within radius: (index, isBaseline).
    std::pair<int, bool> pointAt(QPointF pixel, double radius) const;
    QString describe(const Solution& solution, const QString& title) const;
    /// What was measured of a plan, and (front plan `frontIndex`) its claims, as tooltip lines.
    QString tuneNotes(const Solution& solution, int frontIndex) const;
    void drawMeasured(Objective x, Objective y);
    /// Axes, colour scale and legend with a search; the "No plans yet" message without one.
    void showAxes(bool shown);
    void placeBaselineLabels();

    /// A baseline's label and the point (plot coordinates) it names.
    struct BaselineLabel {
        QCPItemText* item;
        double x;
        double y;
    };

    QComboBox* m_xAxis = nullptr;
    QComboBox* m_yAxis = nullptr;
    QLabel* m_colourLabel = nullptr;
    QLabel* m_source = nullptr;
    QLabel* m_comparison = nullptr;
    QLabel* m_empty = nullptr;
    QCustomPlot* m_plot = nullptr;
    QCPColorScale* m_colourScale = nullptr;
    QCPGraph* m_front = nullptr;
    QCPGraph* m_baselines = nullptr;
    QCPGraph* m_faintBaselines = nullptr;
    QCPGraph* m_selection = nullptr;
    QCPGraph* m_comparedMark = nullptr;
    QCPGraph* m_measuredGraph = nullptr;
    QCPErrorBars* m_measuredBars = nullptr;
    std::vector<QCPGraph*> m_colourBins;
    std::vector<BaselineLabel> m_baselineLabels;
    QCustomPlot* m_hypervolumePlot = nullptr;
    QCPGraph* m_hypervolume = nullptr;
    std::shared_ptr<const SearchOutcome> m_outcome;
    std::vector<MeasuredPoint> m_measured;
    std::vector<std::vector<PlanClaim>> m_claims;
    Objective m_colour = Objective::PeakMemory;
    int m_selected = -1;
    int m_compared = -1;
    QPointF m_pressPos;
};

} // namespace paretune
