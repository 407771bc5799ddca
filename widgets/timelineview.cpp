// SPDX-License-Identifier: GPL-3.0-or-later
#include "timelineview.h"

#include "cost/cost_table.h"
#include "graph/graph.h"
#include "graph/precision.h"
#include "graphpalette.h"
#include "plan/simulator.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <map>

namespace paretune {

TimelineData timelineData(const Graph& graph, const CostTable& costs,
                          const SimulationResult& simulation, const QString& source,
                          std::span<const std::int32_t> variants) {
    TimelineData data;
    data.source = source;
    for (std::int32_t d = 0; d < costs.deviceCount(); ++d) {
        const CostDevice& device = costs.device(d);
        data.lanes.push_back({QString::fromStdString(device.id + " (" + device.kind + ")"), false,
                              QString::fromStdString(device.id), d, false});
    }
    std::map<std::int32_t, int> linkLane; // queue -> lane
    for (const TimelineSegment& s : simulation.timeline) {
        if (s.lane == TimelineSegment::Lane::Link && !linkLane.count(s.index)) {
            linkLane[s.index] = 0;
        }
    }
    for (auto& [queue, lane] : linkLane) {
        lane = static_cast<int>(data.lanes.size());
        data.lanes.push_back({QString::fromStdString(costs.queueLabel(queue)), true});
    }
    // A fusion group the plan takes is one segment, its last member's: labelled as the group.
    std::map<NodeId, const FusionGroup*> groupOfTail;
    for (const std::int32_t k : simulation.fusedGroups) {
        const FusionGroup& group = costs.fusionOptions()[static_cast<std::size_t>(k)].group;
        groupOfTail[group.tail()] = &group;
    }
    for (const TimelineSegment& s : simulation.timeline) {
        TimelineData::Bar bar;
        bar.beginUs = s.beginUs;
        bar.endUs = s.endUs;
        if (s.lane == TimelineSegment::Lane::Device) {
            const Node& node = graph.nodes[static_cast<std::size_t>(s.node)];
            bar.lane = s.index;
            bar.node = s.node;
            bar.label = QString::fromStdString(node.name);
            bar.kind = QString::fromStdString(node.opType);
            if (costs.variantCount() > 1) {
                const auto n = static_cast<std::size_t>(s.node);
                const std::int32_t v = n < variants.size() ? variants[n] : 0;
                bar.precision = QString::fromStdString(std::string(variantName(costs.variant(v))));
            }
            if (const auto group = groupOfTail.find(s.node); group != groupOfTail.end()) {
                bar.label =
                    QString::fromStdString(
                        graph.nodes[static_cast<std::size_t>(group->second->members[0])].name) +
                    QStringLiteral("+fused");
                bar.kind = QString::fromStdString(group->second->pattern);
            }
        } else {
            bar.lane = linkLane.at(s.index);
            bar.label =
                s.tensor >= 0
                    ? QString::fromStdString(graph.tensors[static_cast<std::size_t>(s.tensor)].name)
                    : QString();
            bar.kind = TimelineView::tr("transfer");
        }
        data.endUs = std::max(data.endUs, s.endUs);
        data.bars.push_back(bar);
    }
    data.endUs = std::max(data.endUs, simulation.objectives.latencyUs);
    return data;
}

QColor laneColour(const TimelineData& data, int lane) {
    if (lane < 0 || lane >= static_cast<int>(data.lanes.size())) {
        return {};
    }
    const TimelineData::Lane& l = data.lanes[static_cast<std::size_t>(lane)];
    if (l.link) {
        return {150, 150, 150}; // as the legend's "transfer"
    }
    return deviceColour(l.colour >= 0 ? l.colour : lane);
}

std::vector<std::pair<QString, QColor>> timelineLegend(const TimelineData& data) {
    std::vector<std::pair<QString, QColor>> entries;
    bool links = false;
    for (int lane = 0; lane < static_cast<int>(data.lanes.size()); ++lane) {
        const TimelineData::Lane& l = data.lanes[static_cast<std::size_t>(lane)];
        if (l.link) {
            links = true;
            continue;
        }
        const QString name = l.deviceId.isEmpty() ? l.label : l.deviceId;
        const QColor colour = laneColour(data, lane);
        const bool known = std::any_of(entries.begin(), entries.end(),
                                       [&](const auto& e) { return e.first == name; });
        if (!known) {
            entries.emplace_back(name, colour);
        }
    }
    if (links) {
        entries.emplace_back(TimelineView::tr("transfer"), QColor(150, 150, 150));
    }
    return entries;
}

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setMinimumHeight(kRulerHeight + 2 * kLaneHeight + kLegendHeight);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    updatePixelRange();
}

void TimelineView::setData(TimelineData data) {
    m_data = std::move(data);
    setMinimumHeight(kRulerHeight +
                     std::max<int>(2, static_cast<int>(m_data.lanes.size())) * kLaneHeight +
                     kLegendHeight);
    fit();
}

