// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace CLI {
class App;
}

namespace paretune::cli {

struct ExportArguments {
    std::string model;
    std::string plans;
    std::int64_t plan = -1;
    int candidates = 5;
    std::string catalog; ///< empty: the catalog plans.json names
    std::string db;      ///< sample library for measured rows of profile.csv; empty: none
    std::string out;
    bool zip = false;
    bool candidatePartitions = false;
    bool force = false; ///< export an infeasible plan too
    std::string inputs; ///< calibration input files of a plan with lower precisions; empty: random
    int accuracySets = 8; ///< seeded random sets when no --inputs
};

struct BundleVerifyArguments {
    std::string bundle;
    std::string model;  ///< the exported model: its partitions' outputs are run against it
    std::string inputs; ///< the input files the deviation was measured on, when not random
};

struct BundleSelectArguments {
    std::string bundle;
    std::optional<double> maxLatencyMs;
    std::optional<double> maxEnergyMj;
    std::optional<double> maxMemoryMb;
    bool json = false;
};

/// Registers `paretune export` (a deployment bundle from a searched plan).
void addExportCommand(CLI::App& app);
/// Registers `paretune bundle verify` and `paretune bundle select`.
void addBundleCommand(CLI::App& app);

/// Runs `export`: builds the bundle and writes it as a new folder, or a zip archive with
/// --zip, atomically; an existing --out is an error. Throws InputError for bad input.
void runExport(const ExportArguments& args);
/// Runs `bundle verify`: prints each check; throws InputError (exit 2) when one failed.
void runBundleVerify(const BundleVerifyArguments& args);
/// Runs `bundle select`: prints the fastest candidate within the budget; throws InputError
/// (exit 2) when none fits, naming the closest one.
void runBundleSelect(const BundleSelectArguments& args);

} // namespace paretune::cli
