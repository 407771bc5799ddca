// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cost/cost_table.h"
#include "graph/graph.h"
#include "plan/plan.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>
#include <span>
#include <utility>
#include <vector>

namespace paretune {

/// Allocator of cache-line-aligned storage for Simulator::evaluateBatch's tables: they are read
/// and written 64 bytes (eight lanes) at a time, and an access that straddles two cache lines
/// costs two (and a store to it cannot be forwarded to a later load).
template <typename T> struct CacheLineAllocator {
    using value_type = T;
    CacheLineAllocator() = default;
    template <typename U> CacheLineAllocator(const CacheLineAllocator<U>&) {}
    T* allocate(std::size_t n) {
        return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{64}));
    }
    void deallocate(T* p, std::size_t) { ::operator delete (p, std::align_val_t{64}); }
    friend bool operator==(const CacheLineAllocator&, const CacheLineAllocator&) { return true; }
};
template <typename T> using LaneVector = std::vector<T, CacheLineAllocator<T>>;

/// Detailed result of one simulation (Simulator::simulate).
struct SimulationResult {
    Objectives objectives;
    std::vector<double> peakBytes; ///< per device
    std::vector<double> busyUs;    ///< per device
    std::vector<double> startUs;   ///< per graph node (compute nodes; others 0)
    std::vector<double> finishUs;  ///< per graph node
    std::int32_t unsupportedCount = 0;
    std::vector<TimelineSegment> timeline; ///< filled when asked for
    /// The fusion groups the plan takes (indices into the cost table's fusionOptions); their
    /// members' start and finish are the group's, and the timeline has one segment per group.
    std::vector<std::int32_t> fusedGroups;
    /// Per graph node, its variant (index into the cost table's variants; 0 for fp32 and for
    /// nodes that are not compute nodes).
    std::vector<std::int32_t> variant;
    /// Activations the plan keeps in a narrower precision (a chain's, see Simulator): the
    /// original tensor and its bytes in the plan (bf16 and fp16 two per element).
    std::vector<std::pair<TensorId, std::int64_t>> narrowed;
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
///   exceeds its memory (see Objectives::violation);
/// * shared resources (CostTable::exclusive, CostTable::contention): a node also waits until
///   every device that shares an exclusive resource with its own is free; as the list schedule
///   does not backfill, it starts after every node placed before it on those devices has
///   finished, and two of them never run at the same time. Where the last of those devices to
///   finish is another than d (d takes the cores over), the node lasts d's turn cost
///   (CostTable::turnCost) longer: busy time, its cell's energy unchanged, added after the
///   conversions are taken off and before any contention stretch. A node that takes no turn
///   but had an input copied to d (the first reader there of a buffer from another device)
///   lasts d's receive factor (CostTable::receiveFactor) times as long, at the same point: busy
///   time, its cell's energy unchanged. A node of L µs on d that starts
///   at s while another device e of d's memory domain has work scheduled up to t > s (f =
///   contention(d, e) > 1, overlap w = t − s, taken as busy throughout) lasts L · f when that fits
///   in w, else w + (L − w / f): at 1 / f during the overlap, then at full speed; with several such
///   devices, the longest. The node placed second bears the slowdown: one already placed is not
///   changed afterwards. Stretched time is busy time (not idle); the node's energy stays its cell's
///   (the same work, done more slowly);
/// * fusion groups (CostTable::fusionOptions): a plan takes a group when it puts all the
///   group's members on one device d where the group is supported and its latency is below the
///   sum of its members' there (then it is no worse in any objective: less time, energy and
///   memory). A taken group runs as one node at its last member's place in the priority order:
///   the other members take no time, energy or workspace, the last member the group's cell, and
///   the tensors between members take no memory (they never leave the fused kernel).
///   Groups are taken in fp32 only: every member in the same column c < D (variant 0); a
///   lowered member runs on its own (its conversions would sit between the members);
/// * variants (CostTable::variants): a genome byte is a column c = v · D + d (D devices,
///   v the variant), so a table without variants has columns 0..D-1 and schedules as before.
///   The node runs on device d = c mod D with its cell (node, d, v); queues, transfers,
///   exclusive devices, contention, memory and energy stay per device. Weights and activations
///   keep their fp32 sizes in memory (a lowered node reads its weights converted once and
///   gives its outputs back in fp32; the converted weights are not counted apart), except an
///   output that stays in its producer's bf16, fp16 or int8 (every reader in that variant, a
///   chain): it is held in two bytes an element (int8: one), and its transfers move that many
///   (their time computed as they start: bytes / the hop's bandwidth). An output some readers
///   take narrow and others in fp32 is held and moved in fp32 (the lowered graph moves the
///   narrow copy to the narrow readers' devices: an overestimate).
///   Conversions (CostTable::conversions): a lowered cell includes its node's Casts (int8: its
///   QuantizeLinear and DequantizeLinear a chain can spare); where a
///   plan puts the producer of a converted input in the node's variant, or every reader of a
///   converted output (none of them outside the compute nodes, the output not a graph output),
///   the Cast is not run (graph/precision.h, LoweredChains) and its cost in the node's column
///   is taken off the cell (latency and energy, one conversion after another in the table's
///   order, before any contention stretch).
///   Objectives::deviationPct is √(Σ d²) over compute nodes of their cells' deviationPct d (the
///   per-node sensitivity table's deviations added as variances: independent roundings);
///   setDeviationLimit makes a plan above the limit infeasible.
///
/// evaluate() is the search's inner loop: O(V + E) over flat arrays built once by the
/// constructor, no allocation; a table without shared resources costs nothing for them (the
/// schedule is compiled without them). A Simulator holds scratch state: use one per thread.
/// The Graph and CostTable must outlive the Simulator; the constructor reads the table's cells
/// and shared resources once (later changes to the table are not seen).
class Simulator {
public:
    Simulator(const Graph& graph, const CostTable& costs);