void TimelineView::clear() {
    setData({});
}

void TimelineView::setSelectedNode(int node) {
    if (node != m_selectedNode) {
        m_selectedNode = node;
        update();
    }
}

void TimelineView::fit() {
    updatePixelRange(); // a hidden widget gets no resize events
    m_time.setValueRange(0.0, m_data.endUs > 0.0 ? m_data.endUs : 1.0);
    update();
}

void TimelineView::updatePixelRange() {
    m_time.setPixelRange(kLabelWidth, std::max(kLabelWidth + 1, width() - 8));
}

void TimelineView::clampWindow() {
    const double end = m_data.endUs > 0.0 ? m_data.endUs : 1.0;
    // Zooming in stops at 1/10000 of the schedule (or 0.01 µs).
    m_time.clampTo(0.0, end, std::max(end * 1e-4, 0.01));
}

double TimelineView::laneTop(int lane) const {
    return kRulerHeight + lane * kLaneHeight;
}

QRectF TimelineView::barRect(int bar) const {
    if (bar < 0 || bar >= static_cast<int>(m_data.bars.size())) {
        return {};
    }
    const TimelineData::Bar& b = m_data.bars[static_cast<std::size_t>(bar)];
    const double x0 = m_time.toPixel(b.beginUs);
    // A bar stays at least one pixel wide so that short nodes remain visible and hoverable.
    const double x1 = std::max(m_time.toPixel(b.endUs), x0 + 1.0);
    return {QPointF(x0, laneTop(b.lane) + 3), QPointF(x1, laneTop(b.lane) + kLaneHeight - 3)};
}

int TimelineView::barAt(QPoint pos) const {
    if (pos.x() < kLabelWidth) {
        return -1;
    }
    int best = -1;
    double bestWidth = 0.0;
    for (int i = 0; i < static_cast<int>(m_data.bars.size()); ++i) {
        // Grow thin bars to 3 px for picking; of overlapping candidates the narrowest wins.
        QRectF r = barRect(i);
        if (r.width() < 3.0) {
            r.adjust(-(3.0 - r.width()) / 2, 0, (3.0 - r.width()) / 2, 0);
        }
        if (r.contains(pos) && (best < 0 || r.width() < bestWidth)) {
            best = i;
            bestWidth = r.width();
        }
    }
    return best;
}

QString TimelineView::toolTipAt(QPoint pos) const {
    const int i = barAt(pos);
    if (i < 0) {
        return {};
    }
    const TimelineData::Bar& b = m_data.bars[static_cast<std::size_t>(i)];
    QString where = m_data.lanes[static_cast<std::size_t>(b.lane)].label;
    if (!b.precision.isEmpty()) {
        where = tr("%1 · %2").arg(where, b.precision); // the device and how the node runs there
    }
    return tr("<b>%1</b> (%2) on %3<br>start %4, end %5, duration %6<br><i>%7</i>")
        .arg(b.label.toHtmlEscaped(), b.kind.toHtmlEscaped(), where.toHtmlEscaped(),
             formatMicroseconds(b.beginUs), formatMicroseconds(b.endUs),
             formatMicroseconds(b.endUs - b.beginUs), m_data.source.toHtmlEscaped());
}

