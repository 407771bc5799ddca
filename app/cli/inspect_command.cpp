// SPDX-License-Identifier: GPL-3.0-or-later
#include "inspect_command.h"

#include "common/input_error.h"
#include "common/json_reader.h"
#include "graph/model_fingerprint.h"
#include "graph/onnx_importer.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>

namespace paretune::cli {

namespace {

nlohmann::json tensorJson(const Tensor& t) {
    nlohmann::json shape = nlohmann::json::array();
    if (t.rankKnown) {
        for (const std::int64_t d : t.dims) {
            shape.push_back(d < 0 ? nlohmann::json(nullptr) : nlohmann::json(d));
        }
    }
    return {{"name", t.name},
            {"dtype", std::string(dtypeName(t.dtype))},
            {"shape", t.rankKnown ? shape : nlohmann::json(nullptr)}};
}

nlohmann::json tensorList(const Graph& g, std::span<const std::int32_t> ids) {
    nlohmann::json list = nlohmann::json::array();
    for (const TensorId t : ids) {
        if (t != kNone) {
            list.push_back(tensorJson(g.tensors[static_cast<std::size_t>(t)]));
        }
    }
    return list;
}

std::string humanCount(double value, const char* unit) {
    static const char* kPrefixes[] = {"", "K", "M", "G", "T", "P"};
    int p = 0;
    while (value >= 1000.0 && p < 5) {
        value /= 1000.0;
        ++p;
    }
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, p == 0 ? "%.0f %s%s" : "%.2f %s%s", value, kPrefixes[p],
                  unit);
    return buffer;
}

void printJson(const ImportResult& result) {
    const Graph& g = result.graph;
    nlohmann::json nodes = nlohmann::json::array();
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
        const auto id = static_cast<NodeId>(i);
        const Node& n = g.nodes[i];
        const OpMetrics& m = g.metrics[i];
        nodes.push_back({{"name", n.name},
                         {"op_type", n.opType},
                         {"domain", n.domain},
                         {"kind", std::string(nodeKindName(n.kind))},
                         {"known_operator", n.knownOperator},
                         {"inputs", tensorList(g, g.nodeInputs.row(id))},
                         {"outputs", tensorList(g, g.nodeOutputs.row(id))},
                         {"flops", m.flops},
                         {"bytes_read", m.bytesRead},
                         {"bytes_written", m.bytesWritten},
                         {"param_bytes", m.paramBytes},
                         {"signature", g.signatures[i]}});
    }
    nlohmann::json warnings = nlohmann::json::array();
    for (const Diagnostic& d : result.diagnostics) {
        warnings.push_back({{"code", d.code}, {"message", d.message}});
    }
    nlohmann::json doc = {{"model",
                           {{"path", g.sourcePath},
                            {"name", g.name},
                            {"fingerprint", g.fingerprint},
                            {"opset", g.opset},
                            {"ir_version", g.irVersion},
                            {"producer", g.producer},
                            {"node_count", g.nodes.size()},
                            {"compute_node_count", g.computeNodeCount()},
                            {"params", g.parameterCount()},
                            {"flops", g.totalFlops()},
                            {"flops_source", "computed from static shapes"},
                            {"unknown_shapes", g.unknownShapeCount()},
                            {"inputs", tensorList(g, g.inputs)},
                            {"outputs", tensorList(g, g.outputs)}}},
                          {"nodes", nodes},
                          {"warnings", warnings}};
    std::cout << dumpJson(doc, 2) << "\n";
}

