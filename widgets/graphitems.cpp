// SPDX-License-Identifier: GPL-3.0-or-later
#include "graphitems.h"

#include "graphpalette.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPathStroker>
#include <QPen>
#include <QStyleOptionGraphicsItem>

#include <algorithm>
#include <cmath>

namespace paretune {

namespace {

// Below this zoom level the view skips arrow heads and outlines, which keeps painting a whole
// BERT or Swin cheap; text is skipped where nodeLabel() finds it unreadable.
constexpr qreal kArrowDetail = 0.25;
constexpr int kTitlePixels = 10;
constexpr int kSubtitlePixels = 8;

const QColor kHighlight(0x1f, 0x6f, 0xeb);

} // namespace

NodeLabel nodeLabel(const QSizeF& box, qreal detail, bool hasSubtitle) {
    NodeLabel label;
    if (detail <= 0.0) {
        return label;
    }
    const qreal readable = NodeLabel::kReadablePixels / detail; // in scene units
    if (hasSubtitle && kSubtitlePixels >= readable &&
        box.height() >= kTitlePixels + kSubtitlePixels + 4) {
        label.lines = NodeLabel::TitleAndSubtitle;
        label.titlePixels = kTitlePixels;
        label.subtitlePixels = kSubtitlePixels;
        return label;
    }
    const int title = std::max(kTitlePixels, static_cast<int>(std::ceil(readable)));
    if (title <= box.height() * 0.6) {
        label.lines = NodeLabel::Title;
        label.titlePixels = title;
    }
    return label;
}

GraphNodeItem::GraphNodeItem(int outlineItem, const QRectF& rect, QString title, QString subtitle,
                             bool group)
    : QGraphicsRectItem(rect), m_outlineItem(outlineItem), m_title(std::move(title)),
      m_subtitle(std::move(subtitle)), m_group(group) {
    if (m_subtitle == m_title) {
        m_subtitle.clear(); // "Conv" named "Conv": once is enough
    }
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
    const NodeLabel label = nodeLabel(box.size(), detail, !m_subtitle.isEmpty());
    if (label.lines == NodeLabel::None) {
        return;
    }
    painter->setPen(labelColour(brush().color()));
    QFont font = painter->font();
    font.setPixelSize(label.titlePixels);
    font.setBold(true);
    painter->setFont(font);
    const QRectF text = box.adjusted(4.0, 1.0, -4.0, -1.0);
    if (label.lines == NodeLabel::Title) {
        painter->drawText(text, Qt::AlignCenter,
                          QFontMetricsF(font).elidedText(m_title, Qt::ElideRight, text.width()));
        return;
    }
    const QRectF upper(text.left(), text.top(), text.width(), text.height() / 2.0);
    const QRectF lower(text.left(), upper.bottom(), text.width(), text.height() / 2.0);
    painter->drawText(upper, Qt::AlignHCenter | Qt::AlignBottom,
                      QFontMetricsF(font).elidedText(m_title, Qt::ElideRight, upper.width()));
    font.setBold(false);
    font.setPixelSize(label.subtitlePixels);
    painter->setFont(font);
    painter->drawText(lower, Qt::AlignHCenter | Qt::AlignTop,
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
