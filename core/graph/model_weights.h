// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The values of a model's large weights. The importer keeps the values of small tensors only
// (graph.h, Tensor::value: shapes, indices, float tensors up to 65,536 elements), so that a
// model opens fast and a Graph stays small; executing a model to measure its accuracy needs its
// real weights, which these are, read from the file again when they are wanted.

#include "dtype.h"
#include "graph.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace paretune {

/// One initializer's values: its element type, dims and the elements as little-endian bytes
/// (dtypeSize(dtype) each, C order).
struct WeightBytes {
    DType dtype = DType::Undefined;
    std::vector<std::int64_t> dims;
    std::string bytes;
};

/// By initializer name: every initializer of a model that its Graph holds no value for.
struct ModelWeights {
    std::map<std::string, WeightBytes> tensors;
    /// The one whose name, type and shape are `tensor`'s; null when there is none.
    const WeightBytes* find(const Tensor& tensor) const;
};

/// The weights of the model `graph` was imported from (graph.sourcePath, external data
/// included); null for a graph imported from memory. Throws InputError, naming the file, when
/// it cannot be read or imported.
std::shared_ptr<const ModelWeights> readModelWeights(const Graph& graph);

/// readModelWeights of the last graph source asked for, kept while its file does not change (a
/// sensitivity table runs one model again for each of its nodes); null where the source is no
/// file here (a model imported from memory, a profiling worker's model from the queue).
std::shared_ptr<const ModelWeights> cachedModelWeights(const Graph& graph);

} // namespace paretune
