// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Plain-text tables of the CLI: columns as wide as their widest entry, so no name is cut.

#include <algorithm>
#include <string>

namespace paretune {

/// The width of a column holding name(row) for each row: its longest entry, at least `least`
/// (the header's width).
template <class Rows, class Name> int columnWidth(const Rows& rows, Name name, int least = 4) {
    std::size_t width = static_cast<std::size_t>(least);
    for (const auto& row : rows) {
        width = std::max(width, std::string(name(row)).size());
    }
    return static_cast<int>(width);
}

} // namespace paretune
