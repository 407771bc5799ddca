// SPDX-License-Identifier: GPL-3.0-or-later
#include "cost_table.h"

#include "common/input_error.h"
#include "graph/fusion.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace paretune {

namespace {

/// Whether two sorted lists of resource names have one in common.
bool shareResource(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    auto i = a.begin();
    auto j = b.begin();
    while (i != a.end() && j != b.end()) {
        if (*i == *j) {
            return true;
        }
        if (*i < *j) {
            ++i;
        } else {
            ++j;
        }
    }
    return false;
}

} // namespace

std::string_view costSourceName(CostSource source) {
    switch (source) {
    case CostSource::Unsupported:
        return "unsupported";
    case CostSource::Modelled:
        return "modelled";
    case CostSource::Predicted:
        return "predicted";
    case CostSource::Measured:
        return "measured";
    }
    return "unsupported";
}

CostTable::CostTable(std::int32_t nodeCount, std::vector<CostDevice> devices, std::int32_t host)
    : m_nodeCount(nodeCount), m_host(host), m_devices(std::move(devices)),
      m_cells(static_cast<std::size_t>(nodeCount) * m_devices.size()),
      m_paths(m_devices.size() * m_devices.size()),
      m_exclusive(m_devices.size() * m_devices.size(), 0),
      m_contention(m_devices.size() * m_devices.size(), 1.0),
      m_contentionSource(m_devices.size() * m_devices.size(), CostSource::Modelled),
      m_turnUs(m_devices.size(), 0.0), m_turnSource(m_devices.size(), CostSource::Modelled),
      m_receiveFactor(m_devices.size(), 1.0),
      m_receiveSource(m_devices.size(), CostSource::Modelled) {}

void CostTable::setExclusive(std::int32_t a, std::int32_t b) {
    if (a == b) {
        return;
    }
    m_exclusive[pairIndex(a, b)] = 1;
    m_exclusive[pairIndex(b, a)] = 1;
}

void CostTable::setContention(std::int32_t d, std::int32_t other, double factor,
                              CostSource source) {
    if (!(factor >= 1.0) || !std::isfinite(factor)) {
        throw InputError("contention factor of device '" + device(d).id + "' beside '" +
                         device(other).id + "' is " + std::to_string(factor) +
                         ", expected a finite number of at least 1");
    }
    if (d == other) {
        return;
    }
    m_contention[pairIndex(d, other)] = factor;
    m_contentionSource[pairIndex(d, other)] = source;
}

void CostTable::setTurnCost(std::int32_t d, double us, CostSource source) {
    if (!(us >= 0.0) || !std::isfinite(us)) {
        throw InputError("turn cost of device '" + device(d).id + "' is " + std::to_string(us) +
                         " us, expected a finite number of at least 0");
    }
    m_turnUs[static_cast<std::size_t>(d)] = us;
    m_turnSource[static_cast<std::size_t>(d)] = source;
}

void CostTable::setReceiveFactor(std::int32_t d, double factor, CostSource source) {
    if (!(factor >= 1.0) || !std::isfinite(factor)) {
        throw InputError("receive factor of device '" + device(d).id + "' is " +
                         std::to_string(factor) + ", expected a finite number of at least 1");
    }
    m_receiveFactor[static_cast<std::size_t>(d)] = factor;
    m_receiveSource[static_cast<std::size_t>(d)] = source;
}

bool CostTable::hasSharedResources() const {
    return std::any_of(m_exclusive.begin(), m_exclusive.end(), [](std::uint8_t e) { return e; }) ||
           std::any_of(m_contention.begin(), m_contention.end(), [](double f) { return f != 1.0; });
}

void CostTable::setVariants(std::vector<Variant> variants) {
    if (variants.empty() || variants.front() != Precision::Fp32) {
        throw InputError("a cost table's variants start with fp32");
    }
    for (std::size_t i = 1; i < variants.size(); ++i) {
        if (std::find(variants.begin(), variants.begin() + static_cast<std::ptrdiff_t>(i),
                      variants[i]) != variants.begin() + static_cast<std::ptrdiff_t>(i)) {
            throw InputError("variant " + std::string(variantName(variants[i])) +
                             " is offered twice");
        }
    }
    const std::size_t perVariant = static_cast<std::size_t>(m_nodeCount) * m_devices.size();
    m_cells.resize(perVariant);
    m_cells.resize(perVariant * variants.size());
    m_variants = std::move(variants);
    m_conversions.clear();
}

std::int32_t CostTable::findVariant(Variant variant) const {
    const auto it = std::find(m_variants.begin(), m_variants.end(), variant);
    return it == m_variants.end() ? -1 : static_cast<std::int32_t>(it - m_variants.begin());
}

