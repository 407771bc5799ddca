// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QColor>
#include <QString>

namespace paretune {

/// Fill colour of device `index` of a search (index into SearchOutcome::deviceIds), so that a
/// device keeps its colour in every view; negative: a node the plan does not place.
QColor deviceColour(int index);

/// "850 µs", "12.4 ms", "1.20 s".
QString formatMicroseconds(double us);

/// Maps latencies to colours on a logarithmic scale between the smallest and the largest
/// positive latency shown: pale yellow for the fastest, dark red for the slowest.
class HeatScale {
public:
    HeatScale() = default;
    HeatScale(double minimum, double maximum);

    bool isValid() const { return m_minimum > 0.0 && m_maximum >= m_minimum; }
    double minimum() const { return m_minimum; }
    double maximum() const { return m_maximum; }
    /// 0 at the minimum, 1 at the maximum, log-linear between; clamped. 0 when all are equal.
    double position(double value) const;
    QColor colour(double value) const { return colourAt(position(value)); }
    static QColor colourAt(double position);

private:
    double m_minimum = 0.0;
    double m_maximum = 0.0;
};

} // namespace paretune
