// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// SIGINT and SIGTERM during a long command: the first asks it to stop at its next safe point,
// where what it has done so far is committed; a second ends the process at once.

namespace paretune::cli {

/// While one exists, SIGINT and SIGTERM set a flag instead of ending the process (once: the
/// handler resets itself, so a second signal acts as usual). Restores the old handlers.
class InterruptScope {
public:
    InterruptScope();
    ~InterruptScope();
    InterruptScope(const InterruptScope&) = delete;
    InterruptScope& operator=(const InterruptScope&) = delete;

    /// The signal that asked to stop (SIGINT, SIGTERM), or 0.
    static int requested();
};

/// Thrown by a command that stopped early on a signal, after saying what it kept; main exits
/// with 128 + the signal's number, as a shell does for a process the signal ended.
struct Interrupted {
    int signal = 0;
};

} // namespace paretune::cli