std::int32_t CostTable::findDevice(std::string_view id) const {
    for (std::size_t i = 0; i < m_devices.size(); ++i) {
        if (m_devices[i].id == id) {
            return static_cast<std::int32_t>(i);
        }
    }
    return -1;
}

std::int32_t CostTable::addQueue(std::string label) {
    m_queueLabels.push_back(std::move(label));
    return static_cast<std::int32_t>(m_queueLabels.size() - 1);
}

void CostTable::setPath(std::int32_t src, std::int32_t dst, std::vector<TransferHop> hops) {
    m_paths[static_cast<std::size_t>(src) * m_devices.size() + static_cast<std::size_t>(dst)] =
        std::move(hops);
}

std::span<const TransferHop> CostTable::path(std::int32_t src, std::int32_t dst) const {
    return m_paths[static_cast<std::size_t>(src) * m_devices.size() +
                   static_cast<std::size_t>(dst)];
}

int CostTable::setHopFigures(std::int32_t from, std::int32_t to, double latencyUs,
                             double bytesPerUs, CostSource source) {
    int changed = 0;
    for (std::vector<TransferHop>& path : m_paths) {
        bool inPath = false;
        for (TransferHop& hop : path) {
            if (hop.from == from && hop.to == to) {
                hop.latencyUs = latencyUs;
                hop.bytesPerUs = bytesPerUs;
                hop.source = source;
                inPath = true;
            }
        }
        changed += inPath ? 1 : 0;
    }
    return changed;
}

double CostTable::transferUs(std::int32_t src, std::int32_t dst, double bytes) const {
    double total = 0.0;
    for (const TransferHop& h : path(src, dst)) {
        total += h.latencyUs + bytes / h.bytesPerUs;
    }
    return total;
}

