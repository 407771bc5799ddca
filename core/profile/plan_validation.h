// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graph/fusion.h"
#include "graph/graph.h"
#include "graph/precision.h"
#include "output_deviation.h"

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace paretune {

class CostTable;
class SampleLibrary;
struct DeviceCatalog;
struct PlansFile;
struct Progress;

/// (predicted − measured) / measured; nothing when either is missing or measured is 0.
std::optional<double> relativeError(const std::optional<double>& predicted,
                                    const std::optional<double>& measured);

/// A searched plan to run on this machine's devices.
struct PlanToValidate {
    std::string label; ///< names the plan in messages, e.g. "plan 3 of plans.json"
    /// Device id per graph node (graph order); empty for a node without a device (constants).
    /// Every compute node needs one.
    std::vector<std::string> assignment;
    /// The cost table's devices of the search (its order); empty: the plan's devices.
    std::vector<std::string> costDevices;
    /// The objectives the plan was found with (plans file or search), if known.
    std::optional<double> plannedLatencyUs;
    std::optional<double> plannedEnergyMj;
    std::optional<double> plannedMemoryMb;
    /// The fusion groups the plan takes: each runs as one fused node on its members' device.
    std::vector<FusionGroup> fusionGroups;
    /// Whether the search offered fusion groups (the prediction offers them too when so).
    bool fusion = true;
    /// Per graph node, its variant (graph/precision.h); empty: every node in fp32. A plan with
    /// nodes in other variants runs its lowered graph (lowerGraph: the nodes with their
    /// conversions); the report still names the model's nodes (a lowered node's time is its own
    /// and its conversions'), and the output deviation from the fp32 model is measured.
    std::vector<Variant> variants;
    /// The variants the search offered besides fp32 (its cost table's variants).
    std::vector<Variant> offeredVariants;
    /// The deviation the search estimated for the plan (%, from the sensitivity table).
    std::optional<double> plannedDeviationPct;

    bool hasVariants() const;
};

/// Plan `planId` of a plans document, to validate on `graph`: its assignment by node name, the
/// document's devices as the cost devices, its planned objectives. `label` names it in
/// messages. InputError for a plan id the document does not hold or a node the graph lacks.
PlanToValidate planToValidate(const Graph& graph, const PlansFile& plans, std::int64_t planId,
                              const std::string& label);

/// The most timed runs of a plan one validation takes (ValidationOptions::repeats).
constexpr int kMaxValidationRepeats = 100000;

struct ValidationOptions {
    int repeats = 20; ///< timed runs of the whole plan (1..kMaxValidationRepeats)
    int warmup = 2;   ///< untimed runs first (0..1000); one always runs to check the plan
    /// The catalog the plan was searched with; null: the plan's objectives are compared without
    /// per-operator predictions (nothing to simulate with).
    const DeviceCatalog* catalog = nullptr;
    /// Fills the rebuilt cost table of the real devices the way the search did, shared
    /// resources included (searchCostsFromLibrary). The last argument is the model when the
    /// table is that of a plan's lowered graph (its whole-model runs scale the cells, as they
    /// scaled the search's), null when the table is the model's. Unset: the library's measured
    /// samples (applyMeasuredSamples), the model's runs, and the real devices' shared resources.
    std::function<void(CostTable&, const Graph&, const DeviceCatalog&, const Graph*)> fillCosts;
    Progress* progress = nullptr; ///< one report per run; cancel stops before storing anything
    /// false: measure and report only, nothing written to the library (a tune round's
    /// rehearsals, which only time the plans).
    bool store = true;
    /// Calibration sets the output deviation of a plan with variants is measured on (seeded
    /// random inputs, another seed than the sensitivity table's, so that the estimate is checked
    /// on inputs it was not made from).
    int accuracySets = 32;
    std::uint64_t accuracySeed = 2;
    /// Calibration inputs given (readCalibrationInputs) instead of the random sets.
    std::optional<CalibrationInputs> calibration;
};

/// Measured, predicted and planned values of one objective.
struct ValidatedObjective {
    std::optional<double> measured;
    std::string measuredSource = "none";
    std::optional<double> predicted; ///< simulated again here, else the plan's figure
    std::optional<double> planned;   ///< the plan file's / search's figure
    std::optional<double> error;     ///< (predicted − measured) / measured
    /// What "predicted" is, where it is not the simulation (memory: the memory plan).
    std::string predictedSource;
};

/// How far a plan's outputs are from the fp32 model's (plans with variants), measured by running
/// both on the calibration sets, beside the search's estimate.
struct ValidatedAccuracy {
    std::string inputs; ///< CalibrationInputs::key
    bool randomInputs = true;
    int sets = 0;
    double deviationPct = 0.0; ///< relative L2 error, mean over the sets
    double minCosine = 1.0;
    double meanCosine = 1.0;
    std::optional<double> top1Agreement; ///< classifier-shaped outputs only
    int top1Misses = 0;
    double largestMissMargin = 0.0;
    double medianTop1Margin = 0.0;      ///< OutputDeviation::medianTop1Margin
    std::optional<double> estimatedPct; ///< the sensitivity table's sum (the plan file's)
    /// estimated − measured, percentage points.
    std::optional<double> errorPoints;
};

struct ValidatedDevice {
    std::string id;
    std::string fingerprint;
    std::vector<int> cpus; ///< pinned CPUs; empty: not pinned
    int threads = 1;
    int nodes = 0; ///< nodes the plan places there
    /// Peak memory there, MiB. Measured: the most LibTorch's CPU allocator held for the device
    /// at once in any timed run (PlanRun::peakBytes) plus the fixed tensors its nodes read:
    /// weights, constants, graph inputs (PlanRun::weightBytes); predicted: the simulator's peak
    /// for the device; planned: the memory plan's arena + weights for the device (memory_plan.h).
    std::optional<double> measuredPeakMb;
    std::optional<double> measuredWeightsMb;
    std::optional<double> predictedPeakMb;
    std::optional<double> plannedPeakMb;
    std::optional<double> arenaMb;

    /// {"measured_peak_mb", "weights_mb", "planned_peak_mb", "arena_mb", "predicted_peak_mb",
    /// "error" (planned against measured; the simulated figure where there is no plan),
    /// "simulated_error"}: null where unknown.
    nlohmann::json memoryJson() const;
};

/// One compute node of the plan, measured in place.
struct ValidatedNode {
    NodeId node = kNone; ///< the graph's node (a fused group's: its last member)
    /// A fused group's members (graph node ids, in order); empty for a node that ran alone.
    std::vector<NodeId> fusedMembers;
    /// The variant it ran in (a lowered node's row holds its conversions' times too).
    Variant variant = Precision::Fp32;
    std::int32_t device = 0; ///< index into PlanValidation::devices
    double measuredUs = 0.0; ///< median over the timed runs
    /// Mean over the timed runs less the fastest and the slowest 5 % (trimmedMeanOf): what adds
    /// up to the plan's time, which the tune loop learns from.
    double measuredMeanUs = 0.0;
    double measuredBeginUs = 0.0; ///< in the run of median wall time, from its start
    double measuredEndUs = 0.0;
    std::optional<double> predictedUs;
    std::string predictedSource = "none"; ///< the cost cell's source: measured, predicted, ...
    std::optional<double> error;
    std::optional<double> simulatedStartUs;
    std::optional<double> simulatedFinishUs;
};

struct PlanValidation {
    bool cancelled = false; ///< stopped through Progress: nothing measured is kept or stored
    std::vector<ValidatedDevice> devices;
    ValidatedObjective latencyUs; ///< measured: median wall time of the timed runs
    double latencyP10Us = 0.0;
    double latencyP90Us = 0.0;
    ValidatedObjective energyMj;
    /// Measured: the largest of the devices' measured peaks (ValidatedDevice), as the objective
    /// is the largest device peak; predicted: the memory plan's (the largest device's arena +
    /// weights) where the plan was simulated again, else the plan file's.
    ValidatedObjective peakMemoryMb;
    /// The simulator's live-sum figure (what the search ranked by), where simulated again.
    std::optional<double> simulatedPeakMemoryMb;
    /// The process's peak resident memory during the timed runs (VmHWM, reset before them), MiB:
    /// a cross-check of the allocator's figures (it also holds the program, the libraries, the
    /// weights and everything else). Unset where the kernel does not offer the reset.
    std::optional<double> processPeakMb;
    /// Plans with variants: the measured output deviation (none for an all-fp32 plan).
    std::optional<ValidatedAccuracy> accuracy;
    /// Where the predicted objectives come from ("simulated from measured samples", ...).
    std::string predictionSource;
    std::string note;                 ///< e.g. why there are no per-operator predictions
    std::vector<ValidatedNode> nodes; ///< compute nodes in graph order
    int repeats = 0;
    int warmup = 0;
    std::int64_t storedPlanRow = 0;
    std::size_t storedSamples = 0;

    /// The "objectives" object stored with the plan measurement and printed by validate --json.
    nlohmann::json objectivesJson() const;
};

/// Executes a plan on this machine's real devices (PlanExecutor: warm-up, then timed runs; RAPL
/// energy around them where readable), compares the measurement with the plan simulated again
/// over the search's cost table (catalog + `fillCosts`), and stores in `library` the plan
/// measurement (plans table, source "validated") and the per-operator times measured inside the
/// plan as samples with context "plan" and their residuals (existing samples are untouched).
/// Throws InputError naming the problem: a plan on modelled devices (they are named, with their
/// node counts) or on devices this machine lacks, a compute node without a device, a device
/// missing from costDevices, a model this build cannot execute.
PlanValidation validatePlan(const Graph& graph, const PlanToValidate& plan, SampleLibrary& library,
                            const ValidationOptions& options);

/// validatePlan for several plans timed A/B-interleaved: every plan is prepared (and refused)
/// first, then each round runs every plan once in turn, so a machine that slows down slows them
/// alike. `options.repeats` timed runs of each; progress counts the runs of all plans. Reports
/// in the order of `plans`; when cancelled, every report is marked so and nothing is stored.
std::vector<PlanValidation> validatePlans(const Graph& graph, std::span<const PlanToValidate> plans,
                                          SampleLibrary& library, const ValidationOptions& options);

} // namespace paretune
