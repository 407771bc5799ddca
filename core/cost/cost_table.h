// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "cost/device_catalog.h"
#include "graph/fusion_group.h"
#include "graph/graph.h"
#include "graph/precision.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace paretune {

/// Where a cost figure came from. A modelled number is never shown as a measured one.
enum class CostSource : std::uint8_t { Unsupported, Modelled, Predicted, Measured };

std::string_view costSourceName(CostSource source);

/// Cost of one node on one device.
struct CostCell {
    double latencyUs = 0.0;
    double energyUj = 0.0; ///< energy of one execution (modelled: latency × active_w)
    std::int64_t workspaceBytes = 0;
    CostSource source = CostSource::Unsupported;
    /// Predicted cells: the predictor's uncertainty (≈ relative standard deviation); 0 otherwise.
    double uncertainty = 0.0;
    /// Cells of a lower-precision variant: the deviation of the model's outputs from fp32 that
    /// running this node alone in it causes (relative L2 error of the outputs, %), measured on
    /// calibration inputs (the sensitivity table); a plan's estimate adds them as variances
    /// (Objectives::deviationPct). 0 for fp32.
    double deviationPct = 0.0;

    bool supported() const { return source != CostSource::Unsupported; }
};

/// A fusion group a plan may take, with its cost per device as one node (graph/fusion.h): the
/// cells of its fused node (measured, predicted or modelled like any node's; unsupported where
/// it cannot run as one).
struct FusionOption {
    FusionGroup group;
    std::vector<CostCell> cells; ///< per device of the table
};

/// A Cast that a node's lowered cells include (bf16 or fp16 variants): of an input activation
/// into the precision, or of its output back to float32 (graph/precision.h, LoweredChains). A
/// plan in which the producer of that input, or every reader of that output, computes in the
/// same precision runs without it: the simulator takes its cost off the node's cell there.
struct ConversionCost {
    NodeId node = kNone;
    std::int32_t variant = 0;
    TensorId tensor = kNone; ///< the original tensor converted
    bool output = false;
    std::vector<CostCell> cells; ///< per device of the table: the Cast's cost there
};

/// What the simulator needs to know about a device of the table.
struct CostDevice {
    std::string id;
    std::string kind;
    double activeW = 0.0;
    double idleW = 0.0;
    double memoryBytes = 0.0;
};

/// One hop of a transfer: a serial queue (one direction of a full-duplex link, or a half-duplex
/// link) from device `from` to device `to`.
struct TransferHop {
    std::int32_t queue = 0;
    std::int32_t from = 0;
    std::int32_t to = 0;
    double latencyUs = 0.0;
    double bytesPerUs = 1.0; ///< bandwidth_gbs · 1e3
    /// Modelled (the catalog's link), or Measured (a GPU's benchmarked link to the host).
    CostSource source = CostSource::Modelled;
};

/// Node × device cost table plus the transfer model between its devices. Cells are set by the
/// builder (modelled roofline) and may be overwritten from outside with measured or predicted
/// figures (setCell). Nodes that cost nothing at run time (Constant, pass-through, folded shape
/// computations) have zero-cost cells on every device.
class CostTable {
public:
    CostTable() = default;
    /// Devices index 0..n-1; `host` indexes `devices`. Transfer paths are set with addQueue /
    /// setPath (buildCostTable does this from a catalog).
    CostTable(std::int32_t nodeCount, std::vector<CostDevice> devices, std::int32_t host);

    std::int32_t nodeCount() const { return m_nodeCount; }
    std::int32_t deviceCount() const { return static_cast<std::int32_t>(m_devices.size()); }
    std::int32_t host() const { return m_host; }
    const CostDevice& device(std::int32_t d) const {
        return m_devices[static_cast<std::size_t>(d)];
    }
    const std::vector<CostDevice>& devices() const { return m_devices; }
    std::int32_t findDevice(std::string_view id) const;

    /// The fp32 cell (variant 0).
    const CostCell& cell(NodeId node, std::int32_t d) const { return m_cells[index(node, d)]; }
    void setCell(NodeId node, std::int32_t d, const CostCell& cell) {
        m_cells[index(node, d)] = cell;
    }

