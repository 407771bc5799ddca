#include "measuredpoints.h"

#include <algorithm>

namespace paretune {

MeasuredAxis measuredAxis(Objective x, Objective y) {
    return x == Objective::Latency   ? MeasuredAxis::X
           : y == Objective::Latency ? MeasuredAxis::Y
                                     : MeasuredAxis::None;
}

std::vector<MeasuredMark> measuredMarks(const std::vector<MeasuredPoint>& points, Objective x,
                                        Objective y) {
    const MeasuredAxis axis = measuredAxis(x, y);
    std::vector<MeasuredMark> marks;
    if (axis == MeasuredAxis::None) {
        return marks;
    }
    const ObjectiveDescriptor& dx = describe(x);
    const ObjectiveDescriptor& dy = describe(y);
    for (std::size_t i = 0; i < points.size(); ++i) {
        const MeasuredPoint& p = points[i];
        MeasuredMark m;
        m.point = static_cast<int>(i);
        m.simulatedX = dx.displayValue(p.simulated);
        m.simulatedY = dy.displayValue(p.simulated);
        // Latency is shown in ms; the measurement is in µs.
        const double median = p.medianUs / 1000.0;
        const double minus = std::max(0.0, (p.medianUs - p.p10Us) / 1000.0);
        const double plus = std::max(0.0, (p.p90Us - p.medianUs) / 1000.0);
        m.x = axis == MeasuredAxis::X ? median : m.simulatedX;
        m.y = axis == MeasuredAxis::Y ? median : m.simulatedY;
        m.minus = minus;
        m.plus = plus;
        marks.push_back(m);
    }
    std::stable_sort(marks.begin(), marks.end(),
                     [](const MeasuredMark& a, const MeasuredMark& b) { return a.x < b.x; });
    return marks;
}

} // namespace paretune
