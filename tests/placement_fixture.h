// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Two-device placements of a graph for the partition suites.
#include "graph/graph.h"

#include <string>
#include <vector>

/// Device per node: blocks of `block` nodes in topological order alternate between `first` and
/// `second` (block 0: the first half on `first`, the rest on `second`). Constant nodes stay
/// unplaced (empty id).
inline std::vector<std::string> alternatingPlacement(const paretune::Graph& g, int block,
                                                     const std::string& first,
                                                     const std::string& second) {
    std::vector<std::string> device(g.nodes.size());
    const int count = static_cast<int>(g.topologicalOrder.size());
    for (int k = 0; k < count; ++k) {
        const paretune::NodeId v = g.topologicalOrder[static_cast<std::size_t>(k)];
        if (g.nodes[static_cast<std::size_t>(v)].kind == paretune::NodeKind::Constant) {
            continue;
        }
        const bool later = block == 0 ? k >= count / 2 : (k / block) % 2 == 1;
        device[static_cast<std::size_t>(v)] = later ? second : first;
    }
    return device;
}
