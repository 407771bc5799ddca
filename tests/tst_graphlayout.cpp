// SPDX-License-Identifier: GPL-3.0-or-later
// The graph view's outline (which nodes are drawn, which are folded into groups) and its
// Graphviz layout, on small text fixtures and on a real Swin-T.
#include "graph/onnx_importer.h"
#include "graph_fixture.h"
#include "graphlayout.h"
#include "graphoutline.h"
#include "testpaths.h"

#include <QtTest>

#include <cmath>
#include <filesystem>

using namespace paretune;
using paretune::test::fixtureGraph;
using paretune::test::FixtureOptions;

namespace {

std::vector<std::string> titles(const GraphOutline& outline) {
    std::vector<std::string> result;
    for (const OutlineItem& item : outline.items) {
        result.push_back(item.isGroup() ? item.key : item.title);
    }
    return result;
}

std::int32_t itemOf(const Graph& g, const GraphOutline& o, const char* node) {
    return o.itemOfNode[static_cast<std::size_t>(g.findNode(node))];
}

} // namespace

class TestGraphLayout : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void nodeScope_data();
    void nodeScope();
    void smallGraphIsDrawnFully();
    void constantsAreHidden();
    void layoutFollowsTopologicalOrder_data();
    void layoutFollowsTopologicalOrder();
    void longEdgesAreDrawnDirectly();
    void chainIsFolded();
    void foldedChainExpandsWhenToggled();
    void scopesAreExpandedByLevel();
    void emptyOutlineLaysOut();
    void swinIsGroupedAndLaidOut();
};

void TestGraphLayout::nodeScope_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("scope");
    QTest::newRow("nested") << "/encoder/layer.0/attn/MatMul"
                            << "/encoder/layer.0/attn";
    QTest::newRow("top") << "/MatMul_3"
                         << "";
    QTest::newRow("unscoped") << "Conv_0"
                              << "";
    QTest::newRow("empty") << ""
                           << "";
}

void TestGraphLayout::nodeScope() {
    QFETCH(QString, name);
    QFETCH(QString, scope);
    QCOMPARE(QString::fromStdString(paretune::nodeScope(name.toStdString())), scope);
}

void TestGraphLayout::smallGraphIsDrawnFully() {
    const Graph g = fixtureGraph("a->b; a->c; b,c->d");
    const GraphOutline o = buildOutline(g, {});
    QCOMPARE(o.items.size(), std::size_t{4});
    QVERIFY(!o.grouped);
    QCOMPARE(o.drawnNodeCount, 4);
    QCOMPARE(o.edges.size(), std::size_t{4});
    for (const OutlineEdge& e : o.edges) {
        QCOMPARE(e.links.size(), std::size_t{1});
        QCOMPARE(o.itemOfNode[static_cast<std::size_t>(e.links[0].producer)], e.from);
        QCOMPARE(o.itemOfNode[static_cast<std::size_t>(e.links[0].consumer)], e.to);
    }
}

void TestGraphLayout::constantsAreHidden() {
    FixtureOptions fo;
    fo.kinds["k"] = NodeKind::Constant;
    const Graph g = fixtureGraph("a->b; k->b; b->c", fo);
    const GraphOutline hidden = buildOutline(g, {});
    QCOMPARE(hidden.drawnNodeCount, 3);
    QCOMPARE(itemOf(g, hidden, "k"), -1);
    QCOMPARE(hidden.edges.size(), std::size_t{2});
    OutlineOptions shown;
    shown.showConstants = true;
    const GraphOutline all = buildOutline(g, shown);
    QCOMPARE(all.drawnNodeCount, 4);
    QCOMPARE(all.edges.size(), std::size_t{3});
}

void TestGraphLayout::layoutFollowsTopologicalOrder_data() {
    QTest::addColumn<QString>("graph");
    QTest::newRow("chain") << "a->b->c->d";
    QTest::newRow("diamond") << "a->b; a->c; b,c->d";
    QTest::newRow("skip") << "a->b->c->d->e; a->e; b->d";
    QTest::newRow("two inputs") << "x->y; p->q; y,q->z->w";
    QTest::newRow("long skip") << "a0->a1->a2->a3->a4->a5->a6->a7->a8->a9->a10->a11; a0,a10->a11";
}

