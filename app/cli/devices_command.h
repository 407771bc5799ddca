// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace paretune::cli {

struct DevicesArguments {
    std::string catalog; ///< optional device catalog; its devices are listed as modelled
    bool bench = false;  ///< run the quick micro-benchmark on every real CPU device
    std::string db;      ///< sample library for --bench and the contention (empty: the default one)
    double driftPercent = 15.0; ///< a benchmark figure drifting beyond this marks samples stale
    bool json = false;
};

/// Registers `paretune devices`; the command runs when its callback fires.
void addDevicesCommand(CLI::App& app);

/// Runs `devices`: lists the devices (table, or JSON with --json) on stdout. With --bench, each
/// real CPU device's vector is stored in the sample library and compared with the device's
/// reference vector there: a drift beyond the threshold marks its samples stale. The contention
/// the library stores between devices that can run at the same time (cpu:0 beside cpu:1) is
/// listed, labelled measured; the default library is only read, and only when it exists.
/// Throws InputError for a bad catalog (the loader's message names the file) or library.
void runDevices(const DevicesArguments& args);

} // namespace paretune::cli
