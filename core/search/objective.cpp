// SPDX-License-Identifier: GPL-3.0-or-later
#include "objective.h"

#include "common/input_error.h"

#include <algorithm>

namespace paretune {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

constexpr ObjectiveDescriptor kDescriptors[] = {
    {Objective::Latency, "latency", "ms", [](const Objectives& o) { return o.latencyUs; },
     [](const Objectives& o) { return o.latencyUs / 1000.0; }},
    {Objective::Energy, "energy", "mJ", [](const Objectives& o) { return o.energyMj; },
     [](const Objectives& o) { return o.energyMj; }},
    {Objective::AveragePower, "power", "W", [](const Objectives& o) { return o.averagePowerW; },
     [](const Objectives& o) { return o.averagePowerW; }},
    {Objective::PeakMemory, "memory", "MiB",
     [](const Objectives& o) { return o.peakMemoryBytes / kMiB; },
     [](const Objectives& o) { return o.peakMemoryBytes / kMiB; }},
    {Objective::Accuracy, "accuracy", "%", [](const Objectives& o) { return o.deviationPct; },
     [](const Objectives& o) { return o.deviationPct; }},
};

constexpr bool inEnumOrder() {
    for (std::size_t i = 0; i < std::size(kDescriptors); ++i) {
        if (static_cast<std::size_t>(kDescriptors[i].objective) != i) {
            return false;
        }
    }
    return true;
}
static_assert(inEnumOrder(), "kDescriptors is indexed by the Objective enum");

} // namespace

std::span<const ObjectiveDescriptor> objectiveDescriptors() {
    return kDescriptors;
}

const ObjectiveDescriptor& describe(Objective objective) {
    return kDescriptors[static_cast<std::size_t>(objective)];
}

std::string_view objectiveName(Objective objective) {
    return describe(objective).name;
}

std::vector<Objective> parseObjectives(std::string_view text) {
    std::vector<Objective> objectives;
    std::size_t begin = 0;
    while (begin <= text.size()) {
        const std::size_t end = std::min(text.find(',', begin), text.size());
        const std::string_view item = text.substr(begin, end - begin);
        const auto* found =
            std::find_if(std::begin(kDescriptors), std::end(kDescriptors),
                         [&](const ObjectiveDescriptor& d) { return d.name == item; });
        if (found == std::end(kDescriptors)) {
            throw InputError::forSetting("objectives", "unknown objective \"" + std::string(item) +
                                                           "\" (expected latency, energy, power, "
                                                           "memory or accuracy)");
        }
        const Objective o = found->objective;
        if (std::find(objectives.begin(), objectives.end(), o) != objectives.end()) {
            throw InputError::forSetting("objectives",
                                         "\"" + std::string(item) + "\" is listed twice");
        }
        objectives.push_back(o);
        begin = end + 1;
    }
    if (objectives.size() < 2 || objectives.size() > 3) {
        throw InputError::forSetting("objectives", "expected two or three objectives, got " +
                                                       std::to_string(objectives.size()));
    }
    return objectives;
}

double objectiveValue(const Objectives& o, Objective objective) {
    return describe(objective).value(o);
}

bool weaklyDominates(const Objectives& a, const Objectives& b,
                     std::span<const Objective> objectives) {
    return std::all_of(objectives.begin(), objectives.end(),
                       [&](Objective o) { return objectiveValue(a, o) <= objectiveValue(b, o); });
}

bool constrainedDominates(const Objectives& a, const Objectives& b,
                          std::span<const Objective> objectives) {
    if (a.violation != b.violation && (a.violation > 0.0 || b.violation > 0.0)) {
        return a.violation < b.violation;
    }
    if (a.violation > 0.0) {
        return false; // equally infeasible
    }
    bool strictly = false;
    for (const Objective o : objectives) {
        const double x = objectiveValue(a, o);
        const double y = objectiveValue(b, o);
        if (x > y) {
            return false;
        }
        strictly = strictly || x < y;
    }
    return strictly;
}

} // namespace paretune
