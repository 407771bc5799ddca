// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <map>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace paretune::cli {

struct InspectArguments {
    std::string model;
    std::vector<std::string> inputShapes; ///< "name=1x3x224x224"
    bool json = false;
    bool nodes = false;
};

/// Registers `paretune inspect`; the command runs when its callback fires.
void addInspectCommand(CLI::App& app);

/// Runs `inspect` and prints to stdout; throws InputError for bad input.
void runInspect(const InspectArguments& args);

} // namespace paretune::cli
