// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/diagnostic.h"

#include "bundle_files.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace paretune {

struct DeviceInventory;
struct BundleOutputCheck;

/// What `paretune bundle verify` found. Failures make the bundle unusable; warnings (a device
/// fingerprint that differs on this machine, a device this machine lacks) do not.
struct BundleVerification {
    std::vector<std::string> passed; ///< one line per check that passed
    /// Each problem: Severity::Error makes the bundle unusable, Severity::Warning does not.
    Diagnostics diagnostics;

    std::vector<std::string> warnings() const {
        return messagesOf(diagnostics, Diagnostic::Severity::Warning);
    }
    std::vector<std::string> failures() const {
        return messagesOf(diagnostics, Diagnostic::Severity::Error);
    }
    bool ok() const { return failures().empty(); }
};

/// Checks a bundle held in memory (readBundleFiles): manifest schema; the size and SHA-256 of
/// every file the manifest lists, and no file it does not list; each partition parses, passes
/// the ONNX checker and holds exactly the nodes, inputs and outputs the manifest gives; the
/// partitions cover every node of plan.json exactly once, on the device plan.json gives; each
/// partition's inputs are model inputs or outputs of earlier partitions, and the model's
/// outputs come out of some partition; memory_plan.json (when present) has every tensor within
/// its device's arena and no two tensors live at one step overlapping; each real device of the
/// manifest exists on `machine` with the same fingerprint (else a warning naming the identity
/// fields that differ). A plan with nodes in lower precisions lists their conversions in
/// plan.json ("conversions"), covered like its nodes. Its manifest's measured deviation
/// ("plan.accuracy") is checked by running the partitions when `outputs` names the model
/// (checkBundleOutputs), else a warning says it was not. Never throws for a damaged bundle:
/// every problem is a failure line naming the file.
BundleVerification verifyBundle(const BundleFileMap& files, const DeviceInventory& machine,
                                const BundleOutputCheck* outputs = nullptr);

/// One Pareto candidate of a bundle (manifest.json "candidates"). Figures carry their source.
struct BundleCandidate {
    std::int64_t id = 0;
    std::string file;
    bool exported = false;        ///< the plan whose partitions are partitions/
    std::string partitionsFolder; ///< where its partitions are; empty: not in the bundle
    double latencyMs = 0;
    double energyMj = 0;
    double averagePowerW = 0;
    double peakMemoryMb = 0;
    std::string source; ///< measured / predicted / modelled
};

/// The candidates of a bundle, in manifest order. Throws InputError naming `origin` when the
/// manifest is missing or malformed, or a candidate's file is missing or does not match its
/// SHA-256.
std::vector<BundleCandidate> bundleCandidates(const BundleFileMap& files,
                                              const std::string& origin);

/// A run-time budget; an unset limit does not constrain.
struct Budget {
    std::optional<double> maxLatencyMs;
    std::optional<double> maxEnergyMj;
    std::optional<double> maxMemoryMb;
};

/// The fastest candidate within every limit of the budget (ties: less energy, then less
/// memory, then the lower index), or nothing when none fits.
std::optional<std::size_t> selectCandidate(std::span<const BundleCandidate> candidates,
                                           const Budget& budget);

} // namespace paretune
