// SPDX-License-Identifier: GPL-3.0-or-later
#include "measuredpoints.h"

#include <QCoreApplication>
#include <QStringList>

#include <algorithm>

namespace paretune {

namespace {

QString translated(const char* text) {
    return QCoreApplication::translate("paretune::PlanClaim", text);
}

} // namespace

QString claimStatusText(const QString& status) {
    // Core's words, listed so that they are translated.
    static const char* const kWords[] = {QT_TRANSLATE_NOOP("paretune::PlanClaim", "confirmed"),
                                         QT_TRANSLATE_NOOP("paretune::PlanClaim", "contradicted"),
                                         QT_TRANSLATE_NOOP("paretune::PlanClaim", "predicted"),
                                         QT_TRANSLATE_NOOP("paretune::PlanClaim", "unmeasured"),
                                         QT_TRANSLATE_NOOP("paretune::PlanClaim", "not measured"),
                                         QT_TRANSLATE_NOOP("paretune::PlanClaim", "latency"),
                                         QT_TRANSLATE_NOOP("paretune::PlanClaim", "energy"),
                                         QT_TRANSLATE_NOOP("paretune::PlanClaim", "power"),
                                         QT_TRANSLATE_NOOP("paretune::PlanClaim", "memory")};
    for (const char* word : kWords) {
        if (status == QLatin1String(word)) {
            return translated(word);
        }
    }
    return status;
}

QString claimText(const PlanClaim& claim) {
    QStringList objectives;
    for (const auto& [name, status] : claim.objectives) {
        objectives << QCoreApplication::translate("paretune::PlanClaim", "%1 (%2)")
                          .arg(claimStatusText(name), claimStatusText(status));
    }
    const QString text =
        claim.dominates
            ? QCoreApplication::translate("paretune::PlanClaim", "dominates %1, better in %2: %3")
            : QCoreApplication::translate("paretune::PlanClaim", "better than %1 in %2: %3");
    return text.arg(claim.baseline, objectives.join(QStringLiteral(", ")),
                    claimStatusText(claim.status));
}

QString measuredText(const MeasuredPoint& p) {
    QString text =
        QCoreApplication::translate("paretune::MeasuredPoint",
                                    "latency %1 ms (p10 %2, p90 %3, %4 runs), predicted %5 ms, "
                                    "error %6%7 %")
            .arg(p.medianUs / 1000.0, 0, 'g', 4)
            .arg(p.p10Us / 1000.0, 0, 'g', 4)
            .arg(p.p90Us / 1000.0, 0, 'g', 4)
            .arg(p.runs)
            .arg((p.predictedUs > 0.0 ? p.predictedUs : p.simulated.latencyUs) / 1000.0, 0, 'g', 4)
            .arg(p.error >= 0 ? QStringLiteral("+") : QString())
            .arg(p.error * 100.0, 0, 'f', 1);
    if (p.energyMj) {
        text += QStringLiteral("; ") +
                QCoreApplication::translate("paretune::MeasuredPoint", "energy %1 mJ")
                    .arg(*p.energyMj, 0, 'g', 4);
    }
    if (p.memoryMb) {
        text += QStringLiteral("; ") +
                QCoreApplication::translate("paretune::MeasuredPoint",
                                            "peak memory %1 MiB, predicted %2 MiB")
                    .arg(*p.memoryMb, 0, 'g', 4)
                    .arg(p.simulated.peakMemoryBytes / (1024.0 * 1024.0), 0, 'g', 4);
    }
    return text;
}

QString claimsHtml(const std::vector<PlanClaim>& claims) {
    QString html;
    for (const PlanClaim& c : claims) {
        const QString claim = claimText(c).toHtmlEscaped();
        html +=
            QStringLiteral("<br>") +
            (c.contradicted()
                 ? QStringLiteral("<b><font color=\"#c00000\">") +
                       QCoreApplication::translate("paretune::PlanClaim", "Claim contradicted: %1")
                           .arg(claim) +
                       QStringLiteral("</font></b>")
                 : QCoreApplication::translate("paretune::PlanClaim", "Claim: %1").arg(claim));
    }
    return html;
}

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
        // Across the latency axis: measured memory where that axis shows it.
        const Objective across = axis == MeasuredAxis::X ? y : x;
        const bool memory = across == Objective::PeakMemory && p.memoryMb.has_value();
        m.x = axis == MeasuredAxis::X ? median : memory ? *p.memoryMb : m.simulatedX;
        m.y = axis == MeasuredAxis::Y ? median : memory ? *p.memoryMb : m.simulatedY;
        m.minus = std::max(0.0, (p.medianUs - p.p10Us) / 1000.0);
        m.plus = std::max(0.0, (p.p90Us - p.medianUs) / 1000.0);
        marks.push_back(m);
    }
    std::stable_sort(marks.begin(), marks.end(),
                     [](const MeasuredMark& a, const MeasuredMark& b) { return a.x < b.x; });
    return marks;
}

} // namespace paretune
