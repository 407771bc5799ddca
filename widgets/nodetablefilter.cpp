// SPDX-License-Identifier: GPL-3.0-or-later
#include "nodetablefilter.h"

#include "nodetablemodel.h"

namespace paretune {

NodeTableFilter::NodeTableFilter(QObject* parent) : QSortFilterProxyModel(parent) {
    setSortRole(NodeTableModel::SortRole);
    setFilterKeyColumn(-1);
    setFilterCaseSensitivity(Qt::CaseInsensitive);
}

void NodeTableFilter::setShowConstants(bool show) {
    if (show != m_showConstants) {
        m_showConstants = show;
        invalidateFilter();
    }
}

bool NodeTableFilter::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
    if (!m_showConstants) {
        if (const auto* nodes = qobject_cast<const NodeTableModel*>(sourceModel());
            nodes && nodes->isConstant(sourceRow)) {
            return false;
        }
    }
    return QSortFilterProxyModel::filterAcceptsRow(sourceRow, sourceParent);
}

} // namespace paretune
