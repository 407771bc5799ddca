// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to the placement search (pareto_search.cpp): the archive of the non-dominated
// feasible plans a search has met, and its hypervolume.

#include "plan/plan.h"
#include "search/objective.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace paretune::detail {

/// External archive of the non-dominated feasible plans met so far, so that a plan the
/// population's crowding truncation drops is not lost. Holds up to 10 × population entries;
/// when it outgrows that by a population the most crowded entries go. Genomes are copied in
/// (`genes` bytes each).
class ParetoArchive {
public:
    /// `objectives` must outlive the archive.
    ParetoArchive(std::size_t genes, std::size_t population, std::span<const Objective> objectives);

    /// Adds a feasible plan unless an entry weakly dominates it; drops the entries it
    /// dominates. Infeasible plans are ignored.
    void add(const std::uint8_t* genome, const Objectives& full);

    std::size_t size() const { return m_size; }
    const std::uint8_t* genome(std::size_t a) const { return m_genomes.data() + a * m_c; }
    const Objectives& objectives(std::size_t a) const { return m_full[a]; }

    /// Normalised hypervolume of the entries (objectives divided by `reference`); recomputed
    /// only when the archive changed.
    double hypervolume(const std::vector<double>& reference);

private:
    std::uint8_t* mutableGenome(std::size_t a) { return m_genomes.data() + a * m_c; }
    void moveEntry(std::size_t from, std::size_t to);
    void prune(std::size_t capacity);

    std::size_t m_c;
    std::size_t m_n;
    std::span<const Objective> m_objectives;
    std::size_t m_m;
    std::vector<std::uint8_t> m_genomes;
    std::vector<double> m_values;
    std::vector<Objectives> m_full;
    std::size_t m_size = 0;
    bool m_changed = true;
    double m_lastHypervolume = 0.0;
    std::vector<double> m_points;
};

} // namespace paretune::detail
