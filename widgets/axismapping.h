// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QPointF>

namespace paretune {

/// Linear map between a value interval [valueLo, valueHi] (time in µs, an objective in display
/// units) and a pixel interval [pixelLo, pixelHi]. pixelHi may be below pixelLo (an upward Y
/// axis). Zoom and pan change the value window; the pixel interval is the widget's geometry.
/// Pure math, no drawing: the timeline and the Pareto plot use it, and tests check it
/// numerically.
class AxisMapping {
public:
    AxisMapping() = default;
    AxisMapping(double valueLo, double valueHi, double pixelLo, double pixelHi);

    double valueLo() const { return m_valueLo; }
    double valueHi() const { return m_valueHi; }
    double pixelLo() const { return m_pixelLo; }
    double pixelHi() const { return m_pixelHi; }
    double valueSpan() const { return m_valueHi - m_valueLo; }

    double toPixel(double value) const;
    double toValue(double pixel) const;

    void setValueRange(double lo, double hi);
    void setPixelRange(double lo, double hi);
    /// Scales the value window by 1 / factor (factor > 1 zooms in) keeping the value under
    /// `anchorPixel` where it is.
    void zoom(double factor, double anchorPixel);
    /// Moves the content by `pixels` (positive: content moves towards pixelHi, i.e. the window
    /// shows smaller values).
    void pan(double pixels);
    /// Keeps the value window inside [lo, hi] and at least `minSpan` wide (and at most hi - lo),
    /// shifting it rather than shrinking it where possible.
    void clampTo(double lo, double hi, double minSpan);

private:
    double m_valueLo = 0.0;
    double m_valueHi = 1.0;
    double m_pixelLo = 0.0;
    double m_pixelHi = 1.0;
};

/// Two axis mappings: objective values (x, y) <-> a point in widget pixels.
struct PlaneMapping {
    AxisMapping x;
    AxisMapping y;

    QPointF toPixel(QPointF values) const { return {x.toPixel(values.x()), y.toPixel(values.y())}; }
    QPointF toValues(QPointF pixel) const { return {x.toValue(pixel.x()), y.toValue(pixel.y())}; }
};

} // namespace paretune
