#pragma once

#include "cost/cost_table.h"
#include "graph/graph.h"
#include "plan/plan.h"

#include <cstdint>
#include <span>
#include <vector>

namespace paretune {

/// Detailed result of one simulation (Simulator::simulate).
struct SimulationResult {
    Objectives objectives;
    std::vector<double> peakBytes; ///< per device
    std::vector<double> busyUs;    ///< per device
    std::vector<double> startUs;   ///< per graph node (compute nodes; others 0)
    std::vector<double> finishUs;  ///< per graph node
    std::int32_t unsupportedCount = 0;
    std::vector<TimelineSegment> timeline; ///< filled when asked for
};

/// Event simulator of a placement plan over a cost table (DESIGN.md "Simulator").
///
/// Model:
/// * list scheduling in the priority order: a compute node starts when its device is free and
///   all its inputs are present on that device; each device runs one node at a time;
/// * an input produced elsewhere is copied when its first consumer on the device is scheduled:
///   hop by hop along the table's path (store-and-forward; a copy left on an intermediate
///   device is reused), each hop waiting for its serial queue (one per direction of a
///   full-duplex link); graph inputs start on the host at time 0;
/// * latency = makespan (finish of the last compute node);
/// * memory on a device is sampled at each node start there (and at time 0 on the host): the
///   weights (initializers and constants) of the nodes placed there, plus the node's workspace,
///   plus every activation alive there: from its producer's start, or from the start of its
///   copy's arrival, until the last consumer there finishes and every transfer out of it has
///   ended; graph outputs stay alive to the end. Pass-through nodes alias their input buffer;
///   Constant, pass-through and folded shape nodes cost nothing;
/// * energy (mJ) = Σ over the devices the plan uses, plus the host, of the node energies of the
///   cells (modelled: busy × active_w) + (makespan − busy) × idle_w; unused accelerators are
///   power-gated and links draw nothing;
/// * infeasible when a node sits on a device that does not support it or a device's peak
///   exceeds its memory (see Objectives::violation).
///
/// evaluate() is the search's inner loop: O(V + E) over flat arrays built once by the
/// constructor, no allocation. A Simulator holds scratch state: use one per thread.
/// The Graph and CostTable must outlive the Simulator.
class Simulator {
public:
    Simulator(const Graph& graph, const CostTable& costs);

    const Graph& graph() const { return m_graph; }
    const CostTable& costs() const { return m_costs; }
    std::int32_t deviceCount() const { return m_deviceCount; }

    /// Compute nodes, in the order that defines the genome (graph order).
    std::int32_t computeCount() const { return static_cast<std::int32_t>(m_computeNodes.size()); }
    NodeId computeNode(std::int32_t ci) const {
        return m_computeNodes[static_cast<std::size_t>(ci)];
    }
    /// Compact index of a compute node, or -1.
    std::int32_t computeIndex(NodeId node) const {
        return m_computeIndex[static_cast<std::size_t>(node)];
    }
    /// Successors / predecessors among compute nodes (through pass-through nodes), compact.
    std::span<const std::int32_t> computeSuccessors(std::int32_t ci) const {
        return m_computeSuccessors.row(ci);
    }
    std::span<const std::int32_t> computePredecessors(std::int32_t ci) const {
        return m_computePredecessors.row(ci);
    }
    bool supported(std::int32_t ci, std::int32_t d) const { return m_supported[cell(ci, d)] != 0; }
    double latencyUs(std::int32_t ci, std::int32_t d) const { return m_latency[cell(ci, d)]; }
    /// Bytes of the buffers compute node ci produces (for transfer estimates).
    double outputBytes(std::int32_t ci) const {
        return m_outputBytes[static_cast<std::size_t>(ci)];
    }

    /// Priority order used by evaluate(): compact indices, a topological order of the compute
    /// nodes. Defaults to the graph's topological order.
    void setPriority(std::span<const std::int32_t> order);
    std::span<const std::int32_t> priority() const { return m_priority; }

    /// Fast evaluation of a genome (device index per compute node, compact order) with the
    /// current priority. Allocation-free.
    Objectives evaluate(std::span<const std::uint8_t> genome);

    /// Full simulation of a plan, with per-device figures and optionally the timeline.
    /// Throws InputError when the plan does not fit the graph (sizes, device indices, an order
    /// that is not topological or misses a compute node).
    SimulationResult simulate(const Plan& plan, bool withTimeline = false);