    /// Variants (graph/precision.h): variant 0 is the model as given (fp32) and always there;
    /// setVariants offers more. A plan gives each compute node a device and a variant; its
    /// genome holds the column c = v · deviceCount + d. Cells of variants ≥ 1 start unsupported
    /// (a node that is not lowerable keeps them so). Throws InputError when the list does not
    /// start with Fp32 or repeats one.
    void setVariants(std::vector<Variant> variants);
    std::int32_t variantCount() const { return static_cast<std::int32_t>(m_variants.size()); }
    Variant variant(std::int32_t v) const { return m_variants[static_cast<std::size_t>(v)]; }
    const std::vector<Variant>& variants() const { return m_variants; }
    /// -1 when the table does not offer it.
    std::int32_t findVariant(Variant variant) const;
    std::int32_t columnCount() const { return deviceCount() * variantCount(); }
    const CostCell& cell(NodeId node, std::int32_t d, std::int32_t v) const {
        return m_cells[index(node, d, v)];
    }
    void setCell(NodeId node, std::int32_t d, std::int32_t v, const CostCell& cell) {
        m_cells[index(node, d, v)] = cell;
    }

    /// Adds a serial transfer queue (label like "cpu->gpu") and returns its index.
    std::int32_t addQueue(std::string label);
    std::int32_t queueCount() const { return static_cast<std::int32_t>(m_queueLabels.size()); }
    const std::string& queueLabel(std::int32_t q) const {
        return m_queueLabels[static_cast<std::size_t>(q)];
    }
    /// Sets the hops of a transfer from src to dst (empty: unreachable).
    void setPath(std::int32_t src, std::int32_t dst, std::vector<TransferHop> hops);
    std::span<const TransferHop> path(std::int32_t src, std::int32_t dst) const;
    bool reachable(std::int32_t src, std::int32_t dst) const {
        return src == dst || !path(src, dst).empty();
    }
    /// Gives every hop from device `from` to device `to`, in every path, these figures (a link
    /// measured on the real devices replaces the catalog's). Returns the paths changed.
    int setHopFigures(std::int32_t from, std::int32_t to, double latencyUs, double bytesPerUs,
                      CostSource source);
    /// Uncontended transfer time of `bytes` from src to dst (sum over hops), µs.
    double transferUs(std::int32_t src, std::int32_t dst, double bytes) const;

    /// Shared resources (DESIGN.md "The plan, second generation"). Two devices that share an
    /// exclusive resource (a CPU core, a DMA engine) never run nodes at the same time: `cpu`
    /// (all cores) and `cpu:0` share core 0. Symmetric; a device never conflicts with itself
    /// here (it runs one node at a time anyway).
    void setExclusive(std::int32_t a, std::int32_t b);
    bool exclusive(std::int32_t a, std::int32_t b) const {
        return a != b && m_exclusive[pairIndex(a, b)] != 0;
    }
    /// Contention over a shared resource (memory bandwidth): a node on `d` progresses at 1 /
    /// factor while a node runs on `other` (factor >= 1; 1: no contention, the default).
    /// Directed: `d` slowed by `other`. `source` says where the factor came from (measured by
    /// the co-run micro-benchmark, or modelled from a catalog).
    void setContention(std::int32_t d, std::int32_t other, double factor, CostSource source);
    double contention(std::int32_t d, std::int32_t other) const {
        return m_contention[pairIndex(d, other)];
    }
    CostSource contentionSource(std::int32_t d, std::int32_t other) const {
        return m_contentionSource[pairIndex(d, other)];
    }
    /// The cost of a turn on shared cores: a node on `d` that starts after a device sharing a
    /// core with it ran last there (the cores were another device's) takes `us` longer than its
    /// cell (the executor's thread taking the cores over, the node's data in the other device's
    /// caches). 0 by default; measured inside plans by the tune loop (turn_costs.h). Throws
    /// InputError for a negative or non-finite figure.
    void setTurnCost(std::int32_t d, double us, CostSource source);
    double turnCost(std::int32_t d) const { return m_turnUs[static_cast<std::size_t>(d)]; }
    CostSource turnCostSource(std::int32_t d) const {
        return m_turnSource[static_cast<std::size_t>(d)];
    }
    /// A receive factor: a node on `d` whose input was just copied to `d` from another device
    /// (its first reader there), without taking shared cores over, lasts `factor` times its cell
    /// (its input is in the other device's caches, the thread wakes). 1 by default; measured
    /// inside plans by the tune loop (turn_costs.h: fitReceiveFactors). Throws InputError for a
    /// factor below 1 or not finite.
    void setReceiveFactor(std::int32_t d, double factor, CostSource source);
    double receiveFactor(std::int32_t d) const {
        return m_receiveFactor[static_cast<std::size_t>(d)];
    }
    CostSource receiveFactorSource(std::int32_t d) const {
        return m_receiveSource[static_cast<std::size_t>(d)];
    }
    /// Whether any pair has an exclusive resource or a contention factor other than 1.
    bool hasSharedResources() const;