void TestGraphLayout::layoutFollowsTopologicalOrder() {
    QFETCH(QString, graph);
    const Graph g = fixtureGraph(graph.toStdString());
    const auto outline = std::make_shared<const GraphOutline>(buildOutline(g, {}));
    const GraphLayout layout = layOutGraph(outline);
    QCOMPARE(layout.itemRects.size(), outline->items.size());
    for (std::size_t edge = 0; edge < outline->edges.size(); ++edge) {
        const OutlineEdge& e = outline->edges[edge];
        const QRectF from = layout.itemRects[static_cast<std::size_t>(e.from)];
        const QRectF to = layout.itemRects[static_cast<std::size_t>(e.to)];
        // Producers sit above their consumers, without overlapping them.
        QVERIFY2(from.bottom() < to.top(),
                 qPrintable(QStringLiteral("edge %1 -> %2").arg(e.from).arg(e.to)));
        const QPainterPath& path = layout.edgePaths[edge];
        QVERIFY(!path.isEmpty());
        // The route starts at the producer's box and ends near the consumer's.
        QVERIFY(from.adjusted(-2, -2, 2, 2).contains(path.pointAtPercent(0.0)));
        QVERIFY(to.adjusted(-12, -12, 12, 12).contains(path.pointAtPercent(1.0)));
    }
    for (std::size_t i = 0; i < layout.itemRects.size(); ++i) {
        QVERIFY(layout.bounds.adjusted(-1, -1, 1, 1).contains(layout.itemRects[i]));
        const QSizeF wanted = outlineItemSize(outline->items[i]);
        QVERIFY(std::abs(layout.itemRects[i].width() - wanted.width()) < 0.5);
        QVERIFY(std::abs(layout.itemRects[i].height() - wanted.height()) < 0.5);
    }
}

void TestGraphLayout::longEdgesAreDrawnDirectly() {
    const Graph g = fixtureGraph("a0->a1->a2->a3->a4->a5->a6->a7->a8->a9->a10->a11; a0,a10->a11; "
                                 "a2,a1->a3");
    const auto outline = std::make_shared<const GraphOutline>(buildOutline(g, {}));
    const GraphLayout layout = layOutGraph(outline);
    int long_ = 0;
    for (std::size_t e = 0; e < outline->edges.size(); ++e) {
        const OutlineEdge& edge = outline->edges[e];
        const bool skip =
            edge.from == itemOf(g, *outline, "a0") && edge.to == itemOf(g, *outline, "a11");
        QCOMPARE(static_cast<bool>(layout.longEdges[e]), skip);
        long_ += skip ? 1 : 0;
        if (skip) {
            // Straight down from a0 to a11, bowed to the side, inside the bounds.
            const QRectF to = layout.itemRects[static_cast<std::size_t>(edge.to)];
            QCOMPARE(layout.arrowHeads[e].first(), QPointF(to.center().x(), to.top()));
            QVERIFY(layout.bounds.contains(layout.edgePaths[e].boundingRect()));
        }
    }
    QCOMPARE(long_, 1);
}

void TestGraphLayout::chainIsFolded() {
    // b..e is a chain of single-input single-output nodes; a forks and g joins.
    const Graph g = fixtureGraph("a->b->c->d->e; a->f; e,f->g");
    OutlineOptions options;
    options.fullLimit = 3;
    options.budget = 3;
    const GraphOutline o = buildOutline(g, options);
    QVERIFY(o.grouped);
    QCOMPARE(titles(o), (std::vector<std::string>{"Op", "chain:b", "Op", "Op"}));
    const std::int32_t chain = itemOf(g, o, "b");
    for (const char* member : {"c", "d", "e"}) {
        QCOMPARE(itemOf(g, o, member), chain);
    }
    QCOMPARE(o.items[static_cast<std::size_t>(chain)].members.size(), std::size_t{4});
    QCOMPARE(o.items[static_cast<std::size_t>(chain)].kind, OutlineItem::Kind::ChainGroup);
    QCOMPARE(o.drawnNodeCount, 7);
    // Edges: a->chain, a->f, chain->g, f->g; none inside the chain.
    QCOMPARE(o.edges.size(), std::size_t{4});
    // Under the limit nothing is folded.
    options.fullLimit = 7;
    QVERIFY(!buildOutline(g, options).grouped);
}

