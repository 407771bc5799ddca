// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <stdexcept>
#include <string>

namespace paretune {

/// Thrown by core functions when the input they were given is unusable (missing file, broken
/// model, invalid option). The message names the input and the problem; front ends map it to
/// exit code 2 (CLI) or an error dialog (GUI). Any other exception is an internal error.
///
/// A bad setting (a value of an options struct) is named by its setting name, the same word
/// the CLI's option has without its dashes ("repeats", "population", "holdout-model"): the
/// message is "SETTING: PROBLEM", and a front end may name the setting its own way
/// (`paretune` prints "--SETTING: PROBLEM"). Core messages name no front end's flags.
class InputError : public std::runtime_error {
public:
    explicit InputError(const std::string& message) : std::runtime_error(message) {}

    static InputError forSetting(const std::string& setting, const std::string& problem) {
        InputError e(setting + ": " + problem);
        e.m_setting = setting;
        e.m_problem = problem;
        return e;
    }
    /// The setting at fault; empty when the error is about something else (a file, a model).
    const std::string& setting() const { return m_setting; }
    /// The problem without the setting's name (forSetting), else the whole message.
    std::string problem() const { return m_setting.empty() ? what() : m_problem; }

private:
    std::string m_setting;
    std::string m_problem;
};

} // namespace paretune
