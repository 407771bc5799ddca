// SPDX-License-Identifier: GPL-3.0-or-later
#include "pareto_search.h"

#include "common/input_error.h"
#include "common/progress.h"
#include "search/baselines.h"
#include "search/gene_space.h"
#include "search/nondominated_sort.h"
#include "search/pareto_archive.h"
#include "search/random.h"
#include "search/variation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>

namespace paretune {

namespace {

using detail::GeneSpace;
using detail::kStride;

/// NSGA-II state over flat arrays: 2N individuals (parents [0, N), offspring [N, 2N)).
class Nsga2 {
public:
    Nsga2(Simulator& sim, const SearchOptions& options, const GeneSpace& space)
        : m_sim(sim), m_options(options), m_space(space), m_random(options.seed),
          m_n(static_cast<std::size_t>(options.population)), m_c(space.genes),
          m_m(options.objectives.size()), m_sort(2 * m_n),
          m_archive(space.genes, m_n, options.objectives),
          m_variation(space, sim.deviceCount(), sim.columnCount(), options, m_random) {
        m_expanded.resize(static_cast<std::size_t>(sim.computeCount()));
        const std::size_t total = 2 * m_n;
        m_genomes.resize(total * m_c);
        m_scratch.resize(total * m_c);
        m_values.assign(total * kStride, 0.0);
        m_scratchValues.assign(total * kStride, 0.0);
        m_full.resize(total);
        m_scratchFull.resize(total);
        m_rank.resize(total);
        m_crowding.resize(total);
        m_hash.resize(total);
        m_duplicate.resize(total);
        m_order.resize(total);
        m_tmpRank.resize(m_n);
        m_tmpCrowding.resize(m_n);
        m_tmpHash.resize(m_n);
        m_front.reserve(total);
        m_selected.reserve(total);
    }

    /// `baselines`: node genomes, reported and (projected to the genes when grouped) placed
    /// first in the initial population; `seeds`: evaluated node genomes (flat space only) that
    /// fill the initial population after the baselines and enter the archive; `reference`:
    /// the hypervolume reference point, computed from the initial population when empty.
    SearchResult run(const std::vector<Solution>& baselines, Progress* progress,
                     const std::vector<Solution>& seeds = {},
                     const std::vector<double>& reference = {}) {
        SearchResult result;
        result.objectives = m_options.objectives;
        result.baselines = baselines;
        initialise(baselines, seeds);
        selectSurvivors(m_n); // ranks and crowding of the initial population
        for (std::size_t s = m_seededInPopulation; s < seeds.size(); ++s) {
            m_archive.add(seeds[s].genome.data(), seeds[s].objectives);
        }
        if (reference.empty()) {
            computeReference(result, baselines);
        } else {
            result.reference = reference;
        }
        result.hypervolumeByGeneration.push_back(m_archive.hypervolume(result.reference));
        for (std::int32_t g = 0; g < m_options.generations; ++g) {
            if (progress && progress->cancelled()) {
                result.cancelled = true;
                break;
            }
            makeOffspring();
            selectSurvivors(2 * m_n);
            result.hypervolumeByGeneration.push_back(m_archive.hypervolume(result.reference));
            result.generationsRun = g + 1;
            if (progress) {
                char message[96];
                std::snprintf(message, sizeof message, "generation %d/%d, hypervolume %.6f", g + 1,
                              m_options.generations, result.hypervolumeByGeneration.back());
                progress->report(static_cast<double>(g + 1) / m_options.generations, message);
                progress->sample(g + 1, result.hypervolumeByGeneration.back());
            }
        }
        std::vector<Solution> candidates = baselines;
        for (std::size_t a = 0; a < m_archive.size(); ++a) {
            candidates.push_back(
                {nodeGenome(m_archive.genome(a)), m_archive.objectives(a), std::string()});
        }
        for (std::size_t i = 0; i < m_n; ++i) {
            if (m_rank[i] == 0 && m_full[i].feasible()) {
                candidates.push_back({nodeGenome(genome(i)), m_full[i], std::string()});
            }
        }
        result.front = nonDominated(candidates, m_options.objectives);
        result.evaluations = m_simulated + static_cast<std::int64_t>(baselines.size());
        result.reusedEvaluations = m_reused;
        return result;
    }

