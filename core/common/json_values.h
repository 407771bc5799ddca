// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Small conversions to JSON shared by the documents core writes and the CLI's --json output.
#include <nlohmann/json_fwd.hpp>

#include <optional>

namespace paretune {

/// The value, or null when there is none (a figure that was not measured).
nlohmann::json optionalJson(const std::optional<double>& value);

} // namespace paretune
