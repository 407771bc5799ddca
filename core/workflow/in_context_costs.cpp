// SPDX-License-Identifier: GPL-3.0-or-later
#include "workflow/in_context_costs.h"

#include "common/input_error.h"
#include "graph/graph.h"
#include "profile/measurement.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <string_view>
#include <tuple>

namespace paretune {

namespace {

constexpr double kAloneShare = 0.05;    // beside other work for less than this share: alone
constexpr double kContendedShare = 0.5; // beside one device for at least this share: contended
constexpr int kMinObservations = 3;
constexpr double kMaxContention = 4.0;

/// {"DEVICE": {"us": X, "observations": N}, …}.
nlohmann::json usPerDevice(const std::map<std::string, double>& us,
                           const std::map<std::string, int>& observations) {
    nlohmann::json perDevice = nlohmann::json::object();
    for (const auto& [device, value] : us) {
        perDevice[device] = {{"us", value}, {"observations", observations.at(device)}};
    }
    return perDevice;
}

} // namespace

nlohmann::json InContextFit::toJson() const {
    nlohmann::json scales = nlohmann::json::object();
    for (const auto& [device, scale] : deviceScale) {
        scales[device] = {{"scale", scale}, {"observations", deviceObservations.at(device)}};
    }
    nlohmann::json pairs = nlohmann::json::array();
    for (const FittedContention& c : contention) {
        pairs.push_back({{"device", c.device},
                         {"beside", c.other},
                         {"factor", c.factor},
                         {"observations", c.observations}});
    }
    nlohmann::json turnCosts = nlohmann::json::object();
    for (const FittedTurn& t : turns) {
        turnCosts[t.device] = {{"us", t.us}, {"observations", t.observations}};
    }
    nlohmann::json receiveFactors = nlohmann::json::object();
    for (const FittedReceive& r : receives) {
        receiveFactors[r.device] = {{"factor", r.factor}, {"cells", r.cells}};
    }
    nlohmann::json copyScales = nlohmann::json::object();
    for (const auto& [device, scale] : gaps.turnCopyScale) {
        copyScales[device] = scale;
    }
    nlohmann::json handoffs = nlohmann::json::array();
    for (const FittedHandoff& h : gaps.handoffs) {
        handoffs.push_back({{"from", h.from},
                            {"to", h.to},
                            {"latency_us", h.latencyUs},
                            {"modelled_latency_us", h.modelledLatencyUs},
                            {"observations", h.observations}});
    }
    return {{"nodes_in_context", nodesInContext},
            {"nodes_scaled", nodesScaled},
            {"fused_in_context", fusedInContext},
            {"fused_scaled", fusedScaled},
            {"members_scaled_by_group", membersScaledByGroup},
            {"fused_scaled_by_members", fusedScaledByMembers},
            {"device_scales", scales},
            {"contention", pairs},
            {"deviation_scale", deviationScale ? nlohmann::json(*deviationScale) : nullptr},
            {"deviation_observations", deviationObservations},
            {"round_speed_scales", roundSpeedScales},
            {"dispatch", usPerDevice(gaps.dispatchUs, gaps.dispatchObservations)},
            {"handoffs", handoffs},
            {"turn_gaps", usPerDevice(gaps.turnGapUs, gaps.turnGapObservations)},
            {"turn_copy_scales", copyScales},
            {"turns", turnCosts},
            {"receives", receiveFactors},
            {"shrinkage", shrinkage ? nlohmann::json{{"noise_sd", shrinkage->noiseSd},
                                                     {"spread_sd", shrinkage->spreadSd},
                                                     {"cells", shrinkage->cells}}
                                    : nlohmann::json(nullptr)}};
}

std::vector<PlanObservation>
observationsAtLatestSpeed(const std::vector<std::vector<PlanObservation>>& rounds,
                          const std::vector<std::optional<double>>& speedChanges,
                          std::vector<double>* scales) {
    if (rounds.size() != speedChanges.size()) {
        throw InputError("tune: " + std::to_string(rounds.size()) + " rounds of observations, " +
                         std::to_string(speedChanges.size()) + " speed changes");
    }
    std::vector<double> factor(rounds.size(), 1.0);
    for (std::size_t j = rounds.size(); j-- > 1;) {
        const double change = speedChanges[j].value_or(1.0);
        if (!(change > 0.0) || !std::isfinite(change)) {
            throw InputError("tune: round " + std::to_string(j + 1) +
                             " measured a speed change of " + std::to_string(change) +
                             ", expected a positive factor");
        }
        factor[j - 1] = factor[j] * change;
    }
    std::vector<PlanObservation> all;
    for (std::size_t j = 0; j < rounds.size(); ++j) {
        for (PlanObservation plan : rounds[j]) {
            for (NodeObservation& n : plan.nodes) {
                n.us *= factor[j];
                n.beginUs *= factor[j];
                n.endUs *= factor[j];
            }
            all.push_back(std::move(plan));
        }
    }
    if (scales != nullptr) {
        *scales = std::move(factor);
    }
    return all;
}

std::vector<std::pair<NodeContext, std::string>> nodeContexts(const PlanObservation& plan,
                                                              const CostTable& table) {
    std::vector<std::pair<NodeContext, std::string>> contexts;
    contexts.reserve(plan.nodes.size());
    for (const NodeObservation& a : plan.nodes) {
        const double duration = a.endUs - a.beginUs;
        const std::int32_t da = table.findDevice(a.device);
        std::map<std::string, double> beside; // other device → overlap, µs
        for (const NodeObservation& b : plan.nodes) {
            if (b.device == a.device) {
                continue;
            }
            const std::int32_t db = table.findDevice(b.device);
            if (da >= 0 && db >= 0 && table.exclusive(da, db)) {
                continue; // they share a core: the executor never runs them side by side
            }
            const double overlap = std::min(a.endUs, b.endUs) - std::max(a.beginUs, b.beginUs);
            if (overlap > 0.0) {
                beside[b.device] += overlap;
            }
        }
        double total = 0.0;
        std::string most;
        double mostUs = 0.0;
        for (const auto& [device, us] : beside) {
            total += us;
            if (us > mostUs) {
                most = device;
                mostUs = us;
            }
        }
        if (!(duration > 0.0)) {
            contexts.emplace_back(NodeContext::Mixed, std::string());
        } else if (total < kAloneShare * duration) {
            contexts.emplace_back(NodeContext::Alone, std::string());
        } else if (mostUs >= kContendedShare * duration) {
            contexts.emplace_back(NodeContext::Contended, most);
        } else {
            contexts.emplace_back(NodeContext::Mixed, std::string());
        }
    }
    return contexts;
}

namespace {

/// A cell of the table: node, device, variant.
struct NodeColumn {
    NodeId node = kNone;
    std::int32_t device = 0;
    std::int32_t variant = 0;
    friend bool operator<(const NodeColumn& a, const NodeColumn& b) {
        return std::tie(a.node, a.device, a.variant) < std::tie(b.node, b.device, b.variant);
    }
};

constexpr std::string_view kFusedSuffix = "+fused";

} // namespace

std::pair<NodeId, std::int32_t> observedNode(const Graph& graph, const CostTable& table,
                                             const std::string& name) {
    const std::size_t at = name.rfind('@');
    if (at != std::string::npos) {
        for (std::int32_t v = 1; v < table.variantCount(); ++v) {
            if (name.compare(at + 1, std::string::npos, variantName(table.variant(v))) == 0) {
                return {graph.findNode(std::string_view(name).substr(0, at)), v};
            }
        }
    }
    return {graph.findNode(name), 0};
}

std::int32_t observedFusion(const Graph& graph, const CostTable& table, const std::string& name) {
    if (name.size() <= kFusedSuffix.size() ||
        name.compare(name.size() - kFusedSuffix.size(), kFusedSuffix.size(), kFusedSuffix) != 0) {
        return -1;
    }
    const NodeId first =
        graph.findNode(std::string_view(name).substr(0, name.size() - kFusedSuffix.size()));
    const auto& options = table.fusionOptions();
    for (std::size_t g = 0; g < options.size(); ++g) {
        if (first != kNone && options[g].group.members.front() == first) {
            return static_cast<std::int32_t>(g);
        }
    }
    return -1;
}

namespace {

/// Draws the cells' in-plan times (`inContext`, `fusedInContext`: their medians, from `alone`
/// and `fusedAlone` as plainTimes) toward their nodes' on other devices
/// (shrinkInPlanTimes): a node in one variant, or a fusion option. Cells the table does not
/// support, or with a time of 0 once the turn cost is off, keep their medians.
std::optional<CellShrinkage>
shrinkCells(const CostTable& table, const Graph& graph,
            const std::map<NodeColumn, TurnSplitTimes>& alone,
            const std::map<std::pair<std::int32_t, std::int32_t>, TurnSplitTimes>& fusedAlone,
            const SplitCosts& splitCosts, std::map<NodeColumn, double>& inContext,
            std::map<std::pair<std::int32_t, std::int32_t>, double>& fusedInContext) {
    std::vector<InPlanCell> cells;
    std::vector<double*> figures; // where each cell's estimate goes
    const auto add = [&](const CostCell& cell, std::int32_t d, std::string node,
                         const TurnSplitTimes& times, double* figure) {
        std::vector<double> us = plainTimes(times, splitCosts);
        if (!cell.supported() || !(cell.latencyUs > 0.0) ||
            std::any_of(us.begin(), us.end(), [](double t) { return !(t > 0.0); })) {
            return;
        }
        cells.push_back({std::move(node), d, cell.latencyUs, std::move(us)});
        figures.push_back(figure);
    };
    for (const auto& [key, times] : alone) {
        std::string node = graph.nodes[static_cast<std::size_t>(key.node)].name;
        if (key.variant > 0) {
            node += "@" + std::string(variantName(table.variant(key.variant)));
        }
        add(table.cell(key.node, key.device, key.variant), key.device, std::move(node), times,
            &inContext.at(key));
    }
    const std::vector<FusionOption>& options = table.fusionOptions();
    for (const auto& [key, times] : fusedAlone) {
        add(options[static_cast<std::size_t>(key.first)]
                .cells[static_cast<std::size_t>(key.second)],
            key.second, "fusion " + std::to_string(key.first), times, &fusedInContext.at(key));
    }
    std::vector<double> estimates;
    std::optional<CellShrinkage> shrinkage = shrinkInPlanTimes(cells, estimates);
    for (std::size_t i = 0; i < figures.size(); ++i) {
        *figures[i] = estimates[i];
    }
    return shrinkage;
}

} // namespace

InContextFit applyInContextCosts(CostTable& table, const Graph& graph,
                                 const std::vector<PlanObservation>& plans) {
    using Key = NodeColumn;
    std::map<Key, TurnSplitTimes> alone;
    struct Contended {
        Key key;
        std::int32_t other;
        double us;
    };
    std::vector<Contended> contended;
    std::map<std::pair<std::int32_t, std::int32_t>, TurnSplitTimes> fusedAlone; // (g, d)
    const auto addAlone = [](TurnSplitTimes& times, std::int32_t d, double us, bool turn,
                             bool received) {
        times.device = d;
        (turn ? times.taking : received ? times.receiving : times.keeping).push_back(us);
    };
    for (const PlanObservation& plan : plans) {
        const auto contexts = nodeContexts(plan, table);
        const std::vector<bool> turns = turnStarts(plan, table);
        const std::vector<bool> receives = receiveStarts(plan, table, graph);
        for (std::size_t i = 0; i < plan.nodes.size(); ++i) {
            const NodeObservation& o = plan.nodes[i];
            const std::int32_t d = table.findDevice(o.device);
            // A fused group ran as one node: its time is its fusion option's cost there.
            if (const std::int32_t g = observedFusion(graph, table, o.node); g >= 0) {
                if (d >= 0 && o.us > 0.0 && contexts[i].first == NodeContext::Alone) {
                    addAlone(fusedAlone[{g, d}], d, o.us, turns[i], receives[i]);
                }
                continue;
            }
            const auto [node, v] = observedNode(graph, table, o.node);
            if (node == kNone || d < 0 || !(o.us > 0.0) ||
                graph.nodes[static_cast<std::size_t>(node)].kind != NodeKind::Compute) {
                continue;
            }
            if (contexts[i].first == NodeContext::Alone) {
                addAlone(alone[{node, d, v}], d, o.us, turns[i], receives[i]);
            } else if (contexts[i].first == NodeContext::Contended) {
                const std::int32_t e = table.findDevice(contexts[i].second);
                if (e >= 0) {
                    contended.push_back({{node, d, v}, e, o.us});
                }
            }
        }
    }

    InContextFit fit;
    std::vector<TurnSplitTimes> split;
    for (const auto& entry : alone) {
        split.push_back(entry.second);
    }
    for (const auto& entry : fusedAlone) {
        split.push_back(entry.second);
    }
    fit.turns = fitTurnCosts(table, split);
    SplitCosts splitCosts;
    for (const FittedTurn& t : fit.turns) {
        const std::int32_t d = table.findDevice(t.device);
        splitCosts.turnUs[d] = t.us;
        table.setTurnCost(d, t.us, CostSource::Measured);
    }
    fit.receives = fitReceiveFactors(table, split);
    for (const FittedReceive& r : fit.receives) {
        const std::int32_t d = table.findDevice(r.device);
        splitCosts.receiveFactor[d] = r.factor;
        table.setReceiveFactor(d, r.factor, CostSource::Measured);
    }
    // Per device: the in-plan times and the table's cells of what ran alone there, summed.
    struct Sums {
        double inPlanUs = 0.0;
        double cellUs = 0.0;
        int count = 0;
        void add(double inPlan, double cell) {
            inPlanUs += inPlan;
            cellUs += cell;
            ++count;
        }
    };
    std::map<std::int32_t, Sums> sums;
    std::map<Key, double> inContext;
    for (const auto& [key, times] : alone) {
        const CostCell& cell = table.cell(key.node, key.device, key.variant);
        const double us = medianOf(plainTimes(times, splitCosts));
        inContext[key] = us;
        if (cell.supported() && cell.latencyUs > 0.0) {
            sums[key.device].add(us, cell.latencyUs);
        }
    }
    std::map<std::pair<std::int32_t, std::int32_t>, double> fusedInContext;
    for (const auto& [key, times] : fusedAlone) {
        const CostCell& cell = table.fusionOptions()[static_cast<std::size_t>(key.first)]
                                   .cells[static_cast<std::size_t>(key.second)];
        const double us = medianOf(plainTimes(times, splitCosts));
        fusedInContext[key] = us;
        if (cell.supported() && cell.latencyUs > 0.0) {
            sums[key.second].add(us, cell.latencyUs);
        }
    }
    // The devices' scales above are of the medians (their sums carry no luck of the draw); each
    // cell's own figure is drawn toward its node's on other devices (cell_shrinkage.h).
    fit.shrinkage =
        shrinkCells(table, graph, alone, fusedAlone, splitCosts, inContext, fusedInContext);
    // Weighted by time, as a plan's latency is: small nodes (a Relu, an Add) run several times
    // slower inside a plan than alone, large convolutions about as fast, and a median of
    // per-node ratios taken over mostly small nodes scaled a device's unseen convolutions by 4.
    std::map<std::int32_t, double> scale;
    for (const auto& [d, sum] : sums) {
        const std::string& id = table.device(d).id;
        fit.deviceObservations[id] = sum.count;
        if (sum.count >= kMinObservations) {
            scale[d] = sum.inPlanUs / sum.cellUs;
            fit.deviceScale[id] = scale[d];
        }
    }
    // The time a node would take alone in a plan: measured so, else its cell scaled.
    const auto aloneUs = [&](const Key& key) {
        if (const auto it = inContext.find(key); it != inContext.end()) {
            return it->second;
        }
        const auto s = scale.find(key.device);
        return table.cell(key.node, key.device, key.variant).latencyUs *
               (s == scale.end() ? 1.0 : s->second);
    };
    std::map<std::pair<std::int32_t, std::int32_t>, std::vector<double>> slowdowns;
    for (const Contended& c : contended) {
        const double expected = aloneUs(c.key);
        if (table.cell(c.key.node, c.key.device, c.key.variant).supported() && expected > 0.0) {
            slowdowns[{c.key.device, c.other}].push_back(c.us / expected);
        }
    }
    for (const auto& [pair, values] : slowdowns) {
        if (static_cast<int>(values.size()) < kMinObservations) {
            continue;
        }
        const double factor = std::clamp(medianOf(values), 1.0, kMaxContention);
        table.setContention(pair.first, pair.second, factor, CostSource::Measured);
        fit.contention.push_back({table.device(pair.first).id, table.device(pair.second).id, factor,
                                  static_cast<int>(values.size())});
    }

    // A fusion group and its members, where only one side ran inside plans, scale by that
    // side's in-plan ratio (summed times over summed cells) rather than by their device's: the
    // profiler timed the group beside its members. Scaled by the device's ratio (0.92 on
    // MobileNet-V2's `cpu:0`), members beside their group's measured time looked cheaper
    // unfused; the search unfused them, and those plans ran 8–23 % slower than predicted.
    const std::vector<FusionOption> fusions = table.fusionOptions();
    std::map<std::pair<NodeId, std::int32_t>, Sums> byGroup; // (member, device)
    for (const auto& [key, us] : fusedInContext) {
        const FusionOption& option = fusions[static_cast<std::size_t>(key.first)];
        const CostCell& cell = option.cells[static_cast<std::size_t>(key.second)];
        for (const NodeId m : option.group.members) {
            if (cell.supported() && cell.latencyUs > 0.0) {
                byGroup[{m, key.second}].add(us, cell.latencyUs);
            }
        }
    }
    const auto groupRatio = [&](NodeId n, std::int32_t d) -> std::optional<double> {
        const auto it = byGroup.find({n, d});
        return it == byGroup.end() ? std::nullopt
                                   : std::optional<double>(it->second.inPlanUs / it->second.cellUs);
    };
    std::map<std::pair<std::size_t, std::int32_t>, double> byMembers; // (group, device)
    for (std::size_t g = 0; g < fusions.size(); ++g) {
        for (std::int32_t d = 0; d < static_cast<std::int32_t>(fusions[g].cells.size()); ++d) {
            Sums members;
            for (const NodeId m : fusions[g].group.members) {
                const auto it = inContext.find(Key{m, d, 0});
                const CostCell& cell = table.cell(m, d, 0);
                if (it != inContext.end() && cell.supported() && cell.latencyUs > 0.0) {
                    members.add(it->second, cell.latencyUs);
                }
            }
            if (!fusions[g].group.members.empty() &&
                members.count == static_cast<int>(fusions[g].group.members.size())) {
                byMembers[{g, d}] = members.inPlanUs / members.cellUs;
            }
        }
    }

    // A cell as learned: its in-context time where one was measured, else scaled by its
    // relatives' ratio (`relativeRatio`, above) or its device's factor (energy in proportion);
    // left as it is without any. Counts into `inContextCount`, `relativeCount` or `scaledCount`;
    // false when left.
    const auto learn = [&scale](CostCell& cell, std::int32_t d, std::optional<double> inContextUs,
                                std::optional<double> relativeRatio, int& inContextCount,
                                int& relativeCount, int& scaledCount) {
        if (!cell.supported() || !(cell.latencyUs > 0.0)) {
            return false;
        }
        double us = 0.0;
        if (inContextUs) {
            us = *inContextUs;
            ++inContextCount;
            cell.source = CostSource::Measured;
            cell.uncertainty = 0.0;
        } else if (relativeRatio) {
            us = cell.latencyUs * *relativeRatio;
            ++relativeCount;
        } else if (const auto s = scale.find(d); s != scale.end()) {
            us = cell.latencyUs * s->second;
            ++scaledCount;
        } else {
            return false;
        }
        cell.energyUj *= us / cell.latencyUs;
        cell.latencyUs = us;
        return true;
    };
    const auto found = [](const auto& map, const auto& key) {
        const auto it = map.find(key);
        return it == map.end() ? std::nullopt : std::optional<double>(it->second);
    };
    for (NodeId n = 0; n < table.nodeCount(); ++n) {
        if (graph.nodes[static_cast<std::size_t>(n)].kind != NodeKind::Compute) {
            continue;
        }
        for (std::int32_t c = 0; c < table.columnCount(); ++c) {
            const std::int32_t d = c % table.deviceCount();
            const std::int32_t v = c / table.deviceCount();
            CostCell cell = table.cell(n, d, v);
            if (learn(cell, d, found(inContext, Key{n, d, v}),
                      v == 0 ? groupRatio(n, d) : std::nullopt, fit.nodesInContext,
                      fit.membersScaledByGroup, fit.nodesScaled)) {
                table.setCell(n, d, v, cell);
            }
        }
    }
    // The fusion options' cells alike (a group and its members scale alike, so whether a plan
    // takes the group stays decided by their costs as learned). The members' ratios are of
    // their cells before the loop above changed them.
    if (!fusedInContext.empty() || !scale.empty() || !inContext.empty()) {
        std::vector<FusionOption> options = fusions;
        for (std::size_t g = 0; g < options.size(); ++g) {
            for (std::size_t dv = 0; dv < options[g].cells.size(); ++dv) {
                const auto d = static_cast<std::int32_t>(dv);
                learn(options[g].cells[dv], d,
                      found(fusedInContext, std::pair{static_cast<std::int32_t>(g), d}),
                      found(byMembers, std::pair{g, d}), fit.fusedInContext,
                      fit.fusedScaledByMembers, fit.fusedScaled);
            }
        }
        table.setFusionOptions(std::move(options));
    }
    std::vector<double> deviationRatios;
    for (const PlanObservation& plan : plans) {
        if (plan.measuredDeviationPct && plan.estimatedDeviationPct &&
            *plan.estimatedDeviationPct > 0.0) {
            deviationRatios.push_back(*plan.measuredDeviationPct / *plan.estimatedDeviationPct);
        }
    }
    if (!deviationRatios.empty()) {
        fit.deviationScale = medianOf(deviationRatios);
        fit.deviationObservations = static_cast<int>(deviationRatios.size());
        for (NodeId n = 0; n < table.nodeCount(); ++n) {
            for (std::int32_t v = 1; v < table.variantCount(); ++v) {
                for (std::int32_t d = 0; d < table.deviceCount(); ++d) {
                    CostCell cell = table.cell(n, d, v);
                    if (cell.supported()) {
                        cell.deviationPct *= *fit.deviationScale;
                        table.setCell(n, d, v, cell);
                    }
                }
            }
        }
    }
    fit.gaps = fitInPlanGaps(table, graph, plans);
    applyInPlanGaps(table, graph, fit.gaps);
    return fit;
}

} // namespace paretune
