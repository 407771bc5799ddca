// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace CLI {
class App;
}

namespace paretune::cli {

/// Registers `paretune tune`: the closed loop search → validate → learn → search on this
/// machine's real devices (core/workflow/tune_workflow.h), resumable from the sample library.
void addTuneCommand(CLI::App& app);

} // namespace paretune::cli
