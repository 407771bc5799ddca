// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "axismapping.h"

#include <QColor>
#include <QString>
#include <QWidget>

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

class QPainter;

namespace paretune {

class CostTable;
struct Graph;
struct SimulationResult;

/// What the timeline draws: lanes (devices, then link queues) and bars on them.
struct TimelineData {
    struct Lane {
        Lane(QString laneLabel = {}, bool isLink = false, QString device = {}, int colourIndex = -1,
             bool isMeasured = false)
            : label(std::move(laneLabel)), link(isLink), deviceId(std::move(device)),
              colour(colourIndex), measured(isMeasured) {}

        QString label;
        bool link = false;
        QString deviceId;      ///< the device of a device lane (simulated or measured)
        int colour = -1;       ///< deviceColour index, the same in a device's lanes; -1: lane's
        bool measured = false; ///< times measured on this machine, not simulated
    };
    struct Bar {
        int lane = 0;
        double beginUs = 0.0;
        double endUs = 0.0;
        int node = -1; ///< graph node of a device bar; -1 for a transfer
        QString label; ///< node name, or the tensor crossing the link
        QString kind;  ///< op type, or "transfer"
        /// The precision the node computes in ("bf16"); empty for a transfer and where the
        /// plan has no precisions to choose from.
        QString precision;
    };
    std::vector<Lane> lanes;
    std::vector<Bar> bars;
    double endUs = 0.0; ///< makespan (or the last bar's end)
    QString source;     ///< where the times came from, e.g. "simulated, costs modelled from ..."
};

/// The colour of a lane's bars: its device's (the same in the simulated and the measured lane),
/// grey for a link.
QColor laneColour(const TimelineData& data, int lane);
/// The timeline's legend: one entry per device drawn (its id and colour, in lane order), then
/// the links' grey when a transfer is drawn.
std::vector<std::pair<QString, QColor>> timelineLegend(const TimelineData& data);

/// One lane per device and per link queue of the cost table, bars from the simulation's
/// timeline. Lanes of links no transfer used are left out. When the cost table offers
/// precisions besides fp32, each node's bar names its precision, from `variants` (the plan's
/// variant per graph node, Plan::variant; empty or short: fp32).
TimelineData timelineData(const Graph& graph, const CostTable& costs,
                          const SimulationResult& simulation, const QString& source,
                          std::span<const std::int32_t> variants = {});

/// Gantt view of a plan's schedule: one lane per device and per link, each device lane tagged
/// "simulated" or "measured", a legend of the device colours below; zoom with the wheel
/// (around the cursor), pan by dragging, double-click to fit; hovering a bar shows its node (or
/// tensor), its device and precision ("cpu:0 (cpu) · bf16") and times; clicking a node's bar emits
/// nodeClicked. The time axis is an AxisMapping.
class TimelineView : public QWidget {
    Q_OBJECT
public:
    explicit TimelineView(QWidget* parent = nullptr);

    void setData(TimelineData data);
    void clear();
    const TimelineData& data() const { return m_data; }
    /// Highlights the bars of a node (-1: none).
    void setSelectedNode(int node);
    int selectedNode() const { return m_selectedNode; }

    /// Shows the whole schedule.
    void fit();
    const AxisMapping& timeAxis() const { return m_time; }
    /// Index into data().bars of the bar under a widget point, or -1.
    int barAt(QPoint pos) const;
    /// The rectangle a bar is drawn in (widget pixels).
    QRectF barRect(int bar) const;
    /// The hover text for a widget point (empty when no bar is there).
    QString toolTipAt(QPoint pos) const;

    static constexpr int kLabelWidth = 170; ///< the lane's name and its simulated/measured tag
    static constexpr int kRulerHeight = 22;
    static constexpr int kLaneHeight = 24;
    static constexpr int kLegendHeight = 24;

Q_SIGNALS:
    void nodeClicked(int node);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    void updatePixelRange();
    void clampWindow();
    double laneTop(int lane) const;
    void paintLegend(QPainter& painter) const;
    static QString laneTag(bool measured);

    TimelineData m_data;
    AxisMapping m_time;
    int m_selectedNode = -1;
    QPoint m_pressPos;
    QPoint m_lastDragPos;
    bool m_dragging = false;
    bool m_pressed = false;
};

} // namespace paretune
