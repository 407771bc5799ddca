// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

namespace paretune {

/// What a core function has to say besides its result, the one channel of every workflow: a
/// non-fatal problem found while working on an input (an unknown operator, a dynamic dimension
/// fixed to a default, a device left out), a remark on how the result was made (Info), or a
/// failed check of a report (Error: bundle verification). The GUI lists them, the CLI prints
/// them.
struct Diagnostic {
    enum class Severity { Info, Warning, Error };

    Severity severity = Severity::Warning;
    std::string code;    ///< stable identifier, e.g. "unknown-op"
    std::string message; ///< human text naming the thing concerned
    /// The things the message names, for a window that words it in its own language (by code);
    /// empty where no one does.
    std::vector<std::string> arguments = {};
};

using Diagnostics = std::vector<Diagnostic>;

/// The messages of the diagnostics of one severity, in order.
inline std::vector<std::string> messagesOf(const Diagnostics& diagnostics,
                                           Diagnostic::Severity severity) {
    std::vector<std::string> messages;
    for (const Diagnostic& d : diagnostics) {
        if (d.severity == severity) {
            messages.push_back(d.message);
        }
    }
    return messages;
}

} // namespace paretune
