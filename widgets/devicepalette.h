#pragma once

#include <QColor>

namespace paretune {

/// The colour of a cost-table device index, shared by the views that colour by device.
inline QColor deviceColor(int deviceIndex) {
    static const QColor kColors[] = {
        QColor(31, 119, 180), QColor(255, 127, 14),  QColor(44, 160, 44),  QColor(148, 103, 189),
        QColor(140, 86, 75),  QColor(227, 119, 194), QColor(188, 189, 34), QColor(23, 190, 207)};
    constexpr int n = sizeof kColors / sizeof kColors[0];
    return deviceIndex < 0 ? QColor(Qt::gray) : kColors[deviceIndex % n];
}

} // namespace paretune
