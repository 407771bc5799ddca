#pragma once

#include <stdexcept>
#include <string>

namespace paretune {

/// Thrown by core functions when the input they were given is unusable (missing file, broken
/// model, invalid option). The message names the input and the problem; front ends map it to
/// exit code 2 (CLI) or an error dialog (GUI). Any other exception is an internal error.
class InputError : public std::runtime_error {
public:
    explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

} // namespace paretune
