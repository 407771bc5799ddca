// SPDX-License-Identifier: GPL-3.0-or-later
// The Pareto plot's comparison of two plans: the objective deltas and the nodes whose device
// differs, below the plot.
#include "paretoplot.h"

#include "graph/onnx_importer.h"
#include "placementsearch.h"
#include "planschedule.h"

#include <QLabel>

namespace paretune {

void ParetoPlot::comparePlan(int index) {
    if (!m_outcome || index >= static_cast<int>(m_outcome->result.front.size())) {
        return;
    }
    if (m_selected < 0 && index >= 0) {
        selectPlan(index); // nothing to compare with yet: this becomes the selected plan
        return;
    }
    m_compared = index < 0 || index == m_selected ? -1 : index;
    updateComparison();
    redraw();
    Q_EMIT comparisonChanged(m_selected, m_compared);
}

QString ParetoPlot::comparisonText() const {
    return m_comparison->isHidden() ? QString() : m_comparison->text();
}

void ParetoPlot::updateComparison() {
    if (!m_outcome || m_selected < 0 || m_compared < 0) {
        m_comparison->clear();
        m_comparison->hide();
        return;
    }
    const SearchResult& r = m_outcome->result;
    const Objectives& a = r.front[static_cast<std::size_t>(m_selected)].objectives;
    const Objectives& b = r.front[static_cast<std::size_t>(m_compared)].objectives;
    QString text = tr("<b>Plan %1 vs plan %2</b> (simulated; costs %3):")
                       .arg(m_compared)
                       .arg(m_selected)
                       .arg(m_outcome->costSource.toHtmlEscaped());
    for (const Objective o : kShownObjectives) {
        const double va = displayValue(a, o);
        const double vb = displayValue(b, o);
        text += QStringLiteral(" ") +
                tr("%1 %2%3 %4 (%5%6 %)")
                    .arg(objectiveTitle(o))
                    .arg(vb - va >= 0 ? QStringLiteral("+") : QString())
                    .arg(vb - va, 0, 'g', 4)
                    .arg(objectiveUnit(o))
                    .arg(vb - va >= 0 ? QStringLiteral("+") : QString())
                    .arg(va != 0.0 ? (vb - va) / va * 100.0 : 0.0, 0, 'f', 1) +
                QStringLiteral(";");
    }
    const std::vector<NodeId> moved = nodesOnDifferentDevices(*m_outcome, m_selected, m_compared);
    const PlanSchedule sa = simulateFrontPlan(*m_outcome, m_selected);
    const PlanSchedule sb = simulateFrontPlan(*m_outcome, m_compared);
    text += QStringLiteral("<br>") +
            tr("%n node(s) on different devices", "", static_cast<int>(moved.size()));
    constexpr std::size_t kListed = 12;
    for (std::size_t i = 0; i < moved.size() && i < kListed; ++i) {
        const auto n = static_cast<std::size_t>(moved[i]);
        text += (i == 0 ? QStringLiteral(": ") : QStringLiteral(", ")) +
                QString::fromStdString(m_outcome->model->graph.nodes[n].name).toHtmlEscaped() +
                QStringLiteral(" ") +
                QString::fromStdString(
                    m_outcome->deviceIds[static_cast<std::size_t>(sa.plan.device[n])]) +
                QStringLiteral("→") +
                QString::fromStdString(
                    m_outcome->deviceIds[static_cast<std::size_t>(sb.plan.device[n])]);
    }
    if (moved.size() > kListed) {
        text += tr(", and %1 more").arg(moved.size() - kListed);
    }
    m_comparison->setText(text);
    m_comparison->show();
}

} // namespace paretune
