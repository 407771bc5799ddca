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
void runBundleVerify(const std::string& bundle);
/// Runs `bundle select`: prints the fastest candidate within the budget; throws InputError
/// (exit 2) when none fits, naming the closest one.
void runBundleSelect(const BundleSelectArguments& args);

} // namespace paretune::cli
