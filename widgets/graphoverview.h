// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QImage>
#include <QRectF>
#include <QWidget>

namespace paretune {

/// A small picture of the whole graph with the part the view shows outlined; clicking or
/// dragging in it moves the view there. The picture is rendered once per layout or colouring,
/// so moving the view only repaints the outline.
class GraphOverview : public QWidget {
    Q_OBJECT
public:
    explicit GraphOverview(QWidget* parent = nullptr);

    /// The scene rendered into `picture`, which stands for `sceneRect`.
    void setPicture(const QImage& picture, const QRectF& sceneRect);
    /// The part of the scene the view shows, and the whole scene.
    void setVisibleRect(const QRectF& visible, const QRectF& sceneRect);
    QRectF visibleRect() const { return m_visible; }
    /// The widget point that stands for a scene point, and back.
    QPointF toWidget(const QPointF& scenePoint) const;
    QPointF toScene(const QPointF& widgetPoint) const;

Q_SIGNALS:
    void centreRequested(const QPointF& scenePoint);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    QImage m_picture;
    QRectF m_scene;
    QRectF m_visible;
};

} // namespace paretune
