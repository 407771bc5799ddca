// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Honest dominance (the tune loop, tune_workflow.h): what a front plan of the final round claims
// over the baselines, judged by that round's measurements. Internal to the tune workflow.
#include "workflow/tune_workflow.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace paretune {

class Simulator;
struct SearchResult;
struct Solution;

namespace detail {

/// What the measurement of the last round says about a front plan's claims over the baselines
/// (DominanceClaim): per objective where its simulated value is better, confirmed or
/// contradicted by the round's measurements of both, unmeasured, or within the round's largest
/// latency error (a tie, not claimed).
std::vector<DominanceClaim> claimsOf(const Simulator& sim, const Solution& plan,
                                     const SearchResult& result,
                                     const std::vector<Objective>& objectives,
                                     const TuneRound& round);
/// The claims as the plans document lists them.
nlohmann::json claimsJson(const std::vector<DominanceClaim>& claims);

} // namespace detail

} // namespace paretune
