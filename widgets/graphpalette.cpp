// SPDX-License-Identifier: GPL-3.0-or-later
#include "graphpalette.h"

#include "graph/precision.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace paretune {

QColor deviceColour(int index) {
    // Tableau 10: distinct for the colour-blind in the first few entries.
    static constexpr std::array<QRgb, 10> kColours = {0x4e79a7, 0x59a14f, 0xf28e2b, 0xb07aa1,
                                                      0xe15759, 0x76b7b2, 0xedc948, 0xff9da7,
                                                      0x9c755f, 0xbab0ac};
    if (index < 0) {
        return QColor(0xd9d9d9);
    }
    return QColor(kColours[static_cast<std::size_t>(index) % kColours.size()]);
}

QString graphColouringName(GraphColouring colouring) {
    switch (colouring) {
    case GraphColouring::Device:
        return QStringLiteral("device");
    case GraphColouring::Latency:
        return QStringLiteral("latency");
    case GraphColouring::Precision:
        return QStringLiteral("precision");
    }
    return QStringLiteral("device");
}

std::optional<GraphColouring> parseGraphColouring(const QString& name) {
    for (const GraphColouring c :
         {GraphColouring::Device, GraphColouring::Latency, GraphColouring::Precision}) {
        if (name == graphColouringName(c)) {
            return c;
        }
    }
    return std::nullopt;
}

QColor precisionColour(Precision precision) {
    // In the order of the enum (fp32, bf16, int8, fp16: a bluish green apart from the three).
    static constexpr std::array<QRgb, 4> kColours = {0xc6dbef, 0xe69f00, 0x5e3c99, 0x009e73};
    const auto i = std::min(static_cast<std::size_t>(precision), kColours.size() - 1);
    return QColor(kColours[i]);
}

QColor variantColour(Variant variant) {
    return variant.layout == Layout::ChannelsLast ? QColor(0xcc3311)
                                                  : precisionColour(variant.precision);
}

Qt::PenStyle variantMarkStyle(Variant variant) {
    return variant.threads > 0 ? Qt::DashDotLine : Qt::DotLine;
}

QString variantMarkSymbol(Variant variant) {
    return variant.threads > 0 ? QStringLiteral("-&#183;-") : QStringLiteral("&#8943;");
}

double relativeLuminance(const QColor& colour) {
    const auto linear = [](double v) {
        return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * linear(colour.redF()) + 0.7152 * linear(colour.greenF()) +
           0.0722 * linear(colour.blueF());
}

double contrastRatio(const QColor& a, const QColor& b) {
    const double la = relativeLuminance(a);
    const double lb = relativeLuminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QColor labelColour(const QColor& fill) {
    const QColor white(Qt::white);
    const QColor black(Qt::black);
    return contrastRatio(fill, white) > contrastRatio(fill, black) ? white : black;
}

QString formatMicroseconds(double us) {
    if (us < 1000.0) {
        return QStringLiteral("%1 \u00b5s").arg(us, 0, 'f', us < 10.0 ? 2 : 1);
    }
    if (us < 1e6) {
        return QStringLiteral("%1 ms").arg(us / 1000.0, 0, 'f', us < 1e4 ? 2 : 1);
    }
    return QStringLiteral("%1 s").arg(us / 1e6, 0, 'f', 2);
}

HeatScale::HeatScale(double minimum, double maximum) : m_minimum(minimum), m_maximum(maximum) {}

double HeatScale::position(double value) const {
    if (!isValid() || m_maximum == m_minimum || value <= 0.0) {
        return 0.0;
    }
    const double p = std::log(value / m_minimum) / std::log(m_maximum / m_minimum);
    return std::clamp(p, 0.0, 1.0);
}

QColor HeatScale::colourAt(double position) {
    // Pale yellow -> orange -> dark red (a sequential "YlOrRd" ramp).
    static constexpr std::array<QRgb, 5> kStops = {0xffffcc, 0xfed976, 0xfd8d3c, 0xe31a1c,
                                                   0x800026};
    const double x = std::clamp(position, 0.0, 1.0) * static_cast<double>(kStops.size() - 1);
    const auto i = std::min(static_cast<std::size_t>(x), kStops.size() - 2);
    const double t = x - static_cast<double>(i);
    const QColor a(kStops[i]);
    const QColor b(kStops[i + 1]);
    auto mix = [t](int u, int v) { return static_cast<int>(std::lround(u + (v - u) * t)); };
    return QColor(mix(a.red(), b.red()), mix(a.green(), b.green()), mix(a.blue(), b.blue()));
}

} // namespace paretune
