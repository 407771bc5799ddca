// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graphoutline.h"
#include "graphpalette.h"

#include <QWidget>

#include <memory>
#include <optional>
#include <string>
#include <vector>

class QComboBox;
class QGraphicsItem;
class QGraphicsScene;
class QLabel;
class QActionGroup;
class QLineEdit;
class QMenu;
class QTimer;

namespace paretune {

struct GraphLayout;
struct ImportResult;
struct SearchOutcome;
class GraphCanvas;
class GraphEdgeItem;
class GraphNodeItem;
class GraphOverview;
class JobRunner;

/// The model's graph, laid out top to bottom by Graphviz `dot` on a worker thread and drawn in
/// a QGraphicsView: zoom, pan, fit, an overview, folded groups for large graphs (double-click
/// to expand), nodes coloured by the selected plan's device, by latency or by precision,
/// transfers between devices drawn on the edges that cross them, Ctrl+F to find nodes.
class GraphView : public QWidget {
    Q_OBJECT
public:
    using Colouring = GraphColouring;

    explicit GraphView(QWidget* parent = nullptr);
    ~GraphView() override;

    /// Shows a model (null: nothing) and starts laying it out; the latest call wins.
    void setModel(std::shared_ptr<const ImportResult> model);
    /// The search whose plans colour the graph; clears the chosen plan.
    void setSearch(std::shared_ptr<const SearchOutcome> search);
    /// Colours by front plan `index` of the current search; -1 clears.
    void setPlan(int index);
    void setColouring(Colouring colouring);
    Colouring colouring() const;
    /// "Colour graph by" with a checkable entry per colouring, in step with the view's own
    /// choice above the graph (for the window's View menu).
    QMenu* colouringMenu() const { return m_colourMenu; }

    /// Highlights the item that draws graph node `nodeId` (its group when folded) and, unless
    /// the node was clicked here, scrolls to it when it is out of sight or too small to read;
    /// -1 clears.
    void showNode(int nodeId);
    /// Finds the next node whose name contains `text` or whose op type is `text` (ignoring
    /// case), expands the groups hiding it, centres it and reports it with nodeClicked.
    bool find(const QString& text);
    /// Flips a group between folded and expanded and lays the graph out again.
    void toggleGroup(const std::string& key);
    void fit();

    /// Whether a layout is queued or running on the worker.
    bool isLayingOut() const;
    /// Time the GUI thread spent turning the last layout into coloured scene items.
    double sceneBuildMs() const { return m_sceneMs; }
    std::shared_ptr<const GraphLayout> currentLayout() const { return m_layout; }
    GraphCanvas* canvas() const { return m_canvas; }
    QGraphicsScene* scene() const { return m_scene; }
    GraphOverview* overview() const { return m_overview; }
    /// The box drawing graph node `nodeId` (itself or its folded group); null when hidden.
    GraphNodeItem* nodeItem(int nodeId) const;
    const std::vector<GraphEdgeItem*>& edgeItems() const { return m_edgeItems; }
    /// The legend's text (rich text).
    QString legendText() const;

Q_SIGNALS:
    /// The user picked a node in the view (click or find).
    void nodeClicked(int nodeId);
    /// A finished layout is in the scene, coloured.
    void layoutShown();
    void layoutFailed(const QString& message);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void startLayout();
    void applyLayout(std::shared_ptr<const GraphLayout> layout);
    void buildScene();
    void recolour();
    void colourByDevice(QString& legend);
    void colourByLatency(QString& legend);
    void colourByPrecision(QString& legend);
    void markTransfers();
    /// The precision the plan keeps producer's output t in while it moves (a chain: every
    /// reader in the producer's lower-precision variant), as the simulator counts it; none: fp32.
    std::optional<Precision> keptNarrow(TensorId t, NodeId producer) const;
    /// Outlines the fusion groups the chosen plan takes; returns how many.
    int outlineFusionGroups();
    struct VariantMarks {
        int lowered = 0;    ///< nodes in another variant than fp32
        int ownThreads = 0; ///< of them, on their own threads (-tN)
    };
    /// Marks the nodes the plan runs in another variant (a frame, variantMarkStyle; the variant
    /// in the tooltip) and counts them.
    VariantMarks markVariants();
    /// The plan's variant of a node (0: fp32, or no plan).
    std::int32_t variantOf(NodeId n) const;
    void planToolTips();
    void clickItem(GraphNodeItem* item);
    void activateItem(GraphNodeItem* item);
    void highlightSelection();
    void centreOnNode(int nodeId, bool always);
    void initialView();
    void placeOverlays();
    void refreshOverview();
    void updateOverviewRect();
    QString nodeToolTip(int nodeId) const;
    const Graph* graph() const;

    QComboBox* m_colourBy = nullptr; ///< items in the order of GraphColouring
    QMenu* m_colourMenu = nullptr;
    QActionGroup* m_colourActions = nullptr;
    QLineEdit* m_find = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_legend = nullptr;
    QGraphicsScene* m_scene = nullptr;
    GraphCanvas* m_canvas = nullptr;
    GraphOverview* m_overview = nullptr;
    QTimer* m_overviewTimer = nullptr;
    JobRunner* m_layoutJob = nullptr; ///< lays the outline out with Graphviz, latest wins

    std::shared_ptr<const ImportResult> m_model;
    OutlineOptions m_options;
    std::shared_ptr<const GraphLayout> m_layout;
    std::vector<GraphNodeItem*> m_nodeItems; ///< per outline item
    std::vector<GraphEdgeItem*> m_edgeItems; ///< per outline edge
    std::vector<QString> m_itemToolTips;     ///< per outline item, without the plan's line
    double m_sceneMs = 0.0;
    std::shared_ptr<const SearchOutcome> m_search;
    int m_plan = -1;
    std::vector<std::int32_t> m_planDevice; ///< per graph node, the plan's device; empty: none
    /// Dashed outlines around the fusion groups the chosen plan takes (owned by the scene).
    std::vector<QGraphicsItem*> m_fusionOutlines;
    std::vector<QGraphicsItem*> m_variantMarks;
    /// Per graph node, the plan's variant (index into the cost table's variants); empty: none.
    std::vector<std::int32_t> m_planVariant;
    int m_selected = -1;
    GraphNodeItem* m_highlighted = nullptr;
    int m_focusAfterLayout = -1; ///< node to centre once the running layout is shown
    bool m_freshModel = true;    ///< the next layout is the model's first
    int m_findCursor = -1;
    bool m_clicking = false; ///< a click in this view is being reported
};

} // namespace paretune
