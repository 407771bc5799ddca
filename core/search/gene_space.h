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
    /// Columns (Simulator::columnCount: device and variant) a gene may take, CSR with
    /// supportOffsets.
    std::vector<std::uint8_t> support;
    std::vector<std::int32_t> supportOffsets;
    Csr successors, predecessors;       ///< between genes
    std::vector<std::int32_t> priority; ///< genes in scheduling order (segment crossover)
    /// Grouped only: per compute node, its gene, and the column per (gene column → node
    /// column): node ci of a gene in column c goes to nodeDevice[ci · K + c] (K columns).
    std::vector<std::int32_t> geneOf;
    std::vector<std::uint8_t> nodeDevice;
    bool grouped() const { return !geneOf.empty(); }
};

/// One gene per compute node, supporting the columns the node supports (the host in fp32 when
/// none).
GeneSpace flatSpace(const Simulator& sim);

/// Groups for the coarse stage: maximal chains of compute nodes (a node with one compute
/// successor whose only compute predecessor it is joins that successor's group), cut at
/// `maxLength` nodes. A group may take every column some member supports; a member that does
/// not support the group's column runs in fp32 on its device where it can, else on the host
/// (or, failing that, on its fastest supporting device) in fp32, as in the all-on-one-device
/// baselines.
GeneSpace chainSpace(const Simulator& sim, std::int32_t maxLength);

/// The group genome closest to a node genome: each group takes the column most of its members
/// are in (ties: the lower index).
std::vector<std::uint8_t> projectToGroups(const GeneSpace& space, std::int32_t columnCount,
                                          std::span<const std::uint8_t> genome);

} // namespace detail
} // namespace paretune
