// SPDX-License-Identifier: GPL-3.0-or-later
#include "model_partitioner.h"

#include "common/input_error.h"
#include "graph/onnx_model.h"
#include "graph/precision.h"
#include "paretune/config.h"

#include <onnx/checker.h>

#include <algorithm>
#include <functional>
#include <queue>
#include <unordered_map>

namespace paretune {

namespace {

onnx::TypeProto typeProtoOf(const Tensor& tensor) {
    onnx::TypeProto type;
    onnx::TypeProto_Tensor* element =
        tensor.sequence ? type.mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()
                        : type.mutable_tensor_type();
    element->set_elem_type(static_cast<std::int32_t>(tensor.dtype));
    if (!tensor.sequence && tensor.rankKnown) {
        auto* shape = element->mutable_shape();
        for (const std::int64_t d : tensor.dims) {
            auto* dim = shape->add_dim();
            if (d >= 0) {
                dim->set_dim_value(d);
            }
        }
    }
    return type;
}

/// A tensor another partition produces whose value the importer computed (a Constant node's
/// integer output, a folded shape computation: Reshape targets, Slice bounds). A partition that
/// reads one holds it as an initializer rather than an input, so its own shapes stay static when
/// it is imported alone. Floating-point values are left as inputs (they would change type).
bool foldedConstant(const Graph& g, const Tensor& tensor) {
    if (tensor.value == nullptr || tensor.producer == kNone || tensor.sequence ||
        !tensor.value->holdsIntegers()) {
        return false;
    }
    const NodeKind kind = g.nodes[static_cast<std::size_t>(tensor.producer)].kind;
    return kind == NodeKind::Constant || kind == NodeKind::ShapeComputation;
}

/// Adds an opset import (version 1) for a node's domain that the model does not import yet:
/// Paretune's own operators (ai.paretune::NhwcConv of a plan's fp32-nhwc nodes).
void declareDomain(onnx::ModelProto& model, const std::string& domain) {
    if (domain.empty() || domain == "ai.onnx") {
        return;
    }
    for (const onnx::OperatorSetIdProto& set : model.opset_import()) {
        if (set.domain() == domain) {
            return;
        }
    }
    onnx::OperatorSetIdProto& set = *model.add_opset_import();
    set.set_domain(domain);
    set.set_version(1);
}

/// Sets the default domain's opset of a model to `version` (adding the entry when missing).
void raiseDefaultOpset(onnx::ModelProto& model, std::int64_t version) {
    for (onnx::OperatorSetIdProto& set : *model.mutable_opset_import()) {
        if (set.domain().empty() || set.domain() == "ai.onnx") {
            set.set_version(std::max(set.version(), version));
            return;
        }
    }
    onnx::OperatorSetIdProto& set = *model.add_opset_import();
    set.set_domain("");
    set.set_version(version);
}

} // namespace

struct ModelPartitioner::Impl {
    ImportResult imported;
    onnx::ModelProto model;
    std::unordered_map<std::string, int> initializerIndex;
    std::unordered_map<std::string, const onnx::ValueInfoProto*> declaredTypes;

    /// The value info of a tensor crossing a partition boundary: the Graph's type (static
    /// after import), else what the file declares.
    onnx::ValueInfoProto valueInfo(const Tensor& tensor) const {
        onnx::ValueInfoProto info;
        info.set_name(tensor.name);
        if (tensor.dtype != DType::Undefined) {
            *info.mutable_type() = typeProtoOf(tensor);
        } else if (const auto it = declaredTypes.find(tensor.name); it != declaredTypes.end()) {
            *info.mutable_type() = it->second->type();
        }
        return info;
    }

    std::vector<NodeId> runOrder(const Graph& g, const std::vector<std::int32_t>& device,
                                 std::int32_t deviceCount) const;

