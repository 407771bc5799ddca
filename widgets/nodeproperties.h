// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QTextBrowser>

#include <cstdint>
#include <memory>
#include <vector>

namespace paretune {

struct Graph;
struct ImportResult;
struct SearchOutcome;

/// The selected node's properties: op type, attributes, input and output tensors with their
/// shapes, FLOPs and bytes (computed from shapes), and its cost on every device of the current
/// search with the source of each figure (measured, predicted or modelled). Without a search it
/// says that no costs are available rather than showing any.
class NodeProperties : public QTextBrowser {
    Q_OBJECT
public:
    explicit NodeProperties(QWidget* parent = nullptr);

    void setModel(std::shared_ptr<const ImportResult> model);
    void setSearch(std::shared_ptr<const SearchOutcome> search);
    /// The front plan whose device (and precision) is marked in the cost tables; -1 for none.
    void setPlan(int index);
    /// Shows graph node `nodeId`; -1 shows a hint.
    void showNode(int nodeId);
    int shownNode() const { return m_node; }

    /// The page for one node, as rich text. `search` may be null or belong to another model
    /// (then no costs are shown); `planDevice` and `planVariant` are the plan's device index
    /// for the node (or -1) and its variant (0: fp32), `planDevices` the plan's device per graph
    /// node (null or empty: no plan chosen).
    static QString describe(const Graph& graph, int nodeId, const SearchOutcome* search,
                            int planDevice, int planVariant = 0,
                            const std::vector<std::int32_t>* planDevices = nullptr);

private:
    /// The node's cost in each precision variant the search offered (none: an empty string),
    /// the plan's marked.
    static QString variantSection(int nodeId, const SearchOutcome& search, int planDevice,
                                  int planVariant);
    /// The fusion group the node belongs to, if any: its members, its cost as one node against
    /// its members' apart, and whether the plan takes it.
    static QString fusionGroupSection(const Graph& graph, int nodeId, const SearchOutcome& search,
                                      const std::vector<std::int32_t>* planDevices);
    void refresh();

    std::shared_ptr<const ImportResult> m_model;
    std::shared_ptr<const SearchOutcome> m_search;
    std::vector<std::int32_t> m_planDevice;  ///< per graph node; empty without a plan
    std::vector<std::int32_t> m_planVariant; ///< per graph node; empty without a plan
    int m_node = -1;
};

} // namespace paretune
