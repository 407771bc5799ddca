// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "contention_profile.h"
#include "device/micro_benchmark.h"
#include "graph/precision.h"
#include "output_deviation.h"
#include "profile_model.h"
#include "store/records.h"

#include <optional>
#include <string>
#include <vector>

namespace paretune {

struct Device;
struct Progress;
class SampleLibrary;

struct LibraryProfileOptions {
    bool force = false; ///< measure again what the library already holds
    int repeats = 0;    ///< timed runs per round; 0: enough for 50 ms, at least 5
    /// Power of the device (W) for modelled energy when no power counter is readable (from a
    /// catalog that describes the device); none: such samples carry no energy.
    std::optional<double> activeW;
    /// Compute nodes to consider; empty: every compute node of the graph.
    std::vector<NodeId> nodes;
    /// Also run the whole graph end to end (ProfileOptions::wholeModel).
    bool wholeModel = true;
    /// Run the device's quick micro-benchmark right before and right after the measurements
    /// (about a second in all) and report whether the machine's speed changed (SpeedCheck).
    bool checkSpeed = true;
    /// Measure the contention between the device and each CPU device of this machine that can
    /// run beside it (disjoint CPUs: cpu:1 beside cpu:0) when the library has none for the pair
    /// yet (measureMissingContention, quick: under a second per pair, once per pair).
    bool measureContention = true;
    /// Also measure the graph's fusion groups (findFusionGroups), each as its fused node: a
    /// sample of its own, timed in one run with its members again so that both see one machine
    /// speed, and put on the stored members' time base (the members' second times are not
    /// stored); the graph it is measured in is recorded beside the model (fusedGraphName).
    /// Groups the library holds are reused. Not when profiling is cancelled or `nodes`
    /// restricts the run.
    bool fusionGroups = true;
    /// Store what is measured (false: measure for the caller only: the rows' samples, the
    /// graph not recorded).
    bool store = true;
    /// Variants to measure the lowerable nodes in besides fp32 (profileVariants): each node's
    /// lowered form and its conversions as samples of their own, and the model's sensitivity
    /// table in each. Not when profiling is cancelled or `nodes` restricts the run.
    std::vector<Variant> variants;
    /// Calibration sets for the sensitivity table (seeded random inputs; randomCalibrationInputs).
    int sensitivitySets = kDefaultSensitivitySets;
    std::uint64_t sensitivitySeed = kDefaultSensitivitySeed;
    /// Calibration inputs given (readCalibrationInputs) instead of the random sets.
    std::optional<CalibrationInputs> calibration;
};

/// The machine's speed around a profiling run: the device's quick micro-benchmark (GEMM
/// GFLOP/s, triad GB/s) right before and right after the measurements. A shared machine can
/// run 1.2–1.7 times slower for minutes (measured on this project's 2-core VM: ResNet-50's
/// operators summed to 173 ms, then 272 ms five minutes later); samples taken across such a
/// change are not comparable with each other.
struct SpeedCheck {
    MicroBenchmark before;
    MicroBenchmark after;
    bool drifted = false; ///< a figure moved by more than kDefaultDriftThreshold
    std::string why;      ///< which figure and by how much, when drifted
};

/// One compute node of a profiling run into the library.
struct LibraryProfileRow {
    NodeId node = kNone;
    bool reused = false; ///< already in the library, or its signature measured once here
    ProfileStatus status = ProfileStatus::Ok;
    bool cancelled = false; ///< not measured: the run was cancelled first
    std::string message;    ///< why, when not ok()
    Sample sample;          ///< the stored (or reused) sample when ok()

    bool ok() const { return !cancelled && status == ProfileStatus::Ok; }
    bool failed() const { return !cancelled && status != ProfileStatus::Ok; }
    /// "ok", "cancelled", or the ProfileStatus name of a failure (as `paretune profile` prints).
    std::string_view statusName() const;
};

struct LibraryProfileRun {
    std::string deviceFingerprint;
    std::vector<LibraryProfileRow> rows; ///< every compute node, in graph order
    /// One per fusion group measured or reused (options.fusionGroups); `node` is the group's
    /// node in the graph it was measured in (appendFusedNodes).
    std::vector<LibraryProfileRow> fusedRows;
    /// One per node lowered to a variant (options.variants), `node` its lowered node in the
    /// graph it was measured in (appendLoweredNodes), `variant` which.
    struct VariantRow {
        Variant variant = Precision::Fp32;
        NodeId original = kNone;
        LibraryProfileRow row;
    };
    std::vector<VariantRow> variantRows;
    /// Nodes whose sensitivity was measured now, per precision offered (0: reused or none).
    int sensitivityMeasured = 0;
    ProfileResult result; ///< what profileModel measured now
    MeasureOptions measure;
    /// When something was measured with options.checkSpeed (not when cancelled).
    std::optional<SpeedCheck> speed;
    /// The pairs whose contention was measured now (options.measureContention).
    std::vector<ContentionMeasurement> contention;
    /// The whole-model run was stored (ModelRunRecord): every compute node has a sample and the
    /// end-to-end run succeeded. The search scales the device's costs of the model by it.
    bool modelRunStored = false;

    int reusedCount() const;
    /// Fusion groups whose fused node was measured now (a sample stored by this run).
    int fusedMeasuredCount() const;
    /// Lowered nodes measured now.
    int variantMeasuredCount() const;
    int failedCount() const;    ///< rows unsupported or failed
    int cancelledCount() const; ///< rows left unmeasured by a cancel
    /// Sum of the per-op medians of the rows that are ok (µs).
    double sumOfOpsUs() const;
};

/// Profiles the graph's compute nodes on a real CPU device into the sample library: records the
/// device and the graph, reuses what the library already holds for the same signature and device
/// fingerprint (unless options.force), measures each remaining signature once (profileModel,
/// pinned to the device's CPUs, with the whole-model run), and stores the new samples in batches
/// while it runs (every 32 samples or 2 s, one transaction each). Before the operators, the
/// contention of the device beside the others it can run with is measured once per pair.
/// Cancelling through `progress` stores what was measured before it; a killed process loses
/// only its open batch. Throws InputError when the device is not a real CPU device or
/// repeats < 0; the library's own errors pass through.
LibraryProfileRun profileIntoLibrary(const Graph& graph, const Device& device,
                                     SampleLibrary& library, const LibraryProfileOptions& options,
                                     Progress* progress = nullptr);

/// Measures the nodes of `graph` lowerable to `precision` in it (profileIntoLibrary does this
/// for options.variants): each lowered node with its conversions in one run beside the node in
/// fp32 again, round after round (appendLoweredNodes), then put on the stored fp32 sample's
/// time base like a fusion group ("variant_pair" in the config; the fp32 second times are not
/// stored); the paired graph is recorded beside the model (loweredGraphName). Nodes whose
/// lowered form the library holds are reused (all measured again with options.force). Then the
/// model's sensitivity table in the precision, when the library lacks it for these inputs.
std::vector<LibraryProfileRun::VariantRow> profileVariant(const Graph& graph, const Device& device,
                                                          SampleLibrary& library,
                                                          const LibraryProfileOptions& options,
                                                          Variant variant, int* sensitivityMeasured,
                                                          Progress* progress);

} // namespace paretune
