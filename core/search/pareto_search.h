// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plan/simulator.h"
#include "search/objective.h"
#include "search/solution.h"

#include "graph/precision.h"

#include <cstdint>
#include <limits>
#include <vector>

namespace paretune {

struct Progress;

struct SearchOptions {
    std::vector<Objective> objectives{Objective::Latency, Objective::Energy, Objective::PeakMemory};
    std::int32_t population = 200;
    std::int32_t generations = 300;
    std::uint64_t seed = 1;
    /// Offer the graph's fusion groups to the plans (CostTableOptions::fusion); off: every
    /// operator runs on its own.
    bool fusion = true;
    /// Variants offered besides fp32 (CostTableOptions::variants): each compute node's gene
    /// is then a column (device, variant). Offering any needs Objective::Accuracy among the
    /// objectives or a finite maxDeviationPct, so that accuracy is never traded away unseen.
    std::vector<Variant> variants;
    /// Constraint on the estimated output deviation (Objectives::deviationPct, %): plans above
    /// it are infeasible (Simulator::setDeviationLimit). Infinite: none.
    double maxDeviationPct = std::numeric_limits<double>::infinity();
    double crossoverRate = 0.9;
    /// Share of crossovers that swap a segment of neighbouring nodes (in priority order) rather
    /// than choosing each gene independently.
    double segmentCrossoverShare = 0.5;
    /// Probability that a child also gets a chain mutation (a connected run of nodes moved to
    /// one device); the per-gene mutation rate is 1 / compute nodes.
    double chainMutationRate = 0.3;
    /// Share of each generation's offspring made by a small step (one gene, or a chain) from a
    /// random member of the archive of non-dominated plans found so far.
    double archiveStepShare = 0.1;
    /// Schedule every plan in HEFT's upward-rank order (else the graph's topological order).
    bool upwardRankPriority = true;
    /// Coarse-to-fine (for big graphs): the first coarseGenerationShare of the generations
    /// search over chains of compute nodes (single-producer single-consumer runs of at most
    /// coarseMaxGroupSize nodes, one device per chain), the rest over single nodes, seeded
    /// with the coarse front and population. Same population and generation count.
    bool coarseToFine = false;
    double coarseGenerationShare = 0.2;
    std::int32_t coarseMaxGroupSize = 16;
};

/// Outcome of a search, as a value.
struct SearchResult {
    std::vector<Objective> objectives;
    /// Feasible, non-dominated, sorted by the first objective: the final population merged with
    /// the baselines (a baseline on the front keeps its label).
    std::vector<Solution> front;
    std::vector<Solution> baselines;
    /// Hypervolume reference point in objective units: 1.1 × the worst feasible value of the
    /// initial population (baselines included), per objective.
    std::vector<double> reference;
    /// Normalised hypervolume (objectives divided by the reference) of the archive of
    /// non-dominated feasible plans found so far: after initialisation (entry 0) and after
    /// each generation.
    std::vector<double> hypervolumeByGeneration;
    std::int32_t generationsRun = 0;
    std::int64_t evaluations = 0;       ///< plans simulated (baselines included)
    std::int64_t reusedEvaluations = 0; ///< children identical to a parent, not simulated again
    bool cancelled = false;
};

/// NSGA-II (Deb et al. 2002) over device-per-compute-node genomes, with constrained
/// domination, crowding distance, uniform and segment crossover, support-aware mutation and
/// chain mutation; the initial population holds the baselines (all-on-each-device, HEFT,
/// greedy) and random support-feasible plans. Deterministic for a given seed. Sets the
/// simulator's priority (upward-rank order by default) and leaves it set, so the genomes of the
/// result evaluate the same afterwards. `progress` (may be null) gets one report per
/// generation; when it says cancelled the search stops and returns what it has.
/// With coarseToFine the hypervolume reference comes from the coarse initial population (and
/// the baselines), progress messages are prefixed "coarse" / "fine", and generationsRun counts
/// both stages.
/// The simulator's cost table decides the genes: a column per (device, variant) whose cell is
/// supported; the deviation limit is set on the simulator (and left set). Baselines: the
/// all-on-device fp32 plans, "heft" and "greedy" (fp32), and "all:DEV:PRECISION" per device
/// and offered precision (every node with a supported cell in it there, the rest fp32).
/// Throws InputError for options out of range (population < 4, generations < 0, an objective
/// list not of 2 or 3, a coarse share outside (0, 1), a chain length < 1, a negative deviation
/// limit), and for a table with variants when accuracy is neither an objective nor limited.
SearchResult searchPareto(Simulator& sim, const SearchOptions& options,
                          Progress* progress = nullptr);

} // namespace paretune
