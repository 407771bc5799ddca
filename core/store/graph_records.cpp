// SPDX-License-Identifier: GPL-3.0-or-later
#include "graph_records.h"

#include "device/device.h"
#include "device/device_fingerprint.h"
#include "graph/graph.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <set>

namespace paretune {

namespace {

nlohmann::json tensorShapeJson(const Graph& graph, TensorId id) {
    if (id == kNone) {
        return nullptr;
    }
    const Tensor& t = graph.tensors[static_cast<std::size_t>(id)];
    auto dimsJson = [](const std::vector<std::int64_t>& dims) {
        nlohmann::json list = nlohmann::json::array();
        for (const std::int64_t d : dims) {
            list.push_back(d < 0 ? nlohmann::json(nullptr) : nlohmann::json(d));
        }
        return list;
    };
    nlohmann::json entry = {{"dtype", std::string(dtypeName(t.dtype))}};
    if (t.sequence) {
        nlohmann::json elements = nullptr;
        if (t.sequenceKnown) {
            elements = nlohmann::json::array();
            for (const auto& dims : t.elementDims) {
                elements.push_back(dimsJson(dims));
            }
        }
        entry["sequence"] = elements;
    } else {
        entry["shape"] = t.rankKnown ? dimsJson(t.dims) : nlohmann::json(nullptr);
    }
    return entry;
}

nlohmann::json shapeListJson(const Graph& graph, std::span<const std::int32_t> ids) {
    nlohmann::json list = nlohmann::json::array();
    for (const TensorId t : ids) {
        list.push_back(tensorShapeJson(graph, t));
    }
    return list;
}

std::string typeList(const Graph& graph, std::span<const std::int32_t> ids) {
    std::string text;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        text += i ? "," : "";
        text += ids[i] == kNone ? std::string("none")
                                : graph.tensors[static_cast<std::size_t>(ids[i])].typeString();
    }
    return text;
}

} // namespace

ModelRecord modelRecordOf(const Graph& graph) {
    ModelRecord record;
    record.fingerprint = graph.fingerprint;
    record.name = graph.name;
    if (record.name.empty() && !graph.sourcePath.empty()) {
        record.name = std::filesystem::path(graph.sourcePath).stem().string();
    }
    record.sourcePath = graph.sourcePath;
    record.nodeCount = static_cast<std::int64_t>(graph.nodes.size());
    return record;
}

std::vector<SignatureRecord> signatureRecordsOf(const Graph& graph) {
    std::vector<SignatureRecord> records;
    std::set<std::string> seen;
    for (std::size_t n = 0; n < graph.nodes.size(); ++n) {
        const Node& node = graph.nodes[n];
        if (node.kind != NodeKind::Compute || !seen.insert(graph.signatures[n]).second) {
            continue;
        }
        const auto id = static_cast<NodeId>(n);
        nlohmann::json attrs = nlohmann::json::object();
        for (const Attribute& a : node.attributes) {
            const std::size_t eq = a.canonical.find('=');
            attrs[a.name] = eq == std::string::npos ? a.canonical : a.canonical.substr(eq + 1);
        }
        const nlohmann::json shapes = {
            {"inputs", shapeListJson(graph, graph.nodeInputs.row(id))},
            {"outputs", shapeListJson(graph, graph.nodeOutputs.row(id))}};
        SignatureRecord record;
        record.signature = graph.signatures[n];
        record.opType = node.opType;
        record.attrsJson = attrs.dump();
        record.shapesJson = shapes.dump();
        const OpMetrics& m = graph.metrics[n];
        record.flops = m.flops;
        record.bytes = m.bytesRead + m.bytesWritten;
        records.push_back(std::move(record));
    }
    return records;
}

std::string shapeTupleOf(const Graph& graph, std::int32_t node) {
    return typeList(graph, graph.nodeInputs.row(node)) + "->" +
           typeList(graph, graph.nodeOutputs.row(node));
}

Sample sampleFor(const Graph& graph, std::int32_t node) {
    const Node& n = graph.nodes[static_cast<std::size_t>(node)];
    Sample sample;
    sample.modelFingerprint = graph.fingerprint;
    sample.opSignature = graph.signatures[static_cast<std::size_t>(node)];
    nlohmann::json meta = {{"node", n.name}, {"op_type", n.opType}};
    if (!n.domain.empty()) {
        meta["domain"] = n.domain;
    }
    sample.opMeta = meta.dump();
    sample.shapeTuple = shapeTupleOf(graph, node);
    sample.opType = n.opType;
    return sample;
}

DeviceRecord deviceRecordOf(const Device& device) {
    const SoftwareStack& software = softwareStack();
    DeviceRecord record;
    record.fingerprint = deviceFingerprint(device);
    record.kind = device.kind;
    record.name = device.name;
    record.specJson = deviceIdentity(device, software).dump();
    record.softwareJson = nlohmann::json{
        {"compiler", software.compiler},
        {"torch", software.torchVersion},
        {"blas",
         software.blas}}.dump();
    return record;
}

} // namespace paretune