    /// How a partition writes node v of the graph being split.
    using NodeWriter = std::function<onnx::NodeProto(NodeId)>;
    /// The partitions of `g` (the model's graph or a lowered one) for a device id per node;
    /// `opset` > 0 raises the default domain's opset of every partition to it.
    std::vector<Partition> split(const Graph& g, std::span<const std::string> nodeDevice,
                                 const NodeWriter& writeNode, std::int64_t opset) const;
};

ModelPartitioner::ModelPartitioner(const std::string& modelPath, const ImportOptions& options)
    : m_impl(std::make_unique<Impl>()) {
    m_impl->imported = importOnnxFile(modelPath, options, m_impl->model);
    indexModel();
}

ModelPartitioner::ModelPartitioner(const ModelBytes& model, const ImportOptions& options)
    : m_impl(std::make_unique<Impl>()) {
    m_impl->imported = importOnnxBytes(model.bytes, options, model.displayName, m_impl->model);
    indexModel();
}

void ModelPartitioner::indexModel() {
    const onnx::GraphProto& g = m_impl->model.graph();
    for (int i = 0; i < g.initializer_size(); ++i) {
        m_impl->initializerIndex.emplace(g.initializer(i).name(), i);
    }
    for (const auto* list : {&g.input(), &g.value_info(), &g.output()}) {
        for (const onnx::ValueInfoProto& info : *list) {
            m_impl->declaredTypes.emplace(info.name(), &info);
        }
    }
}

ModelPartitioner::~ModelPartitioner() = default;

const Graph& ModelPartitioner::graph() const {
    return m_impl->imported.graph;
}

const Diagnostics& ModelPartitioner::diagnostics() const {
    return m_impl->imported.diagnostics;
}

// List scheduling on one virtual processor: the open device keeps running while it has a ready
// node (ready nodes in topological position), then the device whose ready node comes first.
std::vector<NodeId> ModelPartitioner::Impl::runOrder(const Graph& g,
                                                     const std::vector<std::int32_t>& device,
                                                     std::int32_t deviceCount) const {
    const std::size_t n = g.nodes.size();
    std::vector<std::int32_t> position(n, 0);
    for (std::size_t k = 0; k < g.topologicalOrder.size(); ++k) {
        position[static_cast<std::size_t>(g.topologicalOrder[k])] = static_cast<std::int32_t>(k);
    }
    auto later = [&](NodeId a, NodeId b) {
        return position[static_cast<std::size_t>(a)] > position[static_cast<std::size_t>(b)];
    };
    using ReadyQueue = std::priority_queue<NodeId, std::vector<NodeId>, decltype(later)>;
    std::vector<ReadyQueue> ready(static_cast<std::size_t>(deviceCount), ReadyQueue(later));
    std::vector<std::int32_t> pending(n, 0);
    for (std::size_t v = 0; v < n; ++v) {
        pending[v] = static_cast<std::int32_t>(g.predecessors.row(static_cast<NodeId>(v)).size());
        if (pending[v] == 0) {
            ready[static_cast<std::size_t>(device[v])].push(static_cast<NodeId>(v));
        }
    }
    std::vector<NodeId> order;
    order.reserve(n);
    std::int32_t open = n == 0 ? 0 : device[static_cast<std::size_t>(g.topologicalOrder.front())];
    while (order.size() < n) {
        if (ready[static_cast<std::size_t>(open)].empty()) {
            std::int32_t best = -1;
            for (std::int32_t d = 0; d < deviceCount; ++d) {
                const ReadyQueue& queue = ready[static_cast<std::size_t>(d)];
                if (!queue.empty() &&
                    (best < 0 || later(ready[static_cast<std::size_t>(best)].top(), queue.top()))) {
                    best = d;
                }
            }
            open = best;
        }
        const NodeId v = ready[static_cast<std::size_t>(open)].top();
        ready[static_cast<std::size_t>(open)].pop();
        order.push_back(v);
        for (const NodeId s : g.successors.row(v)) {
            if (--pending[static_cast<std::size_t>(s)] == 0) {
                ready[static_cast<std::size_t>(device[static_cast<std::size_t>(s)])].push(s);
            }
        }
    }
    return order;
}

std::vector<Partition> ModelPartitioner::partition(std::span<const std::string> nodeDevice) const {
    const Graph& g = m_impl->imported.graph;
    if (nodeDevice.size() != g.nodes.size()) {
        throw InputError("partitioning '" + g.name + "': the placement has " +
                         std::to_string(nodeDevice.size()) + " devices for " +
                         std::to_string(g.nodes.size()) + " nodes");
    }
    const onnx::GraphProto& file = m_impl->model.graph();
    return m_impl->split(
        g, nodeDevice,
        [&](NodeId v) {
            onnx::NodeProto node = file.node(v);
            node.set_name(g.nodes[static_cast<std::size_t>(v)].name);
            return node;
        },
        0);
}

std::vector<Partition>
ModelPartitioner::partitionLowered(const LoweredGraph& lowered,
                                   std::span<const std::string> nodeDevice) const {
    const Graph& model = m_impl->imported.graph;
    const Graph& g = lowered.graph;
    if (nodeDevice.size() != model.nodes.size() || lowered.parts.size() != model.nodes.size() ||
        lowered.origin.size() != g.nodes.size()) {
        throw InputError("partitioning '" + model.name + "': the placement has " +
                         std::to_string(nodeDevice.size()) + " devices and the lowered graph " +
                         std::to_string(lowered.parts.size()) + " node parts for " +
                         std::to_string(model.nodes.size()) + " nodes");
    }
    const bool lowers = std::any_of(lowered.variants.begin(), lowered.variants.end(),
                                    [](Variant v) { return v != Precision::Fp32; });
    if (lowers && g.opset > model.opset) {
        throw InputError("'" + model.name + "' is an opset-" + std::to_string(model.opset) +
                         " model; the plan's variants are written with opset-" +
                         std::to_string(g.opset) +
                         " operators, which would change the meaning of its other nodes: "
                         "export the model at opset " +
                         std::to_string(g.opset) + " or later");
    }
    std::vector<std::string> device(g.nodes.size());
    for (std::size_t x = 0; x < g.nodes.size(); ++x) {
        if (g.nodes[x].kind != NodeKind::Constant) {
            device[x] = nodeDevice[static_cast<std::size_t>(lowered.origin[x])];
        }
    }
    const onnx::GraphProto& file = m_impl->model.graph();
    auto tensorName = [&](TensorId t) {
        return t == kNone ? std::string() : g.tensors[static_cast<std::size_t>(t)].name;
    };
    return m_impl->split(
        g, device,
        [&](NodeId x) {
            const Node& node = g.nodes[static_cast<std::size_t>(x)];
            const NodeId origin = lowered.origin[static_cast<std::size_t>(x)];
            const Node& original = model.nodes[static_cast<std::size_t>(origin)];
            onnx::NodeProto proto;
            if (node.name == original.name && node.opType == original.opType &&
                node.domain == original.domain) {
                // The model's node, or it in another precision: its attributes (subgraphs
                // included) as the file has them, its tensors the lowered graph's.
                proto = file.node(origin);
                proto.clear_input();
                proto.clear_output();
            } else {
                proto.set_op_type(node.opType);
                proto.set_domain(node.domain);
                for (const Attribute& a : node.attributes) {
                    *proto.add_attribute() = encodeAttribute(a);
                }
            }
            proto.set_name(node.name);
            for (const TensorId t : g.nodeInputs.row(x)) {
                proto.add_input(tensorName(t));
            }
            for (const TensorId t : g.nodeOutputs.row(x)) {
                proto.add_output(tensorName(t));
            }
            return proto;
        },
        g.opset);
}

std::vector<Partition> ModelPartitioner::Impl::split(const Graph& g,
                                                     std::span<const std::string> nodeDevice,
                                                     const NodeWriter& writeNode,
                                                     std::int64_t opset) const {
    const std::size_t n = g.nodes.size();
    // Device indices; unplaced nodes take their first consumer's device, else the device of the
    // nearest placed node before them, else after them.
    std::vector<std::string> ids;
    std::vector<std::int32_t> device(n, -1);
    for (std::size_t v = 0; v < n; ++v) {
        if (nodeDevice[v].empty()) {
            continue;
        }
        const auto it = std::find(ids.begin(), ids.end(), nodeDevice[v]);
        device[v] = static_cast<std::int32_t>(it - ids.begin());
        if (it == ids.end()) {
            ids.push_back(nodeDevice[v]);
        }
    }
    if (ids.empty()) {
        throw InputError("partitioning '" + g.name + "': the placement puts no node on a device");
    }
    for (auto k = g.topologicalOrder.rbegin(); k != g.topologicalOrder.rend(); ++k) {
        std::int32_t& d = device[static_cast<std::size_t>(*k)];
        for (const NodeId s : g.successors.row(*k)) {
            if (d < 0) {
                d = device[static_cast<std::size_t>(s)];
            }
        }
    }
    std::int32_t previous = -1;
    for (const NodeId v : g.topologicalOrder) {
        std::int32_t& d = device[static_cast<std::size_t>(v)];
        d = d < 0 ? previous : d;
        previous = d;
    }
    for (auto k = g.topologicalOrder.rbegin(); k != g.topologicalOrder.rend(); ++k) {
        std::int32_t& d = device[static_cast<std::size_t>(*k)];
        d = d < 0 ? previous : d;
        previous = d;
    }

    const std::vector<NodeId> order = runOrder(g, device, static_cast<std::int32_t>(ids.size()));
    std::vector<Partition> parts;
    std::vector<std::int32_t> partOf(n, -1);
    for (const NodeId v : order) {
        const std::int32_t d = device[static_cast<std::size_t>(v)];
        if (parts.empty() || parts.back().device != ids[static_cast<std::size_t>(d)]) {
            parts.emplace_back();
            parts.back().device = ids[static_cast<std::size_t>(d)];
        }
        parts.back().nodeIds.push_back(v);
        parts.back().nodes.push_back(g.nodes[static_cast<std::size_t>(v)].name);
        partOf[static_cast<std::size_t>(v)] = static_cast<std::int32_t>(parts.size() - 1);
    }

    const onnx::ModelProto& original = model;
    const bool initializersAreInputs = original.ir_version() < 4;
    for (std::size_t p = 0; p < parts.size(); ++p) {
        Partition& part = parts[p];
        onnx::ModelProto file;
        file.set_ir_version(original.ir_version());
        *file.mutable_opset_import() = original.opset_import();
        if (opset > 0) {
            raiseDefaultOpset(file, opset);
        }
        *file.mutable_functions() = original.functions();
        file.set_producer_name("paretune");
        file.set_producer_version(PARETUNE_VERSION);
        file.set_domain(original.domain());
        file.set_model_version(original.model_version());
        file.set_doc_string("partition " + std::to_string(p) + " of " +
                            std::to_string(parts.size()) + " of '" + g.name + "', device " +
                            part.device);
        onnx::GraphProto& graph = *file.mutable_graph();
        graph.set_name((g.name.empty() ? std::string("model") : g.name) + "_part" +
                       std::to_string(p));

        std::vector<bool> seen(g.tensors.size(), false);
        for (const NodeId v : part.nodeIds) {
            *graph.add_node() = writeNode(v);
            declareDomain(file, graph.node(graph.node_size() - 1).domain());
            for (const auto& reads : {g.nodeInputs.row(v), g.capturedInputs.row(v)}) {
                for (const TensorId t : reads) {
                    if (t == kNone || seen[static_cast<std::size_t>(t)]) {
                        continue;
                    }
                    seen[static_cast<std::size_t>(t)] = true;
                    const Tensor& tensor = g.tensors[static_cast<std::size_t>(t)];
                    if (tensor.role == TensorRole::Initializer) {
                        // The file's initializer; else one the engine made (a lowered graph's
                        // scales and zero points), which the graph holds the value of.
                        const auto it = initializerIndex.find(tensor.name);
                        const bool own = it != initializerIndex.end();
                        if (own || tensor.value != nullptr) {
                            *graph.add_initializer() =
                                own ? original.graph().initializer(it->second)
                                    : encodeConstantTensor(tensor.name, *tensor.value);
                            if (initializersAreInputs) {
                                *graph.add_input() = valueInfo(tensor);
                            }
                        }
                        continue;
                    }
                    if (tensor.producer != kNone &&
                        partOf[static_cast<std::size_t>(tensor.producer)] ==
                            static_cast<std::int32_t>(p)) {
                        continue;
                    }
                    if (foldedConstant(g, tensor)) {
                        *graph.add_initializer() = encodeConstantTensor(tensor.name, *tensor.value);
                        continue;
                    }
                    *graph.add_input() = valueInfo(tensor);
                    part.inputs.push_back({tensor.name, tensor.typeString()});
                }
            }
        }
        for (const NodeId v : part.nodeIds) {
            for (const TensorId t : g.nodeOutputs.row(v)) {
                if (t == kNone) {
                    continue;
                }
                const Tensor& tensor = g.tensors[static_cast<std::size_t>(t)];
                bool leaves = tensor.graphOutput;
                for (const NodeId c : g.tensorConsumers.row(t)) {
                    leaves = leaves ||
                             partOf[static_cast<std::size_t>(c)] != static_cast<std::int32_t>(p);
                }
                if (leaves) {
                    *graph.add_output() = valueInfo(tensor);
                    part.outputs.push_back({tensor.name, tensor.typeString()});
                }
            }
        }
        part.model = file.SerializeAsString();
    }
    return parts;
}

std::string checkOnnxModel(const std::string& serializedModel) {
    onnx::ModelProto model;
    if (serializedModel.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()) ||
        !model.ParseFromArray(serializedModel.data(), static_cast<int>(serializedModel.size()))) {
        return "not a valid ONNX model (the protobuf data is truncated or corrupt)";
    }
    try {
        onnx::checker::check_model(model);
    } catch (const std::exception& error) {
        std::string message = error.what();
        if (const auto cut = message.find("\n\n==>"); cut != std::string::npos) {
            message.erase(cut);
        }
        return message;
    }
    return {};
}

} // namespace paretune
