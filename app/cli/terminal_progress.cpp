// SPDX-License-Identifier: GPL-3.0-or-later
#include "terminal_progress.h"

#include "interrupt.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace paretune::cli {

TerminalProgress::TerminalProgress(std::string label, bool quiet)
    : m_label(std::move(label)), m_enabled(!quiet && ::isatty(STDERR_FILENO) != 0) {}

bool TerminalProgress::cancelled() const {
    return InterruptScope::requested() != 0;
}

TerminalProgress::~TerminalProgress() {
    if (m_enabled && m_printed) {
        std::fputs("\r\033[K", stderr);
    }
}

void TerminalProgress::report(double fraction, const std::string& message) {
    if (!m_enabled) {
        return;
    }
    constexpr int kWidth = 30;
    const int filled = std::clamp(static_cast<int>(fraction * kWidth), 0, kWidth);
    std::fprintf(stderr, "\r\033[K%s [%s%s] %3.0f%% %.60s", m_label.c_str(),
                 std::string(static_cast<std::size_t>(filled), '#').c_str(),
                 std::string(static_cast<std::size_t>(kWidth - filled), ' ').c_str(),
                 fraction * 100.0, message.c_str());
    std::fflush(stderr);
    m_printed = true;
}

} // namespace paretune::cli
