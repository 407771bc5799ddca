#pragma once

#include <string>
#include <vector>

namespace paretune {

/// A non-fatal problem found while working on an input: an unknown operator, a dynamic dimension
/// fixed to a default, a shape that stayed unknown. The GUI lists them, the CLI prints them.
struct Diagnostic {
    enum class Severity { Info, Warning };

    Severity severity = Severity::Warning;
    std::string code;    ///< stable identifier, e.g. "unknown-op"
    std::string message; ///< human text naming the thing concerned
};

using Diagnostics = std::vector<Diagnostic>;

} // namespace paretune