    const Graph& graph() const { return m_graph; }
    const CostTable& costs() const { return m_costs; }
    std::int32_t deviceCount() const { return m_deviceCount; }
    /// Genome alphabet: column c = v · deviceCount + d (CostTable::columnCount); equal to
    /// deviceCount for a table without variants.
    std::int32_t columnCount() const { return m_columnCount; }
    std::int32_t variantCount() const { return m_columnCount / m_deviceCount; }
    std::int32_t columnDevice(std::int32_t c) const { return c % m_deviceCount; }
    std::int32_t columnVariant(std::int32_t c) const { return c / m_deviceCount; }
    std::int32_t column(std::int32_t d, std::int32_t v) const { return v * m_deviceCount + d; }

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
    /// Compute node ci in fp32 on device d (column d).
    bool supported(std::int32_t ci, std::int32_t d) const { return m_supported[cell(ci, d)] != 0; }
    double latencyUs(std::int32_t ci, std::int32_t d) const { return m_latency[cell(ci, d)]; }
    /// Compute node ci in column c (device and variant).
    bool columnSupported(std::int32_t ci, std::int32_t c) const {
        return m_supported[cell(ci, c)] != 0;
    }
    double columnLatencyUs(std::int32_t ci, std::int32_t c) const { return m_latency[cell(ci, c)]; }
    double columnDeviationPct(std::int32_t ci, std::int32_t c) const {
        return m_deviation.empty() ? 0.0 : m_deviation[cell(ci, c)];
    }
    /// Bytes of the buffers compute node ci produces (for transfer estimates).
    double outputBytes(std::int32_t ci) const {
        return m_outputBytes[static_cast<std::size_t>(ci)];
    }

    /// Priority order used by evaluate(): compact indices, a topological order of the compute
    /// nodes. Defaults to the graph's topological order.
    void setPriority(std::span<const std::int32_t> order);
    std::span<const std::int32_t> priority() const { return m_priority; }

    /// A constraint on Objectives::deviationPct (%): a plan above it is infeasible, its
    /// violation growing by (deviation − limit) / limit (by the deviation itself for a limit
    /// of 0), like a device's memory excess. Infinite (the default): no limit. Throws
    /// InputError for a negative or NaN limit.
    void setDeviationLimit(double pct);
    double deviationLimit() const { return m_deviationLimit; }

    /// Fast evaluation of a genome (column per compute node, compact order) with the current
    /// priority. Allocation-free.
    Objectives evaluate(std::span<const std::uint8_t> genome);

