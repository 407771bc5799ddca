// SPDX-License-Identifier: GPL-3.0-or-later
#include "model_partitioner.h"

#include "common/input_error.h"
#include "graph/onnx_model.h"
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

    std::vector<NodeId> runOrder(const std::vector<std::int32_t>& device,
                                 std::int32_t deviceCount) const;
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
std::vector<NodeId> ModelPartitioner::Impl::runOrder(const std::vector<std::int32_t>& device,
                                                     std::int32_t deviceCount) const {
    const Graph& g = imported.graph;
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
    const std::size_t n = g.nodes.size();
    if (nodeDevice.size() != n) {
        throw InputError("partitioning '" + g.name + "': the placement has " +
                         std::to_string(nodeDevice.size()) + " devices for " + std::to_string(n) +
                         " nodes");
    }
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

    const std::vector<NodeId> order =
        m_impl->runOrder(device, static_cast<std::int32_t>(ids.size()));
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

    const onnx::ModelProto& original = m_impl->model;
    const bool initializersAreInputs = original.ir_version() < 4;
    for (std::size_t p = 0; p < parts.size(); ++p) {
        Partition& part = parts[p];
        onnx::ModelProto model;
        model.set_ir_version(original.ir_version());
        *model.mutable_opset_import() = original.opset_import();
        *model.mutable_functions() = original.functions();
        model.set_producer_name("paretune");
        model.set_producer_version(PARETUNE_VERSION);
        model.set_domain(original.domain());
        model.set_model_version(original.model_version());
        model.set_doc_string("partition " + std::to_string(p) + " of " +
                             std::to_string(parts.size()) + " of '" + g.name + "', device " +
                             part.device);
        onnx::GraphProto& graph = *model.mutable_graph();
        graph.set_name((g.name.empty() ? std::string("model") : g.name) + "_part" +
                       std::to_string(p));

        std::vector<bool> seen(g.tensors.size(), false);
        for (const NodeId v : part.nodeIds) {
            onnx::NodeProto& node = *graph.add_node();
            node = original.graph().node(v);
            node.set_name(g.nodes[static_cast<std::size_t>(v)].name);
            for (const auto& reads : {g.nodeInputs.row(v), g.capturedInputs.row(v)}) {
                for (const TensorId t : reads) {
                    if (t == kNone || seen[static_cast<std::size_t>(t)]) {
                        continue;
                    }
                    seen[static_cast<std::size_t>(t)] = true;
                    const Tensor& tensor = g.tensors[static_cast<std::size_t>(t)];
                    if (tensor.role == TensorRole::Initializer) {
                        const auto it = m_impl->initializerIndex.find(tensor.name);
                        if (it != m_impl->initializerIndex.end()) {
                            *graph.add_initializer() = original.graph().initializer(it->second);
                            if (initializersAreInputs) {
                                *graph.add_input() = m_impl->valueInfo(tensor);
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
                    *graph.add_input() = m_impl->valueInfo(tensor);
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
                    *graph.add_output() = m_impl->valueInfo(tensor);
                    part.outputs.push_back({tensor.name, tensor.typeString()});
                }
            }
        }
        part.model = model.SerializeAsString();
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
