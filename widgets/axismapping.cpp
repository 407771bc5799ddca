// SPDX-License-Identifier: GPL-3.0-or-later
#include "axismapping.h"

#include <algorithm>

namespace paretune {

AxisMapping::AxisMapping(double valueLo, double valueHi, double pixelLo, double pixelHi)
    : m_valueLo(valueLo), m_valueHi(valueHi), m_pixelLo(pixelLo), m_pixelHi(pixelHi) {}

double AxisMapping::toPixel(double value) const {
    const double span = m_valueHi - m_valueLo;
    if (span == 0.0) {
        return m_pixelLo;
    }
    return m_pixelLo + (value - m_valueLo) / span * (m_pixelHi - m_pixelLo);
}

double AxisMapping::toValue(double pixel) const {
    const double pixels = m_pixelHi - m_pixelLo;
    if (pixels == 0.0) {
        return m_valueLo;
    }
    return m_valueLo + (pixel - m_pixelLo) / pixels * (m_valueHi - m_valueLo);
}

void AxisMapping::setValueRange(double lo, double hi) {
    m_valueLo = lo;
    m_valueHi = hi;
}

void AxisMapping::setPixelRange(double lo, double hi) {
    m_pixelLo = lo;
    m_pixelHi = hi;
}

void AxisMapping::zoom(double factor, double anchorPixel) {
    if (factor <= 0.0) {
        return;
    }
    const double anchor = toValue(anchorPixel);
    m_valueLo = anchor - (anchor - m_valueLo) / factor;
    m_valueHi = anchor + (m_valueHi - anchor) / factor;
}

void AxisMapping::pan(double pixels) {
    const double pixelSpan = m_pixelHi - m_pixelLo;
    if (pixelSpan == 0.0) {
        return;
    }
    const double shift = pixels / pixelSpan * (m_valueHi - m_valueLo);
    m_valueLo -= shift;
    m_valueHi -= shift;
}

void AxisMapping::clampTo(double lo, double hi, double minSpan) {
    const double limit = std::max(hi - lo, 0.0);
    double span = std::clamp(m_valueHi - m_valueLo, std::min(minSpan, limit), limit);
    const double center = (m_valueLo + m_valueHi) / 2.0;
    m_valueLo = center - span / 2.0;
    m_valueHi = center + span / 2.0;
    if (m_valueLo < lo) {
        m_valueLo = lo;
        m_valueHi = lo + span;
    }
    if (m_valueHi > hi) {
        m_valueHi = hi;
        m_valueLo = hi - span;
    }
}

} // namespace paretune
