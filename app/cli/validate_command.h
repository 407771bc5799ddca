// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace CLI {
class App;
}

namespace paretune::cli {

/// Registers `paretune validate`: executes a searched plan on the real devices, compares the
/// measured latency, energy and per-operator times with the plan's simulated ones, stores the
/// measurement (plans table) and the per-operator in-plan samples in the sample library.
void addValidateCommand(CLI::App& app);

} // namespace paretune::cli
