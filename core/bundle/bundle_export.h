#pragma once

#include "bundle_files.h"
#include "common/diagnostic.h"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace paretune {

class CostTable;
struct DeviceCatalog;
struct Graph;

/// Schema of a bundle's manifest.json.
inline constexpr const char* kBundleSchema = "paretune.bundle/1";

struct BundleExportOptions {
    std::string modelPath;   ///< the ONNX model the plans were searched for
    std::string plansPath;   ///< `paretune search --out` document
    std::int64_t planId = 0; ///< the plan to deploy ("id" in plans.json)
    int candidates = 5;      ///< Pareto plans kept for selection at run time (1..64)
    std::string catalogPath; ///< device catalog; empty: the one plans.json names
    /// Sample library whose measurements of the plan's real devices (same device fingerprint)
    /// are added to profile.csv as measured rows; empty: none. It must exist; it is only read.
    std::string samplesPath;
    /// Also write the partitions of every candidate (candidates/plan-N/), so that a runtime
    /// can run whichever one `bundle select` picks; each copies the weights it uses.
    bool candidatePartitions = false;
    /// Fills the cost table from the sample library the way `paretune search --db` did
    /// (measured, and predicted where the build has the predictor), so that the plan is
    /// re-simulated with the search's costs; unset: the catalog's modelled costs only.
    std::function<void(CostTable&, const Graph&, const DeviceCatalog&)> fillCosts;
};

struct BundleContents {
    BundleFileMap
        files; ///< manifest.json, plan.json, partitions/, profile.csv, candidates/, README.md
    std::int32_t partitionCount = 0;
    std::vector<std::int64_t> candidateIds; ///< plan ids, the exported plan first
    Diagnostics diagnostics;                ///< import warnings, devices not on this machine
};

/// Builds a deployment bundle in memory (DESIGN.md "Deployment bundle"; the file formats are
/// described in README.md, "paretune export"). The plan is re-simulated with the cost table
/// the search used (costs from the catalog, labelled modelled), so the times in plan.json and
/// the objectives in manifest.json come from the same simulator as the search's.
/// Throws InputError for unusable input, naming the file: a missing or malformed plans file,
/// a plan id it does not hold, plans searched for another model (fingerprint mismatch), a plan
/// that leaves a compute node unplaced or names a device the plans do not list, a bad catalog.
BundleContents buildBundle(const BundleExportOptions& options);

/// Parses and type-checks a plans document (`paretune search --out`) as buildBundle reads it:
/// "tool", "devices" (device ids), "plans" (each an integer "id", unique, and an "assignment"
/// of node name → device id, finite objectives), optional "model_fingerprint" and "catalog"
/// strings. Throws InputError "ORIGIN: plans[2].assignment.conv1: expected a string, got …".
/// Returns the number of plans.
std::size_t checkPlansText(std::string_view text, const std::string& origin);

} // namespace paretune
