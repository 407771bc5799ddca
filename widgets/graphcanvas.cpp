// SPDX-License-Identifier: GPL-3.0-or-later
#include "graphcanvas.h"

#include "graphitems.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace paretune {

GraphCanvas::GraphCanvas(QGraphicsScene* scene, QWidget* parent) : QGraphicsView(scene, parent) {
    setDragMode(QGraphicsView::ScrollHandDrag);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setResizeAnchor(QGraphicsView::AnchorViewCenter);
    setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
    setOptimizationFlags(QGraphicsView::DontSavePainterState |
                         QGraphicsView::DontAdjustForAntialiasing);
    setRenderHint(QPainter::Antialiasing);
    setRenderHint(QPainter::TextAntialiasing);
    setBackgroundBrush(QColor(0xfa, 0xfa, 0xfa));
    setFocusPolicy(Qt::StrongFocus);
}

QRectF GraphCanvas::visibleSceneRect() const {
    return mapToScene(viewport()->rect()).boundingRect();
}

void GraphCanvas::zoomBy(double factor) {
    const QRectF all = sceneRect();
    const QSize port = viewport()->size();
    const double fit =
        all.isEmpty() ? 1.0 : std::min(port.width() / all.width(), port.height() / all.height());
    const double lowest = std::min(fit, 1.0) / 10.0;
    const double wanted = std::clamp(zoom() * factor, lowest, 4.0);
    const double applied = wanted / zoom();
    if (std::abs(applied - 1.0) > 1e-9) {
        scale(applied, applied);
        Q_EMIT viewChanged();
    }
}

void GraphCanvas::wheelEvent(QWheelEvent* event) {
    zoomBy(std::pow(1.0015, event->angleDelta().y()));
    event->accept();
}

void GraphCanvas::keyPressEvent(QKeyEvent* event) {
    if (event->matches(QKeySequence::ZoomIn) || event->key() == Qt::Key_Plus ||
        event->key() == Qt::Key_Equal) {
        zoomBy(1.25);
    } else if (event->matches(QKeySequence::ZoomOut) || event->key() == Qt::Key_Minus) {
        zoomBy(0.8);
    } else if (event->key() == Qt::Key_0 || event->key() == Qt::Key_Home) {
        Q_EMIT fitRequested();
    } else {
        QGraphicsView::keyPressEvent(event);
    }
}

GraphNodeItem* GraphCanvas::nodeAt(const QPoint& position) const {
    for (QGraphicsItem* item : items(position)) {
        if (item->type() == GraphNodeItem::Type) {
            return static_cast<GraphNodeItem*>(item);
        }
    }
    return nullptr;
}

void GraphCanvas::mousePressEvent(QMouseEvent* event) {
    m_pressed = event->position().toPoint();
    QGraphicsView::mousePressEvent(event);
}

void GraphCanvas::mouseReleaseEvent(QMouseEvent* event) {
    QGraphicsView::mouseReleaseEvent(event);
    const QPoint at = event->position().toPoint();
    if (event->button() != Qt::LeftButton || (at - m_pressed).manhattanLength() > 4) {
        return; // a drag that panned the view
    }
    if (GraphNodeItem* item = nodeAt(at)) {
        Q_EMIT nodeClicked(item);
    } else {
        Q_EMIT backgroundClicked();
    }
}

void GraphCanvas::mouseDoubleClickEvent(QMouseEvent* event) {
    if (GraphNodeItem* item = nodeAt(event->position().toPoint())) {
        Q_EMIT nodeActivated(item);
        event->accept();
        return;
    }
    QGraphicsView::mouseDoubleClickEvent(event);
}

void GraphCanvas::scrollContentsBy(int dx, int dy) {
    QGraphicsView::scrollContentsBy(dx, dy);
    Q_EMIT viewChanged();
}

void GraphCanvas::resizeEvent(QResizeEvent* event) {
    QGraphicsView::resizeEvent(event);
    Q_EMIT viewChanged();
}

} // namespace paretune
