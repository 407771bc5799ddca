// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to the placement search (pareto_search.cpp): how NSGA-II makes genomes, random ones
// for the initial population and children by crossover, mutation and small steps.

#include "search/gene_space.h"
#include "search/pareto_search.h"
#include "search/random.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace paretune::detail {

/// The variation operators over the genes of a GeneSpace. Every gene they write takes a column
/// (device and variant, Simulator::columnCount) the gene supports; where a column a block or a
/// chain moves to is not supported by a gene, the gene takes that column's device in fp32 when
/// it supports it (a chain moved to bf16 keeps its non-lowerable nodes there in fp32). They draw
/// from the search's generator, in a fixed order, so that a seed gives the same search. The space,
/// the options and the generator must outlive it.
class Variation {
public:
    Variation(const GeneSpace& space, std::int32_t deviceCount, std::int32_t columnCount,
              const SearchOptions& options, Random& random);

    /// Each gene on a random supporting device.
    void randomGenome(std::uint8_t* g);
    /// Blocks of neighbouring genes (in priority order) on one random device where they support
    /// it (a random supporting device where not): few transfers.
    void blockGenome(std::uint8_t* g);

    /// Swaps genes between two children: a segment of neighbouring genes in priority order
    /// (segmentCrossoverShare of the time), else each gene with probability 1/2.
    void crossover(std::uint8_t* a, std::uint8_t* b);
    /// Per-gene mutation at rate 1 / genes to another supporting device, then with
    /// chainMutationRate a chain mutation.
    void mutate(std::uint8_t* g);
    /// A small step: one gene moved to another supporting device, or a chain mutation.
    void smallStep(std::uint8_t* g);

private:
    /// Gives gene k another device of its support, drawn at random (unchanged when it has one).
    void redrawGene(std::uint8_t* g, std::size_t k);
    /// A connected run of genes (following successors or predecessors) moves to one device.
    void chainMutation(std::uint8_t* g);
    std::span<const std::uint8_t> support(std::size_t ci) const {
        return {m_support.data() + m_supportOffsets[ci],
                m_support.data() + m_supportOffsets[ci + 1]};
    }
    std::uint8_t randomSupported(std::size_t ci);
    bool supports(std::size_t ci, std::uint8_t column) const {
        const auto s = support(ci);
        return std::find(s.begin(), s.end(), column) != s.end();
    }
    /// `column` where gene ci supports it, else its device in fp32 where supported, else -1.
    std::int32_t nearestSupported(std::size_t ci, std::uint8_t column) const;

    const GeneSpace& m_space;
    const SearchOptions& m_options;
    Random& m_random;
    std::size_t m_c;
    std::int32_t m_deviceCount;
    std::int32_t m_columnCount;
    double m_mutationRate = 0.0;
    double m_logKeep = -1.0;
    std::vector<std::uint8_t> m_support;
    std::vector<std::int32_t> m_supportOffsets;
    std::vector<std::int32_t> m_priority;
};

} // namespace paretune::detail
