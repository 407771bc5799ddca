// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QColor>
#include <QPen>
#include <QString>

#include <cstdint>
#include <optional>

namespace paretune {

enum class Precision : std::uint8_t;
struct Variant;

/// What the graph view's fill colours say: the chosen plan's device per node, the node's
/// latency on it, or the precision it computes in.
enum class GraphColouring { Device, Latency, Precision };

/// "device", "latency", "precision": the name a workspace stores.
QString graphColouringName(GraphColouring colouring);
/// The colouring of a name graphColouringName gives; none for another text.
std::optional<GraphColouring> parseGraphColouring(const QString& name);

/// Fill colour of device `index` of a search (index into SearchOutcome::deviceIds), so that a
/// device keeps its colour in every view; negative: a node the plan does not place.
QColor deviceColour(int index);

/// Fill colour of a node computing in `precision` (fp32: also every node of no plan): pale
/// blue, orange, dark purple, apart in lightness as in hue so that they stay apart for the
/// colour-blind and in grey, each with a label colour (labelColour) of WCAG AA contrast.
QColor precisionColour(Precision precision);
/// Fill colour of a node running in `variant`: its precision's, and for fp32-nhwc (a layout) a
/// red apart from the four in lightness too.
QColor variantColour(Variant variant);
/// How the mark around a node in another variant than fp32 is drawn: dotted, or dash-dotted
/// where the node runs on its own threads (-tN), which its fill (its precision's) cannot show.
Qt::PenStyle variantMarkStyle(Variant variant);
/// The legend's picture of that mark: "⋯" or "-·-".
QString variantMarkSymbol(Variant variant);

/// WCAG 2 relative luminance (0 black, 1 white) and contrast ratio (1 to 21).
double relativeLuminance(const QColor& colour);
double contrastRatio(const QColor& a, const QColor& b);
/// The colour node labels are written in on a box filled with `fill`: white or black, whichever
/// contrasts more with it.
QColor labelColour(const QColor& fill);

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