    /// The final population as node genomes, best rank first.
    std::vector<Solution> population() {
        std::vector<std::size_t> order(m_n);
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return m_rank[a] < m_rank[b]; });
        std::vector<Solution> out;
        for (const std::size_t i : order) {
            out.push_back({nodeGenome(genome(i)), m_full[i], std::string()});
        }
        return out;
    }

private:
    std::uint8_t* genome(std::size_t i) { return m_genomes.data() + i * m_c; }

    /// The node genome of a genome (itself in the flat space), written into `to` when grouped.
    const std::uint8_t* expand(const std::uint8_t* g, std::uint8_t* to) {
        if (!m_space.grouped()) {
            return g;
        }
        const std::size_t K = static_cast<std::size_t>(m_sim.columnCount());
        for (std::size_t ci = 0; ci < m_expanded.size(); ++ci) {
            to[ci] = m_space.nodeDevice[ci * K + g[static_cast<std::size_t>(m_space.geneOf[ci])]];
        }
        return to;
    }
    const std::uint8_t* expand(const std::uint8_t* g) { return expand(g, m_expanded.data()); }
    std::vector<std::uint8_t> nodeGenome(const std::uint8_t* g) {
        const std::uint8_t* e = expand(g);
        return std::vector<std::uint8_t>(e, e + m_expanded.size());
    }
    const double* values(std::size_t i) const { return m_values.data() + i * kStride; }

    std::uint64_t hashOf(const std::uint8_t* g) const {
        std::uint64_t h = 0x9e3779b97f4a7c15ull ^ m_c;
        std::size_t k = 0;
        for (; k + 8 <= m_c; k += 8) {
            std::uint64_t word;
            std::memcpy(&word, g + k, 8);
            h = (h ^ word) * 0xff51afd7ed558ccdull;
            h ^= h >> 32;
        }
        for (; k < m_c; ++k) {
            h = (h ^ g[k]) * 0x100000001b3ull;
        }
        return h;
    }

    /// A child identical to one of its parents (pa, pb) takes the parent's figures instead of
    /// being simulated again: true when child i did.
    bool tookParentFigures(std::size_t i, std::size_t pa, std::size_t pb) {
        m_hash[i] = hashOf(genome(i));
        for (const std::size_t p : {pa, pb}) {
            if (p != SIZE_MAX && m_hash[p] == m_hash[i] &&
                std::memcmp(genome(p), genome(i), m_c) == 0) {
                m_full[i] = m_full[p];
                std::copy_n(values(p), kStride, m_values.data() + i * kStride);
                ++m_reused;
                return true;
            }
        }
        return false;
    }

    void setFigures(std::size_t i, const Objectives& o) {
        ++m_simulated;
        m_full[i] = o;
        for (std::size_t k = 0; k < m_m; ++k) {
            m_values[i * kStride + k] = objectiveValue(o, m_options.objectives[k]);
        }
    }

    /// Evaluates individual i now (see tookParentFigures).
    void evaluate(std::size_t i, std::size_t pa = SIZE_MAX, std::size_t pb = SIZE_MAX) {
        if (!tookParentFigures(i, pa, pb)) {
            setFigures(i, m_sim.evaluate({expand(genome(i)), m_expanded.size()}));
        }
    }

    /// Evaluates child i with the others of its generation (evaluatePending), unless it takes
    /// a parent's figures. Nothing reads a child's figures before the generation is complete.
    void evaluateLater(std::size_t i, std::size_t pa = SIZE_MAX, std::size_t pb = SIZE_MAX) {
        if (!tookParentFigures(i, pa, pb)) {
            m_pending.push_back(i);
        }
    }

