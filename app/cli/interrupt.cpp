// SPDX-License-Identifier: GPL-3.0-or-later
#include "interrupt.h"

#include <csignal>

namespace paretune::cli {

namespace {

volatile std::sig_atomic_t g_requested = 0;
struct sigaction g_previous[2];
constexpr int kSignals[2] = {SIGINT, SIGTERM};

extern "C" void onInterrupt(int signal) {
    g_requested = signal;
}

} // namespace

InterruptScope::InterruptScope() {
    g_requested = 0;
    struct sigaction action {};
    action.sa_handler = onInterrupt;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND; // a second signal ends the process
    for (int i = 0; i < 2; ++i) {
        sigaction(kSignals[i], &action, &g_previous[i]);
    }
}

InterruptScope::~InterruptScope() {
    for (int i = 0; i < 2; ++i) {
        sigaction(kSignals[i], &g_previous[i], nullptr);
    }
}

int InterruptScope::requested() {
    return g_requested;
}

} // namespace paretune::cli
