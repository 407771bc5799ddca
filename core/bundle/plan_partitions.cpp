// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan_partitions.h"

#include "common/input_error.h"
#include "cost/cost_table.h"
#include "plan/plan.h"
#include "profile/output_deviation.h"
#include "store/sample_library.h"

#include <algorithm>
#include <cstdio>

namespace paretune::bundle {

namespace {

/// "cpu:0" → "cpu_0": device ids as parts of file names.
std::string fileSafe(const std::string& id) {
    std::string name = id;
    for (char& c : name) {
        const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                          (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
        c = keep ? c : '_';
    }
    return name;
}

Json tensorsJson(const std::vector<PartitionTensor>& tensors) {
    Json list = Json::array();
    for (const PartitionTensor& t : tensors) {
        list.push_back({{"name", t.name}, {"type", t.type}});
    }
    return list;
}

/// Device id per node for partitioning a plan. Folded shape computations cost nothing and
/// their values are embedded where they are read (see Partition), so they are left unplaced
/// and join their consumers' segments instead of splitting them.
std::vector<std::string> nodeDevices(const Graph& g, const Plan& plan, const CostTable& table) {
    std::vector<std::string> nodeDevice(g.nodes.size());
    for (std::size_t n = 0; n < g.nodes.size(); ++n) {
        if (plan.device[n] >= 0 && g.nodes[n].kind != NodeKind::ShapeComputation) {
            nodeDevice[n] = table.device(plan.device[n]).id;
        }
    }
    return nodeDevice;
}

/// Each node's variant in a plan (fp32 for nodes without one).
std::vector<Variant> planVariants(const Plan& plan, const CostTable& table) {
    std::vector<Variant> variants(plan.device.size(), Precision::Fp32);
    for (std::size_t n = 0; n < plan.variant.size(); ++n) {
        variants[n] = table.variant(plan.variant[n]);
    }
    return variants;
}

bool lowers(const std::vector<Variant>& variants) {
    return std::any_of(variants.begin(), variants.end(),
                       [](Variant p) { return p != Precision::Fp32; });
}

} // namespace

PlanPartitions partitionPlan(const ModelPartitioner& partitioner, const Plan& plan,
                             const CostTable& table, const std::string& samplesPath,
                             const std::string& what) {
    const Graph& g = partitioner.graph();
    const std::vector<std::string> devices = nodeDevices(g, plan, table);
    const std::vector<Variant> variants = planVariants(plan, table);
    PlanPartitions result;
    if (!lowers(variants)) {
        result.parts = partitioner.partition(devices);
        return result;
    }
    ActivationRanges ranges;
    const bool int8 = std::any_of(variants.begin(), variants.end(),
                                  [](Variant v) { return v.precision == Precision::Int8; });
    if (int8) {
        if (samplesPath.empty()) {
            throw InputError(what + " runs nodes in int8, whose activation scales come from the "
                                    "sample library's ranges: give --db with the library the "
                                    "search read");
        }
        ranges = newestActivationRanges(
            SampleLibrary::open(samplesPath, SampleLibrary::OpenMode::ExistingOnly), g);
    }
    auto lowered =
        std::make_shared<LoweredGraph>(lowerGraph(g, variants, int8 ? &ranges : nullptr));
    if (!lowered->calibrated) {
        throw InputError(what + " runs nodes in int8, and " + samplesPath +
                         " has no activation ranges for them (paretune profile MODEL --device "
                         "DEVICE --variants int8 measures them)");
    }
    result.parts = partitioner.partitionLowered(*lowered, devices);
    result.lowered = std::move(lowered);
    return result;
}

Json addPartitions(const PlanPartitions& plan, const Graph& g, const std::string& folder,
                   const std::string& modelPath, BundleFileMap& files) {
    const std::vector<Partition>& parts = plan.parts;
    Json entries = Json::array();
    for (std::size_t p = 0; p < parts.size(); ++p) {
        const Partition& part = parts[p];
        const std::string problem = checkOnnxModel(part.model);
        if (!problem.empty()) {
            // The importer accepts operators ONNX does not know (flagged); the checker does not.
            std::string unknown;
            for (const NodeId v : part.nodeIds) {
                const Node& node = g.nodes[static_cast<std::size_t>(plan.modelNode(v))];
                if (!node.knownOperator &&
                    unknown.find("'" + node.opType + "'") == std::string::npos) {
                    unknown += (unknown.empty() ? "'" : ", '") + node.opType + "'";
                }
            }
            if (!unknown.empty()) {
                throw InputError(modelPath + ": partition " + std::to_string(p) +
                                 " cannot be exported: it holds operators unknown at the model's "
                                 "opset (" +
                                 unknown + "), which the ONNX checker rejects");
            }
            throw std::runtime_error("partition " + std::to_string(p) +
                                     " fails the ONNX checker: " + problem);
        }
        char prefix[24];
        std::snprintf(prefix, sizeof prefix, "%02zu", p);
        const std::string file = folder + prefix + "_" + fileSafe(part.device) + ".onnx";
        files[file] = part.model;
        entries.push_back({{"index", p},
                           {"file", file},
                           {"device", part.device},
                           {"nodes", part.nodes},
                           {"inputs", tensorsJson(part.inputs)},
                           {"outputs", tensorsJson(part.outputs)}});
    }
    return entries;
}

} // namespace paretune::bundle