namespace {

/// The graph's fusion groups, each with the roofline cell of its fused node on modelled devices
/// that support every member, unsupported cells elsewhere.
std::vector<FusionOption> modelledFusionOptions(const Graph& graph,
                                                const std::vector<const DeviceSpec*>& specs,
                                                const CostTableOptions& options) {
    const std::vector<FusionGroup> groups = findFusionGroups(graph);
    if (groups.empty()) {
        return {};
    }
    const FusedGraph fused = fuseGroups(graph, groups);
    std::vector<FusionOption> result;
    for (std::size_t g = 0; g < groups.size(); ++g) {
        const NodeId node = fused.groupNode[g];
        const Node& n = fused.graph.nodes[static_cast<std::size_t>(node)];
        const OpMetrics& m = fused.graph.metrics[static_cast<std::size_t>(node)];
        FusionOption option{groups[g], std::vector<CostCell>(specs.size())};
        for (std::size_t d = 0; d < specs.size(); ++d) {
            const DeviceSpec& spec = *specs[d];
            const bool supported =
                std::all_of(groups[g].members.begin(), groups[g].members.end(), [&](NodeId member) {
                    return spec.supports(graph.nodes[static_cast<std::size_t>(member)].opType);
                });
            if (supported && (spec.modelled || (options.rooflineForMeasuredDevices &&
                                                spec.peakGflops > 0 && spec.memBwGbs > 0))) {
                CostCell& cell = option.cells[d];
                cell.latencyUs =
                    spec.rooflineLatencyUs(fusedBaseOp(n.opType), m.flops,
                                           static_cast<double>(m.bytesRead + m.bytesWritten));
                cell.energyUj = cell.latencyUs * spec.activeW;
                cell.source = CostSource::Modelled;
            }
        }
        result.push_back(std::move(option));
    }
    return result;
}

bool isWeightTensor(const Tensor& t) {
    return t.role == TensorRole::Initializer || (t.value && t.role != TensorRole::GraphInput);
}

/// Bytes of an element in `precision` over those of a float32 one.
double narrowing(Precision precision) {
    return static_cast<double>(dtypeSize(precisionDType(precision))) /
           static_cast<double>(dtypeSize(DType::Float32));
}

/// Whether the lowering converts tensor t where a node reads or writes it: an activation in
/// float32 (graph/precision.h); the modelled cells count those of a known size.
bool convertedActivation(const Tensor& t) {
    return t.dtype == DType::Float32 && !isWeightTensor(t) && t.byteSize() > 0;
}

/// A modelled Cast of tensor t between float32 and `precision` on `spec`: one launch, reading
/// and writing each element once.
CostCell modelledConversion(const Tensor& t, const DeviceSpec& spec, Precision precision) {
    CostCell cell;
    cell.latencyUs = spec.launchUs + static_cast<double>(t.byteSize()) *
                                         (1.0 + narrowing(precision)) / (spec.memBwGbs * 1e3);
    cell.energyUj = cell.latencyUs * spec.activeW;
    cell.source = CostSource::Modelled;
    return cell;
}

/// The roofline cell of node n lowered to `precision` on a modelled device with a peak for it:
/// the node at that peak with its floating-point traffic in the narrower type, plus its
/// conversions (graph/precision.h lowerGraph: each float32 activation input cast to the
/// precision, each float32 output cast back), each one launch and a read of one type and a
/// write of the other at the device's bandwidth. Weights are converted once, not per run.
CostCell modelledVariantCell(const Graph& graph, NodeId n, const DeviceSpec& spec,
                             Precision precision) {
    const Node& node = graph.nodes[static_cast<std::size_t>(n)];
    const OpMetrics& m = graph.metrics[static_cast<std::size_t>(n)];
    const double narrow = narrowing(precision);
    double conversionBytes = 0.0;
    int conversions = 0;
    auto convert = [&](TensorId t) {
        const Tensor& tensor = graph.tensors[static_cast<std::size_t>(t)];
        if (convertedActivation(tensor)) {
            conversionBytes += static_cast<double>(tensor.byteSize()) * (1.0 + narrow);
            ++conversions;
        }
    };
    for (const TensorId t : graph.nodeInputs.row(n)) {
        if (t != kNone) {
            convert(t);
        }
    }
    for (const TensorId t : graph.nodeOutputs.row(n)) {
        if (t != kNone) {
            convert(t);
        }
    }
    const double computeUs =
        m.flops / (spec.peakGflopsFor(precision) * spec.efficiency(node.opType) * 1e3);
    const double memoryUs =
        static_cast<double>(m.bytesRead + m.bytesWritten) * narrow / (spec.memBwGbs * 1e3);
    CostCell cell;
    cell.latencyUs = spec.launchUs * (1 + conversions) + std::max(computeUs, memoryUs) +
                     conversionBytes / (spec.memBwGbs * 1e3);
    cell.energyUj = cell.latencyUs * spec.activeW;
    cell.source = CostSource::Modelled;
    return cell; // deviationPct stays 0: a deviation is measured (the sensitivity table)
}

/// Offers fp32 and `precisions` (fp32 and repeats dropped) and fills the modelled cells of the
/// lowerable nodes on the modelled devices that list a peak for the precision.
void addModelledVariants(CostTable& table, const Graph& graph,
                         const std::vector<const DeviceSpec*>& specs,
                         const std::vector<Variant>& variants) {
    std::vector<Variant> offered{Precision::Fp32};
    for (const Variant p : variants) {
        if (std::find(offered.begin(), offered.end(), p) == offered.end()) {
            offered.push_back(p);
        }
    }
    if (offered.size() == 1) {
        return;
    }
    table.setVariants(offered);
    std::vector<ConversionCost> conversions;
    for (std::int32_t v = 1; v < table.variantCount(); ++v) {
        if (table.variant(v).layout != Layout::Nchw || table.variant(v).threads > 0) {
            continue; // no catalog figure for a layout or threads: unsupported when modelled
        }
        const Precision precision = table.variant(v).precision;
        for (std::size_t n = 0; n < graph.nodes.size(); ++n) {
            const auto node = static_cast<NodeId>(n);
            if (graph.nodes[n].kind != NodeKind::Compute || !lowerable(graph, node, precision)) {
                continue;
            }
            for (std::int32_t d = 0; d < table.deviceCount(); ++d) {
                const DeviceSpec& spec = *specs[static_cast<std::size_t>(d)];
                if (spec.modelled && spec.supports(graph.nodes[n].opType) &&
                    spec.peakGflopsFor(precision) > 0.0) {
                    table.setCell(node, d, v, modelledVariantCell(graph, node, spec, precision));
                }
            }
            if (precision == Precision::Int8) {
                // No modelled figure for quantizing: an int8 chain saves nothing on a modelled
                // device (its cells count every QuantizeLinear and DequantizeLinear).
                continue;
            }
            // The conversions the modelled cells include (Casts of the activations).
            for (const bool output : {false, true}) {
                const auto row = output ? graph.nodeOutputs.row(node) : graph.nodeInputs.row(node);
                for (const TensorId t : row) {
                    if (t == kNone ||
                        !convertedActivation(graph.tensors[static_cast<std::size_t>(t)])) {
                        continue;
                    }
                    ConversionCost c{node, v, t, output, {}};
                    for (std::int32_t d = 0; d < table.deviceCount(); ++d) {
                        c.cells.push_back(
                            table.cell(node, d, v).supported()
                                ? modelledConversion(graph.tensors[static_cast<std::size_t>(t)],
                                                     *specs[static_cast<std::size_t>(d)], precision)
                                : CostCell{});
                    }
                    conversions.push_back(std::move(c));
                }
            }
        }
    }
    table.setConversions(std::move(conversions));
}

} // namespace

