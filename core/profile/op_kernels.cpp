// SPDX-License-Identifier: GPL-3.0-or-later
// ONNX operator dispatch: the table of kernels by operator type, filled by the operator
// families (op_kernels_<family>.cpp), and running a node with it.
#include "cpu_affinity.h"
#include "op_kernel_context.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <optional>

namespace paretune::detail {
namespace {

const KernelTable& kernels() {
    static const KernelTable table = [] {
        KernelTable t;
        addElementwiseKernels(t);
        addMatmulKernels(t);
        addReductionKernels(t);
        addShapeKernels(t);
        addSpatialKernels(t);
        addFusedKernels(t);
        addQuantizedKernels(t);
        return t;
    }();
    return table;
}

/// A node's own intra-op threads (Node::threads, a variant's) for its run: OpenMP's in the
/// calling thread (LibTorch's parallel regions and oneDNN follow it) and the BLAS's, as they
/// were after it. Without an OpenMP runtime, LibTorch's own setting.
class NodeThreads {
public:
    explicit NodeThreads(int threads) : m_openMp(threads), m_blas(threads) {
        if (!ScopedOpenMpThreads::available()) {
            m_previous = at::get_num_threads();
            at::set_num_threads(threads);
        }
    }
    ~NodeThreads() {
        if (m_previous > 0) {
            at::set_num_threads(m_previous);
        }
    }
    NodeThreads(const NodeThreads&) = delete;
    NodeThreads& operator=(const NodeThreads&) = delete;

private:
    ScopedOpenMpThreads m_openMp;
    ScopedBlasThreads m_blas;
    int m_previous = 0;
};

} // namespace

std::string kernelKey(const Node& node) {
    return node.domain.empty() || node.domain == "ai.onnx" ? node.opType
                                                           : node.domain + "::" + node.opType;
}

bool isSupportedOp(std::string_view opType) {
    return kernels().count(std::string(opType)) != 0;
}

std::vector<std::string> supportedOpList() {
    std::vector<std::string> ops;
    for (const auto& entry : kernels()) {
        if (entry.first.find("::") == std::string::npos) { // ONNX operators, not fused nodes
            ops.push_back(entry.first);
        }
    }
    std::sort(ops.begin(), ops.end());
    return ops;
}

std::vector<at::Tensor> executeNode(const Graph& graph, NodeId id,
                                    const std::vector<at::Tensor>& inputs) {
    const Node& node = graph.nodes[static_cast<std::size_t>(id)];
    const auto& table = kernels();
    const auto it = table.find(kernelKey(node));
    if (it == table.end()) {
        throw UnsupportedOp("operator '" + kernelKey(node) + "'");
    }
    const Context c{graph, id, node, inputs};
    std::optional<NodeThreads> threads;
    if (node.threads > 0) {
        threads.emplace(node.threads);
    }
    std::vector<at::Tensor> outs = it->second(c);
    const auto count = static_cast<std::size_t>(c.outputCount());
    outs.resize(std::max(count, std::size_t{1}));
    for (std::size_t i = 0; i < count; ++i) {
        if (graph.nodeOutputs.row(id)[i] == kNone) {
            outs[i] = at::Tensor();
        }
    }
    outs.resize(count);
    return outs;
}

} // namespace paretune::detail
