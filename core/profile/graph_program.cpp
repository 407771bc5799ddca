// SPDX-License-Identifier: GPL-3.0-or-later
// What executing a graph needs, prepared once (GraphProgram), its single-device run, and the
// thread settings a device runs under.
#include "graph_program.h"

#include "common/input_error.h"
#include "graph/model_weights.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>

#include <cstring>

namespace paretune::detail {

namespace {

std::string nodeLabel(const Graph& g, NodeId id) {
    const Node& n = g.nodes[static_cast<std::size_t>(id)];
    return "node '" + n.name + "' (" + n.opType + ")";
}

/// FNV-1a of a tensor name: each made-up tensor gets its own stream of random values.
std::uint64_t nameHash(const std::string& name) {
    std::uint64_t h = 1469598103934665603ULL;
    for (const char c : name) {
        h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    }
    return h;
}

bool runsAtRunTime(const Node& n) {
    return n.kind == NodeKind::Compute || n.kind == NodeKind::PassThrough;
}

} // namespace

std::vector<at::Tensor> runStep(const Graph& graph, NodeId node,
                                const std::vector<at::Tensor>& inputs) {
    try {
        return executeNode(graph, node, inputs);
    } catch (const UnsupportedOp& e) {
        throw ExecutionError(nodeLabel(graph, node) + ": " + e.what() + " is not supported", true);
    } catch (const OpFailure& e) {
        throw ExecutionError(nodeLabel(graph, node) + ": " + e.what(), false);
    } catch (const c10::Error& e) {
        throw ExecutionError(nodeLabel(graph, node) + ": " + torchMessage(e), false);
    }
}

GraphProgram::GraphProgram(const Graph& g, const NamedTensors& given, std::uint64_t seed,
                           const ModelWeights* weights)
    : m_graph(g), m_weights(weights) {
    const std::size_t tensorCount = g.tensors.size();
    m_stepOf.assign(g.nodes.size(), -1);
    for (NodeId id : g.topologicalOrder) {
        if (runsAtRunTime(g.nodes[static_cast<std::size_t>(id)])) {
            m_stepOf[static_cast<std::size_t>(id)] = static_cast<int>(m_steps.size());
            m_steps.push_back(id);
        }
    }
    m_computed.assign(tensorCount, 0);
    for (std::size_t t = 0; t < tensorCount; ++t) {
        const Tensor& tensor = g.tensors[t];
        m_computed[t] = tensor.producer != kNone && !tensor.value &&
                        m_stepOf[static_cast<std::size_t>(tensor.producer)] >= 0;
    }

    m_fixed.resize(tensorCount);
    for (const auto& [name, value] : given) {
        const TensorId t = g.findTensor(name);
        if (t == kNone) {
            throw InputError("input '" + name + "': the graph has no tensor of that name");
        }
        if (m_computed[static_cast<std::size_t>(t)]) {
            throw InputError("input '" + name +
                             "' is computed by the graph; only graph inputs, initializers and "
                             "constants can be given");
        }
        const Tensor& tensor = g.tensors[static_cast<std::size_t>(t)];
        if (tensor.shapeKnown() && !tensor.sequence && tensor.dims != value.dims) {
            throw InputError("input '" + name + "' has shape " + dimsText(value.dims) +
                             ", the graph says " + dimsText(tensor.dims));
        }
        try {
            HostTensor typed = value;
            if (tensor.dtype != DType::Undefined) {
                m_fixed[static_cast<std::size_t>(t)] =
                    fromHost(typed).to(scalarTypeOf(tensor.dtype));
            } else {
                m_fixed[static_cast<std::size_t>(t)] = fromHost(typed);
            }
        } catch (const UnsupportedOp& e) {
            throw InputError("input '" + name + "': " + e.what() + " is not supported");
        } catch (const OpFailure& e) {
            throw InputError("input '" + name + "': " + e.what());
        }
    }

    m_consumers.resize(tensorCount);
    m_computedInputs.assign(m_steps.size(), 0);
    std::vector<int> lastUse(tensorCount, -1);
    for (std::size_t step = 0; step < m_steps.size(); ++step) {
        const NodeId id = m_steps[step];
        const auto ins = g.nodeInputs.row(id);
        for (std::size_t i = 0; i < ins.size(); ++i) {
            const TensorId t = ins[i];
            if (t == kNone) {
                continue;
            }
            const auto ti = static_cast<std::size_t>(t);
            lastUse[ti] = static_cast<int>(step);
            auto& readers = m_consumers[ti];
            if (readers.empty() || readers.back() != static_cast<int>(step)) {
                readers.push_back(static_cast<int>(step));
                m_computedInputs[step] += m_computed[ti];
            }
            if (!m_computed[ti] && !m_fixed[ti].defined()) {
                // A constant, a graph input or a large weight: made once; the first reader
                // decides the valid range (indices, divisors).
                try {
                    m_fixed[ti] = convertedOnce(t, seed);
                    if (!m_fixed[ti].defined()) {
                        m_fixed[ti] = givenWeight(t);
                    }
                    if (!m_fixed[ti].defined()) {
                        at::Generator generator =
                            at::detail::createCPUGenerator(seed ^ nameHash(g.tensors[ti].name));
                        m_fixed[ti] = makeInput(g, id, static_cast<int>(i), generator);
                    }
                } catch (const UnsupportedOp& e) {
                    throw ExecutionError(nodeLabel(g, id) + ": " + e.what() + " is not supported",
                                         true);
                } catch (const OpFailure& e) {
                    throw ExecutionError(nodeLabel(g, id) + ": " + e.what(), false);
                }
            }
        }
    }
    for (TensorId t : g.outputs) {
        const auto ti = static_cast<std::size_t>(t);
        if (m_computed[ti] || m_fixed[ti].defined()) {
            continue;
        }
        if (g.tensors[ti].value) {
            m_fixed[ti] = tensorFromConstant(*g.tensors[ti].value);
        } else {
            throw ExecutionError(
                "graph output '" + g.tensors[ti].name + "' is neither computed nor given", false);
        }
    }
    m_folded.resize(m_steps.size());
    for (std::size_t step = 0; step < m_steps.size(); ++step) {
        std::vector<at::Tensor> fixedInputs;
        for (const TensorId t : g.nodeInputs.row(m_steps[step])) {
            fixedInputs.push_back(t == kNone || m_computed[static_cast<std::size_t>(t)]
                                      ? at::Tensor()
                                      : m_fixed[static_cast<std::size_t>(t)]);
        }
        try {
            m_folded[step] = foldedInputs(g, m_steps[step], fixedInputs);
        } catch (const c10::Error& e) {
            throw ExecutionError(nodeLabel(g, m_steps[step]) + ": " + torchMessage(e), false);
        }
    }
    m_release.resize(m_steps.size());
    for (std::size_t t = 0; t < tensorCount; ++t) {
        if (lastUse[t] >= 0 && m_computed[t] && !g.tensors[t].graphOutput) {
            m_release[static_cast<std::size_t>(lastUse[t])].push_back(static_cast<TensorId>(t));
        }
    }
}

at::Tensor GraphProgram::givenWeight(TensorId t) const {
    const Tensor& tensor = m_graph.tensors[static_cast<std::size_t>(t)];
    if (m_weights == nullptr || tensor.role != TensorRole::Initializer) {
        return {};
    }
    const WeightBytes* weight = m_weights->find(tensor);
    if (weight == nullptr) {
        return {};
    }
    at::Tensor value =
        at::empty(weight->dims, at::TensorOptions().dtype(scalarTypeOf(weight->dtype)));
    if (static_cast<std::size_t>(value.nbytes()) != weight->bytes.size()) {
        return {};
    }
    if (weight->bytes.empty()) {
        return value; // no elements: nothing to copy (and no pointer to copy through)
    }
    std::memcpy(value.data_ptr(), weight->bytes.data(), weight->bytes.size());
    return value;
}

at::Tensor GraphProgram::convertedOnce(TensorId t, std::uint64_t seed) {
    const Graph& g = m_graph;
    const NodeId producer = g.tensors[static_cast<std::size_t>(t)].producer;
    if (producer == kNone || g.tensors[static_cast<std::size_t>(t)].value ||
        g.nodes[static_cast<std::size_t>(producer)].kind != NodeKind::Constant ||
        g.nodeInputs.row(producer).empty()) {
        return {};
    }
    std::vector<at::Tensor> inputs;
    const auto ins = g.nodeInputs.row(producer);
    for (std::size_t i = 0; i < ins.size(); ++i) {
        const TensorId in = ins[i];
        if (in == kNone) {
            inputs.emplace_back();
            continue;
        }
        at::Tensor& value = m_fixed[static_cast<std::size_t>(in)];
        if (!value.defined()) {
            value = convertedOnce(in, seed); // a chain of conversions (an int8 weight's scales)
        }
        if (!value.defined()) {
            value = givenWeight(in);
        }
        if (!value.defined()) {
            // Seeded by the input's name, as its other readers would make it: a weight converted
            // for a lowered node holds the same values as in the model.
            at::Generator generator = at::detail::createCPUGenerator(
                seed ^ nameHash(g.tensors[static_cast<std::size_t>(in)].name));
            value = makeInput(g, producer, static_cast<int>(i), generator);
        }
        inputs.push_back(value);
    }
    std::vector<at::Tensor> outs = runStep(g, producer, inputs);
    const auto outIds = g.nodeOutputs.row(producer);
    for (std::size_t k = 0; k < outIds.size() && k < outs.size(); ++k) {
        if (outIds[k] == t) {
            return outs[k];
        }
    }
    return {};
}

void GraphProgram::applyFolded(int step, std::vector<at::Tensor>& inputs) const {
    for (const auto& [index, value] : m_folded[static_cast<std::size_t>(step)]) {
        if (static_cast<std::size_t>(index) < inputs.size()) {
            inputs[static_cast<std::size_t>(index)] = value;
        }
    }
}

void GraphProgram::moveTo(const c10::Device& device) {
    for (at::Tensor& t : m_fixed) {
        if (t.defined() && t.device() != device) {
            t = t.to(device);
        }
    }
    for (auto& folded : m_folded) {
        for (auto& [index, value] : folded) {
            if (value.defined() && value.device() != device) {
                value = value.to(device);
            }
        }
    }
}

std::vector<at::Tensor> GraphProgram::runSequential() const {
    std::vector<at::Tensor> live = m_fixed;
    std::vector<at::Tensor> inputs;
    for (std::size_t step = 0; step < m_steps.size(); ++step) {
        const NodeId id = m_steps[step];
        inputs.clear();
        for (TensorId t : m_graph.nodeInputs.row(id)) {
            inputs.push_back(t == kNone ? at::Tensor() : live[static_cast<std::size_t>(t)]);
        }
        applyFolded(static_cast<int>(step), inputs);
        std::vector<at::Tensor> outs = runStep(m_graph, id, inputs);
        const auto ids = m_graph.nodeOutputs.row(id);
        for (std::size_t i = 0; i < ids.size() && i < outs.size(); ++i) {
            if (ids[i] != kNone && computed(ids[i])) {
                live[static_cast<std::size_t>(ids[i])] = std::move(outs[i]);
            }
        }
        for (TensorId t : m_release[step]) {
            live[static_cast<std::size_t>(t)].reset();
        }
    }
    std::vector<at::Tensor> outputs;
    for (TensorId t : m_graph.outputs) {
        outputs.push_back(live[static_cast<std::size_t>(t)]);
    }
    return outputs;
}

NamedTensors GraphProgram::outputsByName(const std::vector<at::Tensor>& values) const {
    NamedTensors named;
    for (std::size_t i = 0; i < m_graph.outputs.size() && i < values.size(); ++i) {
        named[m_graph.tensors[static_cast<std::size_t>(m_graph.outputs[i])].name] =
            toHost(values[i]);
    }
    return named;
}

ThreadScope::ThreadScope(int threads, const std::vector<int>& cpus, bool blasToo)
    : m_affinity(cpus) {
    if (threads < 1) {
        throw InputError("profiling: thread count " + std::to_string(threads) + " is not positive");
    }
    if (blasToo) {
        m_blas.emplace(threads);
    }
    m_previous = at::get_num_threads();
    at::set_num_threads(threads);
    if (threads >= 2 && cpus.size() == static_cast<std::size_t>(threads)) {
        m_team.emplace(cpus);
    }
}

ThreadScope::~ThreadScope() {
    m_team.reset(); // with the scope's thread count still set
    at::set_num_threads(m_previous);
}

} // namespace paretune::detail
