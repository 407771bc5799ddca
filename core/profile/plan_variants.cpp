// SPDX-License-Identifier: GPL-3.0-or-later
// Validating plans with nodes in lower precisions: the lowered plan, its report in the model's
// nodes, and its measured output deviation.
#include "plan_variants.h"

#include "common/input_error.h"
#include "device/device.h"
#include "output_deviation.h"
#include "precision_support.h"
#include "store/sample_library.h"

#include <algorithm>
#include <map>
#include <thread>

namespace paretune {

bool PlanToValidate::hasVariants() const {
    return std::any_of(variants.begin(), variants.end(),
                       [](Variant p) { return p != Precision::Fp32; });
}

namespace detail {

void refuseUnrunnableVariants(const Graph& g, const PlanToValidate& plan,
                              const DeviceInventory& inventory) {
    for (std::size_t n = 0; n < plan.variants.size() && n < plan.assignment.size(); ++n) {
        const Device* device = inventory.find(plan.assignment[n]);
        if (plan.variants[n] == Precision::Fp32 || device == nullptr) {
            continue;
        }
        if (const std::string why = variantRefusal(*device, plan.variants[n]); !why.empty()) {
            throw InputError(plan.label + ": node '" + g.nodes[n].name + "' runs in " +
                             std::string(variantName(plan.variants[n])) + " on " +
                             plan.assignment[n] + ": " + why);
        }
    }
}

LoweredPlan lowerPlan(const Graph& graph, const PlanToValidate& plan,
                      const SampleLibrary& library) {
    ActivationRanges ranges;
    const bool int8 = std::any_of(plan.variants.begin(), plan.variants.end(),
                                  [](Variant v) { return v.precision == Precision::Int8; });
    if (int8) {
        ranges = newestActivationRanges(library, graph);
    }
    LoweredPlan result;
    result.lowered =
        std::make_unique<LoweredGraph>(lowerGraph(graph, plan.variants, int8 ? &ranges : nullptr));
    LoweredGraph& lowered = *result.lowered;
    if (!lowered.calibrated) {
        throw InputError(plan.label +
                         ": it runs nodes in int8, and the library has no activation ranges for "
                         "them (paretune profile MODEL --device DEVICE --variants int8 measures "
                         "them)");
    }
    const auto first = std::find_if(plan.variants.begin(), plan.variants.end(),
                                    [](Variant p) { return p != Precision::Fp32; });
    lowered.graph.name = loweredGraphName(graph, *first);
    result.plan = std::make_unique<PlanToValidate>(plan);
    PlanToValidate& run = *result.plan;
    run.variants.clear();
    run.assignment.assign(lowered.graph.nodes.size(), std::string());
    for (std::size_t x = 0; x < lowered.graph.nodes.size(); ++x) {
        if (lowered.graph.nodes[x].kind != NodeKind::Constant) {
            run.assignment[x] = plan.assignment[static_cast<std::size_t>(lowered.origin[x])];
        }
    }
    for (FusionGroup& group : run.fusionGroups) {
        for (NodeId& m : group.members) {
            if (plan.variants[static_cast<std::size_t>(m)] != Precision::Fp32) {
                throw InputError(
                    plan.label + ": fusion group " + group.pattern + " at node '" +
                    graph.nodes[static_cast<std::size_t>(m)].name + "' has a member in " +
                    std::string(variantName(plan.variants[static_cast<std::size_t>(m)])) +
                    "; a group runs in fp32");
            }
            m = lowered.parts[static_cast<std::size_t>(m)].front();
        }
    }
    return result;
}

void reportAsModelNodes(PlanValidation& report, const LoweredGraph& lowered) {
    std::map<NodeId, ValidatedNode> byNode;
    std::map<NodeId, bool> allPredicted;
    for (const ValidatedNode& n : report.nodes) {
        const NodeId origin = lowered.origin[static_cast<std::size_t>(n.node)];
        const auto [it, first] = byNode.try_emplace(origin, n);
        ValidatedNode& folded = it->second;
        bool& predicted = allPredicted.try_emplace(origin, true).first->second;
        predicted = predicted && n.predictedUs.has_value();
        if (!first) {
            folded.measuredUs += n.measuredUs;
            folded.measuredMeanUs += n.measuredMeanUs;
            folded.measuredBeginUs = std::min(folded.measuredBeginUs, n.measuredBeginUs);
            folded.measuredEndUs = std::max(folded.measuredEndUs, n.measuredEndUs);
            if (folded.predictedUs && n.predictedUs) {
                *folded.predictedUs += *n.predictedUs;
            }
            if (n.predictedSource != folded.predictedSource) {
                folded.predictedSource = "mixed";
            }
            if (n.simulatedStartUs && folded.simulatedStartUs) {
                folded.simulatedStartUs = std::min(*folded.simulatedStartUs, *n.simulatedStartUs);
            }
            if (n.simulatedFinishUs && folded.simulatedFinishUs) {
                folded.simulatedFinishUs =
                    std::max(*folded.simulatedFinishUs, *n.simulatedFinishUs);
            }
        }
        folded.node = origin;
        for (NodeId& m : folded.fusedMembers) {
            m = lowered.origin[static_cast<std::size_t>(m)];
        }
    }
    report.nodes.clear();
    for (auto& [origin, n] : byNode) {
        n.variant = lowered.variants[static_cast<std::size_t>(origin)];
        if (!allPredicted[origin]) {
            n.predictedUs.reset();
        }
        n.error = relativeError(n.predictedUs, n.measuredUs);
        report.nodes.push_back(std::move(n));
    }
}

ValidatedAccuracy measureAccuracy(const Graph& graph, const LoweredGraph& lowered,
                                  const PlanToValidate& plan, const ValidationOptions& options) {
    const CalibrationInputs inputs =
        options.calibration
            ? *options.calibration
            : randomCalibrationInputs(graph, options.accuracySets, options.accuracySeed);
    ExecutionDevice device;
    device.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const OutputDeviation d =
        compareOutputs(runOnSets(graph, inputs, device), runOnSets(lowered.graph, inputs, device));
    ValidatedAccuracy a;
    a.inputs = inputs.key;
    a.randomInputs = inputs.random;
    a.sets = d.sets;
    a.deviationPct = d.relativeL2Pct;
    a.minCosine = d.minCosine;
    a.meanCosine = d.meanCosine;
    a.top1Agreement = d.top1Agreement;
    a.top1Misses = d.top1Misses;
    a.largestMissMargin = d.largestMissMargin;
    a.medianTop1Margin = d.medianTop1Margin;
    a.estimatedPct = plan.plannedDeviationPct;
    if (a.estimatedPct) {
        a.errorPoints = *a.estimatedPct - a.deviationPct;
    }
    return a;
}

} // namespace detail
} // namespace paretune
