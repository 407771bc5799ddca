#pragma once

#include <string>

namespace CLI {
class App;
}

namespace paretune::cli {

struct DevicesArguments {
    std::string catalog;        ///< optional device catalog; its devices are listed as modelled
    bool bench = false;         ///< run the quick micro-benchmark on every real CPU device
    std::string db;             ///< sample library for --bench (empty: the default library)
    double driftPercent = 15.0; ///< a benchmark figure drifting beyond this marks samples stale
    bool json = false;
};

/// Registers `paretune devices`; the command runs when its callback fires.
void addDevicesCommand(CLI::App& app);

/// Runs `devices`: lists the devices (table, or JSON with --json) on stdout. With --bench, each
/// real CPU device's vector is stored in the sample library and compared with the device's
/// reference vector there: a drift beyond the threshold marks its samples stale. Throws
/// InputError for a bad catalog (the loader's message names the file) or library.
void runDevices(const DevicesArguments& args);

} // namespace paretune::cli
