// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graphoutline.h"

#include <QPainterPath>
#include <QPolygonF>
#include <QRectF>
#include <QSizeF>

#include <memory>
#include <vector>

namespace paretune {

/// Positions of an outline's items and the routes of its edges, in scene units (points; y grows
/// downwards, so inputs are at the top). A value: it is computed on a worker thread and only
/// read on the GUI thread.
struct GraphLayout {
    std::shared_ptr<const GraphOutline> outline;
    std::vector<QRectF> itemRects;       ///< per outline item
    std::vector<QPainterPath> edgePaths; ///< per outline edge, from the producer to the arrow
    std::vector<QPolygonF> arrowHeads;   ///< per outline edge, empty when there is none
    /// per outline edge: spans more than kLongEdgeSpan ranks (or runs backwards between folded
    /// groups); Graphviz does not route it, it is drawn as a direct curve
    std::vector<bool> longEdges;
    QRectF bounds;
    double layoutMs = 0.0; ///< time Graphviz took
};

/// Edges longer than this many ranks (by longest path) are left out of the dot layout. A few
/// such edges (BERT's attention mask reaching every layer) otherwise add thousands of virtual
/// nodes and make dot ten times slower.
constexpr int kLongEdgeSpan = 8;

/// The box an item gets: wide enough for its title (estimated from its length, so no font is
/// needed off the GUI thread), taller for groups.
QSizeF outlineItemSize(const OutlineItem& item);

/// Lays `outline` out with Graphviz `dot` (top to bottom); long edges get a direct curve. Safe to
/// call from any thread: Graphviz keeps global state, so calls are serialised internally. Throws
/// std::runtime_error when Graphviz fails.
GraphLayout layOutGraph(std::shared_ptr<const GraphOutline> outline);

} // namespace paretune