    /// The fusion groups plans may take (disjoint; each option's cells one per device). The
    /// simulator takes a group where a plan puts all its members on one device on which the
    /// group is supported and costs less than its members (see Simulator). Throws InputError for
    /// an option whose cells do not match the devices or a member outside the table's nodes.
    void setFusionOptions(std::vector<FusionOption> options);
    const std::vector<FusionOption>& fusionOptions() const { return m_fusion; }
    /// Whether option g is taken where a plan puts all its members on device d in fp32: the group
    /// and its members' fp32 cells are supported there, and the group costs less time than its
    /// members. Groups are fp32 only: a lowered member runs on its own.
    bool fusionTakable(std::size_t g, std::int32_t d) const;
    /// The options a placement takes (a device index per graph node, -1 for none): those whose
    /// members all sit on one device where they are takable. Ascending.
    std::vector<std::int32_t> takenFusionGroups(std::span<const std::int32_t> nodeDevice) const;

    /// The conversions that the cells of variants ≥ 1 include (measured_costs.h,
    /// fillVariantCells). Throws InputError for a node, variant or tensor outside the table, or
    /// cells that do not match the devices.
    void setConversions(std::vector<ConversionCost> conversions);
    const std::vector<ConversionCost>& conversions() const { return m_conversions; }

private:
    std::size_t pairIndex(std::int32_t a, std::int32_t b) const {
        return static_cast<std::size_t>(a) * m_devices.size() + static_cast<std::size_t>(b);
    }
    std::size_t index(NodeId node, std::int32_t d) const {
        return static_cast<std::size_t>(node) * m_devices.size() + static_cast<std::size_t>(d);
    }
    std::size_t index(NodeId node, std::int32_t d, std::int32_t v) const {
        return (static_cast<std::size_t>(v) * static_cast<std::size_t>(m_nodeCount) +
                static_cast<std::size_t>(node)) *
                   m_devices.size() +
               static_cast<std::size_t>(d);
    }

    std::int32_t m_nodeCount = 0;
    std::int32_t m_host = 0;
    std::vector<CostDevice> m_devices;
    std::vector<CostCell> m_cells; ///< (v · nodeCount + node) · deviceCount + d
    std::vector<Variant> m_variants{Precision::Fp32};
    std::vector<std::string> m_queueLabels;
    std::vector<std::vector<TransferHop>> m_paths; ///< src · deviceCount + dst
    std::vector<std::uint8_t> m_exclusive;         ///< a · deviceCount + b
    std::vector<double> m_contention;              ///< d · deviceCount + other
    std::vector<CostSource> m_contentionSource;    ///< d · deviceCount + other
    std::vector<double> m_turnUs;                  ///< per device
    std::vector<CostSource> m_turnSource;          ///< per device
    std::vector<double> m_receiveFactor;           ///< per device
    std::vector<CostSource> m_receiveSource;       ///< per device
    std::vector<FusionOption> m_fusion;
    std::vector<ConversionCost> m_conversions;
};

struct CostTableOptions {
    /// Fill cells of real ("cost": "measured") devices from the roofline too. Off by default:
    /// their cells stay unsupported until measured or predicted figures are set.
    bool rooflineForMeasuredDevices = false;
    /// Offer the graph's fusion groups (findFusionGroups) as fusion options, with modelled cells
    /// on modelled devices (the fused node's roofline: one launch, no traffic between members)
    /// and unsupported ones elsewhere until measured or predicted (fillCostsFromLibrary).
    bool fusion = true;
    /// Variants offered besides fp32 (CostTable::setVariants; empty: fp32 only; fp32 itself and
    /// repeats are ignored). Lowerable nodes (graph/precision.h) get modelled cells on modelled
    /// devices that list a peak for the precision (DeviceSpec::precisionPeaks): the roofline at
    /// that peak with the node's float traffic in the narrower type, plus its conversions (one
    /// launch each; fp32 read + narrow write per converted activation, and back per output).
    /// Their deviationPct stays 0: a deviation is measured (the sensitivity table), never
    /// modelled. A layout variant (fp32-nhwc) has no catalog figure: unsupported on modelled
    /// devices. The others stay unsupported until measured or predicted.
    std::vector<Variant> variants;
};

/// Builds the table for `deviceIds` (catalog ids; the host is appended when missing) with
/// modelled cells for modelled devices and the links, queues and routes between them, and the
/// shared resources: every pair of devices listing a common "resources" entry is exclusive, and
/// each device of a memory domain is slowed by every other device of that domain by its own
/// "contention" factor (CostSource::Modelled). Throws InputError for an unknown device id, a
/// duplicate, or a pair of devices that cannot reach each other through devices of the set.
CostTable buildCostTable(const Graph& graph, const DeviceCatalog& catalog,
                         const std::vector<std::string>& deviceIds,
                         const CostTableOptions& options = {});

} // namespace paretune