    /// Evaluates several genomes at once: out[i] is bit for bit what evaluate(genomes[i]) gives.
    /// Where the CPU has AVX-512 and the cost table 2 to 4 devices, at most 16 columns (devices ×
    /// variants: three precisions on four devices) and at most 16 transfer hops, eight plans go
    /// through the schedule together, one per SIMD
    /// lane (the data-dependent branches of one plan become lane masks); otherwise they are
    /// evaluated one after another. Allocation-free after the first call. `out` has at least as
    /// many entries as `genomes`.
    void evaluateBatch(std::span<const std::uint8_t* const> genomes, std::span<Objectives> out);
    /// How evaluateBatch runs on this machine and cost table: "avx512x8" or "scalar".
    const char* batchPath() const;

    /// The time compute node ci's cell loses in a genome: its conversions that the plan does not
    /// run, its neighbours being in its variant (see the class comment). 0 without them.
    double savedConversionUs(std::span<const std::uint8_t> genome, std::int32_t ci) const;

    /// The cost table's fusion groups a genome takes (indices into fusionOptions, ascending).
    std::vector<std::int32_t> takenGroups(std::span<const std::uint8_t> genome) const;

    /// Full simulation of a plan, with per-device figures and optionally the timeline.
    /// Throws InputError when the plan does not fit the graph (sizes, device indices, an order
    /// that is not topological or misses a compute node).
    SimulationResult simulate(const Plan& plan, bool withTimeline = false);

    /// Genome of a plan / plan of a genome (pass-through nodes placed with their input, shape
    /// computations on the host, Constant nodes -1; order = the current priority). genomeOf
    /// reads Plan::variant (empty: fp32) and throws InputError for a variant index outside the
    /// table's; planOf fills Plan::variant (0 outside compute nodes) when the table has
    /// variants and leaves it empty otherwise.
    std::vector<std::uint8_t> genomeOf(const Plan& plan) const;
    Plan planOf(std::span<const std::uint8_t> genome) const;

private:
    /// The one scheduling core. Recorder (see simulator.cpp) is told every node run and every
    /// transfer; evaluate() passes one that records nothing, simulate() one that keeps start and
    /// finish times and the timeline. FixedDevices > 0: the device count, known at compile time.
    /// Shared: whether to honour exclusive devices and contention (without any in the table,
    /// both give the same schedule).
    template <class Recorder, int FixedDevices, bool Shared>
    Objectives run(const std::uint8_t* genome, Recorder& recorder);
    template <bool Shared> Objectives evaluateWith(const std::uint8_t* genome);
    /// Whether fusion group g is taken by a genome (see the class comment).
    bool takes(std::int32_t g, const std::uint8_t* genome) const;
    /// m_groupTaken and m_liveBytes for a genome; the bytes of every buffer that counts (0
    /// between the members of a taken group, narrower where a chain keeps it so).
    const std::int64_t* markTakenGroups(const std::uint8_t* genome);
    /// What one schedule ends with, per device, before the objectives are formed.
    struct ScheduleTotals {
        const std::int64_t* mostLive; ///< most bytes of activations and workspace at a step
        const double* weights;        ///< bytes of the weights placed there
        const double* busy;           ///< µs
        const std::int32_t* steps;    ///< nodes run there
        const std::uint8_t* genome;   ///< the plan (compact order), for its deviation
        double makespan;
        double energyUj; ///< of the node runs
        std::int32_t unsupported;
        std::int32_t unreachable;
    };
    /// The objectives of a finished schedule (and the peak per device when `peaks` is given):
    /// one function for both evaluation paths, not inlined into the vector code so that its
    /// floating-point operations stay the same instructions.
    [[gnu::noinline]] Objectives objectivesOf(const ScheduleTotals& totals, double* peaks) const;
    friend class SimulatorLanes; // evaluateBatch's vector core (simulator_batch.cpp)
    bool lanesApply() const;
    void prepareLanes(); // m_lanes' tables and scratch for the current steps
    void buildSteps();   // m_steps, m_stepInputs, m_stepOutputs and m_stepCells from m_priority
    void buildFusionTables(); // the fusion group tables from the cost table, then buildSteps()
    void buildChainTables();  // m_chainLinks and the rest from the table's conversions
    /// A simulated plan's taken groups as one node each: the members' times are the group's,
    /// their segments leave the timeline but the last member's.
    void showGroupsAsOne(SimulationResult& result) const;
    /// √(Σ d²) over compute nodes of their columns' deviation d (compact order, the same sum on
    /// both evaluation paths).
    double deviationOf(const std::uint8_t* genome) const;
    std::size_t cell(std::int32_t ci, std::int32_t c) const {
        return static_cast<std::size_t>(ci) * static_cast<std::size_t>(m_columnCount) +
               static_cast<std::size_t>(c);
    }

