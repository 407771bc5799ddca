// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a node's weights weigh in a lower precision (issue 17: peak memory counts the narrower
// tensors): the sizes lowerGraph gives the weights it converts, for the simulator's and the
// memory plan's weight figures.
#include "graph/precision.h"

#include <cstddef>

namespace paretune {

/// The bytes weight input `input` of `node` holds once the node runs in `precision`, given its
/// `bytes` in the model. bf16 stores float32 weights at 2 bytes an element. int8 stores the
/// weight of a Conv, MatMul or Gemm (input 1) at 1 byte an element, with a float32 scale and an
/// int8 zero point per output channel (per column of B for a matrix), a Conv's bias (input 2)
/// in int32 and a Gemm's C in float32, as large as before. Inputs a precision leaves as they are
/// (not float32, not a weight, an activation) keep `bytes`; fp32 keeps every input's.
double loweredWeightBytes(const Graph& graph, NodeId node, std::size_t input, Precision precision,
                          double bytes);

} // namespace paretune
