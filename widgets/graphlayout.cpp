// SPDX-License-Identifier: GPL-3.0-or-later
#include "graphlayout.h"

// Graphviz's accessor macros (ND_coord, ED_spl, ...) are C casts.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wold-style-cast"
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <mutex>
#include <stdexcept>
#include <string>

namespace paretune {

namespace {

constexpr double kPointsPerInch = 72.0;

// cgraph takes char* for names it only reads.
char* text(const char* s) {
    return const_cast<char*>(s);
}

std::mutex& graphvizMutex() {
    static std::mutex mutex;
    return mutex;
}

/// One Graphviz context for the process, made under the mutex on first use; it loads the
/// layout plugins once.
GVC_t* graphvizContext() {
    static GVC_t* context = gvContext();
    return context;
}

/// Owns a cgraph graph and its layout.
struct LaidOutGraph {
    GVC_t* gvc;
    Agraph_t* graph;
    bool laidOut = false;
    ~LaidOutGraph() {
        if (laidOut) {
            gvFreeLayout(gvc, graph);
        }
        agclose(graph);
    }
};

QPointF toScene(pointf p, double top) {
    return {p.x, top - p.y};
}

/// Per edge: whether it spans more than kLongEdgeSpan ranks of the longest-path layering, or
/// runs backwards (folded groups can make a cycle). Items are in topological order of their
/// first member, so forward edges go to later items.
std::vector<bool> longEdges(const GraphOutline& o) {
    std::vector<std::vector<std::size_t>> outgoing(o.items.size());
    for (std::size_t e = 0; e < o.edges.size(); ++e) {
        outgoing[static_cast<std::size_t>(o.edges[e].from)].push_back(e);
    }
    std::vector<int> rank(o.items.size(), 0);
    for (std::size_t i = 0; i < o.items.size(); ++i) {
        for (const std::size_t e : outgoing[i]) {
            const auto to = static_cast<std::size_t>(o.edges[e].to);
            if (to > i) {
                rank[to] = std::max(rank[to], rank[i] + 1);
            }
        }
    }
    std::vector<bool> result(o.edges.size(), false);
    for (std::size_t e = 0; e < o.edges.size(); ++e) {
        const auto from = static_cast<std::size_t>(o.edges[e].from);
        const auto to = static_cast<std::size_t>(o.edges[e].to);
        result[e] = to <= from || rank[to] - rank[from] > kLongEdgeSpan;
    }
    return result;
}

/// A curve from the bottom of the producer's box to the top of the consumer's, bowed to the
/// side so that it does not run along the boxes between them.
void directCurve(GraphLayout& layout, std::size_t e) {
    const OutlineEdge& edge = layout.outline->edges[e];
    const QRectF from = layout.itemRects[static_cast<std::size_t>(edge.from)];
    const QRectF to = layout.itemRects[static_cast<std::size_t>(edge.to)];
    const QPointF start(from.center().x(), from.bottom());
    const QPointF tip(to.center().x(), to.top());
    const QPointF end = tip - QPointF(0.0, 8.0);
    const double bow = 40.0 + std::min(300.0, std::abs(end.y() - start.y()) * 0.08);
    const double side = std::max(start.x(), end.x()) + bow;
    QPainterPath path(start);
    path.cubicTo(QPointF(side, start.y() + 60.0), QPointF(side, end.y() - 60.0), end);
    layout.edgePaths[e] = path;
    layout.arrowHeads[e] = QPolygonF({tip, end + QPointF(-4.0, 0.0), end + QPointF(4.0, 0.0)});
}

} // namespace

QSizeF outlineItemSize(const OutlineItem& item) {
    // Titles are drawn at about 6 points per character; names below them are elided.
    const double width =
        std::clamp(static_cast<double>(item.title.size()) * 6.5 + 24.0, 72.0, 200.0);
    return {width, item.isGroup() ? 40.0 : 30.0};
}

GraphLayout layOutGraph(std::shared_ptr<const GraphOutline> outline) {
    GraphLayout layout;
    layout.outline = outline;
    const GraphOutline& o = *outline;
    layout.itemRects.resize(o.items.size());
    layout.edgePaths.resize(o.edges.size());
    layout.arrowHeads.resize(o.edges.size());
    layout.longEdges = longEdges(o);
    if (o.items.empty()) {
        return layout;
    }

    const std::lock_guard<std::mutex> lock(graphvizMutex());
    const auto started = std::chrono::steady_clock::now();
    LaidOutGraph g{graphvizContext(), agopen(text("outline"), Agdirected, nullptr)};
    if (!g.gvc || !g.graph) {
        throw std::runtime_error("Graphviz could not start a layout");
    }
    agattr(g.graph, AGRAPH, text("rankdir"), text("TB"));
    agattr(g.graph, AGRAPH, text("nodesep"), text("0.25"));
    agattr(g.graph, AGRAPH, text("ranksep"), text("0.35"));
    // Fixed-size boxes without labels: Graphviz need not measure any text.
    agattr(g.graph, AGNODE, text("shape"), text("box"));
    agattr(g.graph, AGNODE, text("fixedsize"), text("true"));
    agattr(g.graph, AGNODE, text("label"), text(""));
    Agsym_t* width = agattr(g.graph, AGNODE, text("width"), text("1"));
    Agsym_t* height = agattr(g.graph, AGNODE, text("height"), text("0.4"));

    std::vector<Agnode_t*> nodes(o.items.size());
    for (std::size_t i = 0; i < o.items.size(); ++i) {
        const std::string name = "n" + std::to_string(i);
        nodes[i] = agnode(g.graph, text(name.c_str()), 1);
        const QSizeF size = outlineItemSize(o.items[i]);
        agxset(nodes[i], width, text(std::to_string(size.width() / kPointsPerInch).c_str()));
        agxset(nodes[i], height, text(std::to_string(size.height() / kPointsPerInch).c_str()));
    }
    std::vector<Agedge_t*> edges(o.edges.size(), nullptr);
    for (std::size_t e = 0; e < o.edges.size(); ++e) {
        if (layout.longEdges[e]) {
            continue;
        }
        edges[e] = agedge(g.graph, nodes[static_cast<std::size_t>(o.edges[e].from)],
                          nodes[static_cast<std::size_t>(o.edges[e].to)], nullptr, 1);
    }
    if (gvLayout(g.gvc, g.graph, "dot") != 0) {
        throw std::runtime_error("Graphviz dot failed to lay out the graph");
    }
    g.laidOut = true;

    const boxf bb = GD_bb(g.graph);
    const double top = bb.UR.y;
    layout.bounds = QRectF(QPointF(bb.LL.x, 0.0), QPointF(bb.UR.x, bb.UR.y - bb.LL.y));
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const QPointF centre = toScene(ND_coord(nodes[i]), top);
        const QSizeF size(ND_width(nodes[i]) * kPointsPerInch,
                          ND_height(nodes[i]) * kPointsPerInch);
        layout.itemRects[i] = QRectF(centre - QPointF(size.width(), size.height()) / 2.0, size);
    }
    for (std::size_t e = 0; e < edges.size(); ++e) {
        if (!edges[e]) {
            directCurve(layout, e);
            continue;
        }
        const splines* spl = ED_spl(edges[e]);
        if (!spl) {
            continue;
        }
        QPainterPath path;
        for (int b = 0; b < spl->size; ++b) {
            const bezier& bz = spl->list[b];
            if (bz.size < 1) {
                continue;
            }
            path.moveTo(toScene(bz.list[0], top));
            for (int p = 1; p + 2 < bz.size; p += 3) {
                path.cubicTo(toScene(bz.list[p], top), toScene(bz.list[p + 1], top),
                             toScene(bz.list[p + 2], top));
            }
            if (bz.eflag) {
                // The arrow runs from the spline's end to the tip `ep`.
                const QPointF tip = toScene(bz.ep, top);
                const QPointF base = toScene(bz.list[bz.size - 1], top);
                const QPointF along = tip - base;
                const QPointF across(-along.y() * 0.5, along.x() * 0.5);
                layout.arrowHeads[e] = QPolygonF({tip, base + across, base - across});
            }
        }
        layout.edgePaths[e] = path;
    }
    for (std::size_t e = 0; e < edges.size(); ++e) {
        if (!edges[e]) {
            layout.bounds = layout.bounds.united(layout.edgePaths[e].boundingRect());
        }
    }
    layout.layoutMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count();
    return layout;
}

} // namespace paretune

#pragma GCC diagnostic pop
