// SPDX-License-Identifier: GPL-3.0-or-later
#include "nodeproperties.h"

#include <algorithm>

#include "graph/onnx_importer.h"
#include "graphpalette.h"
#include "nodetablemodel.h"
#include "placementsearch.h"
#include "planschedule.h"

namespace paretune {

namespace {

QString html(const std::string& text) {
    return QString::fromStdString(text).toHtmlEscaped();
}

QString row(const QString& label, const QString& value) {
    return QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(label, value);
}

QString tensorRows(const Graph& g, std::span<const TensorId> tensors) {
    QString rows;
    for (const TensorId t : tensors) {
        if (t == kNone) {
            continue;
        }
        const Tensor& tensor = g.tensors[static_cast<std::size_t>(t)];
        QString role;
        if (tensor.role == TensorRole::Initializer) {
            role = NodeProperties::tr("weight");
        } else if (tensor.role == TensorRole::GraphInput) {
            role = NodeProperties::tr("graph input");
        } else if (tensor.graphOutput) {
            role = NodeProperties::tr("graph output");
        }
        rows += QStringLiteral("<tr><td>%1</td><td><tt>%2</tt></td><td><i>%3</i></td></tr>")
                    .arg(html(tensor.name), html(tensor.typeString()), role);
    }
    return rows;
}

} // namespace

NodeProperties::NodeProperties(QWidget* parent) : QTextBrowser(parent) {
    setObjectName(QStringLiteral("nodeProperties"));
    setOpenLinks(false);
    refresh();
}

void NodeProperties::setModel(std::shared_ptr<const ImportResult> model) {
    m_model = std::move(model);
    m_search.reset();
    m_planDevice.clear();
    m_planVariant.clear();
    m_node = -1;
    refresh();
}

void NodeProperties::setSearch(std::shared_ptr<const SearchOutcome> search) {
    m_search = std::move(search);
    m_planDevice.clear();
    m_planVariant.clear();
    refresh();
}

void NodeProperties::setPlan(int index) {
    m_planDevice.clear();
    m_planVariant.clear();
    if (m_search && m_search->model == m_model && index >= 0 &&
        index < static_cast<int>(m_search->result.front.size())) {
        m_planDevice = frontPlanDevices(*m_search, index);
        m_planVariant = frontPlanVariants(*m_search, index);
    }
    refresh();
}

void NodeProperties::showNode(int nodeId) {
    m_node = nodeId;
    refresh();
}

void NodeProperties::refresh() {
    if (!m_model || m_node < 0 || m_node >= static_cast<int>(m_model->graph.nodes.size())) {
        setHtml(tr("<i>Select a node in the graph or the per-layer profile to see its "
                   "properties.</i>"));
        return;
    }
    const bool searchFits = m_search && m_search->model == m_model;
    const auto n = static_cast<std::size_t>(m_node);
    const int planDevice = m_planDevice.empty() ? -1 : m_planDevice[n];
    const int planVariant = n < m_planVariant.size() ? m_planVariant[n] : 0;
    setHtml(describe(m_model->graph, m_node, searchFits ? m_search.get() : nullptr, planDevice,
                     planVariant, &m_planDevice));
}

QString NodeProperties::describe(const Graph& g, int nodeId, const SearchOutcome* search,
                                 int planDevice, int planVariant,
                                 const std::vector<std::int32_t>* planDevices) {
    const auto n = static_cast<std::size_t>(nodeId);
    const Node& node = g.nodes[n];
    const OpMetrics& m = g.metrics[n];
    QString page = QStringLiteral("<h3>%1</h3><table cellspacing=\"2\">").arg(html(node.name));
    page += row(tr("Op type"),
                html(node.domain.empty() ? node.opType : node.domain + "." + node.opType));
    page += row(tr("Kind"), NodeTableModel::kindText(node.kind) +
                                (node.knownOperator ? QString() : tr(" (unknown operator)")));
    for (const Attribute& a : node.attributes) {
        // canonical reads "name=value"; the name is in the label already.
        QString value = QString::fromStdString(a.canonical.substr(a.canonical.find('=') + 1));
        if (value.size() > 160) {
            value = value.left(160) + QStringLiteral("\u2026");
        }
        page += row(tr("attribute %1").arg(html(a.name)),
                    QStringLiteral("<tt>%1</tt>").arg(value.toHtmlEscaped()));
    }
    page += QStringLiteral("</table><h4>%1</h4><table cellspacing=\"2\">%2</table>")
                .arg(tr("Inputs"), tensorRows(g, g.nodeInputs.row(nodeId)));
    page += QStringLiteral("<h4>%1</h4><table cellspacing=\"2\">%2</table>")
                .arg(tr("Outputs"), tensorRows(g, g.nodeOutputs.row(nodeId)));
    page += QStringLiteral("<h4>%1</h4><table cellspacing=\"2\">")
                .arg(tr("Work (computed from shapes)"));
    page += row(tr("FLOPs"), NodeTableModel::formatCount(m.flops));
    page += row(tr("Bytes read"), NodeTableModel::formatBytes(m.bytesRead));
    page += row(tr("Bytes written"), NodeTableModel::formatBytes(m.bytesWritten));
    page += row(tr("Weights"), NodeTableModel::formatBytes(m.paramBytes));
    page += QStringLiteral("</table><h4>%1</h4>").arg(tr("Cost per device"));
    if (!search) {
        page += tr("<i>No costs available: no search has run on this model. Search placements "
                   "to see this node's modelled, predicted or measured cost on each device.</i>");
        return page;
    }
    page +=
        tr("From the current search's cost table (%1).").arg(search->costSource.toHtmlEscaped());
    page += QStringLiteral("<table border=\"1\" cellspacing=\"0\" cellpadding=\"2\"><tr><th>%1</th>"
                           "<th>%2</th><th>%3</th><th>%4</th><th>%5</th></tr>")
                .arg(tr("Device"), tr("Latency"), tr("Energy"), tr("Workspace"), tr("Source"));
    for (std::int32_t d = 0; d < search->costs.deviceCount(); ++d) {
        const CostCell& cell = search->costs.cell(nodeId, d);
        QString device = QStringLiteral("<span style=\"color:%1\">&#9632;</span> %2")
                             .arg(deviceColour(d).name(), html(search->costs.device(d).id));
        if (d == planDevice && planVariant == 0) {
            device += tr(" (plan)");
        }
        if (!cell.supported()) {
            page +=
                QStringLiteral("<tr><td>%1</td><td colspan=\"3\"><i>%2</i></td><td>%3</td></tr>")
                    .arg(device, tr("not supported on this device"),
                         NodeTableModel::sourceText(cell.source));
            continue;
        }
        page += QStringLiteral(
                    "<tr><td>%1</td><td>%2</td><td>%3 \u00b5J</td><td>%4</td><td>%5</td></tr>")
                    .arg(device, formatMicroseconds(cell.latencyUs))
                    .arg(cell.energyUj, 0, 'f', 2)
                    .arg(NodeTableModel::formatBytes(cell.workspaceBytes),
                         NodeTableModel::sourceText(cell.source));
    }
    page += QStringLiteral("</table>");
    page += variantSection(nodeId, *search, planDevice, planVariant);
    page += fusionGroupSection(g, nodeId, *search, planDevices);
    return page;
}

QString NodeProperties::variantSection(int nodeId, const SearchOutcome& search, int planDevice,
                                       int planVariant) {
    const CostTable& costs = search.costs;
    QString rows;
    for (std::int32_t v = 1; v < costs.variantCount(); ++v) {
        for (std::int32_t d = 0; d < costs.deviceCount(); ++d) {
            const CostCell& cell = costs.cell(nodeId, d, v);
            if (!cell.supported()) {
                continue;
            }
            rows += QStringLiteral("<tr><td>%1</td><td>%2</td><td>%3</td><td>%4</td><td>%5</td>"
                                   "</tr>")
                        .arg(html(costs.device(d).id) +
                                 (d == planDevice && v == planVariant ? tr(" (plan)") : QString()),
                             html(std::string(variantName(costs.variant(v)))),
                             formatMicroseconds(cell.latencyUs),
                             tr("%1 %").arg(cell.deviationPct, 0, 'g', 3),
                             NodeTableModel::sourceText(cell.source));
        }
    }
    if (rows.isEmpty()) {
        return {};
    }
    return QStringLiteral("<h4>%1</h4>").arg(tr("Precision variants")) +
           tr("The node in another variant, its conversions included; the deviation is how "
              "much running it so moves the model's outputs from fp32 (relative L2 error, "
              "measured one node at a time on random inputs: accuracy on real data may "
              "differ).") +
           QStringLiteral("<table border=\"1\" cellspacing=\"0\" cellpadding=\"2\"><tr>"
                          "<th>%1</th><th>%2</th><th>%3</th><th>%4</th><th>%5</th></tr>")
               .arg(tr("Device"), tr("Precision"), tr("Latency"), tr("Output deviation"),
                    tr("Source")) +
           rows + QStringLiteral("</table>");
}

QString NodeProperties::fusionGroupSection(const Graph& g, int nodeId, const SearchOutcome& search,
                                           const std::vector<std::int32_t>* planDevices) {
    const auto& options = search.costs.fusionOptions();
    for (std::size_t k = 0; k < options.size(); ++k) {
        const FusionGroup& group = options[k].group;
        if (std::find(group.members.begin(), group.members.end(), nodeId) == group.members.end()) {
            continue;
        }
        QStringList names;
        for (const NodeId m : group.members) {
            names << html(g.nodes[static_cast<std::size_t>(m)].name);
        }
        bool taken = false;
        if (planDevices != nullptr && !planDevices->empty()) {
            const std::vector<std::int32_t> groups = search.costs.takenFusionGroups(*planDevices);
            taken = std::find(groups.begin(), groups.end(), static_cast<std::int32_t>(k)) !=
                    groups.end();
        }
        QString page = QStringLiteral("<h4>%1</h4>").arg(tr("Fusion group"));
        page += tr("%1: %2 run as one node%3.")
                    .arg(html(group.pattern), names.join(QStringLiteral(", ")),
                         planDevices == nullptr || planDevices->empty() ? QString()
                         : taken                                        ? tr(" (the plan takes it)")
                                 : tr(" (the plan does not take it)"));
        page += QStringLiteral("<table border=\"1\" cellspacing=\"0\" cellpadding=\"2\"><tr>"
                               "<th>%1</th><th>%2</th><th>%3</th><th>%4</th></tr>")
                    .arg(tr("Device"), tr("As one node"), tr("Members apart"), tr("Source"));
        for (std::int32_t d = 0; d < search.costs.deviceCount(); ++d) {
            const CostCell& cell = options[k].cells[static_cast<std::size_t>(d)];
            double apart = 0.0;
            bool apartKnown = true;
            for (const NodeId m : group.members) {
                apartKnown = apartKnown && search.costs.cell(m, d).supported();
                apart += search.costs.cell(m, d).latencyUs;
            }
            page += QStringLiteral("<tr><td>%1</td><td>%2</td><td>%3</td><td>%4</td></tr>")
                        .arg(html(search.costs.device(d).id),
                             cell.supported() ? formatMicroseconds(cell.latencyUs)
                                              : tr("not supported"),
                             apartKnown ? formatMicroseconds(apart) : tr("not supported"),
                             NodeTableModel::sourceText(cell.source));
        }
        return page + QStringLiteral("</table>");
    }
    return {};
}

} // namespace paretune