void printHuman(const ImportResult& result, bool withNodes) {
    const Graph& g = result.graph;
    std::map<NodeKind, int> kinds;
    struct OpTotals {
        int count = 0;
        double flops = 0.0;
    };
    std::map<std::string, OpTotals> histogram;
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
        ++kinds[g.nodes[i].kind];
        OpTotals& t = histogram[g.nodes[i].opType];
        ++t.count;
        t.flops += g.metrics[i].flops;
    }
    auto listTensors = [&](const std::vector<TensorId>& ids) {
        std::string text;
        for (const TensorId t : ids) {
            const Tensor& tensor = g.tensors[static_cast<std::size_t>(t)];
            text += (text.empty() ? "" : ", ") + tensor.name + " " + tensor.typeString();
        }
        return text;
    };
    const double paramBytes = [&] {
        double bytes = 0;
        for (const OpMetrics& m : g.metrics) {
            bytes += static_cast<double>(m.paramBytes);
        }
        return bytes;
    }();
    std::printf("Model           %s\n", g.sourcePath.c_str());
    std::printf("Fingerprint     %s\n", g.fingerprint.c_str());
    std::printf("Producer        %s\n", g.producer.empty() ? "-" : g.producer.c_str());
    std::printf("Opset           %lld (IR version %lld)\n", static_cast<long long>(g.opset),
                static_cast<long long>(g.irVersion));
    std::printf("Inputs          %s\n", listTensors(g.inputs).c_str());
    std::printf("Outputs         %s\n", listTensors(g.outputs).c_str());
    std::printf(
        "Nodes           %zu (compute %d, pass-through %d, constant %d, folded shape ops %d)\n",
        g.nodes.size(), kinds[NodeKind::Compute], kinds[NodeKind::PassThrough],
        kinds[NodeKind::Constant], kinds[NodeKind::ShapeComputation]);
    std::printf("Parameters      %s (%s used by compute nodes)\n",
                humanCount(static_cast<double>(g.parameterCount()), "").c_str(),
                humanCount(paramBytes, "B").c_str());
    std::printf("FLOPs           %s (computed from static shapes, multiply-add = 2)\n",
                humanCount(g.totalFlops(), "FLOP").c_str());
    std::printf("Unknown shapes  %d\n", g.unknownShapeCount());

    std::vector<std::pair<std::string, OpTotals>> ops(histogram.begin(), histogram.end());
    std::sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) {
        return a.second.count != b.second.count ? a.second.count > b.second.count
                                                : a.first < b.first;
    });
    std::printf("\n%-24s %6s %16s\n", "Op type", "Count", "FLOPs");
    for (const auto& [op, totals] : ops) {
        std::printf("%-24s %6d %16s\n", op.c_str(), totals.count,
                    humanCount(totals.flops, "").c_str());
    }
    if (withNodes) {
        std::printf("\n%-40s %-20s %-14s %-28s %12s\n", "Node", "Op", "Kind", "Output", "FLOPs");
        for (std::size_t i = 0; i < g.nodes.size(); ++i) {
            const auto outs = g.nodeOutputs.row(static_cast<NodeId>(i));
            const std::string out = outs.empty() || outs[0] == kNone
                                        ? std::string("-")
                                        : g.tensors[static_cast<std::size_t>(outs[0])].typeString();
            std::printf("%-40s %-20s %-14s %-28s %12s\n", g.nodes[i].name.c_str(),
                        g.nodes[i].opType.c_str(),
                        std::string(nodeKindName(g.nodes[i].kind)).c_str(), out.c_str(),
                        humanCount(g.metrics[i].flops, "").c_str());
        }
    }
    for (const Diagnostic& d : result.diagnostics) {
        std::fprintf(stderr, "warning: %s: %s\n", g.sourcePath.c_str(), d.message.c_str());
    }
}

} // namespace

void runInspect(const InspectArguments& args) {
    ImportOptions options;
    for (const std::string& spec : args.inputShapes) {
        const auto eq = spec.find('=');
        if (eq == std::string::npos || eq == 0) {
            throw InputError("--input-shape " + spec +
                             ": expected NAME=DIMS, e.g. input=1x3x224x224");
        }
        options.inputShapes[spec.substr(0, eq)] = parseShapeText(spec.substr(eq + 1));
    }
    const ImportResult result = importOnnxFile(args.model, options);
    if (args.json) {
        printJson(result);
    } else {
        printHuman(result, args.nodes);
    }
}

void addInspectCommand(CLI::App& app) {
    auto args = std::make_shared<InspectArguments>();
    CLI::App* cmd = app.add_subcommand("inspect", "Import an ONNX model and summarise its graph");
    cmd->add_option("model", args->model, "ONNX model file")->required();
    cmd->add_option("--input-shape", args->inputShapes,
                    "Fix an input's shape, NAME=DIMS (e.g. input=1x3x224x224); repeatable");
    cmd->add_flag("--json", args->json, "Machine-readable output");
    cmd->add_flag("--nodes", args->nodes, "Also list every node (human output)");
    cmd->callback([args] { runInspect(*args); });
}

} // namespace paretune::cli
