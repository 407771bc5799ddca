#pragma once

#include "search/objective.h"

#include <QWidget>

#include <memory>
#include <vector>

class QComboBox;
class QCustomPlot;
class QCPAbstractPlottable;
class QCPGraph;
class QLabel;
class QMouseEvent;

namespace paretune {

struct SearchOutcome;

/// Value of an objective in the unit the views show (latency ms, energy mJ, power W,
/// memory MiB), and that unit's axis label.
double displayValue(const Objectives& objectives, Objective objective);
QString objectiveAxisLabel(Objective objective);

/// Scatter of a search's Pareto front (QCustomPlot): X and Y objectives chosen in combo boxes,
/// baselines drawn and labelled (dominated ones faint), a click on a front point selects that
/// plan. Every figure is tagged with the source of its costs.
class ParetoPlot : public QWidget {
    Q_OBJECT
public:
    explicit ParetoPlot(QWidget* parent = nullptr);
    ~ParetoPlot() override;

    void setOutcome(std::shared_ptr<const SearchOutcome> outcome);
    void setAxes(Objective x, Objective y);

    /// Selects front plan `index` (in SearchResult::front), as a click on it does.
    void selectPlan(int index);
    int selectedPlan() const { return m_selected; }
    /// Number of front points drawn.
    int pointCount() const;
    QCustomPlot* plot() const { return m_plot; }

Q_SIGNALS:
    void planSelected(int index);

private:
    void redraw();
    void pointClicked(QCPAbstractPlottable* plottable, int dataIndex);

    QComboBox* m_xAxis = nullptr;
    QComboBox* m_yAxis = nullptr;
    QLabel* m_source = nullptr;
    QCustomPlot* m_plot = nullptr;
    QCPGraph* m_front = nullptr;
    QCPGraph* m_baselines = nullptr;
    QCPGraph* m_selection = nullptr;
    std::shared_ptr<const SearchOutcome> m_outcome;
    std::vector<int> m_frontOrder; ///< front graph data index -> SearchResult::front index
    int m_selected = -1;
};

} // namespace paretune
