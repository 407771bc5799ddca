// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/memory_plan_json.h"

#include "cost/cost_table.h"

#include <string>

namespace paretune {

namespace {

using Json = nlohmann::ordered_json;

bool holdsAnything(const DeviceMemoryPlan& d) {
    return !d.steps.empty() || !d.tensors.empty();
}

Json figures(const DeviceMemoryPlan& d) {
    return {{"arena_bytes", d.arenaBytes},         {"naive_bytes", d.naiveBytes},
            {"live_peak_bytes", d.livePeakBytes},  {"weights_bytes", d.weightsBytes},
            {"workspace_bytes", d.workspaceBytes}, {"planned_bytes", d.plannedBytes()},
            {"in_place", d.inPlaceCount}};
}

std::string tensorName(const Graph& g, const PlannedTensor& t) {
    if (t.kind == ArenaTensorKind::Workspace) {
        return "workspace of " + g.nodes[static_cast<std::size_t>(t.node)].name;
    }
    return g.tensors[static_cast<std::size_t>(t.tensor)].name;
}

/// An integer field, or a problem.
bool integerField(const Json& object, const char* key, std::int64_t& value,
                  const std::string& where, std::vector<std::string>& problems) {
    const auto it = object.find(key);
    if (it == object.end() || !it->is_number_integer()) {
        problems.push_back(where + ": \"" + key + "\" is missing or not an integer");
        return false;
    }
    value = it->get<std::int64_t>();
    return true;
}

void checkDevice(const Json& device, const std::string& where, std::vector<std::string>& problems) {
    std::int64_t arena = 0;
    if (!device.is_object() || !integerField(device, "arena_bytes", arena, where, problems)) {
        return;
    }
    const auto stepsIt = device.find("steps");
    const auto tensorsIt = device.find("tensors");
    if (stepsIt == device.end() || !stepsIt->is_array() || tensorsIt == device.end() ||
        !tensorsIt->is_array()) {
        problems.push_back(where + ": \"steps\" and \"tensors\" must be lists");
        return;
    }
    const auto steps = static_cast<std::int64_t>(stepsIt->size());
    std::vector<ArenaBlock> blocks;
    std::vector<std::int64_t> offsets;
    std::vector<std::int32_t> sharing;
    std::vector<std::string> names;
    const std::size_t before = problems.size();
    for (std::size_t i = 0; i < tensorsIt->size(); ++i) {
        const Json& t = (*tensorsIt)[i];
        const std::string at = where + ".tensors[" + std::to_string(i) + "]";
        std::int64_t offset = 0, bytes = 0, first = 0, last = 0;
        if (!t.is_object() || !integerField(t, "offset", offset, at, problems) ||
            !integerField(t, "bytes", bytes, at, problems) ||
            !integerField(t, "first_step", first, at, problems) ||
            !integerField(t, "last_step", last, at, problems)) {
            continue;
        }
        const std::string name =
            t.contains("name") && t["name"].is_string() ? t["name"].get<std::string>() : at;
        if (offset < 0 || bytes < 0 || offset + bytes > arena) {
            problems.push_back(where + ": tensor '" + name + "' (" + std::to_string(offset) +
                               " + " + std::to_string(bytes) +
                               " bytes) does not fit its arena of " + std::to_string(arena));
        }
        if (offset % kArenaAlignment != 0) {
            problems.push_back(where + ": tensor '" + name + "' at offset " +
                               std::to_string(offset) + " is not aligned to " +
                               std::to_string(kArenaAlignment) + " bytes");
        }
        if (first < 0 || first > last || last >= std::max<std::int64_t>(steps, 1)) {
            problems.push_back(where + ": tensor '" + name + "' lives from step " +
                               std::to_string(first) + " to " + std::to_string(last) +
                               ", the device has " + std::to_string(steps) + " steps");
        }
        std::int32_t inPlaceOf = -1;
        if (const auto ip = t.find("in_place_of"); ip != t.end() && !ip->is_null()) {
            if (!ip->is_number_integer() || ip->get<std::int64_t>() < 0 ||
                ip->get<std::int64_t>() >= static_cast<std::int64_t>(tensorsIt->size())) {
                problems.push_back(where + ": tensor '" + name +
                                   "': \"in_place_of\" is not a tensor index");
            } else {
                inPlaceOf = static_cast<std::int32_t>(ip->get<std::int64_t>());
            }
        }
        blocks.push_back(
            {bytes, static_cast<std::int32_t>(first), static_cast<std::int32_t>(last)});
        offsets.push_back(offset);
        sharing.push_back(inPlaceOf);
        names.push_back(name);
    }
    if (problems.size() != before || blocks.size() != tensorsIt->size()) {
        return; // the overlap check needs every tensor readable
    }
    for (std::size_t i = 0; i < sharing.size(); ++i) {
        const std::int32_t j = sharing[i];
        if (j >= 0 && (offsets[i] != offsets[static_cast<std::size_t>(j)] ||
                       blocks[i].bytes != blocks[static_cast<std::size_t>(j)].bytes)) {
            problems.push_back(where + ": tensor '" + names[i] + "' is written in place of '" +
                               names[static_cast<std::size_t>(j)] +
                               "' but has another offset or size");
        }
    }
    if (const auto conflict = arenaConflict(blocks, offsets, sharing)) {
        const auto [a, b] = *conflict;
        problems.push_back(where + ": tensors '" + names[a] + "' (bytes " +
                           std::to_string(offsets[a]) + "-" +
                           std::to_string(offsets[a] + blocks[a].bytes) + ", steps " +
                           std::to_string(blocks[a].first) + "-" + std::to_string(blocks[a].last) +
                           ") and '" + names[b] + "' (bytes " + std::to_string(offsets[b]) + "-" +
                           std::to_string(offsets[b] + blocks[b].bytes) + ", steps " +
                           std::to_string(blocks[b].first) + "-" + std::to_string(blocks[b].last) +
                           ") are live at the same step and overlap in the arena");
    }
}

} // namespace

nlohmann::ordered_json memoryFiguresJson(const MemoryPlan& plan, const CostTable& costs) {
    Json devices = Json::object();
    for (const DeviceMemoryPlan& d : plan.devices) {
        if (holdsAnything(d)) {
            devices[costs.device(d.device).id] = figures(d);
        }
    }
    return devices;
}

nlohmann::ordered_json memoryPlanJson(const MemoryPlan& plan, const Graph& g,
                                      const CostTable& costs) {
    Json devices = Json::array();
    for (const DeviceMemoryPlan& d : plan.devices) {
        if (!holdsAnything(d)) {
            continue;
        }
        Json entry = {{"device", costs.device(d.device).id}};
        entry.update(figures(d));
        Json steps = Json::array();
        for (const NodeId n : d.steps) {
            steps.push_back(g.nodes[static_cast<std::size_t>(n)].name);
        }
        Json tensors = Json::array();
        for (const PlannedTensor& t : d.tensors) {
            tensors.push_back(
                {{"name", tensorName(g, t)},
                 {"kind", arenaTensorKindName(t.kind)},
                 {"node", t.node == kNone ? Json(nullptr)
                                          : Json(g.nodes[static_cast<std::size_t>(t.node)].name)},
                 {"offset", t.offset},
                 {"bytes", t.bytes},
                 {"first_step", t.first},
                 {"last_step", t.last},
                 {"in_place_of", t.inPlaceOf < 0 ? Json(nullptr) : Json(t.inPlaceOf)}});
        }
        entry["steps"] = std::move(steps);
        entry["tensors"] = std::move(tensors);
        devices.push_back(std::move(entry));
    }
    return {{"schema", kMemoryPlanSchema},
            {"planner", "greedy by size (Pisarchyk & Lee 2020): largest tensor first, each at the "
                        "lowest offset free over its lifetime"},
            {"alignment", kArenaAlignment},
            {"lifetimes", "steps: the device's node runs in schedule order; a tensor occupies its "
                          "bytes from first_step to last_step inclusive; in_place_of: the tensor "
                          "whose block it overwrites (its input, last used by its producer)"},
            {"planned", "planned_bytes = arena_bytes + weights_bytes (workspace is a block of "
                        "the arena)"},
            {"devices", devices}};
}

std::vector<std::string> memoryPlanProblems(const nlohmann::ordered_json& document) {
    std::vector<std::string> problems;
    if (!document.is_object() || !document.contains("schema") ||
        document["schema"] != kMemoryPlanSchema) {
        problems.push_back(std::string("memory_plan.json: schema is not ") + kMemoryPlanSchema);
        return problems;
    }
    const auto devices = document.find("devices");
    if (devices == document.end() || !devices->is_array()) {
        problems.push_back("memory_plan.json: \"devices\" is not a list");
        return problems;
    }
    for (std::size_t i = 0; i < devices->size(); ++i) {
        const Json& device = (*devices)[i];
        std::string where = "memory_plan.json devices[" + std::to_string(i) + "]";
        if (device.is_object() && device.contains("device") && device["device"].is_string()) {
            where += " (" + device["device"].get<std::string>() + ")";
        }
        checkDevice(device, where, problems);
    }
    return problems;
}

} // namespace paretune
