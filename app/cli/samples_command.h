// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace paretune::cli {

struct SamplesArguments {
    std::string db;     ///< empty: defaultSampleLibraryPath()
    std::string model;  ///< model fingerprint prefix
    std::string device; ///< device fingerprint prefix
    bool csv = false;
    bool json = false;
};

/// Registers `paretune samples`; the command runs when its callback fires.
void addSamplesCommand(CLI::App& app);

/// Runs `samples`: lists the sample library's samples on stdout as a table, CSV with a header
/// (--csv) or JSON (--json), filtered by fingerprint prefixes. An empty or missing library
/// prints a "no samples" line (on stderr for CSV and JSON, whose output stays parseable).
/// Throws InputError for a bad prefix or a file that is not a sound Paretune library.
void runSamples(const SamplesArguments& args);

} // namespace paretune::cli
