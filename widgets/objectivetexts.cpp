// SPDX-License-Identifier: GPL-3.0-or-later
#include "objectivetexts.h"

#include <QCoreApplication>

#include <cstddef>
#include <iterator>

namespace paretune {

namespace {

/// The texts of each objective, indexed like objectiveDescriptors(); translated in the Pareto
/// plot's context, where they were first written.
struct ObjectiveTexts {
    const char* title;
    const char* unit;
    const char* axis;
};
constexpr ObjectiveTexts kTexts[] = {
    {QT_TRANSLATE_NOOP("paretune::ParetoPlot", "latency"),
     QT_TRANSLATE_NOOP("paretune::ParetoPlot", "ms"),
     QT_TRANSLATE_NOOP("paretune::ParetoPlot", "Latency (ms)")},
    {QT_TRANSLATE_NOOP("paretune::ParetoPlot", "energy"),
     QT_TRANSLATE_NOOP("paretune::ParetoPlot", "mJ"),
     QT_TRANSLATE_NOOP("paretune::ParetoPlot", "Energy per inference (mJ)")},
    {QT_TRANSLATE_NOOP("paretune::ParetoPlot", "average power"),
     QT_TRANSLATE_NOOP("paretune::ParetoPlot", "W"),
     QT_TRANSLATE_NOOP("paretune::ParetoPlot", "Average power (W)")},
    {QT_TRANSLATE_NOOP("paretune::ParetoPlot", "peak memory"),
     QT_TRANSLATE_NOOP("paretune::ParetoPlot", "MiB"),
     QT_TRANSLATE_NOOP("paretune::ParetoPlot", "Peak memory (MiB)")},
    {QT_TRANSLATE_NOOP("paretune::ParetoPlot", "accuracy loss"),
     QT_TRANSLATE_NOOP("paretune::ParetoPlot", "%"),
     QT_TRANSLATE_NOOP("paretune::ParetoPlot", "Accuracy loss (estimated deviation, %)")},
};
static_assert(std::size(kTexts) == static_cast<std::size_t>(Objective::Accuracy) + 1,
              "kTexts is indexed by the Objective enum");

const ObjectiveTexts& textsOf(Objective objective) {
    return kTexts[static_cast<std::size_t>(objective)];
}

QString translated(const char* text) {
    return QCoreApplication::translate("paretune::ParetoPlot", text);
}

} // namespace

double displayValue(const Objectives& objectives, Objective objective) {
    return describe(objective).displayValue(objectives);
}

QString objectiveAxisLabel(Objective objective) {
    return translated(textsOf(objective).axis);
}

QString objectiveUnit(Objective objective) {
    return translated(textsOf(objective).unit);
}

QString objectiveTitle(Objective objective) {
    return translated(textsOf(objective).title);
}

} // namespace paretune
