// SPDX-License-Identifier: GPL-3.0-or-later
#include "memoryview.h"

#include "cost/cost_table.h"
#include "graph/graph.h"
#include "graphpalette.h"
#include "plan/memory_plan.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace paretune {

namespace {

QString bytesText(double bytes) {
    if (bytes >= 1024.0 * 1024.0) {
        return QStringLiteral("%1 MiB").arg(bytes / (1024.0 * 1024.0), 0, 'f', 2);
    }
    if (bytes >= 1024.0) {
        return QStringLiteral("%1 KiB").arg(bytes / 1024.0, 0, 'f', 1);
    }
    return QStringLiteral("%1 B").arg(bytes, 0, 'f', 0);
}

} // namespace

MemoryViewData memoryViewData(const Graph& graph, const CostTable& costs, const MemoryPlan& plan) {
    MemoryViewData data;
    for (const DeviceMemoryPlan& d : plan.devices) {
        if (d.steps.empty() && d.tensors.empty()) {
            continue;
        }
        MemoryViewData::Device device;
        device.id = QString::fromStdString(costs.device(d.device).id);
        device.colour = d.device;
        device.steps = std::max(static_cast<int>(d.steps.size()), 1);
        device.arenaBytes = static_cast<double>(d.arenaBytes);
        device.naiveBytes = static_cast<double>(d.naiveBytes);
        device.livePeakBytes = static_cast<double>(d.livePeakBytes);
        device.weightsBytes = static_cast<double>(d.weightsBytes);
        device.workspaceBytes = static_cast<double>(d.workspaceBytes);
        device.inPlace = d.inPlaceCount;
        for (const PlannedTensor& t : d.tensors) {
            MemoryViewData::Block b;
            b.first = t.first;
            b.last = t.last;
            b.offset = static_cast<double>(t.offset);
            b.bytes = static_cast<double>(t.bytes);
            b.kind = QString::fromLatin1(arenaTensorKindName(t.kind));
            b.inPlace = t.inPlaceOf >= 0;
            b.node = t.node;
            if (t.kind == ArenaTensorKind::Workspace) {
                b.label = MemoryView::tr("workspace of %1")
                              .arg(QString::fromStdString(
                                  graph.nodes[static_cast<std::size_t>(t.node)].name));
            } else {
                b.label =
                    QString::fromStdString(graph.tensors[static_cast<std::size_t>(t.tensor)].name);
            }
            device.blocks.push_back(std::move(b));
        }
        data.devices.push_back(std::move(device));
    }
    return data;
}

QColor memoryBlockColour(const MemoryViewData::Device& device, const MemoryViewData::Block& block) {
    if (block.kind == QLatin1String("workspace")) {
        return {230, 160, 40};
    }
    if (block.kind == QLatin1String("graph_input")) {
        return {150, 150, 150};
    }
    const QColor colour = deviceColour(device.colour);
    return block.kind == QLatin1String("copy") ? colour.lighter(140) : colour;
}

MemoryView::MemoryView(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setObjectName(QStringLiteral("memoryView"));
}

void MemoryView::setData(MemoryViewData data) {
    m_data = std::move(data);
    updateGeometry();
    update();
}

void MemoryView::clear() {
    setData({});
}

QSize MemoryView::sizeHint() const {
    const int bands = std::max(static_cast<int>(m_data.devices.size()), 1);
    return {640, kMargin + bands * (kHeadingHeight + kBandHeight + kMargin)};
}

QSize MemoryView::minimumSizeHint() const {
    return {240, 120};
}

double MemoryView::bandTop(int device) const {
    return kMargin + device * (kHeadingHeight + kBandHeight + kMargin);
}

QRectF MemoryView::plotRect(int device) const {
    const double top = bandTop(device) + kHeadingHeight;
    return {static_cast<double>(kAxisWidth), top,
            std::max(1.0, static_cast<double>(width() - kAxisWidth - kMargin)),
            static_cast<double>(kBandHeight)};
}

QRectF MemoryView::blockRect(int device, int block) const {
    if (device < 0 || device >= static_cast<int>(m_data.devices.size())) {
        return {};
    }
    const MemoryViewData::Device& d = m_data.devices[static_cast<std::size_t>(device)];
    if (block < 0 || block >= static_cast<int>(d.blocks.size())) {
        return {};
    }
    const MemoryViewData::Block& b = d.blocks[static_cast<std::size_t>(block)];
    const QRectF plot = plotRect(device);
    const double perStep = plot.width() / std::max(d.steps, 1);
    const double perByte = plot.height() / std::max(d.arenaBytes, 1.0);
    const double left = plot.left() + b.first * perStep;
    const double right = plot.left() + (b.last + 1) * perStep;
    const double bottom = plot.bottom() - b.offset * perByte;
    const double top = plot.bottom() - (b.offset + b.bytes) * perByte;
    return {QPointF(left, top), QPointF(right, bottom)};
}