    /// One Simulator::evaluateBatch call for the children evaluateLater set aside.
    void evaluatePending() {
        const std::size_t C = m_expanded.size();
        if (m_space.grouped()) {
            m_pendingGenomes.resize(m_pending.size() * C);
        }
        m_pendingPlans.clear();
        for (std::size_t k = 0; k < m_pending.size(); ++k) {
            // Ungrouped genomes need no buffer (and null + offset is undefined, UBSan says).
            std::uint8_t* buffer =
                m_space.grouped() ? m_pendingGenomes.data() + k * C : m_pendingGenomes.data();
            m_pendingPlans.push_back(expand(genome(m_pending[k]), buffer));
        }
        m_pendingObjectives.resize(m_pending.size());
        m_sim.evaluateBatch(m_pendingPlans, m_pendingObjectives);
        for (std::size_t k = 0; k < m_pending.size(); ++k) {
            setFigures(m_pending[k], m_pendingObjectives[k]);
        }
        m_pending.clear();
    }

    void initialise(const std::vector<Solution>& baselines, const std::vector<Solution>& seeds) {
        std::size_t i = 0;
        for (const Solution& b : baselines) {
            if (i == m_n) {
                break;
            }
            if (m_space.grouped()) {
                const auto g = detail::projectToGroups(m_space, m_sim.columnCount(), b.genome);
                std::copy(g.begin(), g.end(), genome(i));
            } else {
                std::copy(b.genome.begin(), b.genome.end(), genome(i));
            }
            evaluate(i);
            ++i;
        }
        m_seededInPopulation = 0;
        for (const Solution& s : seeds) {
            if (i == m_n) {
                break;
            }
            std::copy(s.genome.begin(), s.genome.end(), genome(i));
            m_hash[i] = hashOf(genome(i));
            m_full[i] = s.objectives;
            std::fill_n(m_values.data() + i * kStride, kStride, 0.0);
            for (std::size_t k = 0; k < m_m; ++k) {
                m_values[i * kStride + k] = objectiveValue(s.objectives, m_options.objectives[k]);
            }
            ++m_seededInPopulation;
            ++i;
        }
        for (; i < m_n; ++i) {
            std::uint8_t* g = genome(i);
            if (i % 2 == 0) {
                m_variation.randomGenome(g);
            } else {
                m_variation.blockGenome(g);
            }
            evaluate(i);
        }
    }

    /// Ranks the first `count` individuals and keeps the best N in [0, N) with their rank and
    /// crowding distance. Copies of a genome already present are ranked after all others.
    void selectSurvivors(std::size_t count) {
        markDuplicates(count);
        const std::size_t fronts = m_sort.sort(count, m_n, m_values, m_full, m_duplicate);
        m_front.clear();
        if (fronts > 0) {
            m_front = m_sort.front(0);
        }
        updateArchive(count == m_n ? 0 : m_n);
        const std::int32_t rank = selectFronts(fronts);
        selectDuplicates(count, rank);
        keepSelected();
    }

    /// Flags each individual of [0, count) whose genome an earlier one (in hash order) has.
    void markDuplicates(std::size_t count) {
        // Duplicates: sort by hash, then compare genomes of equal hash.
        std::iota(m_order.begin(), m_order.begin() + static_cast<std::ptrdiff_t>(count), 0u);
        std::sort(m_order.begin(), m_order.begin() + static_cast<std::ptrdiff_t>(count),
                  [&](std::uint32_t a, std::uint32_t b) {
                      return m_hash[a] != m_hash[b] ? m_hash[a] < m_hash[b] : a < b;
                  });
        std::fill(m_duplicate.begin(), m_duplicate.begin() + static_cast<std::ptrdiff_t>(count), 0);
        for (std::size_t j = 1; j < count; ++j) {
            const std::uint32_t a = m_order[j];
            for (std::size_t p = j; p-- > 0;) {
                const std::uint32_t b = m_order[p];
                if (m_hash[b] != m_hash[a]) {
                    break;
                }
                if (!m_duplicate[b] && std::memcmp(genome(a), genome(b), m_c) == 0) {
                    m_duplicate[a] = 1;
                    break;
                }
            }
        }
    }

