// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QColor>
#include <QString>
#include <QWidget>

#include <cstdint>
#include <utility>
#include <vector>

namespace paretune {

class CostTable;
struct Graph;
struct MemoryPlan;

/// What the memory view draws: per device, its arena over the device's schedule steps, one
/// block per tensor (steps first..last, bytes offset..offset + bytes).
struct MemoryViewData {
    struct Block {
        int first = 0; ///< first step, inclusive
        int last = 0;  ///< last step, inclusive
        double offset = 0.0;
        double bytes = 0.0;
        QString label; ///< tensor name, or "workspace of NODE"
        QString kind;  ///< activation, copy, graph_input, workspace
        bool inPlace = false;
        int node = -1; ///< producer (activations) or owner (workspace); -1: none
    };
    struct Device {
        QString id;
        int colour = 0; ///< deviceColour index (cost-table device index)
        int steps = 0;
        double arenaBytes = 0.0;
        double naiveBytes = 0.0;
        double livePeakBytes = 0.0;
        double weightsBytes = 0.0;
        double workspaceBytes = 0.0;
        int inPlace = 0;
        std::vector<Block> blocks;
    };
    std::vector<Device> devices;
};

/// The devices of a memory plan that hold anything, in cost-table order.
MemoryViewData memoryViewData(const Graph& graph, const CostTable& costs, const MemoryPlan& plan);

/// The colour a block is filled with: the device's for activations, lighter for copies, grey
/// for graph inputs, amber for workspace.
QColor memoryBlockColour(const MemoryViewData::Device& device, const MemoryViewData::Block& block);

/// Arena occupancy of a plan, one band per device: x = the device's schedule steps, y = the
/// arena offset (0 at the bottom), a rectangle per tensor while it is live; a heading with the
/// arena against the naive sum and the live peak. Hovering a block shows the tensor, its size,
/// offset and steps; clicking one emits nodeClicked with its node.
class MemoryView : public QWidget {
    Q_OBJECT
public:
    explicit MemoryView(QWidget* parent = nullptr);

    void setData(MemoryViewData data);
    void clear();
    const MemoryViewData& data() const { return m_data; }

    /// The rectangle block `block` of device `device` is drawn in (widget pixels).
    QRectF blockRect(int device, int block) const;
    /// The plot area of a device's band (steps across, offsets up).
    QRectF plotRect(int device) const;
    /// (device, block) under a widget point, or (-1, -1).
    std::pair<int, int> blockAt(QPoint pos) const;
    /// The hover text for a widget point (empty when no block is there).
    QString toolTipAt(QPoint pos) const;
    /// The heading of a device's band.
    static QString headingOf(const MemoryViewData::Device& device);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

    static constexpr int kHeadingHeight = 22;
    static constexpr int kBandHeight = 150;
    static constexpr int kAxisWidth = 70; ///< offset labels on the left
    static constexpr int kMargin = 8;

Q_SIGNALS:
    void nodeClicked(int node);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    double bandTop(int device) const;

    MemoryViewData m_data;
};

} // namespace paretune
