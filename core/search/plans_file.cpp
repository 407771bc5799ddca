// SPDX-License-Identifier: GPL-3.0-or-later
#include "plans_file.h"

#include "common/input_error.h"
#include "common/input_file.h"
#include "common/json_reader.h"

#include <nlohmann/json.hpp>

#include <set>

namespace paretune {

const PlansFilePlan* PlansFile::find(std::int64_t id) const {
    for (const PlansFilePlan& p : plans) {
        if (p.id == id) {
            return &p;
        }
    }
    return nullptr;
}

const PlansFilePlan& PlansFile::plan(std::int64_t id) const {
    if (const PlansFilePlan* p = find(id)) {
        return *p;
    }
    std::int64_t highest = -1;
    for (const PlansFilePlan& p : plans) {
        highest = std::max(highest, p.id);
    }
    throw InputError(origin + ": holds no plan with id " + std::to_string(id) + " (ids 0 to " +
                     std::to_string(highest) + ")");
}

void PlansFile::requireModel(const std::string& fingerprint, const std::string& modelName) const {
    if (modelFingerprint != fingerprint) {
        throw InputError(origin +
                         ": the plans were searched for another model (model fingerprint " +
                         modelFingerprint.substr(0, 16) + "…, " + modelName + " has " +
                         fingerprint.substr(0, 16) + "…)");
    }
}

namespace {

/// A variant name of the document at `field`; fp32 is refused where only other ones belong.
template <class Json>
Variant variantAt(const JsonFields<Json>& fields, const Json& value, const std::string& field) {
    const std::string name = fields.asString(value, field);
    Variant variant = Precision::Fp32;
    try {
        variant = parseVariant(name);
    } catch (const InputError& e) {
        fields.fail(field, e.what());
    }
    if (variant == Precision::Fp32) {
        fields.fail(field, "fp32 is every node's default: list only the other variants");
    }
    return variant;
}

template <class Json> PlansFile parsePlans(const Json& doc, const std::string& origin) {
    PlansFile file;
    file.origin = origin;
    const JsonFields<Json> fields(origin);
    if (!doc.is_object() || !doc.contains("tool") || !doc.contains("plans") ||
        !doc.contains("devices")) {
        throw InputError(origin + ": not a plans file of `paretune search --out` (expected "
                                  "\"tool\": \"paretune\", \"devices\" and \"plans\")");
    }
    if (const std::string tool = fields.string(doc, "", "tool"); tool != "paretune") {
        fields.fail("tool", "expected \"paretune\", got \"" + tool + "\"");
    }
    const Json& devices = fields.array(doc, "", "devices");
    for (std::size_t i = 0; i < devices.size(); ++i) {
        file.devices.push_back(fields.asString(devices[i], JsonFields<Json>::at("devices", i)));
    }
    file.modelFingerprint = fields.optionalString(doc, "", "model_fingerprint");
    file.catalog = fields.optionalString(doc, "", "catalog");
    std::string objectives;
    const Json& listed = fields.optionalArray(doc, "", "objectives");
    for (std::size_t i = 0; i < listed.size(); ++i) {
        objectives += (objectives.empty() ? "" : ",") +
                      fields.asString(listed[i], JsonFields<Json>::at("objectives", i));
    }
    try {
        file.objectives =
            parseObjectives(objectives.empty() ? "latency,energy,memory" : objectives);
    } catch (const InputError& e) {
        fields.fail("objectives", e.what());
    }
    file.fusion = fields.optionalBoolean(doc, "", "fusion", true);
    const Json& offered = fields.optionalArray(doc, "", "variants");
    for (std::size_t i = 0; i < offered.size(); ++i) {
        file.variants.push_back(variantAt(fields, offered[i], JsonFields<Json>::at("variants", i)));
    }
    const Json& plans = fields.array(doc, "", "plans");
    std::set<std::int64_t> ids;
    for (std::size_t i = 0; i < plans.size(); ++i) {
        const Json& plan = plans[i];
        const std::string where = JsonFields<Json>::at("plans", i);
        PlansFilePlan p;
        p.id = fields.integer(plan, where, "id");
        const Json& assignment = fields.object(plan, where, "assignment");
        for (auto it = assignment.begin(); it != assignment.end(); ++it) {
            p.assignment.emplace_back(
                it.key(), fields.asString(it.value(), where + ".assignment." + it.key()));
        }
        for (const auto& [key, value] :
             {std::pair{"latency_us", &p.latencyUs}, std::pair{"energy_mj", &p.energyMj},
              std::pair{"peak_memory_mb", &p.peakMemoryMb},
              std::pair{"simulated_peak_memory_mb", &p.simulatedPeakMemoryMb}}) {
            const Json* m = fields.find(plan, where, key);
            // An infeasible plan's memory may be null; its latency and energy are numbers.
            if (m && !(m->is_null() && value != &p.latencyUs && value != &p.energyMj)) {
                *value = fields.asNumber(*m, JsonFields<Json>::join(where, key));
            }
        }
        const Json& memory = fields.optionalObject(plan, where, "memory");
        for (auto it = memory.begin(); it != memory.end(); ++it) {
            const std::string at = where + ".memory." + it.key();
            PlansFileMemory m;
            m.device = it.key();
            for (const auto& [key, value] :
                 {std::pair{"arena_bytes", &m.arenaBytes}, std::pair{"naive_bytes", &m.naiveBytes},
                  std::pair{"live_peak_bytes", &m.livePeakBytes},
                  std::pair{"weights_bytes", &m.weightsBytes},
                  std::pair{"workspace_bytes", &m.workspaceBytes},
                  std::pair{"in_place", &m.inPlace}}) {
                *value = fields.optionalInteger(it.value(), at, key, 0);
                if (*value < 0) {
                    fields.fail(JsonFields<Json>::join(at, key), "expected a count of bytes >= 0");
                }
            }
            p.memory.push_back(std::move(m));
        }
        p.onFront = fields.optionalBoolean(plan, where, "on_front", false);
        if (const Json* b = fields.find(plan, where, "baseline"); b && !b->is_null()) {
            p.baseline = fields.asString(*b, JsonFields<Json>::join(where, "baseline"));
        }
        const Json& groups = fields.optionalArray(plan, where, "fusion_groups");
        for (std::size_t k = 0; k < groups.size(); ++k) {
            const std::string at = JsonFields<Json>::at(where + ".fusion_groups", k);
            const Json& nodes = fields.array(groups[k], at, "nodes");
            std::vector<std::string> names;
            for (std::size_t m = 0; m < nodes.size(); ++m) {
                names.push_back(fields.asString(nodes[m], JsonFields<Json>::at(at + ".nodes", m)));
            }
            if (names.size() < 2) {
                fields.fail(at + ".nodes", "a fusion group has at least two nodes");
            }
            p.fusionGroups.push_back(std::move(names));
        }
        const Json& variants = fields.optionalObject(plan, where, "variants");
        for (auto it = variants.begin(); it != variants.end(); ++it) {
            p.variants.emplace_back(it.key(),
                                    variantAt(fields, it.value(), where + ".variants." + it.key()));
        }
        if (const Json* dev = fields.find(plan, where, "deviation_pct"); dev && !dev->is_null()) {
            const std::string at = JsonFields<Json>::join(where, "deviation_pct");
            p.deviationPct = fields.asNumber(*dev, at);
            if (!(*p.deviationPct >= 0.0)) {
                fields.fail(at, "expected a deviation of 0 % or more");
            }
        }
        p.deviationSource = fields.optionalString(plan, where, "deviation_source");
        if (!ids.insert(p.id).second) {
            fields.fail(where + ".id", "plan id " + std::to_string(p.id) + " appears twice");
        }
        file.plans.push_back(std::move(p));
    }
    return file;
}

} // namespace

PlansFile parsePlansFile(const nlohmann::ordered_json& document, const std::string& origin) {
    return parsePlans(document, origin);
}

PlansFile parsePlansFile(const nlohmann::json& document, const std::string& origin) {
    return parsePlans(document, origin);
}

PlansFile parsePlansText(std::string_view text, const std::string& origin) {
    return parsePlansFile(
        parseJsonDocument<nlohmann::ordered_json>(text, origin + ": the plans file"), origin);
}

PlansFile readPlansFile(const std::string& path) {
    return parsePlansText(readInputFile(path, "plans file"), path);
}

std::size_t checkPlansText(std::string_view text, const std::string& origin) {
    return parsePlansText(text, origin).plans.size();
}

} // namespace paretune
