// SPDX-License-Identifier: GPL-3.0-or-later
#include "graphoverview.h"

#include <QMouseEvent>
#include <QPainter>

namespace paretune {

GraphOverview::GraphOverview(QWidget* parent) : QWidget(parent) {
    setCursor(Qt::PointingHandCursor);
    setToolTip(tr("Overview: click or drag to move the view"));
}

void GraphOverview::setPicture(const QImage& picture, const QRectF& sceneRect) {
    m_picture = picture;
    m_scene = sceneRect;
    update();
}

void GraphOverview::setVisibleRect(const QRectF& visible, const QRectF& sceneRect) {
    m_visible = visible;
    m_scene = sceneRect;
    update();
}

QPointF GraphOverview::toWidget(const QPointF& scenePoint) const {
    if (m_scene.isEmpty()) {
        return {};
    }
    return {(scenePoint.x() - m_scene.left()) / m_scene.width() * width(),
            (scenePoint.y() - m_scene.top()) / m_scene.height() * height()};
}

QPointF GraphOverview::toScene(const QPointF& widgetPoint) const {
    if (width() == 0 || height() == 0) {
        return m_scene.topLeft();
    }
    return {m_scene.left() + widgetPoint.x() / width() * m_scene.width(),
            m_scene.top() + widgetPoint.y() / height() * m_scene.height()};
}

void GraphOverview::paintEvent(QPaintEvent* /*event*/) {
    QPainter painter(this);
    painter.fillRect(rect(), QColor(255, 255, 255, 230));
    if (!m_picture.isNull()) {
        painter.drawImage(QRectF(rect()), m_picture);
    }
    if (!m_visible.isEmpty() && !m_scene.isEmpty()) {
        const QRectF shown =
            QRectF(toWidget(m_visible.topLeft()), toWidget(m_visible.bottomRight()))
                .intersected(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5));
        painter.setPen(QPen(QColor(0x1f, 0x6f, 0xeb), 1.5));
        painter.setBrush(QColor(0x1f, 0x6f, 0xeb, 40));
        painter.drawRect(shown);
    }
    painter.setPen(QColor(0x99, 0x99, 0x99));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5));
}

void GraphOverview::mousePressEvent(QMouseEvent* event) {
    Q_EMIT centreRequested(toScene(event->position()));
}

void GraphOverview::mouseMoveEvent(QMouseEvent* event) {
    if (event->buttons() & Qt::LeftButton) {
        Q_EMIT centreRequested(toScene(event->position()));
    }
}

} // namespace paretune
