#include "pareto_search.h"

#include "common/input_error.h"
#include "common/progress.h"
#include "search/baselines.h"
#include "search/hypervolume.h"
#include "search/random.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numeric>

namespace paretune {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
/// Objective values are stored three per individual, zero-padded for two objectives, so that
/// dominance checks are fixed-size and branch-free.
constexpr std::size_t kStride = 3;

/// What a genome's genes are: one per compute node (the flat search), or one per group of
/// compute nodes (the coarse stage of coarse-to-fine), with what the operators need to know.
struct GeneSpace {
    std::size_t genes = 0;
    std::vector<std::uint8_t> support; ///< devices a gene may take, CSR with supportOffsets
    std::vector<std::int32_t> supportOffsets;
    Csr successors, predecessors;       ///< between genes
    std::vector<std::int32_t> priority; ///< genes in scheduling order (segment crossover)
    /// Grouped only: per compute node, its gene, and the device per (gene device → node
    /// device): node ci on gene device d goes to nodeDevice[ci · D + d].
    std::vector<std::int32_t> geneOf;
    std::vector<std::uint8_t> nodeDevice;
    bool grouped() const { return !geneOf.empty(); }
};

GeneSpace flatSpace(const Simulator& sim) {
    GeneSpace space;
    space.genes = static_cast<std::size_t>(sim.computeCount());
    for (std::int32_t ci = 0; ci < sim.computeCount(); ++ci) {
        space.supportOffsets.push_back(static_cast<std::int32_t>(space.support.size()));
        for (std::int32_t d = 0; d < sim.deviceCount(); ++d) {
            if (sim.supported(ci, d)) {
                space.support.push_back(static_cast<std::uint8_t>(d));
            }
        }
        if (space.support.size() == static_cast<std::size_t>(space.supportOffsets.back())) {
            space.support.push_back(static_cast<std::uint8_t>(sim.costs().host()));
        }
        space.successors.appendRow(sim.computeSuccessors(ci));
        space.predecessors.appendRow(sim.computePredecessors(ci));
    }
    space.supportOffsets.push_back(static_cast<std::int32_t>(space.support.size()));
    const auto priority = sim.priority();
    space.priority.assign(priority.begin(), priority.end());
    return space;
}

/// Groups for the coarse stage: maximal chains of compute nodes (a node with one compute
/// successor whose only compute predecessor it is joins that successor's group), cut at
/// `maxLength` nodes. A group may take every device some member supports; a member that does
/// not support the group's device runs on the host (or, failing that, on its fastest
/// supporting device), as in the all-on-one-device baselines.
GeneSpace chainSpace(const Simulator& sim, std::int32_t maxLength) {
    const std::int32_t C = sim.computeCount();
    const std::int32_t D = sim.deviceCount();
    GeneSpace space;
    space.geneOf.assign(static_cast<std::size_t>(C), -1);
    std::vector<std::int32_t> length;
    for (const std::int32_t ci : sim.priority()) {
        const auto pred = sim.computePredecessors(ci);
        std::int32_t gene = -1;
        if (pred.size() == 1 && sim.computeSuccessors(pred[0]).size() == 1) {
            const std::int32_t g = space.geneOf[static_cast<std::size_t>(pred[0])];
            if (length[static_cast<std::size_t>(g)] < maxLength) {
                gene = g;
            }
        }
        if (gene < 0) {
            gene = static_cast<std::int32_t>(length.size());
            length.push_back(0);
            space.priority.push_back(gene);
        }
        space.geneOf[static_cast<std::size_t>(ci)] = gene;
        ++length[static_cast<std::size_t>(gene)];
    }
    space.genes = length.size();
    const std::int32_t host = sim.costs().host();
    space.nodeDevice.resize(static_cast<std::size_t>(C) * static_cast<std::size_t>(D));
    std::vector<std::uint32_t> geneSupport(space.genes, 0u);
    for (std::int32_t ci = 0; ci < C; ++ci) {
        std::int32_t fallback = sim.supported(ci, host) ? host : -1;
        for (std::int32_t d = 0; d < D && !sim.supported(ci, host); ++d) {
            if (sim.supported(ci, d) &&
                (fallback < 0 || sim.latencyUs(ci, d) < sim.latencyUs(ci, fallback))) {
                fallback = d;
            }
        }
        for (std::int32_t d = 0; d < D; ++d) {
            const bool ok = sim.supported(ci, d);
            space.nodeDevice[static_cast<std::size_t>(ci * D + d)] =
                static_cast<std::uint8_t>(ok || fallback < 0 ? d : fallback);
            if (ok) {
                geneSupport[static_cast<std::size_t>(space.geneOf[static_cast<std::size_t>(ci)])] |=
                    1u << d;
            }
        }
    }
    std::vector<std::vector<std::int32_t>> succ(space.genes), pred(space.genes);
    for (std::int32_t ci = 0; ci < C; ++ci) {
        const std::int32_t g = space.geneOf[static_cast<std::size_t>(ci)];
        for (const std::int32_t cs : sim.computeSuccessors(ci)) {
            const std::int32_t h = space.geneOf[static_cast<std::size_t>(cs)];
            auto& row = succ[static_cast<std::size_t>(g)];
            if (h != g && std::find(row.begin(), row.end(), h) == row.end()) {
                row.push_back(h);
                pred[static_cast<std::size_t>(h)].push_back(g);
            }
        }
    }
    for (std::size_t g = 0; g < space.genes; ++g) {
        space.supportOffsets.push_back(static_cast<std::int32_t>(space.support.size()));
        for (std::int32_t d = 0; d < D; ++d) {
            if ((geneSupport[g] >> d) & 1u) {
                space.support.push_back(static_cast<std::uint8_t>(d));
            }
        }
        if (geneSupport[g] == 0) {
            space.support.push_back(static_cast<std::uint8_t>(host));
        }
        space.successors.appendRow(succ[g]);
        space.predecessors.appendRow(pred[g]);
    }
    space.supportOffsets.push_back(static_cast<std::int32_t>(space.support.size()));
    return space;
}

/// The group genome closest to a node genome: each group takes the device most of its members
/// are on (ties: the lower index).
std::vector<std::uint8_t> projectToGroups(const GeneSpace& space, std::int32_t deviceCount,
                                          std::span<const std::uint8_t> genome) {
    std::vector<std::int32_t> votes(space.genes * static_cast<std::size_t>(deviceCount), 0);
    for (std::size_t ci = 0; ci < genome.size(); ++ci) {
        ++votes[static_cast<std::size_t>(space.geneOf[ci]) * static_cast<std::size_t>(deviceCount) +
                genome[ci]];
    }
    std::vector<std::uint8_t> out(space.genes, 0);
    for (std::size_t g = 0; g < space.genes; ++g) {
        const auto row = votes.begin() + static_cast<std::ptrdiff_t>(g) * deviceCount;
        out[g] = static_cast<std::uint8_t>(std::max_element(row, row + deviceCount) - row);
    }
    return out;
}

/// NSGA-II state over flat arrays: 2N individuals (parents [0, N), offspring [N, 2N)).
class Nsga2 {
public:
    Nsga2(Simulator& sim, const SearchOptions& options, const GeneSpace& space)
        : m_sim(sim), m_options(options), m_space(space), m_random(options.seed),
          m_n(static_cast<std::size_t>(options.population)), m_c(space.genes),
          m_m(options.objectives.size()) {
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
        m_feasible.reserve(total);
        m_infeasible.reserve(total);
        m_remaining.reserve(total);
        m_secondValues.reserve(total);
        m_secondRank.resize(total);
        m_fenwick.resize(total + 1);
        m_duplicate.resize(total);
        m_order.resize(total);
        m_tmpRank.resize(m_n);
        m_tmpCrowding.resize(m_n);
        m_tmpHash.resize(m_n);
        m_front.reserve(total);
        m_next.reserve(total);
        m_selected.reserve(total);
        m_support = space.support;
        m_supportOffsets = space.supportOffsets;
        m_priority = space.priority;
        m_mutationRate = m_c > 0 ? 1.0 / static_cast<double>(m_c) : 0.0;
        m_logKeep = std::log1p(-std::min(m_mutationRate, 0.999999));
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
            addToArchive(seeds[s].genome.data(), seeds[s].objectives);
        }
        if (reference.empty()) {
            computeReference(result, baselines);
        } else {
            result.reference = reference;
        }
        result.hypervolumeByGeneration.push_back(frontHypervolume(result.reference));
        for (std::int32_t g = 0; g < m_options.generations; ++g) {
            if (progress && progress->cancelled()) {
                result.cancelled = true;
                break;
            }
            makeOffspring();
            selectSurvivors(2 * m_n);
            result.hypervolumeByGeneration.push_back(frontHypervolume(result.reference));
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
        for (std::size_t a = 0; a < m_archiveSize; ++a) {
            candidates.push_back({nodeGenome(archiveGenome(a)), m_archiveFull[a], std::string()});
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
        const std::size_t D = static_cast<std::size_t>(m_sim.deviceCount());
        for (std::size_t ci = 0; ci < m_expanded.size(); ++ci) {
            to[ci] = m_space.nodeDevice[ci * D + g[static_cast<std::size_t>(m_space.geneOf[ci])]];
        }
        return to;
    }
    const std::uint8_t* expand(const std::uint8_t* g) { return expand(g, m_expanded.data()); }
    std::vector<std::uint8_t> nodeGenome(const std::uint8_t* g) {
        const std::uint8_t* e = expand(g);
        return std::vector<std::uint8_t>(e, e + m_expanded.size());
    }
    const double* values(std::size_t i) const { return m_values.data() + i * kStride; }

    std::span<const std::uint8_t> support(std::size_t ci) const {
        return {m_support.data() + m_supportOffsets[ci],
                m_support.data() + m_supportOffsets[ci + 1]};
    }

    std::uint8_t randomSupported(std::size_t ci) {
        const auto s = support(ci);
        return s[m_random.below(static_cast<std::uint32_t>(s.size()))];
    }

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
                const auto g = projectToGroups(m_space, m_sim.deviceCount(), b.genome);
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
                for (std::size_t ci = 0; ci < m_c; ++ci) {
                    g[ci] = randomSupported(ci);
                }
            } else {
                // Blocks of neighbouring nodes (in priority order) on one device: few transfers.
                std::size_t k = 0;
                const std::uint32_t maxBlock =
                    std::max<std::uint32_t>(2, static_cast<std::uint32_t>(m_c / 4));
                while (k < m_c) {
                    const std::size_t length = 1 + m_random.below(maxBlock);
                    const auto device = static_cast<std::uint8_t>(
                        m_random.below(static_cast<std::uint32_t>(m_sim.deviceCount())));
                    for (std::size_t j = 0; j < length && k < m_c; ++j, ++k) {
                        const std::size_t ci = static_cast<std::size_t>(m_priority[k]);
                        const auto s = support(ci);
                        g[ci] = std::find(s.begin(), s.end(), device) != s.end()
                                    ? device
                                    : randomSupported(ci);
                    }
                }
            }
            evaluate(i);
        }
    }

    void crowding(const std::vector<std::uint32_t>& front) {
        for (const std::uint32_t i : front) {
            m_crowding[i] = 0.0;
        }
        if (front.size() <= 2) {
            for (const std::uint32_t i : front) {
                m_crowding[i] = kInfinity;
            }
            return;
        }
        m_sortBuffer.assign(front.begin(), front.end());
        for (std::size_t k = 0; k < m_m; ++k) {
            std::sort(m_sortBuffer.begin(), m_sortBuffer.end(),
                      [&](std::uint32_t a, std::uint32_t b) {
                          return m_values[a * kStride + k] < m_values[b * kStride + k];
                      });
            const double lo = m_values[m_sortBuffer.front() * kStride + k];
            const double hi = m_values[m_sortBuffer.back() * kStride + k];
            m_crowding[m_sortBuffer.front()] = kInfinity;
            m_crowding[m_sortBuffer.back()] = kInfinity;
            if (hi <= lo) {
                continue;
            }
            for (std::size_t j = 1; j + 1 < m_sortBuffer.size(); ++j) {
                m_crowding[m_sortBuffer[j]] += (m_values[m_sortBuffer[j + 1] * kStride + k] -
                                                m_values[m_sortBuffer[j - 1] * kStride + k]) /
                                               (hi - lo);
            }
        }
    }

    /// Ranks the first `count` individuals and keeps the best N in [0, N) with their rank and
    /// crowding distance. Copies of a genome already present are ranked after all others.
    void selectSurvivors(std::size_t count) {
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
        // Non-dominated sort of the distinct individuals. Feasible ones by front peeling with a
        // dimension sweep: in lexicographic order a plan can only be dominated by plans before
        // it, and one before it dominates it exactly when its second and third objectives are
        // no larger; a Fenwick tree over the ranks of the second objective keeps the smallest
        // third objective seen, so each front costs O(R log R) for R remaining plans. Only the
        // fronts needed to fill the population are peeled. Infeasible plans follow, one front
        // per violation value.
        m_feasible.clear();
        m_infeasible.clear();
        for (std::uint32_t a = 0; a < count; ++a) {
            if (!m_duplicate[a]) {
                (m_full[a].feasible() ? m_feasible : m_infeasible).push_back(a);
            }
        }
        auto sameValues = [&](std::uint32_t a, std::uint32_t b) {
            const double* x = values(a);
            const double* y = values(b);
            return x[0] == y[0] && x[1] == y[1] && x[2] == y[2];
        };
        std::sort(m_feasible.begin(), m_feasible.end(), [&](std::uint32_t a, std::uint32_t b) {
            const double* x = values(a);
            const double* y = values(b);
            for (std::size_t k = 0; k < kStride; ++k) {
                if (x[k] != y[k]) {
                    return x[k] < y[k];
                }
            }
            return a < b;
        });
        std::sort(m_infeasible.begin(), m_infeasible.end(), [&](std::uint32_t a, std::uint32_t b) {
            return m_full[a].violation != m_full[b].violation
                       ? m_full[a].violation < m_full[b].violation
                       : a < b;
        });
        std::size_t fronts = 0;
        auto newFront = [&]() -> std::vector<std::uint32_t>& {
            if (fronts == m_fronts.size()) {
                m_fronts.emplace_back();
                m_fronts.back().reserve(2 * m_n);
            }
            m_fronts[fronts].clear();
            return m_fronts[fronts++];
        };
        // Ranks (1-based) of the second objective.
        m_secondValues.clear();
        for (const std::uint32_t a : m_feasible) {
            m_secondValues.push_back(values(a)[1]);
        }
        std::sort(m_secondValues.begin(), m_secondValues.end());
        m_secondValues.erase(std::unique(m_secondValues.begin(), m_secondValues.end()),
                             m_secondValues.end());
        const std::size_t ranks = m_secondValues.size();
        for (const std::uint32_t a : m_feasible) {
            m_secondRank[a] = static_cast<std::uint32_t>(
                std::lower_bound(m_secondValues.begin(), m_secondValues.end(), values(a)[1]) -
                m_secondValues.begin() + 1);
        }
        m_remaining.assign(m_feasible.begin(), m_feasible.end());
        std::size_t ranked = 0;
        while (!m_remaining.empty() && ranked < m_n) {
            std::fill_n(m_fenwick.begin(), ranks + 1, kInfinity);
            std::vector<std::uint32_t>& front = newFront();
            m_next.clear();
            for (std::size_t j = 0; j < m_remaining.size();) {
                const std::uint32_t p = m_remaining[j];
                std::size_t g = j + 1;
                while (g < m_remaining.size() && sameValues(m_remaining[g], p)) {
                    ++g;
                }
                const double third = values(p)[2];
                double smallest = kInfinity;
                for (std::size_t i = m_secondRank[p]; i > 0; i &= i - 1) {
                    smallest = std::min(smallest, m_fenwick[i]);
                }
                std::vector<std::uint32_t>& target = smallest <= third ? m_next : front;
                target.insert(target.end(), m_remaining.begin() + static_cast<std::ptrdiff_t>(j),
                              m_remaining.begin() + static_cast<std::ptrdiff_t>(g));
                for (std::size_t i = m_secondRank[p]; i <= ranks; i += i & (~i + 1)) {
                    m_fenwick[i] = std::min(m_fenwick[i], third);
                }
                j = g;
            }
            ranked += front.size();
            std::swap(m_remaining, m_next);
        }
        for (std::size_t j = 0; j < m_infeasible.size(); ++j) {
            if (j == 0 ||
                m_full[m_infeasible[j]].violation != m_full[m_infeasible[j - 1]].violation) {
                newFront();
            }
            m_fronts[fronts - 1].push_back(m_infeasible[j]);
        }
        m_selected.clear();
        m_front.clear();
        if (fronts > 0) {
            m_front = m_fronts[0];
        }
        updateArchive(count == m_n ? 0 : m_n);
        std::int32_t rank = 0;
        for (std::size_t f = 0; f < fronts && m_selected.size() < m_n; ++f, ++rank) {
            std::vector<std::uint32_t>& front = m_fronts[f];
            crowding(front);
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
        // Fill with duplicates when the distinct individuals are too few.
        for (std::size_t a = 0; a < count && m_selected.size() < m_n; ++a) {
            if (m_duplicate[a]) {
                m_rank[a] = rank + 1;
                m_crowding[a] = 0.0;
                m_selected.push_back(static_cast<std::uint32_t>(a));
            }
        }
        // Move the survivors into [0, N).
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

    void mutate(std::uint8_t* g) {
        // Per-gene mutation at rate 1/C, by geometric skips between mutated genes.
        if (m_mutationRate > 0.0) {
            std::size_t k = 0;
            while (true) {
                const double u = 1.0 - m_random.uniform(); // (0, 1]
                k += static_cast<std::size_t>(std::log(u) / m_logKeep);
                if (k >= m_c) {
                    break;
                }
                const auto s = support(k);
                if (s.size() > 1) {
                    std::uint8_t d = g[k];
                    while (d == g[k]) {
                        d = s[m_random.below(static_cast<std::uint32_t>(s.size()))];
                    }
                    g[k] = d;
                }
                ++k;
            }
        }
        if (m_c > 0 && m_random.chance(m_options.chainMutationRate)) {
            chainMutation(g);
        }
    }

    /// A connected run of nodes (following successors or predecessors) moves to one device.
    void chainMutation(std::uint8_t* g) {
        std::int32_t ci =
            static_cast<std::int32_t>(m_random.below(static_cast<std::uint32_t>(m_c)));
        const std::uint8_t d = randomSupported(static_cast<std::size_t>(ci));
        const std::uint32_t maxLength =
            std::max<std::uint32_t>(2, static_cast<std::uint32_t>(m_c / 8));
        const std::uint32_t length = 1 + m_random.below(maxLength);
        const bool forward = m_random.chance(0.5);
        for (std::uint32_t step = 0; step < length; ++step) {
            const auto s = support(static_cast<std::size_t>(ci));
            if (std::find(s.begin(), s.end(), d) != s.end()) {
                g[ci] = d;
            }
            const auto next = forward ? m_space.successors.row(ci) : m_space.predecessors.row(ci);
            if (next.empty()) {
                break;
            }
            ci = next[m_random.below(static_cast<std::uint32_t>(next.size()))];
        }
    }

    /// A small step from a random archive member: one gene moved to another supporting
    /// device, or a chain mutation. Explores around every non-dominated plan, including the
    /// sparse ends of the front that tournaments rarely pick.
    void archiveStep(std::uint8_t* child) {
        std::memcpy(child, archiveGenome(m_random.below(static_cast<std::uint32_t>(m_archiveSize))),
                    m_c);
        if (m_random.chance(0.5)) {
            const std::size_t k = m_random.below(static_cast<std::uint32_t>(m_c));
            const auto s = support(k);
            if (s.size() > 1) {
                std::uint8_t d = child[k];
                while (d == child[k]) {
                    d = s[m_random.below(static_cast<std::uint32_t>(s.size()))];
                }
                child[k] = d;
            }
        } else {
            chainMutation(child);
        }
    }

    void makeOffspring() {
        std::size_t k = 0;
        const auto archiveChildren = static_cast<std::size_t>(
            m_archiveSize > 0 ? m_options.archiveStepShare * static_cast<double>(m_n) : 0.0);
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
                if (m_random.chance(m_options.segmentCrossoverShare)) {
                    std::size_t i = m_random.below(static_cast<std::uint32_t>(m_c));
                    std::size_t j = m_random.below(static_cast<std::uint32_t>(m_c));
                    if (i > j) {
                        std::swap(i, j);
                    }
                    for (std::size_t p = i; p <= j; ++p) {
                        const auto ci = static_cast<std::size_t>(m_priority[p]);
                        std::swap(a[ci], b[ci]);
                    }
                } else {
                    std::uint64_t bits = 0;
                    for (std::size_t ci = 0; ci < m_c; ++ci) {
                        if (ci % 64 == 0) {
                            bits = m_random.next();
                        }
                        if (bits & 1u) {
                            std::swap(a[ci], b[ci]);
                        }
                        bits >>= 1;
                    }
                }
            }
            mutate(a);
            evaluateLater(ca, pa, pb);
            if (cb != ca) {
                mutate(b);
                evaluateLater(cb, pa, pb);
            }
        }
        evaluatePending();
    }

    std::uint8_t* archiveGenome(std::size_t a) { return m_archiveGenomes.data() + a * m_c; }

    /// External archive of the non-dominated feasible plans met so far, so that a plan the
    /// population's crowding truncation drops is not lost. Fed with the new members (index >=
    /// firstNew) of the first front of each generation, before truncation; when it outgrows its
    /// capacity the most crowded entries go.
    void updateArchive(std::size_t firstNew) {
        const std::size_t capacity = 10 * m_n;
        if (m_archiveGenomes.empty()) {
            m_archiveGenomes.resize((capacity + m_n) * m_c);
            m_archiveValues.resize((capacity + m_n) * 3);
            m_archiveFull.resize(capacity + m_n);
        }
        for (const std::uint32_t i : m_front) {
            if (i < firstNew || !m_full[i].feasible()) {
                continue;
            }
            addToArchive(genome(i), m_full[i]);
        }
    }

    /// Adds a feasible plan to the archive unless an entry weakly dominates it; drops the
    /// entries it dominates.
    void addToArchive(const std::uint8_t* g, const Objectives& full) {
        if (!full.feasible()) {
            return;
        }
        const std::size_t capacity = 10 * m_n;
        {
            // Archive values are stored three per entry (zero-padded), so these scans are
            // branch-free over fixed-size rows.
            double v[3] = {0.0, 0.0, 0.0};
            for (std::size_t k = 0; k < m_m; ++k) {
                v[k] = objectiveValue(full, m_options.objectives[k]);
            }
            const double* w = m_archiveValues.data();
            bool dominated = false;
            for (std::size_t a = 0; a < m_archiveSize && !dominated; a += 8) {
                const std::size_t end = std::min(a + 8, m_archiveSize);
                bool any = false;
                for (std::size_t j = a; j < end; ++j) {
                    any |= (w[3 * j] <= v[0]) & (w[3 * j + 1] <= v[1]) & (w[3 * j + 2] <= v[2]);
                }
                dominated = any;
            }
            if (dominated) {
                return;
            }
            for (std::size_t a = 0; a < m_archiveSize;) {
                if ((v[0] <= w[3 * a]) & (v[1] <= w[3 * a + 1]) & (v[2] <= w[3 * a + 2])) {
                    moveArchiveEntry(--m_archiveSize, a);
                } else {
                    ++a;
                }
            }
            std::memcpy(archiveGenome(m_archiveSize), g, m_c);
            std::copy_n(v, 3, m_archiveValues.data() + m_archiveSize * 3);
            m_archiveFull[m_archiveSize] = full;
            ++m_archiveSize;
            m_archiveChanged = true;
            if (m_archiveSize >= capacity + m_n) {
                pruneArchive(capacity);
            }
        }
    }

    void moveArchiveEntry(std::size_t from, std::size_t to) {
        if (from != to) {
            std::memcpy(archiveGenome(to), archiveGenome(from), m_c);
            std::copy_n(m_archiveValues.data() + from * 3, 3, m_archiveValues.data() + to * 3);
            m_archiveFull[to] = m_archiveFull[from];
        }
    }

    void pruneArchive(std::size_t capacity) {
        std::vector<double> distance(m_archiveSize, 0.0);
        std::vector<std::uint32_t> order(m_archiveSize);
        for (std::size_t k = 0; k < m_m; ++k) {
            std::iota(order.begin(), order.end(), 0u);
            std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
                return m_archiveValues[a * 3 + k] < m_archiveValues[b * 3 + k];
            });
            const double lo = m_archiveValues[order.front() * 3 + k];
            const double hi = m_archiveValues[order.back() * 3 + k];
            distance[order.front()] = kInfinity;
            distance[order.back()] = kInfinity;
            for (std::size_t j = 1; j + 1 < order.size() && hi > lo; ++j) {
                distance[order[j]] += (m_archiveValues[order[j + 1] * 3 + k] -
                                       m_archiveValues[order[j - 1] * 3 + k]) /
                                      (hi - lo);
            }
        }
        std::iota(order.begin(), order.end(), 0u);
        std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
            return distance[a] > distance[b];
        });
        order.resize(capacity);
        std::sort(order.begin(), order.end());
        for (std::size_t j = 0; j < order.size(); ++j) {
            moveArchiveEntry(order[j], j); // order[j] >= j: entries only move down
        }
        m_archiveSize = capacity;
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

    /// Hypervolume of the archive; recomputed only when the archive changed.
    double frontHypervolume(const std::vector<double>& reference) {
        if (!m_archiveChanged) {
            return m_lastHypervolume;
        }
        m_archiveChanged = false;
        m_points.clear();
        for (std::size_t a = 0; a < m_archiveSize; ++a) {
            for (std::size_t k = 0; k < m_m; ++k) {
                m_points.push_back(m_archiveValues[a * 3 + k] / reference[k]);
            }
        }
        const std::vector<double> unit(m_m, 1.0);
        m_lastHypervolume = hypervolume(m_points, unit);
        return m_lastHypervolume;
    }

    Simulator& m_sim;
    const SearchOptions& m_options;
    const GeneSpace& m_space;
    Random m_random;
    std::size_t m_n;
    std::size_t m_c;
    std::size_t m_m;
    double m_mutationRate = 0.0;
    double m_logKeep = -1.0;

    std::vector<std::int32_t> m_priority;
    std::vector<std::uint8_t> m_expanded;
    // Children of the generation waiting for evaluatePending, their node genomes when grouped.
    std::vector<std::size_t> m_pending;
    std::vector<std::uint8_t> m_pendingGenomes;
    std::vector<const std::uint8_t*> m_pendingPlans;
    std::vector<Objectives> m_pendingObjectives;
    std::size_t m_seededInPopulation = 0;
    std::vector<std::uint8_t> m_support;
    std::vector<std::int32_t> m_supportOffsets;

    std::vector<std::uint8_t> m_genomes, m_scratch;
    std::vector<double> m_values, m_scratchValues;
    std::vector<Objectives> m_full, m_scratchFull;
    std::vector<std::int32_t> m_rank;
    std::vector<double> m_crowding;
    std::vector<std::uint64_t> m_hash;
    std::vector<std::uint32_t> m_feasible, m_infeasible, m_remaining;
    std::vector<double> m_secondValues;
    std::vector<std::uint32_t> m_secondRank; // per individual
    std::vector<double> m_fenwick;
    std::vector<std::vector<std::uint32_t>> m_fronts;
    std::vector<std::uint8_t> m_duplicate;
    std::vector<std::uint32_t> m_order, m_front, m_next, m_selected, m_sortBuffer;
    std::vector<double> m_points;
    std::vector<std::uint8_t> m_archiveGenomes;
    std::vector<double> m_archiveValues;
    std::vector<Objectives> m_archiveFull;
    std::size_t m_archiveSize = 0;
    bool m_archiveChanged = true;
    double m_lastHypervolume = 0.0;
    std::int64_t m_simulated = 0; ///< plans simulated
    std::int64_t m_reused = 0;    ///< children identical to a parent, not simulated again
    std::vector<std::int32_t> m_tmpRank;
    std::vector<double> m_tmpCrowding;
    std::vector<std::uint64_t> m_tmpHash;
};

