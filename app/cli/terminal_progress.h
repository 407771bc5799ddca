// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Progress of a long command on stderr, only when stderr is a terminal (never in a pipe or a log).
#include "common/progress.h"

#include <string>

namespace paretune::cli {

class TerminalProgress : public Progress {
public:
    /// `label` starts the line, e.g. "search". `quiet`: never print (--json runs).
    explicit TerminalProgress(std::string label, bool quiet = false);
    ~TerminalProgress() override;
    TerminalProgress(const TerminalProgress&) = delete;
    TerminalProgress& operator=(const TerminalProgress&) = delete;

    /// One line, redrawn in place: label, a 30-column bar, the percentage and the message.
    void report(double fraction, const std::string& message) override;
    /// True once SIGINT or SIGTERM arrived inside an InterruptScope.
    bool cancelled() const override;

private:
    std::string m_label;
    bool m_enabled;
    bool m_printed = false;
};

} // namespace paretune::cli