void TimelineView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (m_data.lanes.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter,
                   tr("No plan selected: search placements and pick a plan on the Pareto front."));
        return;
    }
    // Ruler: about one tick per 100 px at a round step.
    const double pixels = m_time.pixelHi() - m_time.pixelLo();
    const double rough = m_time.valueSpan() * 100.0 / std::max(pixels, 1.0);
    const double magnitude = std::pow(10.0, std::floor(std::log10(std::max(rough, 1e-9))));
    double step = magnitude;
    for (const double m : {1.0, 2.0, 5.0, 10.0}) {
        if (m * magnitude >= rough) {
            step = m * magnitude;
            break;
        }
    }
    const QColor gridColor = palette().color(QPalette::Mid);
    p.setPen(palette().color(QPalette::Text));
    for (double t = std::ceil(m_time.valueLo() / step) * step; t <= m_time.valueHi(); t += step) {
        const double x = m_time.toPixel(t);
        p.setPen(gridColor);
        p.drawLine(QPointF(x, kRulerHeight - 4),
                   QPointF(x, laneTop(static_cast<int>(m_data.lanes.size()))));
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QPointF(x + 2, kRulerHeight - 7), formatMicroseconds(t));
    }
    // Lanes.
    QFont tagFont = font();
    tagFont.setItalic(true);
    tagFont.setPointSizeF(std::max(6.0, font().pointSizeF() - 1.0));
    const QFontMetrics tagMetrics(tagFont);
    for (int lane = 0; lane < static_cast<int>(m_data.lanes.size()); ++lane) {
        const QRectF row(0, laneTop(lane), width(), kLaneHeight);
        if (lane % 2 == 1) {
            p.fillRect(row, palette().alternateBase());
        }
        const TimelineData::Lane& l = m_data.lanes[static_cast<std::size_t>(lane)];
        // The device's colour beside its name, and whether the lane is simulated or measured.
        int textLeft = 4;
        if (!l.link) {
            p.fillRect(QRectF(4, row.top() + 7, 4, kLaneHeight - 14), laneColour(m_data, lane));
            textLeft = 12;
        }
        const QString tag = l.link ? QString() : laneTag(l.measured);
        const int tagWidth = tag.isEmpty() ? 0 : tagMetrics.horizontalAdvance(tag) + 6;
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRectF(textLeft, row.top(), kLabelWidth - 4 - textLeft - tagWidth, kLaneHeight),
                   Qt::AlignVCenter | Qt::AlignLeft,
                   p.fontMetrics().elidedText(l.label, Qt::ElideRight,
                                              kLabelWidth - 4 - textLeft - tagWidth));
        if (!tag.isEmpty()) {
            p.save();
            p.setFont(tagFont);
            p.setPen(l.measured ? QColor(200, 0, 120) : palette().color(QPalette::PlaceholderText));
            p.drawText(QRectF(kLabelWidth - 4 - tagWidth, row.top(), tagWidth, kLaneHeight),
                       Qt::AlignVCenter | Qt::AlignRight, tag);
            p.restore();
        }
    }
    paintLegend(p);
    const double lanesBottom = laneTop(static_cast<int>(m_data.lanes.size()));
    p.setClipRect(
        QRectF(kLabelWidth, kRulerHeight, width() - kLabelWidth, lanesBottom - kRulerHeight));
    const QRectF visible(kLabelWidth, 0, width() - kLabelWidth, height());
    for (int i = 0; i < static_cast<int>(m_data.bars.size()); ++i) {
        const TimelineData::Bar& b = m_data.bars[static_cast<std::size_t>(i)];
        const QRectF r = barRect(i);
        if (!r.intersects(visible)) {
            continue;
        }
        const QColor fill = laneColour(m_data, b.lane);
        const bool selected = b.node >= 0 && b.node == m_selectedNode;
        p.setPen(selected ? QPen(QColor(214, 39, 40), 2) : QPen(fill.darker(140)));
        p.setBrush(fill);
        p.drawRect(r);
        if (r.width() > 40) {
            p.setPen(Qt::white);
            p.drawText(r.adjusted(3, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft,
                       p.fontMetrics().elidedText(b.label, Qt::ElideRight,
                                                  static_cast<int>(r.width()) - 6));
        }
    }
}

QString TimelineView::laneTag(bool measured) {
    return measured ? tr("measured") : tr("simulated");
}

void TimelineView::paintLegend(QPainter& p) const {
    const double top = laneTop(static_cast<int>(m_data.lanes.size())) + 4;
    double x = kLabelWidth;
    p.setPen(palette().color(QPalette::Text));
    const QFontMetrics metrics = p.fontMetrics();
    for (const auto& [name, colour] : timelineLegend(m_data)) {
        const int textWidth = metrics.horizontalAdvance(name);
        if (x + 18 + textWidth > width()) {
            break; // the rest would be cut at the edge
        }
        p.fillRect(QRectF(x, top + 4, 12, kLegendHeight - 12), colour);
        p.drawText(QRectF(x + 16, top, textWidth + 2, kLegendHeight - 4),
                   Qt::AlignVCenter | Qt::AlignLeft, name);
        x += 16 + textWidth + 18;
    }
}

void TimelineView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    updatePixelRange();
}

void TimelineView::wheelEvent(QWheelEvent* event) {
    const double steps = event->angleDelta().y() / 120.0;
    if (steps == 0.0) {
        return;
    }
    m_time.zoom(std::pow(1.25, steps), std::max<double>(event->position().x(), kLabelWidth));
    clampWindow();
    update();
    event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton) {
        m_pressed = true;
        m_dragging = false;
        m_pressPos = event->position().toPoint();
        m_lastDragPos = m_pressPos;
    }
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
    const QPoint pos = event->position().toPoint();
    if (m_pressed && (m_dragging || (pos - m_pressPos).manhattanLength() > 3)) {
        m_dragging = true;
        m_time.pan(pos.x() - m_lastDragPos.x());
        clampWindow();
        m_lastDragPos = pos;
        update();
    }
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || !m_pressed) {
        return;
    }
    m_pressed = false;
    if (m_dragging) {
        m_dragging = false;
        return;
    }
    const int i = barAt(event->position().toPoint());
    if (i >= 0 && m_data.bars[static_cast<std::size_t>(i)].node >= 0) {
        const int node = m_data.bars[static_cast<std::size_t>(i)].node;
        setSelectedNode(node);
        Q_EMIT nodeClicked(node);
    }
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent*) {
    fit();
}

bool TimelineView::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty()) {
            QToolTip::hideText();
        } else {
            QToolTip::showText(help->globalPos(), text, this);
        }
        return true;
    }
    return QWidget::event(event);
}

} // namespace paretune
