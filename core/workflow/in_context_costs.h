// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What plans measured on the hardware teach the next search: operator times inside plans,
// per-device scales and contention between devices that run side by side (DESIGN.md "The plan,
// second generation": the tune loop).
#include "cost/cost_table.h"
#include "workflow/cell_shrinkage.h"
#include "workflow/in_plan_gaps.h"
#include "workflow/turn_costs.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace paretune {

struct Graph;

/// One compute node in the run of median wall time of a validated plan.
struct NodeObservation {
    std::string node;   ///< node name
    std::string device; ///< device id
    double us = 0.0;    ///< mean duration over the timed runs (ValidatedNode::measuredMeanUs)
    double beginUs = 0.0;
    double endUs = 0.0;
};

/// A validated plan's nodes, as measured.
struct PlanObservation {
    std::vector<NodeObservation> nodes;
    /// A plan with variants: its output deviation from fp32 as measured and as the search
    /// estimated it (the sum of its cells' deviations), %.
    std::optional<double> measuredDeviationPct;
    std::optional<double> estimatedDeviationPct;
};

/// How a node overlapped work on the other devices of its plan.
enum class NodeContext : std::uint8_t {
    Alone,     ///< under 5% of its time beside another device's work
    Contended, ///< at least half of its time beside one other device's work
    Mixed,     ///< anything in between: not used
};

/// A contention factor fitted from in-plan measurements.
struct FittedContention {
    std::string device; ///< slowed
    std::string other;  ///< running beside it
    double factor = 1.0;
    int observations = 0;
};

/// What applyInContextCosts changed, for reports.
struct InContextFit {
    int nodesInContext = 0; ///< cells set to a time measured inside plans
    int nodesScaled = 0;    ///< cells scaled by their device's in-plan factor
    int fusedInContext = 0; ///< fusion options' cells set to a fused group's in-plan time
    int fusedScaled = 0;    ///< fusion options' cells scaled by their device's in-plan factor
    /// Member cells scaled by the in-plan ratio of their fusion group (it ran, they did not).
    int membersScaledByGroup = 0;
    /// Fusion options' cells scaled by their members' in-plan ratio (they ran, it did not).
    int fusedScaledByMembers = 0;
    std::map<std::string, double> deviceScale; ///< Σ in-plan / Σ cell over nodes run alone
    std::map<std::string, int> deviceObservations;
    std::vector<FittedContention> contention;
    /// Measured / estimated output deviation, median over the plans with variants that
    /// measured one; every variant cell's deviation is scaled by it. None: no such plan.
    std::optional<double> deviationScale;
    int deviationObservations = 0;
    /// Per earlier round (oldest first): the factor its times were multiplied by to put them at
    /// the machine's latest measured speed (observationsAtLatestSpeed; the latest's is 1).
    std::vector<double> roundSpeedScales;
    /// The time between nodes inside plans (in_plan_gaps.h), applied after the cells.
    InPlanGaps gaps;
    /// Devices' turn costs on shared cores (turn_costs.h), measured; set in the table.
    std::vector<FittedTurn> turns;
    /// Devices' receive factors (turn_costs.h: fitReceiveFactors), measured; set in the table.
    std::vector<FittedReceive> receives;
    /// How the cells measured inside plans were drawn toward their nodes' on other devices
    /// (cell_shrinkage.h);
    /// absent where the times could not tell their noise.
    std::optional<CellShrinkage> shrinkage;

    nlohmann::json toJson() const;
};

/// Fits and applies in-context costs to `table` (its cells as the search would use them):
/// * a device that shares cores gets a turn cost (fitTurnCosts): what taking the cores over
///   from another device added to its nodes' in-plan times;
/// * a device gets a receive factor (fitReceiveFactors): how much longer its nodes ran as the
///   first reader of a tensor from another device, without a turn;
/// * a node measured alone inside plans (not beside another device's work) takes the median of
///   those times on that device, each turn start's less its device's turn cost, each receive's
///   divided by its device's receive factor (plainTimes): the operator as
///   it runs in a plan (caches, threads, the framework between nodes), which the library's
///   isolated sample misses; a fused group observed as "FIRST+fused" (FIRST its first member)
///   likewise sets its fusion option's cell; each such median drawn toward its node's ratio on
///   its other devices (shrinkInPlanTimes), the more the fewer plans it ran in;
/// * a member of a fusion group measured so, itself not, scales by the group's ratio of in-plan
///   time to cell (summed over its groups); a fusion option not measured whose members all were
///   scales by their summed ratio: what the profiler measured side by side stays in proportion;
/// * other nodes and fusion options of a device scale by the ratio of the in-plan times of its
///   nodes and fused groups measured alone to their cells, each summed (at least 3, else
///   unchanged): weighted by time, as a plan's latency is;
/// * for a pair of devices that do not share a core, the median of (measured / expected alone)
///   over nodes that ran at least half their time beside the other device is the pair's
///   contention factor (at least 3 observations, clamped to [1, 4]; source measured).
/// * the deviation of every variant cell scales by the median of measured / estimated output
///   deviation over the plans with variants (the sensitivity table's sum errs alike for plans
///   not yet run: it misses how deviations combine);
/// * last, the gaps between nodes inside plans (fitInPlanGaps, applyInPlanGaps): each device's
///   dispatch time added to its cells, each measured handoff's latency to its path.
/// Devices or nodes the table lacks are ignored; a node in a variant ("NAME@bf16") is that
/// variant's cell. Deterministic in the observations' order.
InContextFit applyInContextCosts(CostTable& table, const Graph& graph,
                                 const std::vector<PlanObservation>& plans);

/// The node and variant an observation names: "NAME" (fp32) or "NAME@bf16" (a variant the
/// table offers); kNone for a name the graph lacks (a fused node, "NAME+fused").
std::pair<NodeId, std::int32_t> observedNode(const Graph& graph, const CostTable& table,
                                             const std::string& name);
/// The fusion option of the table an observation names ("FIRST+fused", FIRST its first
/// member), or -1.
std::int32_t observedFusion(const Graph& graph, const CostTable& table, const std::string& name);

/// Every round's plan observations on the time base of the last round: round j's node times,
/// begins and ends multiplied by the speed changes the rounds after it measured (the product of
/// speedChanges[k] for k = j+1 … last; a round that measured none counts as 1). The machine's
/// speed drifts between rounds (a shared VM here: ±10–20 % within minutes, the same plan
/// re-measured), so costs learned from an older round at its own speed predict the next round
/// at a speed the machine no longer has; the latest speed is the best guess of the next one.
/// `rounds` and `speedChanges` are per round, oldest first, of the same length (InputError
/// otherwise; a factor must be positive). `scales`, when given, receives each round's factor.
std::vector<PlanObservation>
observationsAtLatestSpeed(const std::vector<std::vector<PlanObservation>>& rounds,
                          const std::vector<std::optional<double>>& speedChanges,
                          std::vector<double>* scales = nullptr);

/// The context of each node of a plan (by index into plan.nodes), given which devices of the
/// table share a core (they cannot overlap). Devices the table lacks count as other devices.
std::vector<std::pair<NodeContext, std::string>> nodeContexts(const PlanObservation& plan,
                                                              const CostTable& table);

} // namespace paretune
