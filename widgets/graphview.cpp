// SPDX-License-Identifier: GPL-3.0-or-later
#include "graphview.h"

#include "graph/onnx_importer.h"
#include "graphcanvas.h"
#include "graphitems.h"
#include "graphlayout.h"
#include "graphoverview.h"
#include "jobrunner.h"
#include "nodetablemodel.h"

#include <QAction>
#include <QActionGroup>
#include <QComboBox>
#include <QElapsedTimer>
#include <QGraphicsScene>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPainter>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <map>

namespace paretune {

namespace {

QString lastNameComponent(const std::string& name) {
    return QString::fromStdString(name.substr(name.rfind('/') + 1));
}

} // namespace

GraphView::GraphView(QWidget* parent)
    : QWidget(parent), m_scene(new QGraphicsScene(this)), m_overviewTimer(new QTimer(this)),
      m_layoutJob(new JobRunner(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(4, 2, 4, 0);
    bar->addWidget(new QLabel(tr("Colour by:"), this));
    m_colourBy = new QComboBox(this);
    m_colourBy->addItem(tr("Device of the selected plan"));
    m_colourBy->addItem(tr("Latency on the plan's devices"));
    m_colourBy->addItem(tr("Precision of the selected plan"));
    // Narrow enough for the graph to keep its width on a laptop screen.
    m_colourBy->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_colourBy->setMinimumContentsLength(14);
    bar->addWidget(m_colourBy);
    m_find = new QLineEdit(this);
    m_find->setObjectName(QStringLiteral("graphFind"));
    m_find->setPlaceholderText(tr("Find node by name or op type (Ctrl+F, Enter for next)"));
    m_find->setClearButtonEnabled(true);
    m_find->setMinimumWidth(160);
    bar->addWidget(m_find, 1);
    auto* fitButton = new QToolButton(this);
    fitButton->setText(tr("Fit"));
    fitButton->setToolTip(tr("Show the whole graph (0)"));
    bar->addWidget(fitButton);
    layout->addLayout(bar);
    m_canvas = new GraphCanvas(m_scene, this);
    layout->addWidget(m_canvas, 1);
    m_status = new QLabel(tr("No model open."), this);
    m_status->setObjectName(QStringLiteral("graphStatus"));
    m_status->setContentsMargins(4, 0, 4, 2);
    layout->addWidget(m_status);

    m_legend = new QLabel(this);
    m_legend->setObjectName(QStringLiteral("graphLegend"));
    m_legend->setTextFormat(Qt::RichText);
    // Dark on white in any palette: its swatches are the graph's colours, drawn on a light
    // canvas.
    m_legend->setStyleSheet(
        QStringLiteral("QLabel { background: white; color: black; border: 1px solid #bbb; "
                       "padding: 2px 4px; margin: 0 4px; }"));
    m_legend->setWordWrap(true);
    m_legend->hide();
    // Above the canvas, not over it: an overlay would hide the first nodes of the graph.
    layout->insertWidget(1, m_legend);
    m_overview = new GraphOverview(this);
    m_overview->hide();

    auto* findAction = new QAction(tr("Find node"), this);
    findAction->setShortcut(QKeySequence::Find);
    addAction(findAction);
    m_overviewTimer->setSingleShot(true);
    m_overviewTimer->setInterval(50);

    connect(findAction, &QAction::triggered, this, [this] {
        m_find->setFocus(Qt::ShortcutFocusReason);
        m_find->selectAll();
    });
    auto* leaveFind = new QAction(m_find);
    leaveFind->setShortcut(Qt::Key_Escape);
    leaveFind->setShortcutContext(Qt::WidgetShortcut);
    m_find->addAction(leaveFind);
    connect(leaveFind, &QAction::triggered, this, [this] { m_canvas->setFocus(); });
    connect(m_find, &QLineEdit::returnPressed, this, [this] { find(m_find->text()); });
    connect(m_find, &QLineEdit::textEdited, this, [this] { m_findCursor = -1; });
    connect(fitButton, &QToolButton::clicked, this, &GraphView::fit);
    m_colourMenu = new QMenu(tr("&Colour graph by"), this);
    m_colourMenu->setObjectName(QStringLiteral("graphColourMenu"));
    m_colourActions = new QActionGroup(this);
    for (int i = 0; i < m_colourBy->count(); ++i) {
        QAction* a = m_colourMenu->addAction(m_colourBy->itemText(i));
        a->setCheckable(true);
        a->setChecked(i == m_colourBy->currentIndex());
        m_colourActions->addAction(a);
        connect(a, &QAction::triggered, this, [this, i] { m_colourBy->setCurrentIndex(i); });
    }
    connect(m_colourBy, &QComboBox::currentIndexChanged, this, [this](int index) {
        m_colourActions->actions().at(index)->setChecked(true);
        recolour();
    });
    connect(m_canvas, &GraphCanvas::fitRequested, this, &GraphView::fit);
    connect(m_canvas, &GraphCanvas::nodeClicked, this, &GraphView::clickItem);
    connect(m_canvas, &GraphCanvas::nodeActivated, this, &GraphView::activateItem);
    connect(m_canvas, &GraphCanvas::viewChanged, this, &GraphView::updateOverviewRect);
    connect(m_overview, &GraphOverview::centreRequested, this,
            [this](const QPointF& point) { m_canvas->centerOn(point); });
    connect(m_overviewTimer, &QTimer::timeout, this, &GraphView::refreshOverview);
}

// A running layout finishes on the pool; its result goes nowhere (the runner abandons it).
// The scene, a child, is deleted after this body and scrolls the canvas as it goes: the canvas
// must no longer reach this half-destroyed view.
GraphView::~GraphView() {
    disconnect(m_canvas, nullptr, this, nullptr);
}

const Graph* GraphView::graph() const {
    return m_model ? &m_model->graph : nullptr;
}

bool GraphView::isLayingOut() const {
    return m_layoutJob->isRunning();
}

void GraphView::setModel(std::shared_ptr<const ImportResult> model) {
    m_model = std::move(model);
    m_options.toggled.clear();
    m_search.reset();
    m_plan = -1;
    m_planDevice.clear();
    m_planVariant.clear();
    m_selected = -1;
    m_findCursor = -1;
    m_focusAfterLayout = -1;
    m_freshModel = true;
    m_highlighted = nullptr;
    m_nodeItems.clear();
    m_edgeItems.clear();
    m_fusionOutlines.clear();
    m_layout.reset();
    m_scene->clear();
    m_legend->hide();
    m_overview->hide();
    if (!m_model) {
        m_layoutJob->abandon();
        m_status->setText(tr("No model open."));
        return;
    }
    startLayout();
}

void GraphView::startLayout() {
    m_status->setText(tr("Laying out the graph..."));
    // The worker gets values only (the model is shared read-only); it never touches a widget.
    const std::shared_ptr<const ImportResult> model = m_model;
    const OutlineOptions options = m_options;
    using SharedLayout = std::shared_ptr<const GraphLayout>;
    // A newer model or expansion supersedes a running layout.
    m_layoutJob->run<SharedLayout>(
        tr("laying out the graph"),
        [model, options](JobResult<SharedLayout>& r, const std::shared_ptr<JobProgress>&) {
            auto outline =
                std::make_shared<const GraphOutline>(buildOutline(model->graph, options));
            r.outcome = std::make_shared<const GraphLayout>(layOutGraph(std::move(outline)));
        },
        [this](const SharedLayout& layout) { applyLayout(layout); },
        [this](const QString& error) {
            m_status->setText(tr("Layout failed: %1").arg(error));
            Q_EMIT layoutFailed(error);
        });
}

void GraphView::applyLayout(std::shared_ptr<const GraphLayout> layout) {
    QElapsedTimer sceneClock;
    sceneClock.start();
    m_layout = std::move(layout);
    buildScene();
    recolour();
    highlightSelection();
    if (m_freshModel) {
        m_freshModel = false;
        initialView();
    }
    if (m_focusAfterLayout >= 0) {
        centreOnNode(m_focusAfterLayout, true);
        m_focusAfterLayout = -1;
    }
    const GraphOutline& outline = *m_layout->outline;
    const auto groups = std::count_if(outline.items.begin(), outline.items.end(),
                                      [](const OutlineItem& item) { return item.isGroup(); });
    QString status = tr("%1 nodes laid out in %2 ms")
                         .arg(outline.drawnNodeCount)
                         .arg(m_layout->layoutMs, 0, 'f', 0);
    if (groups > 0) {
        status += tr("; %1 items, %2 of them folded groups (double-click a group to expand it)")
                      .arg(outline.items.size())
                      .arg(groups);
    }
    const auto constants =
        static_cast<std::int32_t>(m_model->graph.nodes.size()) - outline.drawnNodeCount;
    if (constants > 0) {
        status += tr("; %1 constant nodes not drawn").arg(constants);
    }
    m_status->setText(status);
    placeOverlays();
    refreshOverview();
    m_sceneMs = static_cast<double>(sceneClock.nsecsElapsed()) / 1e6;
    Q_EMIT layoutShown();
}

QString GraphView::nodeToolTip(int nodeId) const {
    const Graph& g = *graph();
    const auto n = static_cast<std::size_t>(nodeId);
    const Node& node = g.nodes[n];
    QString tip =
        QString::fromStdString(node.name) + QLatin1Char('\n') + QString::fromStdString(node.opType);
    const auto outs = g.nodeOutputs.row(nodeId);
    if (!outs.empty() && outs[0] != kNone) {
        tip += QStringLiteral(" \u2192 ") +
               QString::fromStdString(g.tensors[static_cast<std::size_t>(outs[0])].typeString());
    }
    tip +=
        QLatin1Char('\n') +
        tr("%1FLOPs (computed from shapes)").arg(NodeTableModel::formatCount(g.metrics[n].flops));
    return tip;
}

void GraphView::buildScene() {
    m_highlighted = nullptr;
    m_scene->clear();
    m_nodeItems.clear();
    m_edgeItems.clear();
    m_fusionOutlines.clear();
    m_itemToolTips.clear();
    const GraphOutline& outline = *m_layout->outline;
    const Graph& g = *graph();
    m_nodeItems.reserve(outline.items.size());
    for (std::size_t i = 0; i < outline.items.size(); ++i) {
        const OutlineItem& item = outline.items[i];
        QString subtitle;
        QString tip;
        if (item.isGroup()) {
            subtitle = tr("%n ops", "", static_cast<int>(item.members.size()));
            std::map<std::string, int> ops;
            for (const NodeId n : item.members) {
                ++ops[g.nodes[static_cast<std::size_t>(n)].opType];
            }
            QStringList counts;
            for (const auto& [op, count] : ops) {
                counts << QStringLiteral("%1 %2").arg(QString::fromStdString(op)).arg(count);
            }
            tip = tr("%1: %2 (%3)\nDouble-click to expand")
                      .arg(QString::fromStdString(item.key.substr(item.key.find(':') + 1)),
                           subtitle, counts.join(QStringLiteral(", ")));
        } else {
            subtitle = lastNameComponent(g.nodes[static_cast<std::size_t>(item.members[0])].name);
            tip = nodeToolTip(item.members[0]);
        }
        auto* box = new GraphNodeItem(static_cast<int>(i), m_layout->itemRects[i],
                                      QString::fromStdString(item.title), subtitle, item.isGroup());
        box->setToolTip(tip);
        m_itemToolTips.push_back(tip);
        m_scene->addItem(box);
        m_nodeItems.push_back(box);
    }
    m_edgeItems.reserve(outline.edges.size());
    for (std::size_t e = 0; e < outline.edges.size(); ++e) {
        auto* edge =
            new GraphEdgeItem(static_cast<int>(e), m_layout->edgePaths[e], m_layout->arrowHeads[e]);
        m_scene->addItem(edge);
        m_edgeItems.push_back(edge);
    }
    m_scene->setSceneRect(m_layout->bounds.adjusted(-40.0, -40.0, 40.0, 40.0));
}

GraphNodeItem* GraphView::nodeItem(int nodeId) const {
    if (!m_layout || nodeId < 0 ||
        nodeId >= static_cast<int>(m_layout->outline->itemOfNode.size())) {
        return nullptr;
    }
    const std::int32_t item = m_layout->outline->itemOfNode[static_cast<std::size_t>(nodeId)];
    return item < 0 ? nullptr : m_nodeItems[static_cast<std::size_t>(item)];
}

void GraphView::showNode(int nodeId) {
    m_selected = nodeId;
    highlightSelection();
    if (!m_clicking) {
        centreOnNode(nodeId, false);
    }
}

void GraphView::highlightSelection() {
    GraphNodeItem* item = nodeItem(m_selected);
    if (item == m_highlighted) {
        return;
    }
    if (m_highlighted) {
        m_highlighted->setHighlighted(false);
    }
    m_highlighted = item;
    if (item) {
        item->setHighlighted(true);
    }
}

void GraphView::centreOnNode(int nodeId, bool always) {
    GraphNodeItem* item = nodeItem(nodeId);
    if (!item) {
        return;
    }
    const QRectF box = item->sceneBoundingRect();
    // Selected elsewhere: bring it into sight, readable.
    if (always || m_canvas->zoom() < 0.3 || !m_canvas->visibleSceneRect().contains(box)) {
        if (m_canvas->zoom() < 0.6) {
            m_canvas->zoomBy(0.9 / m_canvas->zoom()); // close enough to read the node
        }
        m_canvas->centerOn(box.center());
    }
}

void GraphView::clickItem(GraphNodeItem* item) {
    const OutlineItem& clicked =
        m_layout->outline->items[static_cast<std::size_t>(item->outlineItem())];
    if (clicked.isGroup()) {
        // A group stands for many nodes: it is highlighted, not selected.
        if (m_highlighted) {
            m_highlighted->setHighlighted(false);
        }
        m_highlighted = item;
        item->setHighlighted(true);
        return;
    }
    // The view stays where the user clicked when the selection comes back through showNode.
    m_clicking = true;
    Q_EMIT nodeClicked(clicked.members[0]);
    m_clicking = false;
}

void GraphView::activateItem(GraphNodeItem* item) {
    const OutlineItem& activated =
        m_layout->outline->items[static_cast<std::size_t>(item->outlineItem())];
    if (activated.isGroup()) {
        m_focusAfterLayout = activated.members[0];
        toggleGroup(activated.key);
        return;
    }
    // A node the user revealed by expanding its scope: double-clicking folds the scope again.
    const std::string& name = graph()->nodes[static_cast<std::size_t>(activated.members[0])].name;
    for (std::string scope = nodeScope(name); !scope.empty();
         scope = scope.substr(0, scope.rfind('/'))) {
        if (m_options.toggled.count("scope:" + scope) > 0) {
            m_focusAfterLayout = activated.members[0];
            toggleGroup("scope:" + scope);
            return;
        }
    }
}

void GraphView::toggleGroup(const std::string& key) {
    if (!m_model) {
        return;
    }
    if (m_options.toggled.erase(key) == 0) {
        m_options.toggled.insert(key);
    }
    startLayout();
}

bool GraphView::find(const QString& text) {
    const QString wanted = text.trimmed();
    if (!m_layout || wanted.isEmpty()) {
        return false;
    }
    const Graph& g = *graph();
    const auto count = static_cast<int>(g.nodes.size());
    for (int step = 1; step <= count; ++step) {
        const int n = (m_findCursor + step) % count;
        const Node& node = g.nodes[static_cast<std::size_t>(n)];
        if (m_layout->outline->itemOfNode[static_cast<std::size_t>(n)] < 0) {
            continue; // not drawn (a constant)
        }
        if (!QString::fromStdString(node.name).contains(wanted, Qt::CaseInsensitive) &&
            QString::fromStdString(node.opType).compare(wanted, Qt::CaseInsensitive) != 0) {
            continue;
        }
        m_findCursor = n;
        // Expand the groups that hide it (nested scopes may take more than one).
        OutlineOptions options = m_options;
        bool expanded = false;
        for (int depth = 0; depth < 64; ++depth) {
            const GraphOutline outline = buildOutline(g, options);
            const OutlineItem& item = outline.items[static_cast<std::size_t>(
                outline.itemOfNode[static_cast<std::size_t>(n)])];
            if (!item.isGroup()) {
                break;
            }
            options.toggled.insert(item.key);
            expanded = true;
        }
        m_selected = n;
        if (expanded) {
            m_options = options;
            m_focusAfterLayout = n;
            startLayout();
        } else {
            highlightSelection();
            centreOnNode(n, true);
        }
        m_status->setText(
            tr("Found %1 (%2)")
                .arg(QString::fromStdString(node.name), QString::fromStdString(node.opType)));
        Q_EMIT nodeClicked(n);
        return true;
    }
    m_status->setText(tr("No drawn node matches \"%1\"").arg(wanted));
    return false;
}

void GraphView::fit() {
    if (m_scene->items().isEmpty()) {
        return;
    }
    m_canvas->fitInView(m_scene->sceneRect(), Qt::KeepAspectRatio);
    updateOverviewRect();
}

void GraphView::initialView() {
    const QRectF all = m_scene->sceneRect();
    const QSize port = m_canvas->viewport()->size();
    const double fitZoom = std::min(port.width() / all.width(), port.height() / all.height());
    if (fitZoom >= 0.3) {
        fit();
        return;
    }
    // Too big to read when fitted: start readable at the first node, the overview shows the
    // rest.
    m_canvas->resetTransform();
    m_canvas->scale(0.8, 0.8);
    const QRectF first = m_layout->itemRects.front();
    m_canvas->centerOn(first.center().x(), first.top() - 100.0 + port.height() / 1.6);
    updateOverviewRect();
}

void GraphView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    placeOverlays();
    m_overviewTimer->start();
}

void GraphView::placeOverlays() {
    const QRect area(m_canvas->viewport()->mapTo(this, QPoint(0, 0)), m_canvas->viewport()->size());
    if (!m_layout || m_scene->sceneRect().isEmpty()) {
        m_overview->hide();
        return;
    }
    // The overview keeps the scene's proportions within a corner box, at least 24 px wide.
    const QRectF scene = m_scene->sceneRect();
    const double boxW = std::min(200.0, area.width() / 4.0);
    const double boxH = std::max(60.0, area.height() - 40.0);
    const double s = std::min(boxW / scene.width(), boxH / scene.height());
    const QSize size(std::max(24, static_cast<int>(scene.width() * s)),
                     std::max(24, static_cast<int>(scene.height() * s)));
    m_overview->setGeometry(
        QRect(area.right() - size.width() - 8, area.top() + 8, size.width(), size.height()));
    m_overview->raise();
    updateOverviewRect();
}

void GraphView::refreshOverview() {
    if (!m_layout || !m_overview->isVisibleTo(this)) {
        return;
    }
    QImage picture(m_overview->size() * 2, QImage::Format_ARGB32_Premultiplied);
    picture.fill(Qt::white);
    QPainter painter(&picture);
    m_scene->render(&painter, QRectF(picture.rect()), m_scene->sceneRect(), Qt::IgnoreAspectRatio);
    painter.end();
    m_overview->setPicture(picture, m_scene->sceneRect());
    updateOverviewRect();
}

void GraphView::updateOverviewRect() {
    const QRectF visible = m_canvas->visibleSceneRect();
    m_overview->setVisibleRect(visible, m_scene->sceneRect());
    // Only needed while part of the graph is out of sight.
    const bool needed =
        m_layout && !visible.contains(m_scene->sceneRect().adjusted(30.0, 30.0, -30.0, -30.0));
    if (needed != m_overview->isVisibleTo(this)) {
        m_overview->setVisible(needed);
        if (needed) {
            m_overviewTimer->start();
        }
    }
}

} // namespace paretune
