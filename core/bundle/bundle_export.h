// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "bundle_files.h"
#include "common/diagnostic.h"
#include "cost/device_catalog.h"
#include "search/plans_file.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace paretune {

class CostTable;
struct Graph;

/// Schema of a bundle's manifest.json.
inline constexpr const char* kBundleSchema = "paretune.bundle/1";

struct BundleExportOptions {
    /// The ONNX model file the plans were searched for; with modelBytes, the name it goes by.
    std::string modelPath;
    /// The serialized model when it is not a file of its own (the workbench's bundled sample);
    /// empty: modelPath is read.
    std::string modelBytes;
    PlansFile plans;         ///< the search's plans (readPlansFile, parsePlansFile)
    std::int64_t planId = 0; ///< the plan to deploy ("id" in plans.json)
    int candidates = 5;      ///< Pareto plans kept for selection at run time (1..64)
    /// The device catalog; none: the one the plans name (loaded from its file).
    std::optional<DeviceCatalog> catalog;
    /// Sample library whose measurements of the plan's real devices (same device fingerprint)
    /// are added to profile.csv as measured rows; empty: none. It must exist; it is only read.
    std::string samplesPath;
    /// Also write the partitions of every candidate (candidates/plan-N/), so that a runtime
    /// can run whichever one `bundle select` picks; each copies the weights it uses.
    bool candidatePartitions = false;
    /// Export a plan that is infeasible with the export's costs (a node on a device without a
    /// cost for it, a device over its memory); otherwise buildBundle refuses it (InputError).
    bool allowInfeasible = false;
    /// Fills the cost table from the sample library the way `paretune search --db` did
    /// (measured, and predicted where the build has the predictor), so that the plan is
    /// re-simulated with the search's costs, shared resources included (searchCostsFromLibrary);
    /// unset: the catalog's modelled costs and the real devices' shared resources.
    std::function<void(CostTable&, const Graph&, const DeviceCatalog&)> fillCosts;
    /// A plan with nodes in lower precisions: the calibration inputs its partitions' deviation
    /// from the fp32 model is measured on (manifest.json "plan.accuracy"): a folder of input
    /// files (readCalibrationInputs) when not empty, else this many seeded random sets.
    std::string inputsFolder;
    int accuracySets = 8;
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
/// A plan with nodes in lower precisions exports its lowered graph: each partition holds its
/// nodes' conversions (Cast; QuantizeLinear / QLinearConv / DequantizeLinear with the scales
/// calibrated from the library's activation ranges), plan.json lists them ("conversions") and
/// each node's precision, and the partitions are run on calibration inputs against the fp32
/// model, their measured deviation recorded in manifest.json (this loads LibTorch).
/// Throws InputError for unusable input, naming the file: a plan id the plans do not hold, plans
/// searched for another model (fingerprint mismatch), a plan that leaves a compute node unplaced or
/// names a device the plans do not list, a bad catalog, a precision the plans do not offer, int8
/// nodes without the library's activation ranges.
BundleContents buildBundle(const BundleExportOptions& options);

} // namespace paretune
