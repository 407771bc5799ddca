#include "objective.h"

#include "common/input_error.h"

#include <algorithm>

namespace paretune {

std::string_view objectiveName(Objective objective) {
    switch (objective) {
    case Objective::Latency:
        return "latency";
    case Objective::Energy:
        return "energy";
    case Objective::AveragePower:
        return "power";
    case Objective::PeakMemory:
        return "memory";
    }
    return "latency";
}

std::vector<Objective> parseObjectives(std::string_view text) {
    std::vector<Objective> objectives;
    std::size_t begin = 0;
    while (begin <= text.size()) {
        const std::size_t end = std::min(text.find(',', begin), text.size());
        const std::string_view item = text.substr(begin, end - begin);
        Objective o;
        if (item == "latency") {
            o = Objective::Latency;
        } else if (item == "energy") {
            o = Objective::Energy;
        } else if (item == "power") {
            o = Objective::AveragePower;
        } else if (item == "memory") {
            o = Objective::PeakMemory;
        } else {
            throw InputError("--objectives: unknown objective \"" + std::string(item) +
                             "\" (expected latency, energy, power or memory)");
        }
        if (std::find(objectives.begin(), objectives.end(), o) != objectives.end()) {
            throw InputError("--objectives: \"" + std::string(item) + "\" is listed twice");
        }
        objectives.push_back(o);
        begin = end + 1;
    }
    if (objectives.size() < 2 || objectives.size() > 3) {
        throw InputError("--objectives: expected two or three objectives, got " +
                         std::to_string(objectives.size()));
    }
    return objectives;
}

double objectiveValue(const Objectives& o, Objective objective) {
    switch (objective) {
    case Objective::Latency:
        return o.latencyUs;
    case Objective::Energy:
        return o.energyMj;
    case Objective::AveragePower:
        return o.averagePowerW;
    case Objective::PeakMemory:
        return o.peakMemoryBytes / (1024.0 * 1024.0);
    }
    return 0.0;
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