    /// Genome of a plan / plan of a genome (pass-through nodes placed with their input, shape
    /// computations on the host, Constant nodes -1; order = the current priority).
    std::vector<std::uint8_t> genomeOf(const Plan& plan) const;
    Plan planOf(std::span<const std::uint8_t> genome) const;

private:
    template <bool WithTimeline, int FixedDevices>
    Objectives run(const std::uint8_t* genome, SimulationResult* detail);
    void buildSteps(); // m_steps and m_stepCells from m_priority
    std::size_t cell(std::int32_t ci, std::int32_t d) const {
        return static_cast<std::size_t>(ci) * static_cast<std::size_t>(m_deviceCount) +
               static_cast<std::size_t>(d);
    }

    const Graph& m_graph;
    const CostTable& m_costs;
    std::int32_t m_deviceCount = 0;
    std::int32_t m_host = 0;

    // Built once.
    std::vector<NodeId> m_computeNodes;
    std::vector<std::int32_t> m_computeIndex; // per graph node
    std::vector<double> m_latency;            // ci · D + d
    std::vector<double> m_energyUj;
    std::vector<double> m_workspace;
    std::vector<std::uint8_t> m_supported;
    std::vector<double> m_outputBytes;
    std::vector<double> m_bufferBytes;          // per buffer
    std::vector<std::int32_t> m_bufferProducer; // compact compute index, -1: graph input (host)
    std::vector<std::uint8_t> m_bufferIsOutput;
    std::vector<TensorId> m_bufferTensor;
    std::vector<std::int32_t> m_tensorBuffer; // per tensor: buffer, or -1
    std::vector<std::int32_t> m_tensorStatic; // per tensor: static index, or -1
    std::vector<double> m_staticBytes;
    std::vector<double> m_exclusiveWeight; // per compute node: statics only it reads
    Csr m_inputs;                          // per compute node: buffers read
    struct InputRef {
        std::int32_t buffer;
        std::int32_t producer; // compact compute index; C (the sentinel): graph input
    };
    std::vector<InputRef> m_inputRefs; // parallel to m_inputs.values
    struct BufferInfo {
        std::int32_t producer; // compact compute index; C (the sentinel): graph input
        std::int32_t isOutput;
        std::int32_t firstHi; // -1 for a graph input (alive from step 0 only if read), else 0
        double bytes;
    };
    std::vector<BufferInfo> m_buffers;
    double m_graphInputBytes = 0.0;
    bool m_hasWorkspace = false;
    Csr m_statics; // per compute node: statics read
    Csr m_computeSuccessors;
    Csr m_computePredecessors;
    std::vector<std::int32_t> m_priority;
    /// The priority order with what evaluate() reads per node, laid out in that order.
    struct Step {
        std::int32_t ci;
        std::int32_t inBegin, inEnd;         // m_inputRefs range
        std::int32_t staticBegin, staticEnd; // m_statics.values range
        double exclusiveWeight;
    };
    struct StepCell { // step i · D + d
        double latencyUs;
        double energyUj;
        double workspaceBytes;
        std::int32_t unsupported;
    };
    std::vector<Step> m_steps;
    std::vector<StepCell> m_stepCells;
    std::vector<TransferHop> m_hops;         // all paths, flat
    std::vector<std::int32_t> m_pathOffsets; // (src · D + dst) → m_hops range
    std::int32_t m_hopCount = 0;
    std::vector<double> m_transferUs; // b · hops + h: bytes of buffer b / bandwidth of hop h
    std::vector<std::int32_t> m_graphInputBuffers;
    std::vector<double> m_idleW, m_memory;

    // Scratch, reused by every evaluation.
    std::vector<double> m_start, m_finish;        // m_finish[C] = 0: graph-input sentinel
    std::vector<std::int32_t> m_step, m_deviceOf; // [C]: sentinel (step 0, host)
    std::vector<double> m_deviceFree, m_busy;
    std::vector<std::int32_t> m_stepCount;
    std::vector<double> m_stepStart, m_stepWorkspace; // d · C + k
    std::vector<double> m_queueFree;
    /// What the simulation knows about buffer b on device d (entry b · D + d).
    struct Presence {
        double arrival = -1.0;      ///< end of the copy's arrival; -1: no copy
        double copyBegin = 0.0;     ///< start of the copy's arrival
        double outEnd = -1.0;       ///< end of the last transfer out of this copy; -1: none
        std::int32_t lastStep = -1; ///< step of the last consumer here; -1: none
    };
    std::vector<Presence> m_presence; // clean (default) between evaluations
    std::vector<std::uint32_t> m_staticMask;
    struct Copy {
        std::int32_t buffer;
        std::int32_t device;
        std::int32_t stepHint; ///< steps the device had when the copy began
    };
    std::vector<Copy> m_copies; ///< capacity buffers × devices

    std::vector<double> m_diff;
    std::vector<double> m_peak;
};

} // namespace paretune
