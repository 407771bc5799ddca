// SPDX-License-Identifier: GPL-3.0-or-later
#include "workflow/tune_round_record.h"

#include "store/records.h"

#include <stdexcept>
#include <string>

namespace paretune::detail {

std::string genomeText(const std::vector<std::uint8_t>& genome) {
    std::string text;
    text.reserve(genome.size());
    for (const std::uint8_t g : genome) {
        text.push_back(static_cast<char>('0' + g));
    }
    return text;
}

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

std::vector<std::uint8_t> genomeFromText(const std::string& text) {
    std::vector<std::uint8_t> genome;
    for (const char c : text) {
        genome.push_back(static_cast<std::uint8_t>(c - '0'));
    }
    return genome;
}

nlohmann::json objectivesJson(const Objectives& o) {
    return {{"latency_us", o.latencyUs},
            {"energy_mj", o.energyMj},
            {"peak_memory_mb", o.peakMemoryBytes / kMiB},
            {"violation", o.violation}};
}

double number(const nlohmann::json& j, const char* key) {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_number()) {
        throw std::runtime_error(std::string("tune round: field ") + key + " is not a number");
    }
    return it->get<double>();
}

/// A positive number, or std::runtime_error naming `what`.
double positive(const nlohmann::json& v, const std::string& what) {
    if (!v.is_number() || !(v.get<double>() > 0.0)) {
        throw std::runtime_error("tune round: " + what + " is not a positive number");
    }
    return v.get<double>();
}

/// Reads fit[key], {"DEVICE": {"us": X, "observations": N}, …}, where the round has it.
void readUsPerDevice(const nlohmann::json& fit, const char* key, std::map<std::string, double>& us,
                     std::map<std::string, int>& observations) {
    if (const auto perDevice = fit.find(key); perDevice != fit.end()) {
        for (const auto& [device, entry] : perDevice->items()) {
            us[device] = number(entry, "us");
            observations[device] = static_cast<int>(number(entry, "observations"));
        }
    }
}

} // namespace