CostTable buildCostTable(const Graph& graph, const DeviceCatalog& catalog,
                         const std::vector<std::string>& deviceIds,
                         const CostTableOptions& options) {
    std::vector<std::string> ids = deviceIds;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (catalog.findDevice(ids[i]) < 0) {
            throw InputError(catalog.origin + ": no device \"" + ids[i] + "\" in the catalog");
        }
        if (std::find(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(i), ids[i]) !=
            ids.begin() + static_cast<std::ptrdiff_t>(i)) {
            throw InputError("device \"" + ids[i] + "\" is listed twice");
        }
    }
    if (std::find(ids.begin(), ids.end(), catalog.host) == ids.end()) {
        ids.push_back(catalog.host);
    }
    std::vector<const DeviceSpec*> specs;
    std::vector<CostDevice> devices;
    std::int32_t host = 0;
    for (const std::string& id : ids) {
        const DeviceSpec& spec = catalog.devices[static_cast<std::size_t>(catalog.findDevice(id))];
        if (id == catalog.host) {
            host = static_cast<std::int32_t>(devices.size());
        }
        specs.push_back(&spec);
        devices.push_back(
            {spec.id, spec.kind, spec.activeW, spec.idleW, spec.memoryMb * 1024.0 * 1024.0});
    }
    const auto deviceCount = static_cast<std::int32_t>(devices.size());
    CostTable table(static_cast<std::int32_t>(graph.nodes.size()), std::move(devices), host);

    for (std::size_t n = 0; n < graph.nodes.size(); ++n) {
        const Node& node = graph.nodes[n];
        const OpMetrics& m = graph.metrics[n];
        for (std::int32_t d = 0; d < deviceCount; ++d) {
            const DeviceSpec& spec = *specs[static_cast<std::size_t>(d)];
            CostCell cell;
            if (node.kind != NodeKind::Compute) {
                cell.source = CostSource::Modelled; // costs nothing anywhere
            } else if (!spec.supports(node.opType)) {
                cell.source = CostSource::Unsupported;
            } else if (spec.modelled || (options.rooflineForMeasuredDevices &&
                                         spec.peakGflops > 0 && spec.memBwGbs > 0)) {
                cell.latencyUs = spec.rooflineLatencyUs(
                    node.opType, m.flops, static_cast<double>(m.bytesRead + m.bytesWritten));
                cell.energyUj = cell.latencyUs * spec.activeW;
                cell.source = CostSource::Modelled;
            }
            table.setCell(static_cast<NodeId>(n), d, cell);
        }
    }

    // One serial queue per direction of a full-duplex link, one per half-duplex link.
    struct LinkQueues {
        std::int32_t forward = -1;  // a -> b
        std::int32_t backward = -1; // b -> a
    };
    std::vector<LinkQueues> queues(catalog.links.size());
    for (std::size_t l = 0; l < catalog.links.size(); ++l) {
        const LinkSpec& link = catalog.links[l];
        if (table.findDevice(link.a) < 0 || table.findDevice(link.b) < 0) {
            continue;
        }
        if (link.fullDuplex) {
            queues[l].forward = table.addQueue(link.a + "->" + link.b);
            queues[l].backward = table.addQueue(link.b + "->" + link.a);
        } else {
            queues[l].forward = queues[l].backward = table.addQueue(link.a + "<->" + link.b);
        }
    }
    for (std::int32_t s = 0; s < deviceCount; ++s) {
        for (std::int32_t t = 0; t < deviceCount; ++t) {
            if (s == t) {
                continue;
            }
            const std::string& src = table.device(s).id;
            const std::string& dst = table.device(t).id;
            const std::vector<std::string> hops = catalog.path(src, dst);
            if (hops.empty()) {
                throw InputError(catalog.origin + ": no link or route from \"" + src + "\" to \"" +
                                 dst + "\"");
            }
            std::vector<TransferHop> path;
            for (std::size_t k = 0; k + 1 < hops.size(); ++k) {
                const std::int32_t from = table.findDevice(hops[k]);
                const std::int32_t to = table.findDevice(hops[k + 1]);
                if (from < 0 || to < 0) {
                    throw InputError(catalog.origin + ": the route from \"" + src + "\" to \"" +
                                     dst + "\" goes through \"" +
                                     (from < 0 ? hops[k] : hops[k + 1]) +
                                     "\", which is not among the devices of this search");
                }
                const int l = catalog.findLink(hops[k], hops[k + 1]);
                const LinkSpec& link = catalog.links[static_cast<std::size_t>(l)];
                TransferHop hop;
                hop.queue = link.a == hops[k] ? queues[static_cast<std::size_t>(l)].forward
                                              : queues[static_cast<std::size_t>(l)].backward;
                hop.from = from;
                hop.to = to;
                hop.latencyUs = link.latencyUs;
                hop.bytesPerUs = link.bandwidthGbs * 1e3;
                path.push_back(hop);
            }
            table.setPath(s, t, std::move(path));
        }
    }

    if (options.fusion) {
        table.setFusionOptions(modelledFusionOptions(graph, specs, options));
    }
    addModelledVariants(table, graph, specs, options.variants);

    // Shared resources: devices that list a common resource take turns; the devices of one
    // memory domain slow each other down by the catalog's modelled contention factors.
    for (std::int32_t a = 0; a < deviceCount; ++a) {
        const DeviceSpec& sa = *specs[static_cast<std::size_t>(a)];
        for (std::int32_t b = 0; b < deviceCount; ++b) {
            const DeviceSpec& sb = *specs[static_cast<std::size_t>(b)];
            if (a == b) {
                continue;
            }
            if (a < b && shareResource(sa.resources, sb.resources)) {
                table.setExclusive(a, b);
            }
            if (!sa.memoryDomain.empty() && sa.memoryDomain == sb.memoryDomain) {
                table.setContention(a, b, sa.contention, CostSource::Modelled);
            }
        }
    }
    return table;
}

