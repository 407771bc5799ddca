// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The time between nodes inside plans, as measured (the tune loop, beside in_context_costs.h):
// a node's measured time runs from its kernel's start to its end, but in a plan the executor
// also spends time before each node (taking it from the ready queue, preparing its inputs) and
// before a node whose input comes from another device (waking that device's thread, copying
// the tensor). Neither is in an operator's sample, and the catalog's copy cost between CPU
// cores is an illustrative figure. Both show in every plan, so what one plan measured carries
// over to plans not yet run.
#include "cost/cost_table.h"

#include <map>
#include <string>
#include <vector>

namespace paretune {

struct Graph;
struct PlanObservation;

/// A handoff between two devices fitted from in-plan gaps.
struct FittedHandoff {
    std::string from;
    std::string to;
    /// The path's latency as measured: the median over the observed handoffs of the gap less
    /// the consumer's dispatch time and the path's bandwidth time for the tensors copied.
    double latencyUs = 0.0;
    double modelledLatencyUs = 0.0; ///< the path's latency before (the catalog's)
    int observations = 0;
};

/// What fitInPlanGaps measured.
struct InPlanGaps {
    /// Per device id: the median gap before a node whose inputs were all produced on its own
    /// device, when the device was idle and waiting for them (the executor's time per node).
    std::map<std::string, double> dispatchUs;
    std::map<std::string, int> dispatchObservations;
    std::vector<FittedHandoff> handoffs;
    /// Per device id that shares cores: the time between the end of the other device's last
    /// node on the shared cores and the start of its own, when it took the cores over with its
    /// inputs ready (the executor waking its thread, the cores coming back), less its dispatch
    /// and the modelled copy of an input from that node: added to the device's turn cost.
    std::map<std::string, double> turnGapUs;
    std::map<std::string, int> turnGapObservations;
    /// Per device id, where the copies at its turns told: the factor on the modelled bandwidth
    /// time of a copy into it from a device it shares cores with (the path's bandwidth divided
    /// by it). The turn gap is the rest of the wait.
    std::map<std::string, double> turnCopyScale;
};

/// Reads the gaps of the plans' nodes. A gap is observed before a node that waited for its
/// input, not for its device: it started after the last of its producers (observed nodes,
/// through nodes that are not, such as pass-through ones) ended, and that producer ended after
/// every node its device (or a device sharing a core with it) ran before it. A node whose
/// producers are all on its own device gives its device's dispatch gap; one whose only producer
/// elsewhere is that last one gives the pair's handoff gap. A figure needs at least 3
/// observations (dispatch at least 0, handoff latency at least 0). A node that took shared cores
/// over (turnStarts) with its inputs ready when the other device released them gives its
/// device's turn gap instead, also for a handoff between devices sharing a core: its wait less
/// the device's dispatch and the modelled copy of an input from the node it took the cores from
/// (the path's latency, and its bandwidth time × the device's copy scale: the least-squares
/// slope of the waits on the bandwidth times, over the 90 % least beyond the catalog's copy, in
/// [0.05, 4], where at least 3 copied a tensor and their times differ; on this VM copies between
/// core sets took about the catalog's 10 GB/s into `cpu:0` and far less into `cpu`, and
/// subtracting the catalog's time left `cpu` no turn gap at all). Dispatch and handoffs are
/// medians; the turn gap is the mean of the lower 90 % of its observations: turn
/// gaps have a long tail (MobileNet-V2 on `cpu:0,cpu:1,cpu`: median 32–49 us, mean 52–155 us),
/// and a plan's latency is their sum, not their median. Fused groups ("FIRST+fused")
/// and variants ("NAME@bf16") count as the nodes they run. Deterministic in the plans' order.
InPlanGaps fitInPlanGaps(const CostTable& table, const Graph& graph,
                         const std::vector<PlanObservation>& plans);

/// Per node of the plan (its index): whether it received an input, being the first reader on
/// its device of a tensor another device's node made, or of a graph input off the host (the
/// simulator copies it for that node: CostTable::receiveFactor). Producers traced as
/// fitInPlanGaps traces them; the first reader is the one that began first.
std::vector<bool> receiveStarts(const PlanObservation& plan, const CostTable& table,
                                const Graph& graph);

/// Applies the gaps: each device's dispatch time is added to every supported compute cell and
/// fusion option's cell of that device with a time (the executor spends it per node); each
/// turn gap is added to its device's turn cost (source measured); each copy scale divides the
/// bandwidth of the paths into its device from the devices sharing its cores; each
/// handoff sets its path's latency (spread over the path's hops in proportion to their modelled
/// latencies, all on the first hop where they have none; their bandwidths kept; source
/// measured).
void applyInPlanGaps(CostTable& table, const Graph& graph, const InPlanGaps& gaps);

} // namespace paretune
