// SPDX-License-Identifier: GPL-3.0-or-later
#include "workflow/in_plan_gaps.h"

#include "graph/graph.h"
#include "profile/measurement.h"
#include "workflow/in_context_costs.h"
#include "workflow/turn_costs.h"

#include <algorithm>
#include <optional>
#include <utility>

namespace paretune {

namespace {

constexpr int kMinObservations = 3;
constexpr double kTurnGapShare = 0.9; // the turn gap's mean leaves out the slowest 10 %
constexpr double kMinCopyScale = 0.05;
constexpr double kMaxCopyScale = 4.0;

/// The mean of the lower `share` of the values (at least one).
double lowerMean(std::vector<double> values, double share) {
    std::sort(values.begin(), values.end());
    const auto kept = std::max<std::size_t>(
        1, static_cast<std::size_t>(share * static_cast<double>(values.size()) + 0.5));
    double sum = 0.0;
    for (std::size_t k = 0; k < kept; ++k) {
        sum += values[k];
    }
    return sum / static_cast<double>(kept);
}

/// The graph nodes an observation ran: "NAME", "NAME@variant", or a fusion option's members
/// for "FIRST+fused". Empty for a name the graph lacks.
std::vector<NodeId> observedMembers(const Graph& graph, const CostTable& table,
                                    const std::string& name) {
    if (const std::int32_t g = observedFusion(graph, table, name); g >= 0) {
        return table.fusionOptions()[static_cast<std::size_t>(g)].group.members;
    }
    const NodeId node = observedNode(graph, table, name).first;
    return node == kNone ? std::vector<NodeId>{} : std::vector<NodeId>{node};
}

/// One observed node's inputs from other observed nodes.
struct Producers {
    std::vector<std::size_t> nodes; ///< indices into the plan's nodes, distinct
    std::vector<double> bytes;      ///< per producer: the bytes read from it
    bool known = true;              ///< false when an input's producer could not be traced
    bool graphInput = false;        ///< whether it reads a graph input
};

/// The observed producers of an observation that ran graph nodes `members`, tracing back through
/// graph nodes that were not observed (pass-through, folded, constant nodes).
Producers producersOf(const Graph& graph, const std::vector<NodeId>& members,
                      const std::vector<std::optional<std::size_t>>& observedAt) {
    Producers result;
    const auto add = [&result](std::size_t node, double bytes) {
        const auto it = std::find(result.nodes.begin(), result.nodes.end(), node);
        if (it == result.nodes.end()) {
            result.nodes.push_back(node);
            result.bytes.push_back(bytes);
        } else {
            result.bytes[static_cast<std::size_t>(it - result.nodes.begin())] += bytes;
        }
    };
    for (NodeId member : members) {
        std::vector<std::pair<TensorId, double>> pending; // tensor, bytes the consumer reads
        for (TensorId t : graph.nodeInputs.row(member)) {
            if (t != kNone) {
                const auto size = graph.tensors[static_cast<std::size_t>(t)].byteSize();
                pending.emplace_back(t, static_cast<double>(std::max<std::int64_t>(size, 0)));
            }
        }
        std::vector<NodeId> visited;
        while (!pending.empty()) {
            const auto [t, bytes] = pending.back();
            pending.pop_back();
            const NodeId p = graph.tensors[static_cast<std::size_t>(t)].producer;
            if (p == kNone || std::find(members.begin(), members.end(), p) != members.end()) {
                result.graphInput =
                    result.graphInput ||
                    graph.tensors[static_cast<std::size_t>(t)].role == TensorRole::GraphInput;
                continue; // a graph input or initializer, or made inside the group
            }
            if (const auto at = observedAt[static_cast<std::size_t>(p)]; at) {
                add(*at, bytes);
                continue;
            }
            if (graph.nodes[static_cast<std::size_t>(p)].kind == NodeKind::Compute) {
                result.known = false; // a compute node the plan did not report
                continue;
            }
            if (std::find(visited.begin(), visited.end(), p) != visited.end()) {
                continue;
            }
            visited.push_back(p);
            for (TensorId u : graph.nodeInputs.row(p)) {
                if (u != kNone) {
                    pending.emplace_back(u, bytes);
                }
            }
        }
    }
    return result;
}

/// A plan's observed nodes as the graph's: where each graph node ran (the observation's index),
/// the graph nodes each observation ran, and its device (-1 where the table lacks it).
struct ObservedPlan {
    std::vector<std::optional<std::size_t>> observedAt;
    std::vector<std::vector<NodeId>> members;
    std::vector<std::int32_t> device;
};

ObservedPlan observedPlan(const PlanObservation& plan, const CostTable& table, const Graph& graph) {
    ObservedPlan o;
    o.observedAt.resize(graph.nodes.size());
    o.members.resize(plan.nodes.size());
    o.device.resize(plan.nodes.size());
    for (std::size_t i = 0; i < plan.nodes.size(); ++i) {
        o.members[i] = observedMembers(graph, table, plan.nodes[i].node);
        o.device[i] = table.findDevice(plan.nodes[i].device);
        for (NodeId m : o.members[i]) {
            o.observedAt[static_cast<std::size_t>(m)] = i;
        }
    }
    return o;
}

/// The path's time for `bytes` less its latencies: what copying the tensor costs there.
double bandwidthUs(const CostTable& table, std::int32_t from, std::int32_t to, double bytes) {
    double us = 0.0;
    for (const TransferHop& hop : table.path(from, to)) {
        us += bytes / hop.bytesPerUs;
    }
    return us;
}

double pathLatencyUs(const CostTable& table, std::int32_t from, std::int32_t to) {
    double us = 0.0;
    for (const TransferHop& hop : table.path(from, to)) {
        us += hop.latencyUs;
    }
    return us;
}

/// How much of the modelled bandwidth time copies into a device at its turns take, from
/// (wait, bandwidth time) pairs: the least-squares slope of the waits on the copies' times over
/// the 90 % of them with the least wait beyond the modelled copy, clamped to
/// [kMinCopyScale, kMaxCopyScale]; 1 where fewer than kMinObservations copied a tensor or the
/// copies' times do not differ.
double copyScale(const std::vector<std::pair<double, double>>& waits) {
    // The tail left out by the wait beyond the modelled copy: by the wait alone, it would be the
    // largest copies, and with them the slope.
    std::vector<std::pair<double, double>> sorted = waits;
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
        return std::pair(a.first - a.second, a.first) < std::pair(b.first - b.second, b.first);
    });
    const auto kept = std::max<std::size_t>(
        1, static_cast<std::size_t>(kTurnGapShare * static_cast<double>(sorted.size()) + 0.5));
    sorted.resize(std::min(kept, sorted.size()));
    int copied = 0;
    double meanX = 0.0;
    double meanY = 0.0;
    for (const auto& [y, x] : sorted) {
        copied += x > 0.0 ? 1 : 0;
        meanX += x;
        meanY += y;
    }
    meanX /= static_cast<double>(sorted.size());
    meanY /= static_cast<double>(sorted.size());
    double sxx = 0.0;
    double sxy = 0.0;
    for (const auto& [y, x] : sorted) {
        sxx += (x - meanX) * (x - meanX);
        sxy += (x - meanX) * (y - meanY);
    }
    if (copied < kMinObservations || !(sxx > 1e-9 * static_cast<double>(sorted.size()))) {
        return 1.0;
    }
    return std::clamp(sxy / sxx, kMinCopyScale, kMaxCopyScale);
}

} // namespace