void CostTable::setFusionOptions(std::vector<FusionOption> options) {
    std::vector<std::uint8_t> member(static_cast<std::size_t>(m_nodeCount), 0);
    for (const FusionOption& option : options) {
        if (option.cells.size() != m_devices.size()) {
            throw InputError("fusion group '" + option.group.pattern + "' has " +
                             std::to_string(option.cells.size()) + " cost cells, the table " +
                             std::to_string(m_devices.size()) + " devices");
        }
        for (const NodeId n : option.group.members) {
            if (n < 0 || n >= m_nodeCount || member[static_cast<std::size_t>(n)] != 0) {
                throw InputError("fusion group '" + option.group.pattern + "': node index " +
                                 std::to_string(n) + " is outside the table or in two groups");
            }
            member[static_cast<std::size_t>(n)] = 1;
        }
    }
    m_fusion = std::move(options);
}

void CostTable::setConversions(std::vector<ConversionCost> conversions) {
    for (const ConversionCost& c : conversions) {
        if (c.node < 0 || c.node >= m_nodeCount || c.variant < 1 || c.variant >= variantCount() ||
            c.tensor < 0 || c.cells.size() != m_devices.size()) {
            throw InputError("a conversion of node index " + std::to_string(c.node) + " (variant " +
                             std::to_string(c.variant) + ", tensor " + std::to_string(c.tensor) +
                             ", " + std::to_string(c.cells.size()) +
                             " cells) does not fit the table: " + std::to_string(m_nodeCount) +
                             " nodes, " + std::to_string(variantCount()) + " variants, " +
                             std::to_string(m_devices.size()) + " devices");
        }
    }
    m_conversions = std::move(conversions);
}

bool CostTable::fusionTakable(std::size_t g, std::int32_t d) const {
    const FusionOption& option = m_fusion[g];
    const CostCell& group = option.cells[static_cast<std::size_t>(d)];
    if (!group.supported()) {
        return false;
    }
    double membersUs = 0.0;
    for (const NodeId m : option.group.members) {
        const CostCell& member = cell(m, d);
        if (!member.supported()) {
            return false;
        }
        membersUs += member.latencyUs;
    }
    return group.latencyUs < membersUs;
}

std::vector<std::int32_t>
CostTable::takenFusionGroups(std::span<const std::int32_t> nodeDevice) const {
    std::vector<std::int32_t> taken;
    for (std::size_t g = 0; g < m_fusion.size(); ++g) {
        const auto& members = m_fusion[g].group.members;
        const std::int32_t d = nodeDevice[static_cast<std::size_t>(members.front())];
        const bool together = d >= 0 && std::all_of(members.begin(), members.end(), [&](NodeId m) {
                                  return nodeDevice[static_cast<std::size_t>(m)] == d;
                              });
        if (together && fusionTakable(g, d)) {
            taken.push_back(static_cast<std::int32_t>(g));
        }
    }
    return taken;
}

} // namespace paretune
