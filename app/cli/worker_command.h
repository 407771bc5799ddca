// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace CLI {
class App;
}

namespace paretune::cli {

/// Registers `paretune worker --db LIBRARY --device ID` (profile/profile_worker.h: drains the
/// library's profiling queue for one device of this machine) and `paretune queue --db LIBRARY`
/// (lists the jobs and who holds them).
void addWorkerCommands(CLI::App& app);

} // namespace paretune::cli