    /// Selects whole fronts, best first, while they fit, and of the first that does not fit the
    /// least crowded members; sets the rank and crowding distance of every front it looks at.
    /// Returns the number of fronts looked at.
    std::int32_t selectFronts(std::size_t fronts) {
        m_selected.clear();
        std::int32_t rank = 0;
        for (std::size_t f = 0; f < fronts && m_selected.size() < m_n; ++f, ++rank) {
            std::vector<std::uint32_t>& front = m_sort.front(f);
            m_sort.crowding(front, m_values, m_m, m_crowding);
            for (const std::uint32_t a : front) {
                m_rank[a] = rank;
            }
            if (m_selected.size() + front.size() <= m_n) {
                m_selected.insert(m_selected.end(), front.begin(), front.end());
            } else {
                std::sort(front.begin(), front.end(), [&](std::uint32_t a, std::uint32_t b) {
                    return m_crowding[a] != m_crowding[b] ? m_crowding[a] > m_crowding[b] : a < b;
                });
                m_selected.insert(m_selected.end(), front.begin(),
                                  front.begin() +
                                      static_cast<std::ptrdiff_t>(m_n - m_selected.size()));
            }
        }
        return rank;
    }

    /// Fills the rest of the selection with duplicates (rank after all fronts) when the
    /// distinct individuals are too few.
    void selectDuplicates(std::size_t count, std::int32_t rank) {
        for (std::size_t a = 0; a < count && m_selected.size() < m_n; ++a) {
            if (m_duplicate[a]) {
                m_rank[a] = rank + 1;
                m_crowding[a] = 0.0;
                m_selected.push_back(static_cast<std::uint32_t>(a));
            }
        }
    }

    /// Moves the selected individuals into [0, N).
    void keepSelected() {
        for (std::size_t j = 0; j < m_n; ++j) {
            const std::uint32_t a = m_selected[j];
            std::memcpy(m_scratch.data() + j * m_c, genome(a), m_c);
            std::copy_n(values(a), kStride, m_scratchValues.data() + j * kStride);
            m_scratchFull[j] = m_full[a];
            m_tmpRank[j] = m_rank[a];
            m_tmpCrowding[j] = m_crowding[a];
            m_tmpHash[j] = m_hash[a];
        }
        std::swap(m_genomes, m_scratch);
        std::swap(m_values, m_scratchValues);
        std::swap(m_full, m_scratchFull);
        std::copy_n(m_tmpRank.begin(), m_n, m_rank.begin());
        std::copy_n(m_tmpCrowding.begin(), m_n, m_crowding.begin());
        std::copy_n(m_tmpHash.begin(), m_n, m_hash.begin());
    }

    std::size_t tournament() {
        const std::size_t a = m_random.below(static_cast<std::uint32_t>(m_n));
        const std::size_t b = m_random.below(static_cast<std::uint32_t>(m_n));
        if (m_rank[a] != m_rank[b]) {
            return m_rank[a] < m_rank[b] ? a : b;
        }
        return m_crowding[a] >= m_crowding[b] ? a : b;
    }

    /// A small step from a random archive member: one gene moved to another supporting
    /// device, or a chain mutation. Explores around every non-dominated plan, including the
    /// sparse ends of the front that tournaments rarely pick.
    void archiveStep(std::uint8_t* child) {
        std::memcpy(child,
                    m_archive.genome(m_random.below(static_cast<std::uint32_t>(m_archive.size()))),
                    m_c);
        m_variation.smallStep(child);
    }

    void makeOffspring() {
        std::size_t k = 0;
        const auto archiveChildren = static_cast<std::size_t>(
            m_archive.size() > 0 ? m_options.archiveStepShare * static_cast<double>(m_n) : 0.0);
        for (; k < archiveChildren; ++k) {
            archiveStep(genome(m_n + k));
            evaluateLater(m_n + k);
        }
        for (; k < m_n; k += 2) {
            const std::size_t pa = tournament();
            const std::size_t pb = tournament();
            const std::size_t ca = m_n + k;
            const std::size_t cb = k + 1 < m_n ? m_n + k + 1 : m_n + k; // odd N: one child
            std::uint8_t* a = genome(ca);
            std::uint8_t* b = genome(cb);
            std::memcpy(a, genome(pa), m_c);
            if (cb != ca) {
                std::memcpy(b, genome(pb), m_c);
            }
            if (m_random.chance(m_options.crossoverRate) && cb != ca) {
                m_variation.crossover(a, b);
            }
            m_variation.mutate(a);
            evaluateLater(ca, pa, pb);
            if (cb != ca) {
                m_variation.mutate(b);
                evaluateLater(cb, pa, pb);
            }
        }
        evaluatePending();
    }

