// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The stored form of a tune round (a row of the library's tune_rounds table) and the JSON pieces
// the plans document shares with it. Internal to the tune workflow.
#include "workflow/tune_workflow.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace paretune {

struct TuneRoundRecord;

namespace detail {

/// A plan's genes, one digit each (as stored and as the plans document gives them).
std::string genomeText(const std::vector<std::uint8_t>& genome);
/// A number, or null.
nlohmann::json optionalNumber(const std::optional<double>& value);
/// A round's speed calibration (probes, runs, attempts, speed_moved, speed, devices,
/// compared), or null.
nlohmann::json calibrationJson(const std::optional<SpeedCalibration>& calibration);
/// A round's NewPlanBias: factor and plans.
nlohmann::json newPlanBiasJson(const NewPlanBias& bias);
/// A validated plan's measurement: median, p10, p90, runs, energy.
nlohmann::json measuredJson(const TunedPlan& plan);
/// Everything a resumed run learns from and reports about a round.
nlohmann::json roundJson(const TuneRound& round);
/// A stored round read back. A malformed record throws std::runtime_error or nlohmann's
/// exceptions; runTune names the library and the row in an InputError.
TuneRound roundFrom(const TuneRoundRecord& record);

} // namespace detail

} // namespace paretune