    const Graph& m_graph;
    const CostTable& m_costs;
    std::int32_t m_deviceCount = 0;
    std::int32_t m_columnCount = 0; // devices × variants
    std::int32_t m_host = 0;
    double m_deviationLimit = std::numeric_limits<double>::infinity();

    // Built once.
    std::vector<NodeId> m_computeNodes;
    std::vector<std::int32_t> m_computeIndex; // per graph node
    std::vector<double> m_latency;            // ci · K + c (K columns)
    std::vector<double> m_energyUj;
    std::vector<double> m_workspace;
    std::vector<std::uint8_t> m_supported;
    std::vector<double> m_deviation;            // ci · K + c; empty without variants
    std::vector<std::uint8_t> m_columnDeviceOf; // per column (256 entries): its device
    std::vector<double> m_outputBytes;
    std::vector<double> m_bufferBytes;          // per buffer
    std::vector<std::int64_t> m_bufferSize;     // the same, as an integer
    std::vector<std::int32_t> m_bufferProducer; // compact compute index, -1: graph input (host)
    std::vector<std::uint8_t> m_bufferIsOutput;
    std::vector<TensorId> m_bufferTensor;
    std::vector<std::int32_t> m_tensorBuffer; // per tensor: buffer, or -1
    std::vector<std::int32_t> m_tensorStatic; // per tensor: static index, or -1
    std::vector<double> m_staticBytes;
    // Per compute node and column (ci · K + c): the statics only it reads, in the column's
    // precision.
    std::vector<double> m_exclusiveWeight;
    Csr m_inputs;   // per compute node: buffers read
    Csr m_produced; // per compute node: buffers written
    double m_graphInputBytes = 0.0;
    bool m_hasWorkspace = false;
    Csr m_statics; // per compute node: statics read
    Csr m_computeSuccessors;
    Csr m_computePredecessors;
    std::vector<std::int32_t> m_priority;
    /// The priority order with what run() reads per node, laid out in that order.
    struct Step {
        std::int32_t ci;
        std::int32_t inBegin, inEnd;         // m_stepInputs range
        std::int32_t outBegin, outEnd;       // m_stepOutputs range
        std::int32_t staticBegin, staticEnd; // m_statics.values range
        std::int32_t group;                  // fusion group of the node, or -1
        std::int32_t linkBegin, linkEnd;     // m_chainLinks range (the node's conversions)
    };
    struct StepCell { // step i · K + c
        double latencyUs;
        double energyUj;
        std::int64_t workspaceBytes;
        std::int32_t unsupported;
    };
    std::vector<Step> m_steps;
    std::vector<std::int32_t> m_stepInputs;  // buffers read, step after step
    std::vector<std::int32_t> m_stepOutputs; // buffers written, step after step
    std::vector<StepCell> m_stepCells;
    std::vector<double> m_stepWeight; // step i · K + c: the exclusive weight in that column
    // Fusion groups, from the cost table.
    bool m_hasGroups = false;
    Csr m_groupMembers;                       // per group: compact compute indices, in order
    Csr m_groupInternal;                      // per group: buffers between members
    std::vector<std::uint8_t> m_groupTakable; // g · D + d: supported there and cheaper
    std::vector<std::int32_t> m_groupOf;      // per compute node: its group, or -1
    std::vector<std::int32_t> m_bufferGroup;  // per buffer: the group it is internal to, or -1
    std::vector<StepCell> m_fusedCells;       // ci · D + d: the node's cell in a taken group
    std::vector<StepCell> m_stepFusedCells;   // step i · D + d (a taken group is in fp32: c = d)
    std::vector<std::uint8_t> m_groupTaken;   // scratch: per group, of the last evaluation
    std::vector<std::int64_t> m_liveBytes;    // scratch: m_bufferSize, 0 fused away, narrowed
    // Conversions a chain saves (CostTable::conversions), per compute node (its links
    // contiguous, in the table's order): the compute nodes that must all be in the node's
    // variant, and per column what the node's cell then loses.
    struct ChainLink {
        std::int32_t partnerBegin, partnerEnd; // m_chainPartners range: compute indices
    };
    struct ChainSave {
        double latencyUs;
        double energyUj;
    };
    bool m_hasChains = false;
    std::vector<ChainLink> m_chainLinks;
    std::vector<std::int32_t> m_chainPartners;
    std::vector<ChainSave> m_chainSave;        // link · K + c
    std::vector<std::int32_t> m_nodeLinkBegin; // per compute node ci: its links from here to ci + 1
    std::vector<std::uint8_t> m_columnVariantOf; // per column (256 entries): its variant
    std::vector<std::int32_t> m_stepOf;          // per compute node: its step
    // Outputs a chain may keep narrow (per out-link that has a buffer, m_linkNarrowing): the
    // buffer, the variant its producer must be in, and the buffer's bytes then.
    struct Narrowing {
        std::int32_t buffer;
        std::uint8_t variant;
        std::int64_t bytes;
    };
    std::vector<Narrowing> m_narrowings;
    std::vector<std::int32_t> m_narrowBuffers; // the buffers of m_narrowings, each once
    // Per buffer: 1 where a chain may keep it narrow; its transfers then move its live bytes
    // (bytes / bandwidth, computed when it moves), the others' come from m_transferUs.
    std::vector<std::uint8_t> m_bufferNarrowable;
    std::vector<std::int32_t> m_linkNarrowing; // per link: its m_narrowings entry, or -1
    /// Whether a link's partners are all in variant v (a genome by compute index).
    bool joined(std::int32_t link, const std::uint8_t* genome, std::uint8_t v) const;
    std::vector<TransferHop> m_hops;         // all paths, flat
    std::vector<std::int32_t> m_pathOffsets; // (src · D + dst) → m_hops range
    std::int32_t m_hopCount = 0;
    std::vector<double> m_transferUs; // b · hops + h: bytes of buffer b / bandwidth of hop h
    std::vector<std::int32_t> m_graphInputBuffers;
    std::vector<double> m_idleW, m_memory;
    // Shared resources and receive factors, from the cost table; m_sharedResources: any of
    // them, the schedule then taking the path that honours them.
    bool m_sharedResources = false;
    std::vector<std::uint32_t> m_exclusiveWith; // per device d: the devices e it takes turns with
    std::vector<std::uint32_t> m_contendedBy;   // per device d: the devices e that slow it
    std::vector<double> m_contention;           // d · D + e: contention(d, e)
    std::vector<double> m_turnUs;               // per device d: CostTable::turnCost(d)
    std::vector<double> m_receiveFactor;        // per device d: CostTable::receiveFactor(d)