InPlanGaps fitInPlanGaps(const CostTable& table, const Graph& graph,
                         const std::vector<PlanObservation>& plans) {
    std::map<std::int32_t, std::vector<double>> dispatch;
    struct Handoff {
        double gapUs;
        double bytes;
    };
    std::map<std::pair<std::int32_t, std::int32_t>, std::vector<Handoff>> handoffs;
    struct TurnGap {
        double gapUs;
        // The modelled copy of an input from the node it took the cores from: the path's
        // latency and its bandwidth time for the tensor (both 0 without one).
        double latencyUs;
        double bandwidthUs;
    };
    std::map<std::int32_t, std::vector<TurnGap>> turnGaps;
    for (const PlanObservation& plan : plans) {
        const auto tookCoresFrom = coresTakenFrom(plan, table);
        const auto [observedAt, members, device] = observedPlan(plan, table, graph);
        for (std::size_t i = 0; i < plan.nodes.size(); ++i) {
            const NodeObservation& node = plan.nodes[i];
            const std::int32_t d = device[i];
            if (d < 0 || members[i].empty()) {
                continue;
            }
            const Producers producers = producersOf(graph, members[i], observedAt);
            if (!producers.known || producers.nodes.empty()) {
                continue;
            }
            std::size_t last = 0;
            for (std::size_t k = 1; k < producers.nodes.size(); ++k) {
                if (plan.nodes[producers.nodes[k]].endUs >
                    plan.nodes[producers.nodes[last]].endUs) {
                    last = k;
                }
            }
            const NodeObservation& producer = plan.nodes[producers.nodes[last]];
            const std::int32_t from = device[producers.nodes[last]];
            if (from < 0) {
                continue;
            }
            // Took the cores over, its inputs ready when the other device released them.
            if (const auto held = tookCoresFrom[i];
                held && producer.endUs <= plan.nodes[*held].endUs) {
                TurnGap turnGap{std::max(0.0, node.beginUs - plan.nodes[*held].endUs), 0.0, 0.0};
                for (std::size_t k = 0; k < producers.nodes.size(); ++k) {
                    if (producers.nodes[k] == *held) {
                        turnGap.latencyUs = pathLatencyUs(table, from, d);
                        turnGap.bandwidthUs = bandwidthUs(table, from, d, producers.bytes[k]);
                    }
                }
                turnGaps[d].push_back(turnGap);
                continue;
            }
            // Its device (or one sharing a core with it) was busy after the producer ended:
            // the node waited for the device, not for its input.
            bool deviceWasBusy = false;
            for (std::size_t j = 0; j < plan.nodes.size() && !deviceWasBusy; ++j) {
                const NodeObservation& other = plan.nodes[j];
                deviceWasBusy = j != i && device[j] >= 0 &&
                                (device[j] == d || table.exclusive(device[j], d)) &&
                                other.beginUs < node.beginUs && other.endUs > producer.endUs;
            }
            if (deviceWasBusy) {
                continue;
            }
            const double gap = std::max(0.0, node.beginUs - producer.endUs);
            int elsewhere = 0;
            for (std::size_t k = 0; k < producers.nodes.size(); ++k) {
                elsewhere += device[producers.nodes[k]] != d ? 1 : 0;
            }
            if (from == d && elsewhere == 0) {
                dispatch[d].push_back(gap);
            } else if (from != d && elsewhere == 1) {
                handoffs[{from, d}].push_back({gap, producers.bytes[last]});
            }
        }
    }

    InPlanGaps gaps;
    std::map<std::int32_t, double> dispatchOf;
    for (const auto& [d, values] : dispatch) {
        const std::string& id = table.device(d).id;
        gaps.dispatchObservations[id] = static_cast<int>(values.size());
        if (static_cast<int>(values.size()) >= kMinObservations) {
            dispatchOf[d] = medianOf(values);
            gaps.dispatchUs[id] = dispatchOf[d];
        }
    }
    for (const auto& [d, observed] : turnGaps) {
        const std::string& id = table.device(d).id;
        gaps.turnGapObservations[id] = static_cast<int>(observed.size());
        if (static_cast<int>(observed.size()) < kMinObservations) {
            continue;
        }
        const auto own = dispatchOf.find(d);
        const double dispatchUs = own == dispatchOf.end() ? 0.0 : own->second;
        std::vector<std::pair<double, double>> waits; // (wait less latencies, bandwidth time)
        for (const TurnGap& t : observed) {
            waits.emplace_back(t.gapUs - dispatchUs - t.latencyUs, t.bandwidthUs);
        }
        const double scale = copyScale(waits);
        if (scale != 1.0) {
            gaps.turnCopyScale[id] = scale;
        }
        std::vector<double> extra;
        for (const auto& [wait, copy] : waits) {
            extra.push_back(wait - scale * copy);
        }
        gaps.turnGapUs[id] = std::max(0.0, lowerMean(std::move(extra), kTurnGapShare));
    }
    for (const auto& [pair, observed] : handoffs) {
        if (static_cast<int>(observed.size()) < kMinObservations ||
            !table.reachable(pair.first, pair.second)) {
            continue;
        }
        const auto d = dispatchOf.find(pair.second);
        const double dispatchUs = d == dispatchOf.end() ? 0.0 : d->second;
        std::vector<double> latencies;
        for (const Handoff& h : observed) {
            latencies.push_back(h.gapUs - dispatchUs -
                                bandwidthUs(table, pair.first, pair.second, h.bytes));
        }
        gaps.handoffs.push_back({table.device(pair.first).id, table.device(pair.second).id,
                                 std::max(0.0, medianOf(latencies)),
                                 pathLatencyUs(table, pair.first, pair.second),
                                 static_cast<int>(observed.size())});
    }
    return gaps;
}

