#pragma once

#include <string>

namespace CLI {
class App;
}

namespace paretune::cli {

struct DevicesArguments {
    std::string catalog; ///< optional device catalog; its devices are listed as modelled
    bool bench = false;  ///< run the quick micro-benchmark on every real CPU device
    bool json = false;
};

/// Registers `paretune devices`; the command runs when its callback fires.
void addDevicesCommand(CLI::App& app);

/// Runs `devices`: lists the devices (table, or JSON with --json) on stdout. Throws InputError
/// for a bad catalog (the loader's message names the file).
void runDevices(const DevicesArguments& args);

} // namespace paretune::cli
