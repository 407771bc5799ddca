// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reading a plans document (`paretune search --out`; see plans_document.h for the writer): one
// typed, checked value that validation, bundle export and the workbench share.
#include "graph/precision.h"
#include "search/objective.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace paretune {

/// The memory plan of one device of a listed plan (plans document "memory"), bytes.
struct PlansFileMemory {
    std::string device;
    std::int64_t arenaBytes = 0;    ///< the planned arena (greedy by size)
    std::int64_t naiveBytes = 0;    ///< every buffer in its own block
    std::int64_t livePeakBytes = 0; ///< the most live at once, as the simulator counts
    std::int64_t weightsBytes = 0;
    std::int64_t workspaceBytes = 0; ///< the largest node workspace (a block of the arena)
    std::int64_t inPlace = 0;        ///< outputs written into their input's block
    std::int64_t plannedBytes() const { return arenaBytes + weightsBytes; }
};

/// One plan of a plans document.
struct PlansFilePlan {
    std::int64_t id = 0;
    /// Node name → device id, in the document's order.
    std::vector<std::pair<std::string, std::string>> assignment;
    /// As the search planned them; the memory is the planned arena + weights of the largest
    /// device where the document has a memory plan (else the simulator's figure).
    std::optional<double> latencyUs, energyMj, peakMemoryMb;
    /// The simulator's live-sum figure the search ranked by ("simulated_peak_memory_mb"; files
    /// of older versions: unset, their peak_memory_mb is that figure).
    std::optional<double> simulatedPeakMemoryMb;
    std::vector<PlansFileMemory> memory; ///< per device ("memory"); empty in older files
    bool onFront = false;
    std::optional<std::string> baseline; ///< the baseline's name when the plan is one
    /// The fusion groups the plan takes, each as its members' node names in order.
    std::vector<std::vector<std::string>> fusionGroups;
    /// Node name → variant of the nodes not in fp32 ("variants"), in the document's order;
    /// empty: every node in fp32 (and in files written before variants).
    std::vector<std::pair<std::string, Variant>> variants;
    /// The estimated output deviation from fp32, % ("deviation_pct"), and where it came from
    /// ("deviation_source": "sensitivity table", "modelled" or "none").
    std::optional<double> deviationPct;
    std::string deviationSource;
};

/// A checked plans document.
struct PlansFile {
    std::string origin;           ///< the file (or a label), for messages
    std::string modelFingerprint; ///< empty when the document names none
    std::string catalog;          ///< the catalog it was searched with; empty: none named
    std::vector<std::string> devices;
    std::vector<Objective> objectives; ///< searched objectives (latency, energy, memory if none)
    std::vector<PlansFilePlan> plans;  ///< in the document's order, ids unique
    bool fusion = true; ///< whether the search offered fusion groups ("fusion", default true)
    /// The variants the search offered besides fp32 ("variants"; empty: none).
    std::vector<Variant> variants;

    /// The plan with `id`, or null.
    const PlansFilePlan* find(std::int64_t id) const;
    /// The plan with `id`; InputError "ORIGIN: holds no plan with id N (ids A to B)" otherwise.
    const PlansFilePlan& plan(std::int64_t id) const;
    /// InputError naming both fingerprints when the plans were searched for another model than
    /// `modelFingerprint` (the file `modelName`); a document without a fingerprint fails too.
    void requireModel(const std::string& modelFingerprint, const std::string& modelName) const;
};

/// Checks and reads a parsed plans document: "tool": "paretune", "devices" (device ids),
/// "plans" (each an integer "id", unique, an "assignment" of node name → device id, finite
/// objectives, optional "on_front" and "baseline", optional "simulated_peak_memory_mb" and
/// "memory": {device id: {"arena_bytes", "naive_bytes", "live_peak_bytes", "weights_bytes",
/// "workspace_bytes", "in_place"}} with non-negative integers), optional "variants" (node name
/// → precision name) and "deviation_pct" (a number >= 0), optional "model_fingerprint",
/// "catalog", "objectives" and "variants" (variant names offered besides fp32). InputError
/// "ORIGIN: plans[2].assignment.conv1: expected a string, got …".
PlansFile parsePlansFile(const nlohmann::ordered_json& document, const std::string& origin);
/// The same for a document held as plansDocument writes it (the workbench's search).
PlansFile parsePlansFile(const nlohmann::json& document, const std::string& origin);

/// parsePlansFile of a document's text (InputError for text that is not JSON).
PlansFile parsePlansText(std::string_view text, const std::string& origin);

/// parsePlansFile of a file (a regular file of at most the input size limit).
PlansFile readPlansFile(const std::string& path);

/// Checks a plans document's text as parsePlansText does; returns the number of plans.
std::size_t checkPlansText(std::string_view text, const std::string& origin);

} // namespace paretune
