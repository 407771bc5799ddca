// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A memory plan per device (issue 18): the tensor lifetimes of a simulated plan, in-place
// candidates, per-node workspace, and offsets into one arena per device.

#include "graph/graph.h"
#include "plan/plan.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace paretune {

class CostTable;
class Simulator;
struct SimulationResult;

/// Offsets in an arena are multiples of this (a cache line; what oneDNN and most allocators
/// align large tensors to).
constexpr std::int64_t kArenaAlignment = 64;

/// One block to place in an arena: `bytes` live over the steps [first, last] of one device (a
/// step is one node run there, in schedule order). Blocks with bytes <= 0 take no space.
struct ArenaBlock {
    std::int64_t bytes = 0;
    std::int32_t first = 0;
    std::int32_t last = 0;
};

struct ArenaLayout {
    std::vector<std::int64_t> offsets; ///< per block, multiples of the alignment
    std::int64_t arenaBytes = 0;       ///< the end of the highest block
};

/// Greedy by size (Pisarchyk & Lee 2020, "Efficient memory management for deep neural net
/// inference"): the blocks sorted by size, largest first (ties: earlier first step, then index),
/// each placed at the lowest aligned offset where it overlaps no block already placed whose
/// lifetime intersects its own. Chosen because the large tensors, which decide the peak, get
/// the first pick of the space, and the small ones fill the gaps they leave; the paper measures
/// it within a few per cent of the optimum (the max-live lower bound) on CNNs and transformers,
/// better than best-fit by lifetime order, at O(n²) for n blocks (ms for 2,000 tensors), and
/// it is deterministic. Pure: no allocation beyond the result and scratch.
ArenaLayout planArena(std::span<const ArenaBlock> blocks, std::int64_t alignment = kArenaAlignment);

/// The first pair (i < j) of blocks whose lifetimes intersect and whose byte ranges
/// [offset, offset + bytes) overlap; none when the layout is sound. `sharing`, when given, lists
/// per block the index of a block it may share memory with (an in-place write: the same offset
/// and size), or -1.
std::optional<std::pair<std::size_t, std::size_t>>
arenaConflict(std::span<const ArenaBlock> blocks, std::span<const std::int64_t> offsets,
              std::span<const std::int32_t> sharing = {});

/// The most bytes of `blocks` live at one step (the lower bound of any arena for them).
std::int64_t mostLiveBytes(std::span<const ArenaBlock> blocks);

/// What a block of a device's arena holds.
enum class ArenaTensorKind : std::uint8_t {
    Activation, ///< produced there by `node`
    Copy,       ///< copied there (arriving over a link)
    GraphInput, ///< a graph input, on the host from the start
    Workspace,  ///< scratch of `node` while it runs
};
const char* arenaTensorKindName(ArenaTensorKind kind);

struct PlannedTensor {
    TensorId tensor =
        kNone;           ///< the buffer's tensor (pass-through outputs alias it); kNone: workspace
    NodeId node = kNone; ///< producer (Activation) or the node (Workspace); else kNone
    ArenaTensorKind kind = ArenaTensorKind::Activation;
    std::int64_t offset = 0;
    std::int64_t bytes = 0;
    std::int32_t first = 0; ///< first step it occupies the arena, inclusive
    std::int32_t last = 0;  ///< last step, inclusive
    /// Index (in DeviceMemoryPlan::tensors) of the input whose block this output overwrites in
    /// place (same offset and size; that input's last use is this tensor's producer), or -1.
    std::int32_t inPlaceOf = -1;
};

/// The memory plan of one device. Bytes; steps are the device's node runs in schedule order.
struct DeviceMemoryPlan {
    std::int32_t device = 0;     ///< index into the cost table's devices
    std::vector<NodeId> steps;   ///< the nodes run there, in order
    std::int64_t arenaBytes = 0; ///< the planned arena (activations, copies, inputs, workspace)
    /// Every buffer in a block of its own, no reuse (the naive allocator), plus the largest
    /// workspace.
    std::int64_t naiveBytes = 0;
    /// The most bytes live at once as the simulator counts them (activations and workspace;
    /// on the host at least the graph inputs): the search's memory figure less the weights. The
    /// arena is at least this, less what in-place writes save.
    std::int64_t livePeakBytes = 0;
    std::int64_t weightsBytes = 0;   ///< initializers and constants read there, once each
    std::int64_t workspaceBytes = 0; ///< the largest workspace of a node there (in the arena)
    std::int32_t inPlaceCount = 0;   ///< outputs written into their input's block
    std::vector<PlannedTensor> tensors;

    /// The planned memory of the device: arena + weights (the workspace is a block of the
    /// arena, not counted twice).
    std::int64_t plannedBytes() const { return arenaBytes + weightsBytes; }
};

struct MemoryPlan {
    std::vector<DeviceMemoryPlan> devices; ///< one per cost-table device
    /// The memory objective with the plan: the largest device's plannedBytes().
    std::int64_t plannedPeakBytes() const;
};

/// The memory plan of `plan`, simulated as `result` (Simulator::simulate of the same plan over
/// the same graph and table, with the timeline: transfers are read from its link segments).
///
/// Lifetimes, per device, in steps (node runs there in the plan's order, which is the order
/// the simulator starts them on each device, their starts ascending), as the simulator counts
/// memory: a node's outputs from its step to their last consumer there; a copy from the first
/// step starting at or after its transfer began to its last consumer there; a buffer sent on
/// stays to the last step starting before its last transfer out ends; graph outputs to the
/// last step of their device; graph inputs on the host from step 0. For the arena (not for
/// livePeakBytes), a copy also occupies its block during the step that was running when its
/// transfer began (it is written then), and graph inputs hold the host's step 0 at least.
/// Pass-through outputs alias their input's buffer, as in the simulator.
///
/// In place: an elementwise node (Relu, Add, Clip, Sigmoid, ...) whose output has the size
/// and element type of one of its inputs whose last use on the device is that node writes into
/// that input's block (PlannedTensor::inPlaceOf, counted in inPlaceCount). Workspace: the cost
/// cell's workspaceBytes, a block live during its node's step.
///
/// `notMaterialised` (per graph tensor, empty = none): tensors that take no arena space (the
/// intermediates of a fused group); their buffers are left out of every figure.
/// Throws InputError when `result` does not match the plan (sizes, missing timeline).
MemoryPlan buildMemoryPlan(const Graph& graph, const CostTable& costs, const Plan& plan,
                           const SimulationResult& result,
                           std::span<const std::uint8_t> notMaterialised = {});

/// buildMemoryPlan of a genome as `sim` evaluates it (its graph, cost table and current
/// priority): simulated once more, with the timeline, on a simulator of its own (`sim` is not
/// touched, so a const one of a finished search will do). O(V + E) plus the arenas' O(n²).
MemoryPlan memoryPlanOf(const Simulator& sim, std::span<const std::uint8_t> genome,
                        std::span<const std::uint8_t> notMaterialised = {});

} // namespace paretune
