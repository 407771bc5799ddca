// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QGraphicsPathItem>
#include <QGraphicsRectItem>
#include <QPolygonF>
#include <QString>

namespace paretune {

/// How a node's box is labelled at a zoom (`detail`: screen pixels per scene unit): the title
/// (op type) above the name when both are readable (at least kReadablePixels high on the
/// screen), else the title alone, in one line as large as the box allows, when that is
/// readable, else nothing. Font sizes are in scene units.
struct NodeLabel {
    enum Lines { None, Title, TitleAndSubtitle };
    static constexpr qreal kReadablePixels = 8.0;

    Lines lines = None;
    int titlePixels = 0;
    int subtitlePixels = 0;
};
NodeLabel nodeLabel(const QSizeF& box, qreal detail, bool hasSubtitle);

/// A node or a folded group of the graph view: a box filled with its colour (brush()), its op
/// type and name written inside as nodeLabel() says. A subtitle equal to the title (a node
/// named after its op type) is not repeated.
class GraphNodeItem : public QGraphicsRectItem {
public:
    enum { Type = UserType + 1 };

    GraphNodeItem(int outlineItem, const QRectF& rect, QString title, QString subtitle, bool group);

    int type() const override { return Type; }
    /// Index into the outline's items.
    int outlineItem() const { return m_outlineItem; }
    bool isGroup() const { return m_group; }
    const QString& title() const { return m_title; }
    /// The name below the title; empty when it would repeat the title.
    const QString& subtitle() const { return m_subtitle; }
    void setHighlighted(bool highlighted);
    bool isHighlighted() const { return m_highlighted; }

    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    int m_outlineItem;
    QString m_title;
    QString m_subtitle;
    bool m_group;
    bool m_highlighted = false;
};

/// An edge of the graph view: the spline Graphviz routed and its arrow head. Its hover area is
/// wider than the line so that the tensor tooltip is easy to reach; a transfer between two
/// devices is drawn thick and dashed.
class GraphEdgeItem : public QGraphicsPathItem {
public:
    enum { Type = UserType + 2 };

    GraphEdgeItem(int outlineEdge, const QPainterPath& path, const QPolygonF& arrow);

    int type() const override { return Type; }
    int outlineEdge() const { return m_outlineEdge; }
    void setTransfer(bool transfer);
    bool isTransfer() const { return m_transfer; }

    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    int m_outlineEdge;
    QPolygonF m_arrow;
    bool m_transfer = false;
    mutable QPainterPath m_shape;
};

} // namespace paretune
