// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A fusion group (DESIGN.md "The plan, second generation": with whom), as a value: what the cost
// table and the plans hold. Finding groups and fusing them: fusion.h.

#include "graph.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace paretune {

/// The operator domain of fused nodes ("ai.paretune"): FusedConv, FusedMatMul, FusedGemm.
inline constexpr std::string_view kFusionDomain = "ai.paretune";

enum class FusionKind : std::uint8_t {
    /// Conv [+ BatchNormalization (folded into the weights)] [+ Add of a residual] [+ Relu or
    /// Clip]: one FusedConv node, the post-operations done in place on the convolution's output.
    Conv,
    /// MatMul + Add of a constant bias along the last axis [+ Relu or the Gelu that exporters
    /// spell Div / Erf / Add / Mul / Mul]: one FusedMatMul node (one GEMM with the bias, the
    /// activation in place); or Gemm (its bias included) + Relu or that Gelu: one FusedGemm.
    MatMul,
    /// ReduceMean / Sub / [Cast to the same type] / Pow / ReduceMean / Add / Sqrt / Div / Mul /
    /// Add over the last axis: one LayerNormalization node.
    LayerNorm,
};

std::string_view fusionKindName(FusionKind kind);

/// A group of compute nodes that run as one node. Every tensor a member produces is read only
/// by members, except the last member's output (the group's output); the members are in a
/// topological order.
struct FusionGroup {
    FusionKind kind = FusionKind::Conv;
    std::vector<NodeId> members;
    std::string pattern; ///< member op types joined by '+': "Conv+Add+Relu"

    NodeId tail() const { return members.back(); }
};

} // namespace paretune