    // Scratch, reused by every evaluation.
    std::vector<double> m_busy; // per device, of the last evaluation
    /// Start of the k-th node run on device d at d · m_startRow + kStartPad + k, with -inf
    /// before each row and +inf after its last run (sentinels: the step searches need no bounds
    /// checks).
    std::vector<double> m_stepStart;
    std::size_t m_startRow = 0;
    std::vector<std::int64_t> m_stepWorkspace; // d · C + k
    std::vector<double> m_queueFree;
    std::vector<std::int32_t> m_home;   // per buffer: the device that produced it
    std::vector<std::uint32_t> m_where; // per buffer: the devices that have it (bit d)
    /// What the simulation knows about buffer b on device d (entry b · D + d).
    struct Presence {
        double arrival = -1.0; ///< when it is there (produced or copied); -1: not there
        double outEnd = -1.0;  ///< end of the last transfer out of it; -1: none
        /// Its memory is counted on the steps of d up to this one (from its first step there).
        std::int32_t held = -1;
    };
    std::vector<Presence> m_presence; // read only where m_where says the buffer is
    std::vector<std::uint32_t> m_staticMask;
    /// Memory is counted while scheduling: a buffer from its producer's step, a copy from the
    /// first run that starts once it began, each to its last consumer on that device so far. What
    /// only the complete schedule tells is settled at the end: a transfer out may end after runs
    /// scheduled later (the source is held until then), a copy on a relay device may begin after
    /// them, and graph outputs are held to the end.
    struct Sent { ///< a transfer out of a buffer where it was produced
        std::int32_t buffer;
        std::int32_t device;
    };
    struct Relayed { ///< a copy on a device that can pass buffers on
        std::int32_t buffer;
        std::int32_t device;
        std::int32_t lo;  ///< first step there that starts once the copy began, among the runs
                          ///< scheduled there when it began
        double copyBegin; ///< when the copy began
    };
    std::vector<Sent> m_sent;
    std::vector<Relayed> m_relayed;
    std::vector<std::uint8_t> m_relay;         ///< per device: some path passes a copy on from it
    std::vector<std::int32_t> m_outputBuffers; ///< buffers that are graph outputs

