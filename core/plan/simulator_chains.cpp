// SPDX-License-Identifier: GPL-3.0-or-later
// Simulator's chain tables: which conversions of a lowered cell a plan does not run, because
// the node's neighbours compute in its precision too (CostTable::conversions; graph/precision.h,
// LoweredChains).
#include "simulator.h"

#include "common/input_error.h"
#include "graph/dtype.h"

#include <algorithm>

#include <string>

namespace paretune {

void Simulator::buildChainTables() {
    const auto K = static_cast<std::size_t>(m_columnCount);
    const std::size_t C = m_computeNodes.size();
    m_columnVariantOf.assign(256, 0);
    for (std::int32_t c = 0; c < m_columnCount; ++c) {
        m_columnVariantOf[static_cast<std::size_t>(c)] =
            static_cast<std::uint8_t>(c / m_deviceCount);
    }
    // Per compute node, its links, in the table's order.
    std::vector<std::vector<std::size_t>> byNode(C);
    const auto& conversions = m_costs.conversions();
    for (std::size_t i = 0; i < conversions.size(); ++i) {
        const ConversionCost& c = conversions[i];
        if (static_cast<std::size_t>(c.tensor) >= m_graph.tensors.size()) {
            throw InputError("a conversion of node '" +
                             m_graph.nodes[static_cast<std::size_t>(c.node)].name +
                             "' names tensor index " + std::to_string(c.tensor) + ", the graph '" +
                             m_graph.name + "' has " + std::to_string(m_graph.tensors.size()));
        }
        const std::int32_t ci = m_computeIndex[static_cast<std::size_t>(c.node)];
        if (ci >= 0) {
            byNode[static_cast<std::size_t>(ci)].push_back(i);
        }
    }
    m_chainLinks.clear();
    m_chainPartners.clear();
    m_chainSave.clear();
    m_narrowings.clear();
    m_narrowBuffers.clear();
    m_linkNarrowing.clear();
    m_bufferNarrowable.assign(m_bufferBytes.size(), 0);
    m_nodeLinkBegin.assign(C + 1, 0);
    for (std::size_t ci = 0; ci < C; ++ci) {
        m_nodeLinkBegin[ci] = static_cast<std::int32_t>(m_chainLinks.size());
        for (const std::size_t i : byNode[ci]) {
            const ConversionCost& c = conversions[i];
            const Tensor& t = m_graph.tensors[static_cast<std::size_t>(c.tensor)];
            std::vector<std::int32_t> partners;
            bool joinable = true;
            if (!c.output) { // its producer
                joinable = t.producer != kNone &&
                           m_computeIndex[static_cast<std::size_t>(t.producer)] >= 0;
                if (joinable) {
                    partners.push_back(m_computeIndex[static_cast<std::size_t>(t.producer)]);
                }
            } else { // every reader
                const auto readers = m_graph.tensorConsumers.row(c.tensor);
                joinable = !t.graphOutput && !readers.empty();
                for (const NodeId r : readers) {
                    const std::int32_t rc = m_computeIndex[static_cast<std::size_t>(r)];
                    joinable = joinable && rc >= 0;
                    partners.push_back(rc);
                }
            }
            if (!joinable) {
                continue; // always converted
            }
            const auto begin = static_cast<std::int32_t>(m_chainPartners.size());
            m_chainPartners.insert(m_chainPartners.end(), partners.begin(), partners.end());
            m_chainLinks.push_back({begin, static_cast<std::int32_t>(m_chainPartners.size())});
            m_linkNarrowing.push_back(-1);
            const std::int32_t b = m_tensorBuffer[static_cast<std::size_t>(c.tensor)];
            const bool narrower = m_costs.variant(c.variant).precision != Precision::Fp32;
            if (c.output && b >= 0 && narrower) { // held in the narrower type while joined
                const auto elements =
                    static_cast<std::int64_t>(m_bufferBytes[static_cast<std::size_t>(b)]) /
                    static_cast<std::int64_t>(dtypeSize(DType::Float32));
                const auto narrow = static_cast<std::int64_t>(
                    dtypeSize(precisionDType(m_costs.variant(c.variant).precision)));
                m_linkNarrowing.back() = static_cast<std::int32_t>(m_narrowings.size());
                m_narrowings.push_back(
                    {b, static_cast<std::uint8_t>(c.variant), elements * narrow});
                if (m_bufferNarrowable[static_cast<std::size_t>(b)] == 0) {
                    m_narrowBuffers.push_back(b);
                    m_bufferNarrowable[static_cast<std::size_t>(b)] = 1;
                }
            }
            // What it saves: in its variant's columns where the node's cell is supported.
            for (std::size_t col = 0; col < K; ++col) {
                const auto d = static_cast<std::int32_t>(col) % m_deviceCount;
                const auto v = static_cast<std::int32_t>(col) / m_deviceCount;
                const CostCell& cast = c.cells[static_cast<std::size_t>(d)];
                const bool saves =
                    v == c.variant && m_supported[ci * K + col] != 0 && cast.supported();
                m_chainSave.push_back({saves ? cast.latencyUs : 0.0, saves ? cast.energyUj : 0.0});
            }
        }
    }
    m_nodeLinkBegin[C] = static_cast<std::int32_t>(m_chainLinks.size());
    m_hasChains = !m_chainLinks.empty();
}

bool Simulator::joined(std::int32_t link, const std::uint8_t* genome, std::uint8_t v) const {
    const ChainLink& l = m_chainLinks[static_cast<std::size_t>(link)];
    for (std::int32_t p = l.partnerBegin; p != l.partnerEnd; ++p) {
        if (m_columnVariantOf[genome[m_chainPartners[static_cast<std::size_t>(p)]]] != v) {
            return false;
        }
    }
    return true;
}

double Simulator::savedConversionUs(std::span<const std::uint8_t> genome, std::int32_t ci) const {
    if (genome.size() != m_computeNodes.size() || ci < 0 ||
        static_cast<std::size_t>(ci) >= m_computeNodes.size()) {
        throw InputError("savedConversionUs: a genome of " + std::to_string(genome.size()) +
                         " genes and compute node " + std::to_string(ci) + " for " +
                         std::to_string(m_computeNodes.size()) + " compute nodes");
    }
    const std::uint8_t column = genome[static_cast<std::size_t>(ci)];
    const std::uint8_t v = m_columnVariantOf[column];
    double saved = 0.0;
    for (std::int32_t l = m_nodeLinkBegin[static_cast<std::size_t>(ci)];
         l != m_nodeLinkBegin[static_cast<std::size_t>(ci) + 1]; ++l) {
        if (joined(l, genome.data(), v)) {
            saved +=
                m_chainSave[static_cast<std::size_t>(l) * static_cast<std::size_t>(m_columnCount) +
                            column]
                    .latencyUs;
        }
    }
    return saved;
}

} // namespace paretune