    /// Feeds the archive with the new feasible members (index >= firstNew) of the first front
    /// of each generation, before truncation.
    void updateArchive(std::size_t firstNew) {
        for (const std::uint32_t i : m_front) {
            if (i < firstNew || !m_full[i].feasible()) {
                continue;
            }
            m_archive.add(genome(i), m_full[i]);
        }
    }

    void computeReference(SearchResult& result, const std::vector<Solution>& baselines) {
        result.reference.assign(m_m, 0.0);
        // Node-level baselines count too (when grouped, the population holds their
        // projections), so that every baseline lies inside the reference box.
        for (const Solution& b : baselines) {
            if (b.objectives.feasible()) {
                for (std::size_t k = 0; k < m_m; ++k) {
                    result.reference[k] = std::max(
                        result.reference[k], objectiveValue(b.objectives, m_options.objectives[k]));
                }
            }
        }
        bool anyFeasible = false;
        for (std::size_t i = 0; i < m_n; ++i) {
            anyFeasible = anyFeasible || m_full[i].feasible();
        }
        for (std::size_t i = 0; i < m_n; ++i) {
            if (anyFeasible && !m_full[i].feasible()) {
                continue;
            }
            for (std::size_t k = 0; k < m_m; ++k) {
                result.reference[k] = std::max(result.reference[k], values(i)[k]);
            }
        }
        for (double& r : result.reference) {
            r = r > 0.0 ? r * 1.1 : 1.0;
        }
    }

    Simulator& m_sim;
    const SearchOptions& m_options;
    const GeneSpace& m_space;
    Random m_random;
    std::size_t m_n;
    std::size_t m_c;
    std::size_t m_m;
    detail::NondominatedSort m_sort;
    detail::ParetoArchive m_archive;
    detail::Variation m_variation;

    std::vector<std::uint8_t> m_expanded;
    // Children of the generation waiting for evaluatePending, their node genomes when grouped.
    std::vector<std::size_t> m_pending;
    std::vector<std::uint8_t> m_pendingGenomes;
    std::vector<const std::uint8_t*> m_pendingPlans;
    std::vector<Objectives> m_pendingObjectives;
    std::size_t m_seededInPopulation = 0;

    std::vector<std::uint8_t> m_genomes, m_scratch;
    std::vector<double> m_values, m_scratchValues;
    std::vector<Objectives> m_full, m_scratchFull;
    std::vector<std::int32_t> m_rank;
    std::vector<double> m_crowding;
    std::vector<std::uint64_t> m_hash;
    std::vector<std::uint8_t> m_duplicate;
    std::vector<std::uint32_t> m_order, m_front, m_selected;
    std::int64_t m_simulated = 0; ///< plans simulated
    std::int64_t m_reused = 0;    ///< children identical to a parent, not simulated again
    std::vector<std::int32_t> m_tmpRank;
    std::vector<double> m_tmpCrowding;
    std::vector<std::uint64_t> m_tmpHash;
};

} // namespace

