// SPDX-License-Identifier: GPL-3.0-or-later
#include "labelplacement.h"

#include <algorithm>
#include <array>

namespace paretune {

std::vector<QRectF> placeLabels(const std::vector<QPointF>& anchors,
                                const std::vector<QSizeF>& sizes, const QRectF& bounds,
                                const std::vector<QRectF>& obstacles, double gap) {
    std::vector<QRectF> placed(anchors.size());
    std::vector<QRectF> taken = obstacles;
    for (std::size_t i = 0; i < anchors.size() && i < sizes.size(); ++i) {
        const QPointF a = anchors[i];
        const double w = sizes[i].width();
        const double h = sizes[i].height();
        const std::array<QPointF, 8> topLefts = {
            QPointF(a.x() + gap, a.y() - gap - h),
            QPointF(a.x() + gap, a.y() + gap),
            QPointF(a.x() - gap - w, a.y() - gap - h),
            QPointF(a.x() - gap - w, a.y() + gap),
            QPointF(a.x() - w / 2.0, a.y() - 2 * gap - h),
            QPointF(a.x() - w / 2.0, a.y() + 2 * gap),
            QPointF(a.x() + 2 * gap, a.y() - h / 2.0),
            QPointF(a.x() - 2 * gap - w, a.y() - h / 2.0),
        };
        for (const QPointF& topLeft : topLefts) {
            const QRectF r(topLeft, QSizeF(w, h));
            const bool free = std::none_of(taken.begin(), taken.end(),
                                           [&r](const QRectF& t) { return t.intersects(r); });
            if (bounds.contains(r) && free) {
                placed[i] = r;
                taken.push_back(r);
                break;
            }
        }
    }
    return placed;
}

} // namespace paretune
