// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QGraphicsView>
#include <QPoint>

namespace paretune {

class GraphNodeItem;

/// The graph view's drawing surface: wheel and +/- keys zoom (around the mouse), dragging pans,
/// 0 or Home fits. A click (press and release without dragging) or a double click on a node
/// box is reported with the box.
class GraphCanvas : public QGraphicsView {
    Q_OBJECT
public:
    explicit GraphCanvas(QGraphicsScene* scene, QWidget* parent = nullptr);

    /// Scales the view by `factor`, kept between the zoom that shows a tenth of the whole
    /// scene and 4x.
    void zoomBy(double factor);
    double zoom() const { return transform().m11(); }
    /// The part of the scene the viewport shows.
    QRectF visibleSceneRect() const;

Q_SIGNALS:
    void nodeClicked(paretune::GraphNodeItem* item);
    void nodeActivated(paretune::GraphNodeItem* item);
    void backgroundClicked();
    void fitRequested();
    /// The visible part of the scene moved or was zoomed.
    void viewChanged();

protected:
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    GraphNodeItem* nodeAt(const QPoint& position) const;

    QPoint m_pressed;
};

} // namespace paretune
