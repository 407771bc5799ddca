// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to the placement search (search/*.cpp): what the genes of a genome are, one per
// compute node or one per group of them, and how a genome of groups maps to one of nodes.

#include "graph/graph.h"

#include <cstdint>
#include <span>
#include <vector>

namespace paretune {

class Simulator;

namespace detail {

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

/// One gene per compute node, supporting the devices the node supports (the host when none).
GeneSpace flatSpace(const Simulator& sim);

/// Groups for the coarse stage: maximal chains of compute nodes (a node with one compute
/// successor whose only compute predecessor it is joins that successor's group), cut at
/// `maxLength` nodes. A group may take every device some member supports; a member that does
/// not support the group's device runs on the host (or, failing that, on its fastest
/// supporting device), as in the all-on-one-device baselines.
GeneSpace chainSpace(const Simulator& sim, std::int32_t maxLength);

/// The group genome closest to a node genome: each group takes the device most of its members
/// are on (ties: the lower index).
std::vector<std::uint8_t> projectToGroups(const GeneSpace& space, std::int32_t deviceCount,
                                          std::span<const std::uint8_t> genome);

} // namespace detail
} // namespace paretune
