// SPDX-License-Identifier: GPL-3.0-or-later
// Simulator: the conversions between plans and genomes (columns of devices and variants), and a
// genome's estimated deviation with the limit on it.
#include "simulator.h"

#include "common/input_error.h"

#include <cmath>
#include <string>

namespace paretune {

namespace {

template <typename T> const T& at(const std::vector<T>& v, std::int32_t i) {
    return v[static_cast<std::size_t>(i)];
}
template <typename T> T& at(std::vector<T>& v, std::int32_t i) {
    return v[static_cast<std::size_t>(i)];
}

} // namespace

void Simulator::setDeviationLimit(double pct) {
    if (std::isnan(pct) || pct < 0.0) {
        throw InputError("the limit on the estimated output deviation must be 0 % or more, got " +
                         std::to_string(pct));
    }
    m_deviationLimit = pct;
}

double Simulator::deviationOf(const std::uint8_t* genome) const {
    if (m_deviation.empty()) {
        return 0.0;
    }
    const double* const row = m_deviation.data();
    const auto K = static_cast<std::size_t>(m_columnCount);
    // Each lowered node's rounding moves the outputs independently of the others': their
    // deviations add as variances (measured on ResNet-18 in bf16: the root of the sum of squares
    // 0.42 %, the plain sum 1.49 %, the real deviation 0.39 %).
    double squares = 0.0;
    for (std::size_t ci = 0; ci < m_computeNodes.size(); ++ci) {
        const double d = row[ci * K + genome[ci]];
        squares += d * d;
    }
    return std::sqrt(squares);
}

std::vector<std::uint8_t> Simulator::genomeOf(const Plan& plan) const {
    if (plan.device.size() != m_graph.nodes.size()) {
        throw InputError("plan has " + std::to_string(plan.device.size()) +
                         " device entries, the graph has " + std::to_string(m_graph.nodes.size()) +
                         " nodes");
    }
    if (!plan.variant.empty() && plan.variant.size() != m_graph.nodes.size()) {
        throw InputError("plan has " + std::to_string(plan.variant.size()) +
                         " variant entries, the graph has " + std::to_string(m_graph.nodes.size()) +
                         " nodes");
    }
    const std::int32_t variants = variantCount();
    std::vector<std::uint8_t> genome(m_computeNodes.size());
    for (std::size_t ci = 0; ci < m_computeNodes.size(); ++ci) {
        const NodeId n = m_computeNodes[ci];
        const std::int32_t d = at(plan.device, n);
        if (d < 0 || d >= m_deviceCount) {
            throw InputError("plan: node '" + at(m_graph.nodes, n).name + "' has device index " +
                             std::to_string(d) + ", expected 0.." +
                             std::to_string(m_deviceCount - 1));
        }
        const std::int32_t v = plan.variant.empty() ? 0 : at(plan.variant, n);
        if (v < 0 || v >= variants) {
            throw InputError("plan: node '" + at(m_graph.nodes, n).name + "' has variant index " +
                             std::to_string(v) + ", expected 0.." + std::to_string(variants - 1) +
                             " (the cost table's variants)");
        }
        genome[ci] = static_cast<std::uint8_t>(column(d, v));
    }
    return genome;
}

Plan Simulator::planOf(std::span<const std::uint8_t> genome) const {
    if (genome.size() != m_computeNodes.size()) {
        throw InputError("genome has " + std::to_string(genome.size()) +
                         " genes, expected one per compute node (" +
                         std::to_string(m_computeNodes.size()) + ")");
    }
    Plan plan;
    plan.device.assign(m_graph.nodes.size(), -1);
    if (variantCount() > 1) {
        plan.variant.assign(m_graph.nodes.size(), 0);
    }
    for (const NodeId n : m_graph.topologicalOrder) {
        const Node& node = at(m_graph.nodes, n);
        std::int32_t& d = at(plan.device, n);
        switch (node.kind) {
        case NodeKind::Compute: {
            const std::int32_t c = genome[static_cast<std::size_t>(at(m_computeIndex, n))];
            d = columnDevice(c);
            if (!plan.variant.empty()) {
                at(plan.variant, n) = columnVariant(c);
            }
            break;
        }
        case NodeKind::Constant:
            d = -1;
            break;
        case NodeKind::ShapeComputation:
            d = m_host;
            break;
        case NodeKind::PassThrough: {
            d = m_host;
            for (const TensorId t : m_graph.nodeInputs.row(n)) {
                if (t != kNone) {
                    const std::int32_t b = at(m_tensorBuffer, t);
                    if (b >= 0 && at(m_bufferProducer, b) >= 0) {
                        d = columnDevice(genome[static_cast<std::size_t>(at(m_bufferProducer, b))]);
                    }
                    break;
                }
            }
            break;
        }
        }
    }
    for (const std::int32_t ci : m_priority) {
        plan.order.push_back(at(m_computeNodes, ci));
    }
    return plan;
}

} // namespace paretune