std::vector<bool> receiveStarts(const PlanObservation& plan, const CostTable& table,
                                const Graph& graph) {
    const auto [observedAt, members, device] = observedPlan(plan, table, graph);
    // Per observation: its producers on other devices; the graph's inputs, which start on the
    // host, as one more (plan.nodes.size()).
    const std::size_t graphInputs = plan.nodes.size();
    std::vector<std::vector<std::size_t>> elsewhere(plan.nodes.size());
    for (std::size_t i = 0; i < plan.nodes.size(); ++i) {
        if (device[i] < 0 || members[i].empty()) {
            continue;
        }
        const Producers producers = producersOf(graph, members[i], observedAt);
        for (const std::size_t p : producers.nodes) {
            if (device[p] >= 0 && device[p] != device[i]) {
                elsewhere[i].push_back(p);
            }
        }
        if (producers.graphInput && device[i] != table.host()) {
            elsewhere[i].push_back(graphInputs);
        }
    }
    std::vector<bool> receives(plan.nodes.size(), false);
    for (std::size_t i = 0; i < plan.nodes.size(); ++i) {
        for (const std::size_t p : elsewhere[i]) {
            // The first reader of p's output on its device: no node there began before it
            // reading the same.
            bool first = true;
            for (std::size_t j = 0; j < plan.nodes.size() && first; ++j) {
                const bool earlier = plan.nodes[j].beginUs < plan.nodes[i].beginUs ||
                                     (plan.nodes[j].beginUs == plan.nodes[i].beginUs && j < i);
                first =
                    j == i || device[j] != device[i] || !earlier ||
                    std::find(elsewhere[j].begin(), elsewhere[j].end(), p) == elsewhere[j].end();
            }
            receives[i] = receives[i] || first;
        }
    }
    return receives;
}