/// Progress of one stage of a staged search: fractions mapped into [offset, offset + scale].
class StageProgress : public Progress {
public:
    StageProgress(Progress* inner, double offset, double scale, std::string stage)
        : m_inner(inner), m_offset(offset), m_scale(scale), m_stage(std::move(stage)) {}
    void report(double fraction, const std::string& message) override {
        m_inner->report(m_offset + m_scale * fraction, m_stage + " " + message);
    }
    bool cancelled() const override { return m_inner->cancelled(); }
    void sample(int step, double value) override { m_inner->sample(step, value); }

private:
    Progress* m_inner;
    double m_offset;
    double m_scale;
    std::string m_stage;
};

} // namespace

SearchResult searchPareto(Simulator& sim, const SearchOptions& options, Progress* progress) {
    if (options.population < 4) {
        throw InputError("--population: expected at least 4, got " +
                         std::to_string(options.population));
    }
    if (options.generations < 0) {
        throw InputError("--generations: expected 0 or more, got " +
                         std::to_string(options.generations));
    }
    if (options.objectives.size() < 2 || options.objectives.size() > 3) {
        throw InputError("--objectives: expected two or three objectives");
    }
    if (options.coarseToFine &&
        !(options.coarseGenerationShare > 0.0 && options.coarseGenerationShare < 1.0)) {
        throw InputError("coarse-to-fine: the coarse share of the generations must lie in (0, 1)");
    }
    if (options.coarseToFine && options.coarseMaxGroupSize < 1) {
        throw InputError("coarse-to-fine: the longest chain must be at least 1 node");
    }
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
    const GeneSpace flat = flatSpace(sim);
    if (!options.coarseToFine || options.generations < 2) {
        Nsga2 nsga(sim, options, flat);
        return nsga.run(baselines, progress);
    }

    // Coarse-to-fine: the first share of the generations searches over chains of nodes, the
    // rest over nodes, starting from the coarse archive and final population. Same population
    // and generation count, hence about the same number of simulations, as the flat search.
    const GeneSpace coarse = chainSpace(sim, options.coarseMaxGroupSize);
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
