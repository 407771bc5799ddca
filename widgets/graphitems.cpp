// SPDX-License-Identifier: GPL-3.0-or-later
#include "graphitems.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPathStroker>
#include <QPen>
#include <QStyleOptionGraphicsItem>

namespace paretune {

namespace {

// Below these zoom levels the view skips what nobody can read, which keeps painting a whole
// BERT or Swin cheap.
constexpr qreal kTextDetail = 0.45;
constexpr qreal kArrowDetail = 0.25;

const QColor kHighlight(0x1f, 0x6f, 0xeb);

} // namespace

GraphNodeItem::GraphNodeItem(int outlineItem, const QRectF& rect, QString title, QString subtitle,
                             bool group)
    : QGraphicsRectItem(rect), m_outlineItem(outlineItem), m_title(std::move(title)),
      m_subtitle(std::move(subtitle)), m_group(group) {
    setPen(QPen(QColor(0x55, 0x55, 0x55), group ? 1.5 : 1.0));
    setZValue(1.0);
    setAcceptHoverEvents(false);
}

void GraphNodeItem::setHighlighted(bool highlighted) {
    if (highlighted != m_highlighted) {
        m_highlighted = highlighted;
        setZValue(highlighted ? 2.0 : 1.0);
        update();
    }
}

void GraphNodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option,
                          QWidget* /*widget*/) {
    const qreal detail = option->levelOfDetailFromTransform(painter->worldTransform());
    const QRectF box = rect();
    painter->setBrush(brush());
    painter->setPen(detail < kArrowDetail ? Qt::NoPen : pen());
    if (m_group) {
        // A folded group looks like a stack of boxes.
        painter->drawRoundedRect(box.translated(3.0, 3.0), 5.0, 5.0);
        painter->drawRoundedRect(box, 5.0, 5.0);
    } else {
        painter->drawRect(box);
    }
    if (m_highlighted) {
        QPen outline(kHighlight, 3.0);
        outline.setCosmetic(true);
        painter->setPen(outline);
        painter->setBrush(Qt::NoBrush);
        painter->drawRect(box.adjusted(-2.0, -2.0, 2.0, 2.0));
    }
    if (detail < kTextDetail) {
        return;
    }
    const QColor fill = brush().color();
    painter->setPen(fill.lightnessF() < 0.5 ? Qt::white : Qt::black);
    QFont font = painter->font();
    font.setPointSizeF(7.0);
    font.setBold(true);
    painter->setFont(font);
    const QRectF text = box.adjusted(4.0, 1.0, -4.0, -1.0);
    const QRectF upper(text.left(), text.top(), text.width(), text.height() / 2.0);
    const QRectF lower(text.left(), upper.bottom(), text.width(), text.height() / 2.0);
    painter->drawText(upper, Qt::AlignCenter,
                      QFontMetricsF(font).elidedText(m_title, Qt::ElideRight, upper.width()));
    font.setBold(false);
    font.setPointSizeF(6.0);
    painter->setFont(font);
    painter->drawText(lower, Qt::AlignCenter,
                      QFontMetricsF(font).elidedText(m_subtitle, Qt::ElideMiddle, lower.width()));
}

GraphEdgeItem::GraphEdgeItem(int outlineEdge, const QPainterPath& path, const QPolygonF& arrow)
    : QGraphicsPathItem(path), m_outlineEdge(outlineEdge), m_arrow(arrow) {
    setTransfer(false);
    setAcceptHoverEvents(true);
}

void GraphEdgeItem::setTransfer(bool transfer) {
    m_transfer = transfer;
    QPen line(transfer ? QColor(0xd6, 0x27, 0x28) : QColor(0x80, 0x80, 0x80), transfer ? 2.5 : 1.0);
    if (transfer) {
        line.setStyle(Qt::DashLine);
    }
    setPen(line);
}

QRectF GraphEdgeItem::boundingRect() const {
    return QGraphicsPathItem::boundingRect().united(m_arrow.boundingRect()).adjusted(-4, -4, 4, 4);
}

QPainterPath GraphEdgeItem::shape() const {
    if (m_shape.isEmpty()) {
        QPainterPathStroker stroker;
        stroker.setWidth(8.0);
        m_shape = stroker.createStroke(path());
        m_shape.addPolygon(m_arrow);
    }
    return m_shape;
}

void GraphEdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option,
                          QWidget* /*widget*/) {
    const qreal detail = option->levelOfDetailFromTransform(painter->worldTransform());
    QPen line = pen();
    if (detail < kArrowDetail) {
        line.setCosmetic(true); // a hairline: no stroking work when zoomed far out
        line.setWidthF(m_transfer ? 2.0 : 0.0);
    }
    painter->setPen(line);
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(path());
    if (detail >= kArrowDetail && !m_arrow.isEmpty()) {
        painter->setPen(Qt::NoPen);
        painter->setBrush(line.color());
        painter->drawPolygon(m_arrow);
    }
}

} // namespace paretune
