// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graph.h"

namespace paretune {

/// FLOPs, bytes and parameter bytes of one node, from its static shapes.
///
/// FLOPs count a multiply-add as 2 (Conv, ConvTranspose, Gemm, MatMul); element-wise and
/// normalisation ops count a small fixed number of operations per output element (see the table
/// in op_metrics.cpp); pure data movement (Reshape, Transpose, Concat, Gather, Slice, Pad …)
/// counts 0 FLOPs but its bytes. Nodes that cost nothing at run time (Constant, pass-through,
/// folded shape computations) get all zeros. Tensors without a static shape contribute nothing.
OpMetrics computeOpMetrics(const Graph& graph, NodeId node);

} // namespace paretune