SearchResult searchPareto(Simulator& sim, const SearchOptions& options, Progress* progress) {
    if (options.population < 4) {
        throw InputError::forSetting("population", "expected at least 4, got " +
                                                       std::to_string(options.population));
    }
    if (options.generations < 0) {
        throw InputError::forSetting("generations", "expected 0 or more, got " +
                                                        std::to_string(options.generations));
    }
    if (options.objectives.size() < 2 || options.objectives.size() > 3) {
        throw InputError::forSetting("objectives", "expected two or three objectives");
    }
    if (options.coarseToFine &&
        !(options.coarseGenerationShare > 0.0 && options.coarseGenerationShare < 1.0)) {
        throw InputError("coarse-to-fine: the coarse share of the generations must lie in (0, 1)");
    }
    if (options.coarseToFine && options.coarseMaxGroupSize < 1) {
        throw InputError("coarse-to-fine: the longest chain must be at least 1 node");
    }
    const bool accuracySeen = std::find(options.objectives.begin(), options.objectives.end(),
                                        Objective::Accuracy) != options.objectives.end() ||
                              std::isfinite(options.maxDeviationPct);
    if (sim.variantCount() > 1 && !accuracySeen) {
        throw InputError::forSetting(
            "variants", "offering lower precisions needs accuracy among the objectives or a "
                        "limit on the accuracy loss: the search would trade accuracy unseen");
    }
    sim.setDeviationLimit(options.maxDeviationPct); // validates
    if (options.upwardRankPriority) {
        sim.setPriority(upwardRankOrder(sim));
    }
    const std::vector<Solution> baselines = evaluateBaselines(sim);
    if (sim.computeCount() == 0) {
        // Nothing to place: every plan is the empty one.
        SearchResult result;
        result.objectives = options.objectives;
        result.baselines = baselines;
        result.front = nonDominated(baselines, options.objectives);
        result.reference.assign(options.objectives.size(), 1.0);
        result.hypervolumeByGeneration.push_back(0.0);
        result.evaluations = static_cast<std::int64_t>(baselines.size());
        return result;
    }
    const GeneSpace flat = detail::flatSpace(sim);
    if (!options.coarseToFine || options.generations < 2) {
        Nsga2 nsga(sim, options, flat);
        return nsga.run(baselines, progress);
    }

    // Coarse-to-fine: the first share of the generations searches over chains of nodes, the
    // rest over nodes, starting from the coarse archive and final population. Same population
    // and generation count, hence about the same number of simulations, as the flat search.
    const GeneSpace coarse = detail::chainSpace(sim, options.coarseMaxGroupSize);
    if (coarse.genes == flat.genes) {
        Nsga2 nsga(sim, options, flat); // nothing to contract
        return nsga.run(baselines, progress);
    }
    SearchOptions coarseOptions = options;
    coarseOptions.generations = std::clamp(
        static_cast<std::int32_t>(std::lround(options.coarseGenerationShare * options.generations)),
        1, options.generations - 1);
    SearchOptions fineOptions = options;
    fineOptions.generations = options.generations - coarseOptions.generations;
    fineOptions.seed = options.seed ^ 0x5bd1e995u;
    const double coarseFraction =
        static_cast<double>(coarseOptions.generations) / options.generations;
    StageProgress coarseProgress(progress, 0.0, coarseFraction, "coarse");
    Nsga2 first(sim, coarseOptions, coarse);
    SearchResult result = first.run(baselines, progress ? &coarseProgress : nullptr);
    if (result.cancelled) {
        return result;
    }
    // Seeds: the coarse front (from the archive), then the final population.
    std::vector<Solution> seeds = result.front;
    for (Solution& s : first.population()) {
        seeds.push_back(std::move(s));
    }
    StageProgress fineProgress(progress, coarseFraction, 1.0 - coarseFraction, "fine");
    Nsga2 second(sim, fineOptions, flat);
    SearchResult fine =
        second.run(baselines, progress ? &fineProgress : nullptr, seeds, result.reference);
    result.hypervolumeByGeneration.insert(result.hypervolumeByGeneration.end(),
                                          fine.hypervolumeByGeneration.begin() + 1,
                                          fine.hypervolumeByGeneration.end());
    result.generationsRun += fine.generationsRun;
    // The fine stage re-simulates the baselines only.
    result.evaluations += fine.evaluations - static_cast<std::int64_t>(baselines.size());
    result.reusedEvaluations += fine.reusedEvaluations;
    result.cancelled = fine.cancelled;
    std::vector<Solution> candidates = baselines;
    candidates.insert(candidates.end(), fine.front.begin(), fine.front.end());
    candidates.insert(candidates.end(), result.front.begin(), result.front.end());
    result.front = nonDominated(candidates, options.objectives);
    return result;
}

} // namespace paretune
