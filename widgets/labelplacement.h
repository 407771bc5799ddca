// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QPointF>
#include <QRectF>
#include <QSizeF>

#include <vector>

namespace paretune {

/// Places text labels next to their anchor points, in pixels: each label, in order, takes the
/// first of eight spots around its anchor (right above, right below, left above, left below,
/// above, below, right, left; `gap` pixels away) that lies inside `bounds` and overlaps neither
/// a label placed before it nor any of the `obstacles` (e.g. the marks the labels name). A
/// label with no such spot gets an empty rectangle: it is left out rather than drawn over
/// another or cut at the edge.
std::vector<QRectF> placeLabels(const std::vector<QPointF>& anchors,
                                const std::vector<QSizeF>& sizes, const QRectF& bounds,
                                const std::vector<QRectF>& obstacles = {}, double gap = 4.0);

} // namespace paretune
