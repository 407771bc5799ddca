// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "search/pareto_search.h"

#include <cstdint>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace paretune::cli {

struct SearchArguments {
    std::string model;
    std::string devices; ///< "cpu,gpu,npu"
    std::string catalog;
    std::string db;
    std::string objectives = "latency,energy,memory";
    std::int32_t population = 200;
    std::int32_t generations = 300;
    std::uint64_t seed = 1;
    std::int32_t maxPlans = 50; ///< plans of the front written out; 0: all
    std::string out;
    bool json = false;
    bool coarseToFine = false;   ///< search chains of nodes first, then single nodes
    bool noFusion = false;       ///< offer no fusion groups
    std::string variants;        ///< --variants: precisions besides fp32, "bf16"
    std::string maxAccuracyLoss; ///< --max-accuracy-loss PCT; empty: no limit
};

/// The options `search` and `tune` share: --objectives, --population, --generations, --seed,
/// --no-fusion, --variants, --max-accuracy-loss.
void addSearchSettings(CLI::App& cmd, SearchArguments& args);
/// The search settings of those options, checked (InputError naming the option).
SearchOptions searchOptionsOf(const SearchArguments& args);
/// --devices: one to eight ids separated by commas (InputError otherwise).
std::vector<std::string> deviceList(const std::string& text);

/// Registers `paretune search`; the command runs when its callback fires.
void addSearchCommand(CLI::App& app);

/// Runs `search`: prints the front (table, or JSON with --json) to stdout and writes --out
/// atomically. Throws InputError for bad input.
void runSearch(const SearchArguments& args);

} // namespace paretune::cli