std::pair<int, int> MemoryView::blockAt(QPoint pos) const {
    for (int d = 0; d < static_cast<int>(m_data.devices.size()); ++d) {
        if (!plotRect(d).contains(pos)) {
            continue;
        }
        const auto& blocks = m_data.devices[static_cast<std::size_t>(d)].blocks;
        // The smallest block under the point: a small tensor drawn over a large one wins.
        int best = -1;
        for (int b = 0; b < static_cast<int>(blocks.size()); ++b) {
            if (blocks[static_cast<std::size_t>(b)].bytes > 0 && blockRect(d, b).contains(pos) &&
                (best < 0 || blocks[static_cast<std::size_t>(b)].bytes <
                                 blocks[static_cast<std::size_t>(best)].bytes)) {
                best = b;
            }
        }
        if (best >= 0) {
            return {d, best};
        }
    }
    return {-1, -1};
}

QString MemoryView::toolTipAt(QPoint pos) const {
    const auto [d, b] = blockAt(pos);
    if (d < 0) {
        return {};
    }
    const MemoryViewData::Block& block =
        m_data.devices[static_cast<std::size_t>(d)].blocks[static_cast<std::size_t>(b)];
    QString text =
        tr("%1 (%2): %3 at offset %4, steps %5 to %6")
            .arg(block.label, block.kind, bytesText(block.bytes), bytesText(block.offset))
            .arg(block.first)
            .arg(block.last);
    if (block.inPlace) {
        text += tr(", written in place of its input");
    }
    return text;
}

QString MemoryView::headingOf(const MemoryViewData::Device& device) {
    QString text = tr("%1: arena %2 (naive %3, live peak %4), weights %5, largest workspace %6")
                       .arg(device.id, bytesText(device.arenaBytes), bytesText(device.naiveBytes),
                            bytesText(device.livePeakBytes), bytesText(device.weightsBytes),
                            bytesText(device.workspaceBytes));
    if (device.inPlace > 0) {
        text += tr(", %n written in place", nullptr, device.inPlace);
    }
    return text;
}

void MemoryView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (m_data.devices.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter,
                   tr("No plan selected: pick a plan on the Pareto front to see its memory plan."));
        return;
    }
    const QColor text = palette().color(QPalette::Text);
    for (int d = 0; d < static_cast<int>(m_data.devices.size()); ++d) {
        const MemoryViewData::Device& device = m_data.devices[static_cast<std::size_t>(d)];
        const QRectF plot = plotRect(d);
        p.setPen(text);
        p.drawText(QRectF(kMargin, bandTop(d), width() - 2 * kMargin, kHeadingHeight),
                   Qt::AlignLeft | Qt::AlignVCenter, headingOf(device));
        p.setPen(palette().color(QPalette::Mid));
        p.drawRect(plot);
        p.setPen(text);
        p.drawText(QRectF(0, plot.top(), kAxisWidth - 4, 16), Qt::AlignRight | Qt::AlignTop,
                   bytesText(device.arenaBytes));
        p.drawText(QRectF(0, plot.bottom() - 16, kAxisWidth - 4, 16),
                   Qt::AlignRight | Qt::AlignBottom, QStringLiteral("0"));
        for (int b = 0; b < static_cast<int>(device.blocks.size()); ++b) {
            const MemoryViewData::Block& block = device.blocks[static_cast<std::size_t>(b)];
            if (block.bytes <= 0) {
                continue;
            }
            const QRectF r = blockRect(d, b);
            p.fillRect(r, memoryBlockColour(device, block));
            if (r.width() > 3 && r.height() > 3) {
                p.setPen(QPen(palette().color(QPalette::Base), 0,
                              block.inPlace ? Qt::DashLine : Qt::SolidLine));
                p.drawRect(r);
            }
        }
    }
}

void MemoryView::mousePressEvent(QMouseEvent* event) {
    const auto [d, b] = blockAt(event->position().toPoint());
    if (d >= 0) {
        const int node =
            m_data.devices[static_cast<std::size_t>(d)].blocks[static_cast<std::size_t>(b)].node;
        if (node >= 0) {
            Q_EMIT nodeClicked(node);
        }
    }
    QWidget::mousePressEvent(event);
}

bool MemoryView::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty()) {
            QToolTip::hideText();
            event->ignore();
        } else {
            QToolTip::showText(help->globalPos(), text, this);
        }
        return true;
    }
    return QWidget::event(event);
}

} // namespace paretune