void applyInPlanGaps(CostTable& table, const Graph& graph, const InPlanGaps& gaps) {
    for (const auto& [id, us] : gaps.turnGapUs) {
        if (const std::int32_t d = table.findDevice(id); d >= 0 && us > 0.0) {
            table.setTurnCost(d, table.turnCost(d) + us, CostSource::Measured);
        }
    }
    for (const auto& [id, scale] : gaps.turnCopyScale) {
        const std::int32_t d = table.findDevice(id);
        for (std::int32_t e = 0; d >= 0 && e < table.deviceCount(); ++e) {
            if (!table.exclusive(e, d) || table.path(e, d).empty()) {
                continue;
            }
            std::vector<TransferHop> hops(table.path(e, d).begin(), table.path(e, d).end());
            for (TransferHop& hop : hops) {
                hop.bytesPerUs /= scale;
                hop.source = CostSource::Measured;
            }
            table.setPath(e, d, std::move(hops));
        }
    }
    for (const auto& [id, us] : gaps.dispatchUs) {
        const std::int32_t d = table.findDevice(id);
        if (d < 0 || !(us > 0.0)) {
            continue;
        }
        const auto addTo = [delta = us](CostCell& cell) {
            if (!cell.supported() || !(cell.latencyUs > 0.0)) {
                return false;
            }
            cell.latencyUs += delta;
            return true;
        };
        for (NodeId n = 0; n < table.nodeCount(); ++n) {
            if (graph.nodes[static_cast<std::size_t>(n)].kind != NodeKind::Compute) {
                continue;
            }
            for (std::int32_t v = 0; v < table.variantCount(); ++v) {
                CostCell cell = table.cell(n, d, v);
                if (addTo(cell)) {
                    table.setCell(n, d, v, cell);
                }
            }
        }
        std::vector<FusionOption> options = table.fusionOptions();
        for (FusionOption& option : options) {
            addTo(option.cells[static_cast<std::size_t>(d)]);
        }
        table.setFusionOptions(std::move(options));
    }
    for (const FittedHandoff& h : gaps.handoffs) {
        const std::int32_t from = table.findDevice(h.from);
        const std::int32_t to = table.findDevice(h.to);
        if (from < 0 || to < 0 || table.path(from, to).empty()) {
            continue;
        }
        std::vector<TransferHop> hops(table.path(from, to).begin(), table.path(from, to).end());
        const double modelled = pathLatencyUs(table, from, to);
        for (std::size_t k = 0; k < hops.size(); ++k) {
            hops[k].latencyUs = modelled > 0.0 ? h.latencyUs * hops[k].latencyUs / modelled
                                               : (k == 0 ? h.latencyUs : 0.0);
            hops[k].source = CostSource::Measured;
        }
        table.setPath(from, to, std::move(hops));
    }
}

} // namespace paretune