void TestGraphLayout::foldedChainExpandsWhenToggled() {
    const Graph g = fixtureGraph("a->b->c->d->e; a->f; e,f->g");
    OutlineOptions options;
    options.fullLimit = 3;
    options.budget = 3;
    options.toggled.insert("chain:b");
    const GraphOutline o = buildOutline(g, options);
    QVERIFY(!o.grouped);
    QCOMPARE(o.items.size(), std::size_t{7});
}

void TestGraphLayout::scopesAreExpandedByLevel() {
    // /enc holds two blocks of three nodes each; /head has two nodes.
    const Graph g = fixtureGraph("/enc/b0/q->/enc/b0/k->/enc/b0/v->/enc/b1/q->/enc/b1/k->"
                                 "/enc/b1/v->/head/fc->/head/out");
    OutlineOptions options;
    options.fullLimit = 4;
    options.budget = 4;
    // Root: /enc (6) and /head (2) = 2 items; expanding that level gives b0, b1, fc, out = 4
    // items; the next level (b0 and b1) would give 8 > 4.
    const GraphOutline o = buildOutline(g, options);
    QCOMPARE(titles(o), (std::vector<std::string>{"scope:/enc/b0", "scope:/enc/b1", "Op", "Op"}));
    QCOMPARE(o.items[0].title, std::string("b0"));
    QCOMPARE(o.items[0].members.size(), std::size_t{3});
    QCOMPARE(o.edges.size(), std::size_t{3});
    QCOMPARE(o.edges[0].links.size(), std::size_t{1});
    // Expanding one block by hand shows its nodes.
    options.toggled.insert("scope:/enc/b1");
    const GraphOutline expanded = buildOutline(g, options);
    QCOMPARE(expanded.items.size(), std::size_t{6});
    QCOMPARE(itemOf(g, expanded, "/enc/b1/k"), 2);
    // Folding /enc by hand folds both blocks into it.
    options.toggled = {"scope:/enc"};
    const GraphOutline folded = buildOutline(g, options);
    QCOMPARE(titles(folded), (std::vector<std::string>{"scope:/enc", "Op", "Op"}));
}

void TestGraphLayout::emptyOutlineLaysOut() {
    const GraphLayout layout = layOutGraph(std::make_shared<const GraphOutline>());
    QVERIFY(layout.itemRects.empty());
    QVERIFY(layout.bounds.isEmpty());
}

void TestGraphLayout::swinIsGroupedAndLaidOut() {
    const std::filesystem::path file =
        std::filesystem::path(PARETUNE_TEST_MODELS_DIR) / "swin_t.onnx";
    if (!std::filesystem::exists(file)) {
        QSKIP("swin_t.onnx is not exported (tools/export_models.py)");
    }
    const ImportResult model = importOnnxFile(file.string());
    const OutlineOptions options;
    const auto outline = std::make_shared<const GraphOutline>(buildOutline(model.graph, options));
    QVERIFY(outline->drawnNodeCount > options.fullLimit);
    QVERIFY(outline->grouped);
    QVERIFY(static_cast<std::int32_t>(outline->items.size()) <= options.budget);
    // Every drawn node is in exactly one item.
    std::size_t members = 0;
    for (const OutlineItem& item : outline->items) {
        members += item.members.size();
    }
    QCOMPARE(static_cast<std::int32_t>(members), outline->drawnNodeCount);
    const GraphLayout layout = layOutGraph(outline);
    QCOMPARE(layout.itemRects.size(), outline->items.size());
    QVERIFY(layout.bounds.width() > 0 && layout.bounds.height() > 0);
    // The first item (the patch embedding) sits above the last (the classifier head).
    QVERIFY(layout.itemRects.front().center().y() < layout.itemRects.back().center().y());
}

QTEST_GUILESS_MAIN(TestGraphLayout)
#include "tst_graphlayout.moc"
