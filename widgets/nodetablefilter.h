// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QSortFilterProxyModel>

namespace paretune {

/// The per-layer profile's view of a NodeTableModel: sorted by SortRole, filtered by a text
/// (any column, case-insensitive) and, unless setShowConstants(true), without the rows of
/// constant nodes, which carry no run-time cost and would fill the table of a large model.
class NodeTableFilter : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit NodeTableFilter(QObject* parent = nullptr);

    void setShowConstants(bool show);
    bool showsConstants() const { return m_showConstants; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    bool m_showConstants = false;
};

} // namespace paretune
