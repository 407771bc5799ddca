// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/json_values.h"

#include <nlohmann/json.hpp>

namespace paretune {

nlohmann::json optionalJson(const std::optional<double>& value) {
    return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

} // namespace paretune
