// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graph/graph.h"

#include <cstdint>
#include <vector>

namespace paretune {

/// A placement plan, as a value: a device (index into the cost table's devices) per graph node
/// and a priority order. `device` has one entry per graph node; Constant nodes hold -1 (they are
/// not placed), pass-through nodes sit with their input. `order` lists the compute nodes (other
/// nodes are ignored when present) in a topological order; the simulator starts them in it.
struct Plan {
    std::vector<std::int32_t> device;
    std::vector<NodeId> order;
    /// Per graph node, its variant (index into the cost table's variants; 0: fp32). Empty: every
    /// node in fp32.
    std::vector<std::int32_t> variant;
};

/// Figures of one simulated plan. Memory in bytes, time in µs, energy in mJ.
struct Objectives {
    double latencyUs = 0.0;
    double energyMj = 0.0;
    double averagePowerW = 0.0;   ///< energy / latency
    double peakMemoryBytes = 0.0; ///< maximum over devices
    /// 0 for a feasible plan; else the number of nodes on devices that do not support them plus,
    /// per device over its memory, the relative excess (peak / memory - 1).
    double violation = 0.0;
    /// Estimated deviation of the outputs from the fp32 model, % (relative L2 error): the
    /// deviations of the variant cells the plan takes (CostCell::deviationPct) added as
    /// variances, √(Σ d²). 0 for an all-fp32 plan.
    double deviationPct = 0.0;

    bool feasible() const { return violation == 0.0; }
};

/// One bar of the timeline: a node running on a device, or a tensor crossing a link queue.
struct TimelineSegment {
    enum class Lane : std::uint8_t { Device, Link };

    Lane lane = Lane::Device;
    std::int32_t index = 0; ///< device index or transfer-queue index of the cost table
    double beginUs = 0.0;
    double endUs = 0.0;
    NodeId node = kNone;     ///< Device lanes
    TensorId tensor = kNone; ///< Link lanes
};

} // namespace paretune