nlohmann::json optionalNumber(const std::optional<double>& value) {
    return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json calibrationJson(const std::optional<SpeedCalibration>& calibration) {
    if (!calibration) {
        return nullptr;
    }
    nlohmann::json probes = nlohmann::json::array();
    for (const SpeedProbe& p : calibration->probes) {
        probes.push_back({{"label", p.label},
                          {"genome", genomeText(p.genome)},
                          {"device", p.device},
                          {"us", p.us},
                          {"after_us", optionalNumber(p.afterUs)},
                          {"runs_us", optionalNumber(p.runsUs)}});
    }
    return {{"probes", probes},
            {"runs", calibration->runs},
            {"attempts", calibration->attempts},
            {"speed_moved", calibration->speedMoved()},
            {"speed", optionalNumber(calibration->speed)},
            {"devices", calibration->deviceSpeed},
            {"compared", calibration->compared}};
}

nlohmann::json newPlanBiasJson(const NewPlanBias& bias) {
    return {{"factor", bias.factor}, {"plans", bias.plans}};
}

nlohmann::json measuredJson(const TunedPlan& p) {
    return {{"median_us", p.measured.medianUs},
            {"p10_us", p.measured.p10Us},
            {"p90_us", p.measured.p90Us},
            {"runs", p.measured.runs},
            {"energy_mj",
             p.measuredEnergyMj ? nlohmann::json(*p.measuredEnergyMj) : nlohmann::json(nullptr)},
            {"peak_memory_mb",
             p.measuredMemoryMb ? nlohmann::json(*p.measuredMemoryMb) : nlohmann::json(nullptr)}};
}

/// The stored form of a round: everything a resumed run learns from and reports.
nlohmann::json roundJson(const TuneRound& round) {
    nlohmann::json plans = nlohmann::json::array();
    for (std::size_t i = 0; i < round.plans.size(); ++i) {
        const TunedPlan& p = round.plans[i];
        nlohmann::json nodes = nlohmann::json::array();
        for (const NodeObservation& o : round.observations[i].nodes) {
            nodes.push_back({o.node, o.device, o.us, o.beginUs, o.endUs});
        }
        plans.push_back(
            {{"label", p.label},
             {"baseline", p.baseline},
             {"genome", genomeText(p.genome)},
             {"simulated", objectivesJson(p.simulated)},
             {"predicted_us", p.predictedUs},
             {"new_plan_factor", p.newPlanFactor},
             {"measured", measuredJson(p)},
             {"error", p.error},
             {"seen_before", p.seenBefore},
             {"deviation_pct",
              {{"measured", optionalNumber(round.observations[i].measuredDeviationPct)},
               {"estimated", optionalNumber(round.observations[i].estimatedDeviationPct)}}},
             {"nodes", nodes}});
    }
    return {{"round", round.index},
            {"plans", plans},
            {"max_abs_error", round.maxAbsError},
            {"speed_change", optionalNumber(round.speedChange)},
            {"max_abs_error_at_speed", optionalNumber(round.maxAbsErrorAtSpeed)},
            {"calibration", calibrationJson(round.calibration)},
            {"new_plan_bias", newPlanBiasJson(round.newPlanBias)},
            {"max_abs_error_new", round.maxAbsErrorNew ? nlohmann::json(*round.maxAbsErrorNew)
                                                       : nlohmann::json(nullptr)},
            {"median_abs_error", round.medianAbsError},
            {"fit", round.fit.toJson()}};
}

/// A stored round read back. Throws nlohmann::json::exception for a malformed record (the
/// caller names the library and the row).
TuneRound roundFrom(const TuneRoundRecord& record) {
    const nlohmann::json j = nlohmann::json::parse(record.recordJson);
    TuneRound round;
    round.index = record.round;
    round.resumed = true;
    round.storedRow = record.id;
    round.maxAbsError = number(j, "max_abs_error");
    round.medianAbsError = number(j, "median_abs_error");
    if (j.at("max_abs_error_new").is_number()) {
        round.maxAbsErrorNew = j.at("max_abs_error_new").get<double>();
    }
    if (j.at("speed_change").is_number()) {
        round.speedChange = j.at("speed_change").get<double>();
        round.maxAbsErrorAtSpeed = number(j, "max_abs_error_at_speed");
    }
    // Rounds stored before the speed was calibrated have none.
    if (const auto c = j.find("calibration"); c != j.end() && !c->is_null()) {
        SpeedCalibration calibration;
        for (const nlohmann::json& p : c->at("probes")) {
            SpeedProbe& probe = calibration.probes.emplace_back();
            probe.label = p.at("label").get<std::string>();
            probe.genome = genomeFromText(p.at("genome").get<std::string>());
            probe.device = p.at("device").get<std::string>();
            probe.us = positive(p.at("us"), "a probe's time");
            // Rounds stored before the probes were timed again after the runs have none.
            if (const auto after = p.find("after_us"); after != p.end() && !after->is_null()) {
                probe.afterUs = positive(*after, "a probe's time after the runs");
            }
            if (const auto runs = p.find("runs_us"); runs != p.end() && !runs->is_null()) {
                probe.runsUs = positive(*runs, "a probe's time in the runs");
            }
        }
        calibration.runs = static_cast<int>(number(*c, "runs"));
        if (const auto attempts = c->find("attempts"); attempts != c->end()) {
            calibration.attempts = static_cast<int>(number(*c, "attempts"));
            if (calibration.attempts < 1) {
                throw std::runtime_error("tune round: " + std::to_string(calibration.attempts) +
                                         " attempts, expected 1 or more");
            }
        }
        if (!c->at("speed").is_null()) {
            calibration.speed = positive(c->at("speed"), "the calibrated speed");
        }
        for (const auto& [device, ratio] : c->at("devices").items()) {
            calibration.deviceSpeed[device] = positive(ratio, "the calibrated speed of " + device);
        }
        calibration.compared = static_cast<int>(number(*c, "compared"));
        round.calibration = std::move(calibration);
    }
    // Rounds stored before new plans' bias was learned have none: a factor of 1.
    if (const auto bias = j.find("new_plan_bias"); bias != j.end()) {
        round.newPlanBias.factor = positive(bias->at("factor"), "the new plan bias");
        round.newPlanBias.plans = static_cast<int>(number(*bias, "plans"));
        if (round.newPlanBias.plans < 0) {
            throw std::runtime_error("tune round: a new plan bias learned from " +
                                     std::to_string(round.newPlanBias.plans) + " plans");
        }
    }
    const nlohmann::json& fit = j.at("fit");
    round.fit.nodesInContext = static_cast<int>(number(fit, "nodes_in_context"));
    round.fit.nodesScaled = static_cast<int>(number(fit, "nodes_scaled"));
    // Rounds stored before fused groups were learned have neither.
    if (fit.contains("fused_in_context")) {
        round.fit.fusedInContext = static_cast<int>(number(fit, "fused_in_context"));
        round.fit.fusedScaled = static_cast<int>(number(fit, "fused_scaled"));
    }
    // Rounds stored before a group and its members scaled by each other's ratio have neither.
    if (fit.contains("members_scaled_by_group")) {
        round.fit.membersScaledByGroup = static_cast<int>(number(fit, "members_scaled_by_group"));
        round.fit.fusedScaledByMembers = static_cast<int>(number(fit, "fused_scaled_by_members"));
    }
    for (const auto& [device, scale] : fit.at("device_scales").items()) {
        round.fit.deviceScale[device] = number(scale, "scale");
        round.fit.deviceObservations[device] = static_cast<int>(number(scale, "observations"));
    }
    for (const nlohmann::json& c : fit.at("contention")) {
        round.fit.contention.push_back({c.at("device").get<std::string>(),
                                        c.at("beside").get<std::string>(), number(c, "factor"),
                                        static_cast<int>(number(c, "observations"))});
    }
    if (const auto scale = fit.find("deviation_scale"); scale != fit.end() && scale->is_number()) {
        round.fit.deviationScale = scale->get<double>();
        round.fit.deviationObservations = static_cast<int>(number(fit, "deviation_observations"));
    }
    // Rounds stored before earlier rounds were put at the latest speed have none.
    if (const auto scales = fit.find("round_speed_scales"); scales != fit.end()) {
        for (const nlohmann::json& scale : *scales) {
            if (!scale.is_number()) {
                throw std::runtime_error("tune round: a round speed scale is not a number");
            }
            round.fit.roundSpeedScales.push_back(scale.get<double>());
        }
    }
    // Rounds stored before the gaps between nodes were learned have none of these.
    readUsPerDevice(fit, "turn_gaps", round.fit.gaps.turnGapUs, round.fit.gaps.turnGapObservations);
    if (const auto scales = fit.find("turn_copy_scales"); scales != fit.end()) {
        for (const auto& [device, scale] : scales->items()) {
            if (!scale.is_number()) {
                throw std::runtime_error("tune round: the copy scale of " + device +
                                         " is not a number");
            }
            round.fit.gaps.turnCopyScale[device] = scale.get<double>();
        }
    }
    readUsPerDevice(fit, "dispatch", round.fit.gaps.dispatchUs,
                    round.fit.gaps.dispatchObservations);
    if (const auto handoffs = fit.find("handoffs"); handoffs != fit.end()) {
        for (const nlohmann::json& h : *handoffs) {
            round.fit.gaps.handoffs.push_back(
                {h.at("from").get<std::string>(), h.at("to").get<std::string>(),
                 number(h, "latency_us"), number(h, "modelled_latency_us"),
                 static_cast<int>(number(h, "observations"))});
        }
    }
    // Rounds stored before the cells were drawn toward their nodes elsewhere have no shrinkage.
    if (const auto shrinkage = fit.find("shrinkage");
        shrinkage != fit.end() && !shrinkage->is_null()) {
        round.fit.shrinkage =
            CellShrinkage{number(*shrinkage, "noise_sd"), number(*shrinkage, "spread_sd"),
                          static_cast<int>(number(*shrinkage, "cells"))};
    }
    // Rounds stored before turns on shared cores were learned have none.
    if (const auto turns = fit.find("turns"); turns != fit.end()) {
        for (const auto& [device, t] : turns->items()) {
            round.fit.turns.push_back(
                {device, number(t, "us"), static_cast<int>(number(t, "observations"))});
        }
    }
    // Rounds stored before receives were learned have none.
    if (const auto receives = fit.find("receives"); receives != fit.end()) {
        for (const auto& [device, r] : receives->items()) {
            round.fit.receives.push_back(
                {device, number(r, "factor"), static_cast<int>(number(r, "cells"))});
        }
    }
    for (const nlohmann::json& p : j.at("plans")) {
        TunedPlan plan;
        plan.label = p.at("label").get<std::string>();
        plan.baseline = p.at("baseline").get<std::string>();
        plan.genome = genomeFromText(p.at("genome").get<std::string>());
        const nlohmann::json& sim = p.at("simulated");
        plan.simulated.latencyUs = number(sim, "latency_us");
        plan.simulated.energyMj = number(sim, "energy_mj");
        plan.simulated.peakMemoryBytes = number(sim, "peak_memory_mb") * kMiB;
        plan.simulated.violation = number(sim, "violation");
        plan.simulated.averagePowerW =
            plan.simulated.latencyUs > 0.0
                ? plan.simulated.energyMj * 1e3 / plan.simulated.latencyUs
                : 0.0;
        const nlohmann::json& m = p.at("measured");
        plan.measured = {number(m, "median_us"), number(m, "p10_us"), number(m, "p90_us"),
                         static_cast<int>(number(m, "runs"))};
        if (m.at("energy_mj").is_number()) {
            plan.measuredEnergyMj = m.at("energy_mj").get<double>();
        }
        // Rounds stored before memory was measured have no figure.
        if (m.contains("peak_memory_mb") && m.at("peak_memory_mb").is_number()) {
            plan.measuredMemoryMb = m.at("peak_memory_mb").get<double>();
        }
        plan.error = number(p, "error");
        // Rounds stored before the speed was calibrated predicted the simulated latency.
        plan.predictedUs =
            p.contains("predicted_us") ? number(p, "predicted_us") : plan.simulated.latencyUs;
        if (p.contains("new_plan_factor")) {
            plan.newPlanFactor = positive(p.at("new_plan_factor"), "a new plan factor");
        }
        plan.seenBefore = p.at("seen_before").get<bool>();
        PlanObservation observation;
        for (const nlohmann::json& n : p.at("nodes")) {
            observation.nodes.push_back({n.at(0).get<std::string>(), n.at(1).get<std::string>(),
                                         n.at(2).get<double>(), n.at(3).get<double>(),
                                         n.at(4).get<double>()});
        }
        // Rounds stored before plans had variants have no deviation.
        if (const auto d = p.find("deviation_pct"); d != p.end()) {
            for (auto [key, field] : {std::pair{"measured", &observation.measuredDeviationPct},
                                      std::pair{"estimated", &observation.estimatedDeviationPct}}) {
                if (d->at(key).is_number()) {
                    *field = d->at(key).get<double>();
                }
            }
        }
        plan.measuredDeviationPct = observation.measuredDeviationPct;
        if (!observation.estimatedDeviationPct && !plan.measuredDeviationPct) {
            plan.measuredDeviationPct = 0.0; // an all-fp32 plan: the model itself
        }
        round.plans.push_back(std::move(plan));
        round.observations.push_back(std::move(observation));
    }
    return round;
}

} // namespace paretune::detail
