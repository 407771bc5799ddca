// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to the placement search (pareto_search.cpp): NSGA-II's ranking of a population, the
// non-dominated sort into fronts and the crowding distance within a front.

#include "plan/plan.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace paretune::detail {

/// Objective values are stored three per individual, zero-padded for two objectives, so that
/// dominance checks are fixed-size and branch-free.
constexpr std::size_t kStride = 3;

/// Sorts the individuals of a population into fronts of constrained domination and measures
/// crowding within a front. Holds the scratch of both, sized once, so that a generation
/// allocates (next to) nothing.
class NondominatedSort {
public:
    /// `capacity`: the most individuals one sort is given (parents and offspring).
    explicit NondominatedSort(std::size_t capacity);

    /// Sorts individuals [0, count), leaving out those flagged in `duplicate`, into fronts, best
    /// first. Feasible ones (by `full`) by Pareto dominance over `objectiveValues` (kStride per
    /// individual), peeled only until at least `needed` are ranked; then the infeasible ones,
    /// one front per violation value, smallest first. Returns the number of fronts.
    std::size_t sort(std::size_t count, std::size_t needed, std::span<const double> objectiveValues,
                     std::span<const Objectives> full, std::span<const std::uint8_t> duplicate);
    /// Front f of the last sort.
    std::vector<std::uint32_t>& front(std::size_t f) { return m_fronts[f]; }

    /// Crowding distance of each member i of `front` into distance[i], over the first
    /// `objectives` of `values` (kStride per individual): infinite for the ends of each
    /// objective's range and for fronts of one or two.
    void crowding(std::span<const std::uint32_t> front, std::span<const double> values,
                  std::size_t objectives, std::span<double> distance);

private:
    std::size_t m_capacity;
    std::vector<std::uint32_t> m_feasible, m_infeasible, m_remaining, m_next;
    std::vector<double> m_secondValues;
    std::vector<std::uint32_t> m_secondRank; // per individual
    std::vector<double> m_fenwick;
    std::vector<std::vector<std::uint32_t>> m_fronts;
    std::vector<std::uint32_t> m_sortBuffer;
};

} // namespace paretune::detail