    std::vector<std::int64_t> m_diff; // bytes are whole numbers: integer sums, 1-cycle adds
    std::vector<double> m_peak;

    /// evaluateBatch's tables and scratch: the state of run() with eight lanes per entry (entry
    /// e of lane l at e · 8 + l), built on the first batch and again after the priority changes.
    struct Lanes {
        std::uint64_t stepsVersion = 0; // m_stepsVersion it was built for; 0: never
        // Per step i and column c at i · K + c.
        LaneVector<double> latencyUs, energyUj, exclusiveWeight;
        LaneVector<std::int64_t> workspaceBytes, unsupported;
        LaneVector<std::int64_t> columnDevice;       // per column, its device
        LaneVector<std::int64_t> columnVariant;      // per column, its variant
        LaneVector<double> chainSaveUs, chainSaveUj; // per link l and column c at l · K + c
        LaneVector<std::int64_t> bufferBytes; // per buffer b and lane at b · 8 + lane (chains)
        // The same for a step whose fusion group is taken (Simulator::m_stepFusedCells), per
        // step i and device d at i · D + d.
        LaneVector<double> fusedLatencyUs, fusedEnergyUj;
        LaneVector<std::int64_t> fusedWorkspaceBytes, fusedUnsupported;
        std::vector<std::uint8_t> groupLanes; // per group: the lanes that take it
        // Per device pair (src · D + dst, up to 16): first hop and hop count; per hop (up to 16).
        std::int64_t pathFirst[16], pathLength[16];
        std::int64_t hopTo[16], hopFrom[16], hopQueue[16];
        double hopLatencyUs[16];
        double hopBytesPerUs[16]; // 1 where padded
        std::int32_t maxHops = 0;
        // Shared resources: per device, the devices it takes turns with (bit e); per pair
        // (e · D + d, up to 16), the factor by which e slows d (1: not at all).
        std::int64_t exclusiveWith[4];
        double slowedBy[16];
        double turnUs[4]; // per device: the cost of taking its cores over (CostTable::turnCost)
        double receiveFactor[4];       // per device: CostTable::receiveFactor (1 where padded)
        LaneVector<double> transferUs; // per buffer, 16 hops (zero-padded)
        // Scratch.
        LaneVector<std::uint8_t> genomes;             // per step
        LaneVector<double> times;                     // per buffer: arrival and outEnd per device
        LaneVector<std::int64_t> marks;               // per buffer: held per device, where, home
        LaneVector<double> stepStart;                 // as m_stepStart
        LaneVector<std::int64_t> stepWorkspace, diff; // as m_stepWorkspace, m_diff
        LaneVector<double> queueFree;
        LaneVector<std::int64_t> staticMask;
        // What run() settles at the end, a row per input and hop where some lane transferred:
        // per lane (row · 8 + lane) and for the row, with the lanes it holds. Sent: first
        // transfers out of a buffer or of a copy made for a consumer; relayed: copies passed on.
        LaneVector<std::int64_t> sentDevice, relayedDevice, relayedLo;
        LaneVector<double> relayedBegin;
        LaneVector<std::int64_t> sentBuffer, relayedBuffer;
        LaneVector<std::uint8_t> sentLanes, relayedLanes;
    };
    Lanes m_lanes;
    std::uint64_t m_stepsVersion = 0; // bumped by buildSteps()
};

} // namespace paretune
