// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// For buildBundle (bundle_export.cpp): a plan cut into its partitions, lowered first where it
// runs nodes in lower precisions, and the partitions written into the bundle.
#include "bundle_files.h"
#include "bundle_parts.h"
#include "graph/precision.h"

#include <memory>
#include <string>
#include <vector>

namespace paretune::bundle {

/// A plan's partitions, and for a plan with nodes in lower precisions the lowered graph they
/// were cut from.
struct PlanPartitions {
    std::shared_ptr<const LoweredGraph> lowered; ///< null: every node in fp32
    std::vector<Partition> parts;

    /// The model node a partition node runs or converts for.
    NodeId modelNode(NodeId v) const {
        return lowered ? lowered->origin[static_cast<std::size_t>(v)] : v;
    }
};

/// Partitions a plan; a plan with lower precisions is lowered first, its int8 nodes scaled by
/// the activation ranges the library at `samplesPath` measured most recently. `what` names the
/// plan in messages. Throws InputError for int8 nodes without a library or without ranges.
PlanPartitions partitionPlan(const ModelPartitioner& partitioner, const Plan& plan,
                             const CostTable& table, const std::string& samplesPath,
                             const std::string& what);

/// Checks each partition with the ONNX checker and adds it to `files` as
/// `folder`NN_DEVICE.onnx; returns their manifest entries.
Json addPartitions(const PlanPartitions& plan, const Graph& g, const std::string& folder,
                   const std::string& modelPath, BundleFileMap& files);

} // namespace paretune::bundle
