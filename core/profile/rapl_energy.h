// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace paretune {

/// Energy counters of Linux powercap RAPL: the package domains
/// `<root>/intel-rapl:N/energy_uj` (sub-domains such as intel-rapl:0:0 are parts of a package
/// and are not added again). Each counter wraps at its `max_energy_range_uj`; deltaUj() undoes
/// one wrap per counter, so the window between two reads must be shorter than a full range
/// (minutes at the least at realistic power).
///
/// Readability is checked at open(): most distributions make energy_uj readable by root only,
/// and virtual machines have no powercap at all; then open() returns nothing and the caller
/// reports energy source "none".
class RaplEnergy {
public:
    struct Domain {
        std::string path; ///< the energy_uj file
        std::uint64_t maxRangeUj = 0;
    };
    using Reading = std::vector<std::uint64_t>; ///< one value per domain

    static std::optional<RaplEnergy> open(const std::string& root = "/sys/class/powercap");

    const std::vector<Domain>& domains() const { return m_domains; }
    /// Reads all domains; nothing when a file cannot be read any more.
    std::optional<Reading> read() const;
    /// Energy in µJ between two readings of the same meter, wrap-around undone.
    double deltaUj(const Reading& before, const Reading& after) const;

private:
    std::vector<Domain> m_domains;
};

} // namespace paretune
