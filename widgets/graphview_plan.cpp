// SPDX-License-Identifier: GPL-3.0-or-later
// GraphView's colouring by the chosen plan: the fill of every box (by device, by latency on its
// device, or by the precision it computes in), the legend saying what the colours mean and where
// the figures came from, the transfers between devices on the edges, and the plan's line in every
// tooltip.
#include "graphview.h"

#include "graph/dtype.h"
#include "graph/onnx_importer.h"
#include "graphitems.h"
#include "graphlayout.h"
#include "graphpalette.h"
#include "nodetablemodel.h"
#include "placementsearch.h"
#include "planschedule.h"

#include <QComboBox>
#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QLabel>
#include <QPen>
#include <QTimer>

#include <algorithm>
#include <map>
#include <set>

namespace paretune {

namespace {

const QColor kComputeFill(0xdc, 0xe6, 0xf2);
const QColor kPassiveFill(0xea, 0xea, 0xea);
const QColor kGroupFill(0xe4, 0xdd, 0xf0);
const QColor kNoDataFill(0xe8, 0xe8, 0xe8);
const QColor kFusionOutline(0x6a, 0x3d, 0x9a);
const QColor kVariantMark(0xe6, 0x55, 0x0d);

QString swatch(const QColor& colour) {
    return QStringLiteral("<span style=\"color:%1\">&#9632;</span>").arg(colour.name());
}

} // namespace

void GraphView::setSearch(std::shared_ptr<const SearchOutcome> search) {
    m_search = std::move(search);
    setPlan(-1);
}

void GraphView::setPlan(int index) {
    m_plan = -1;
    m_planDevice.clear();
    m_planVariant.clear();
    if (m_search && m_model && m_search->model == m_model && index >= 0 &&
        index < static_cast<int>(m_search->result.front.size())) {
        m_plan = index;
        m_planDevice = frontPlanDevices(*m_search, index);
        m_planVariant = frontPlanVariants(*m_search, index);
    }
    recolour();
}

int GraphView::outlineFusionGroups() {
    for (QGraphicsItem* item : m_fusionOutlines) {
        m_scene->removeItem(item);
        delete item;
    }
    m_fusionOutlines.clear();
    if (m_planDevice.empty() || !m_search) {
        return 0;
    }
    const GraphOutline& outline = *m_layout->outline;
    std::vector<std::int32_t> taken = m_search->costs.takenFusionGroups(m_planDevice);
    // A group is taken in fp32 only (Simulator): one with a lowered member runs apart.
    std::erase_if(taken, [&](std::int32_t k) {
        const FusionGroup& group =
            m_search->costs.fusionOptions()[static_cast<std::size_t>(k)].group;
        return std::any_of(group.members.begin(), group.members.end(), [&](NodeId m) {
            return !m_planVariant.empty() && m_planVariant[static_cast<std::size_t>(m)] > 0;
        });
    });
    QPen pen(kFusionOutline, 2.0, Qt::DashLine);
    pen.setCosmetic(true);
    for (const std::int32_t k : taken) {
        const FusionOption& option = m_search->costs.fusionOptions()[static_cast<std::size_t>(k)];
        QRectF around;
        std::set<std::int32_t> items;
        for (const NodeId m : option.group.members) {
            const std::int32_t item = outline.itemOfNode[static_cast<std::size_t>(m)];
            if (item >= 0 && items.insert(item).second) {
                around |= m_nodeItems[static_cast<std::size_t>(item)]->sceneBoundingRect();
            }
        }
        if (items.size() < 2) {
            continue; // folded into one box already: nothing to outline
        }
        auto* rect = m_scene->addRect(around.adjusted(-6, -6, 6, 6), pen);
        rect->setZValue(-1.0); // under the boxes and edges
        rect->setToolTip(tr("Fusion group %1: runs as one node")
                             .arg(QString::fromStdString(option.group.pattern)));
        m_fusionOutlines.push_back(rect);
    }
    return static_cast<int>(taken.size());
}

std::int32_t GraphView::variantOf(NodeId n) const {
    return m_planVariant.empty() ? 0 : m_planVariant[static_cast<std::size_t>(n)];
}

GraphView::VariantMarks GraphView::markVariants() {
    for (QGraphicsItem* item : m_variantMarks) {
        m_scene->removeItem(item);
        delete item;
    }
    m_variantMarks.clear();
    VariantMarks marks;
    if (m_planVariant.empty() || !m_search) {
        return marks;
    }
    const GraphOutline& outline = *m_layout->outline;
    for (std::size_t n = 0; n < m_planVariant.size(); ++n) {
        const std::int32_t v = m_planVariant[n];
        if (v <= 0) {
            continue;
        }
        const Variant variant = m_search->costs.variant(v);
        ++marks.lowered;
        marks.ownThreads += variant.threads > 0 ? 1 : 0;
        const std::int32_t item = outline.itemOfNode[n];
        if (item < 0) {
            continue;
        }
        QPen pen(kVariantMark, 2.5, variantMarkStyle(variant));
        pen.setCosmetic(true);
        const QRectF box = m_nodeItems[static_cast<std::size_t>(item)]->sceneBoundingRect();
        auto* rect = m_scene->addRect(box.adjusted(-3, -3, 3, 3), pen);
        rect->setZValue(-0.5);
        const QString name = QString::fromStdString(m_model->graph.nodes[n].name);
        const QString variantText = QString::fromStdString(std::string(variantName(variant)));
        rect->setToolTip(
            variant.onDeviceThreads() == Precision::Fp32
                ? tr("%1 runs in fp32 on %n of its device's threads", nullptr, variant.threads)
                      .arg(name)
                : tr("%1 runs in %2 (its inputs converted, its output back to fp32)")
                      .arg(name, variantText));
        m_variantMarks.push_back(rect);
    }
    return marks;
}

void GraphView::setColouring(Colouring colouring) {
    m_colourBy->setCurrentIndex(static_cast<int>(colouring));
}

GraphView::Colouring GraphView::colouring() const {
    return static_cast<Colouring>(m_colourBy->currentIndex());
}

QString GraphView::legendText() const {
    return m_legend->text();
}

void GraphView::recolour() {
    if (!m_layout) {
        return;
    }
    QString legend;
    switch (colouring()) {
    case Colouring::Device:
        colourByDevice(legend);
        break;
    case Colouring::Latency:
        colourByLatency(legend);
        break;
    case Colouring::Precision:
        colourByPrecision(legend);
        break;
    }
    markTransfers();
    if (const int groups = outlineFusionGroups(); groups > 0) {
        legend += tr("<br><span style=\"color:%1\">&#9633;</span> fusion group, run as one node "
                     "(%2 in this plan)")
                      .arg(kFusionOutline.name())
                      .arg(groups);
    }
    if (const VariantMarks marks = markVariants(); marks.lowered > 0) {
        legend += tr("<br><span style=\"color:%1\">&#8943;</span> node in another variant "
                     "(%2 in this plan)")
                      .arg(kVariantMark.name())
                      .arg(marks.lowered);
        if (marks.ownThreads > 0) {
            Variant ownThreads;
            ownThreads.threads = 1;
            legend += tr("<br><span style=\"color:%1\">%2</span> of them on their own threads "
                         "(%3), coloured by their precision")
                          .arg(kVariantMark.name(), variantMarkSymbol(ownThreads))
                          .arg(marks.ownThreads);
        }
    }
    planToolTips();
    m_legend->setText(legend);
    m_legend->adjustSize();
    m_legend->show();
    placeOverlays();
    m_overviewTimer->start();
}

void GraphView::colourByDevice(QString& legend) {
    const GraphOutline& outline = *m_layout->outline;
    const Graph& g = *graph();
    if (m_planDevice.empty()) {
        for (std::size_t i = 0; i < outline.items.size(); ++i) {
            const OutlineItem& item = outline.items[i];
            const bool compute =
                g.nodes[static_cast<std::size_t>(item.members[0])].kind == NodeKind::Compute;
            m_nodeItems[i]->setBrush(item.isGroup() ? kGroupFill
                                                    : (compute ? kComputeFill : kPassiveFill));
        }
        legend = tr("<b>No plan selected</b><br>%1 compute &nbsp; %2 no run-time cost &nbsp; "
                    "%3 folded group<br><i>Search placements and pick a plan to colour by "
                    "device.</i>")
                     .arg(swatch(kComputeFill), swatch(kPassiveFill), swatch(kGroupFill));
        return;
    }
    for (std::size_t i = 0; i < outline.items.size(); ++i) {
        // A group takes the colour of the device most of its nodes run on.
        std::map<std::int32_t, int> votes;
        for (const NodeId n : outline.items[i].members) {
            const std::int32_t d = m_planDevice[static_cast<std::size_t>(n)];
            if (d >= 0) {
                ++votes[d];
            }
        }
        const auto best = std::max_element(votes.begin(), votes.end(),
                                           [](auto& a, auto& b) { return a.second < b.second; });
        m_nodeItems[i]->setBrush(deviceColour(best == votes.end() ? -1 : best->first));
    }
    QStringList devices;
    for (std::size_t d = 0; d < m_search->deviceIds.size(); ++d) {
        devices << swatch(deviceColour(static_cast<int>(d))) + QLatin1Char(' ') +
                       QString::fromStdString(m_search->deviceIds[d]).toHtmlEscaped();
    }
    legend = tr("<b>Device in plan %1</b><br>%2 &nbsp; %3 not placed<br>"
                "<span style=\"color:#d62728\">- - -</span> transfer between devices")
                 .arg(m_plan)
                 .arg(devices.join(QStringLiteral(" &nbsp; ")), swatch(deviceColour(-1)));
}

void GraphView::colourByLatency(QString& legend) {
    const GraphOutline& outline = *m_layout->outline;
    const Graph& g = *graph();
    std::vector<double> latency(outline.items.size(), 0.0);
    std::set<std::string_view> sources;
    if (!m_planDevice.empty()) {
        for (std::size_t i = 0; i < outline.items.size(); ++i) {
            for (const NodeId n : outline.items[i].members) {
                const std::int32_t d = m_planDevice[static_cast<std::size_t>(n)];
                if (d < 0 || g.nodes[static_cast<std::size_t>(n)].kind != NodeKind::Compute) {
                    continue;
                }
                const CostCell& cell = m_search->costs.cell(n, d, variantOf(n));
                if (cell.supported()) {
                    latency[i] += cell.latencyUs;
                    sources.insert(costSourceName(cell.source));
                }
            }
        }
    }
    double lowest = 0.0;
    double highest = 0.0;
    for (const double v : latency) {
        if (v > 0.0) {
            lowest = lowest == 0.0 ? v : std::min(lowest, v);
            highest = std::max(highest, v);
        }
    }
    const HeatScale heat(lowest, highest);
    for (std::size_t i = 0; i < outline.items.size(); ++i) {
        m_nodeItems[i]->setBrush(latency[i] > 0.0 ? heat.colour(latency[i]) : kNoDataFill);
    }
    if (!heat.isValid()) {
        // Never invent colours: without figures every node stays grey.
        legend = tr("<b>No latency data</b><br><i>Search placements and pick a plan: its "
                    "devices' costs colour the nodes.</i>");
        return;
    }
    QStringList names;
    for (const std::string_view s : sources) {
        names << QString::fromStdString(std::string(s));
    }
    QString ramp;
    for (int step = 0; step <= 4; ++step) {
        ramp += swatch(HeatScale::colourAt(step / 4.0));
    }
    legend = tr("<b>Latency on the device of plan %1</b> (%2, log scale)<br>%3 %4 &nbsp; %5 "
                "&nbsp; %6 no cost")
                 .arg(m_plan)
                 .arg(names.join(QStringLiteral(", ")), formatMicroseconds(lowest), ramp,
                      formatMicroseconds(highest), swatch(kNoDataFill));
}

void GraphView::colourByPrecision(QString& legend) {
    const GraphOutline& outline = *m_layout->outline;
    const Graph& g = *graph();
    // The variants the search offered, fp32 first; without a plan, fp32 alone.
    std::vector<Variant> offered{Precision::Fp32};
    if (!m_planVariant.empty()) {
        for (std::int32_t v = 1; v < m_search->costs.variantCount(); ++v) {
            offered.push_back(m_search->costs.variant(v));
        }
    }
    std::vector<int> computing(offered.size(), 0); // compute nodes per offered precision
    for (std::size_t i = 0; i < outline.items.size(); ++i) {
        // A group takes the precision most of its compute nodes run in (fp32 on a tie).
        std::vector<int> votes(offered.size(), 0);
        for (const NodeId n : outline.items[i].members) {
            if (g.nodes[static_cast<std::size_t>(n)].kind == NodeKind::Compute) {
                const auto v = static_cast<std::size_t>(variantOf(n));
                ++votes[v];
                ++computing[v];
            }
        }
        const auto best = std::max_element(votes.begin(), votes.end()) - votes.begin();
        m_nodeItems[i]->setBrush(variantColour(votes[static_cast<std::size_t>(best)] > 0
                                                   ? offered[static_cast<std::size_t>(best)]
                                                   : Precision::Fp32));
    }
    QStringList entries;
    for (std::size_t v = 0; v < offered.size(); ++v) {
        entries << tr("%1 %2 (%3 compute nodes)")
                       .arg(swatch(variantColour(offered[v])),
                            QString::fromStdString(std::string(variantName(offered[v]))))
                       .arg(computing[v]);
    }
    if (m_planVariant.empty()) {
        legend = tr("<b>No plan selected</b><br>%1<br><i>Search placements with other variants "
                    "offered and pick a plan to colour by variant.</i>")
                     .arg(entries.join(QStringLiteral(" &nbsp; ")));
        return;
    }
    legend = tr("<b>Variant in plan %1</b><br>%2")
                 .arg(m_plan)
                 .arg(entries.join(QStringLiteral(" &nbsp; ")));
    if (offered.size() == 1) {
        legend += tr("<br><i>This search offered fp32 only (Search &gt; Offer other "
                     "variants).</i>");
    }
}

std::optional<Precision> GraphView::keptNarrow(TensorId t, NodeId producer) const {
    // As the simulator: the producer's output conversion not run, every reader a compute node
    // in its variant, the tensor no graph output.
    const Graph& g = *graph();
    const std::int32_t v = variantOf(producer);
    const Precision precision = m_search->costs.variant(v).precision;
    if (v <= 0 || precision == Precision::Fp32 ||
        g.tensors[static_cast<std::size_t>(t)].graphOutput) {
        return std::nullopt;
    }
    const auto& conversions = m_search->costs.conversions();
    const bool listed = std::any_of(conversions.begin(), conversions.end(), [&](const auto& c) {
        return c.node == producer && c.variant == v && c.tensor == t && c.output;
    });
    const auto readers = g.tensorConsumers.row(t);
    const bool joined =
        !readers.empty() && std::all_of(readers.begin(), readers.end(), [&](NodeId r) {
            return g.nodes[static_cast<std::size_t>(r)].kind == NodeKind::Compute &&
                   variantOf(r) == v;
        });
    return listed && joined ? std::optional<Precision>(precision) : std::nullopt;
}

void GraphView::markTransfers() {
    const GraphOutline& outline = *m_layout->outline;
    const Graph& g = *graph();
    for (std::size_t e = 0; e < outline.edges.size(); ++e) {
        QStringList lines;
        QStringList transfers;
        for (const TensorLink& link : outline.edges[e].links) {
            const Tensor& t = g.tensors[static_cast<std::size_t>(link.tensor)];
            if (lines.size() < 4) {
                lines << QString::fromStdString(t.name + ": " + t.typeString());
            }
            if (m_planDevice.empty()) {
                continue;
            }
            const std::int32_t from = m_planDevice[static_cast<std::size_t>(link.producer)];
            const std::int32_t to = m_planDevice[static_cast<std::size_t>(link.consumer)];
            if (from >= 0 && to >= 0 && from != to) {
                const std::optional<Precision> narrow = keptNarrow(link.tensor, link.producer);
                const std::int64_t moved =
                    narrow ? t.elementCount() * dtypeSize(precisionDType(*narrow))
                           : std::max<std::int64_t>(t.byteSize(), 0);
                QString size = NodeTableModel::formatBytes(moved);
                if (narrow) {
                    size =
                        tr("%1 (kept in %2)")
                            .arg(size, QString::fromStdString(std::string(precisionName(*narrow))));
                }
                transfers << tr("transfer %1 \u2192 %2: %3, %4 (modelled link)")
                                 .arg(QString::fromStdString(
                                          m_search->deviceIds[static_cast<std::size_t>(from)]),
                                      QString::fromStdString(
                                          m_search->deviceIds[static_cast<std::size_t>(to)]),
                                      size,
                                      formatMicroseconds(m_search->costs.transferUs(
                                          from, to, static_cast<double>(moved))));
            }
        }
        const auto extra = static_cast<int>(outline.edges[e].links.size()) - lines.size();
        if (extra > 0) {
            lines << tr("and %n more tensors", "", extra);
        }
        transfers.removeDuplicates();
        m_edgeItems[e]->setTransfer(!transfers.isEmpty());
        m_edgeItems[e]->setToolTip((lines + transfers).join(QLatin1Char('\n')));
    }
}

void GraphView::planToolTips() {
    const GraphOutline& outline = *m_layout->outline;
    for (std::size_t i = 0; i < outline.items.size(); ++i) {
        if (m_planDevice.empty()) {
            m_nodeItems[i]->setToolTip(m_itemToolTips[i]);
            continue;
        }
        std::map<std::int32_t, int> placed;
        std::int32_t variant = 0; // of a single node: shown beside its device
        double latencyUs = 0.0;
        std::set<std::string_view> sources;
        for (const NodeId n : outline.items[i].members) {
            const std::int32_t d = m_planDevice[static_cast<std::size_t>(n)];
            if (d < 0) {
                continue;
            }
            ++placed[d];
            variant = variantOf(n);
            const CostCell& cell = m_search->costs.cell(n, d, variantOf(n));
            if (cell.supported() && cell.latencyUs > 0.0) {
                latencyUs += cell.latencyUs;
                sources.insert(costSourceName(cell.source));
            }
        }
        QStringList devices;
        for (const auto& [d, count] : placed) {
            const QString id =
                QString::fromStdString(m_search->deviceIds[static_cast<std::size_t>(d)]);
            if (outline.items[i].isGroup()) {
                devices << QStringLiteral("%1 ×%2").arg(id).arg(count);
            } else if (variant > 0) { // "cpu:0 · bf16"
                devices << tr("%1 · %2").arg(id, QString::fromStdString(std::string(variantName(
                                                     m_search->costs.variant(variant)))));
            } else {
                devices << id;
            }
        }
        QStringList sourceNames;
        for (const std::string_view source : sources) {
            sourceNames << QString::fromStdString(std::string(source));
        }
        QString line =
            tr("Plan %1: %2")
                .arg(m_plan)
                .arg(devices.isEmpty() ? tr("not placed") : devices.join(QStringLiteral(", ")));
        if (!sources.empty()) {
            line += tr(", %1 (%2)")
                        .arg(formatMicroseconds(latencyUs), sourceNames.join(QStringLiteral(", ")));
        }
        m_nodeItems[i]->setToolTip(m_itemToolTips[i] + QLatin1Char('\n') + line);
    }
}

} // namespace paretune
