// SPDX-License-Identifier: GPL-3.0-or-later
#include "documentcontroller.h"

#include "graph/onnx_importer.h"
#include "modelloader.h"
#include "nodetablefilter.h"
#include "nodetablemodel.h"
#include "workbenchlog.h"

#include <QCheckBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMainWindow>
#include <QStatusBar>
#include <QTableView>
#include <QVBoxLayout>

#include <map>

namespace paretune {

DocumentController::DocumentController(QMainWindow* window, WorkbenchLog& log)
    : QObject(window), m_window(window), m_log(log), m_loader(new ModelLoader(this)),
      m_nodeModel(new NodeTableModel(this)), m_proxy(new NodeTableFilter(this)) {
    m_proxy->setSourceModel(m_nodeModel);

    m_panel = new QWidget(window);
    auto* layout = new QVBoxLayout(m_panel);
    m_summary = new QLabel(tr("No model open. Use File > Open to import an ONNX model."), m_panel);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setObjectName(QStringLiteral("summary"));
    m_summary->setWordWrap(true);
    m_filter = new QLineEdit(m_panel);
    m_filter->setPlaceholderText(tr("Filter nodes by name, op type, kind or shape"));
    m_filter->setClearButtonEnabled(true);
    m_showConstants = new QCheckBox(tr("Show constants"), m_panel);
    m_showConstants->setObjectName(QStringLiteral("showConstants"));
    m_showConstants->setToolTip(tr("List the constant nodes too (they have no run-time cost)"));
    m_table = new QTableView(m_panel);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->setAlternatingRowColors(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->setVisible(false);
    // Rows as tall as a line of text, so that a small window still lists a good part of a model.
    m_table->verticalHeader()->setMinimumSectionSize(m_table->fontMetrics().height() + 4);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->sortByColumn(-1, Qt::AscendingOrder);
    layout->addWidget(m_summary);
    auto* filterRow = new QHBoxLayout;
    filterRow->addWidget(m_filter, 1);
    filterRow->addWidget(m_showConstants);
    layout->addLayout(filterRow);
    layout->addWidget(m_table, 1);
    m_table->setObjectName(QStringLiteral("nodeTable"));

    connect(m_filter, &QLineEdit::textChanged, m_proxy,
            &QSortFilterProxyModel::setFilterFixedString);
    connect(m_showConstants, &QCheckBox::toggled, m_proxy, &NodeTableFilter::setShowConstants);
    connect(m_loader, &ModelLoader::loadStarted, this, [this](const QString& name) {
        m_window->statusBar()->showMessage(tr("Importing %1...").arg(name));
        m_log.log(tr("Importing %1").arg(name));
    });
    connect(m_loader, &ModelLoader::modelLoaded, this, &DocumentController::showModel);
    connect(m_loader, &ModelLoader::loadFailed, &m_log, &WorkbenchLog::showError);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                selectNode(current.isValid() ? m_proxy->mapToSource(current).row() : -1);
            });
}

void DocumentController::openModel(const QString& path) {
    m_modelPath = QFileInfo(path).absoluteFilePath();
    m_loader->load(path);
}

void DocumentController::openSampleModel() {
    QFile file(QStringLiteral(":/models/sample.onnx"));
    if (!file.open(QIODevice::ReadOnly)) {
        m_log.showError(tr("The bundled sample model is missing from the resources."));
        return;
    }
    m_modelPath = QStringLiteral(":/models/sample.onnx");
    m_loader->loadBytes(file.readAll(), tr("sample.onnx (bundled)"));
}

void DocumentController::chooseModelFile() {
    const QString path = QFileDialog::getOpenFileName(m_window, tr("Open ONNX model"), QString(),
                                                      tr("ONNX models (*.onnx);;All files (*)"));
    if (!path.isEmpty()) {
        openModel(path);
    }
}

void DocumentController::selectNode(int nodeId) {
    if (nodeId >= m_nodeModel->rowCount()) {
        nodeId = -1;
    }
    if (nodeId == m_selectedNode) {
        return;
    }
    m_selectedNode = nodeId;
    const QModelIndex row =
        nodeId < 0 ? QModelIndex() : m_proxy->mapFromSource(m_nodeModel->index(nodeId, 0));
    if (row.isValid()) {
        m_table->selectionModel()->setCurrentIndex(row, QItemSelectionModel::ClearAndSelect |
                                                            QItemSelectionModel::Rows);
        m_table->scrollTo(row);
    } else {
        m_table->clearSelection();
    }
    Q_EMIT nodeSelected(nodeId);
}

void DocumentController::showModel(std::shared_ptr<const ImportResult> result,
                                   const QString& displayName) {
    m_model = std::move(result);
    m_nodeModel->setModel(m_model);
    Q_EMIT modelReplaced();
    m_selectedNode = -1;
    Q_EMIT nodeSelected(-1);
    const Graph& g = m_model->graph;
    std::map<NodeKind, int> kinds;
    for (const Node& n : g.nodes) {
        ++kinds[n.kind];
    }
    QString inputs;
    for (const TensorId t : g.inputs) {
        const Tensor& tensor = g.tensors[static_cast<std::size_t>(t)];
        inputs += (inputs.isEmpty() ? QString() : QStringLiteral(", ")) +
                  QString::fromStdString(tensor.name + " " + tensor.typeString());
    }
    m_summary->setText(
        tr("<b>%1</b> &nbsp; opset %2 &nbsp; fingerprint <tt>%3</tt><br>"
           "Inputs: %4<br>"
           "%5 nodes (%6 compute, %7 pass-through, %8 constant, %9 folded shape ops) &nbsp; "
           "%10 parameters &nbsp; %11FLOPs <i>(computed from shapes)</i> &nbsp; %12 unknown shapes")
            .arg(displayName.toHtmlEscaped())
            .arg(g.opset)
            .arg(QString::fromStdString(g.fingerprint.substr(0, 16)))
            .arg(inputs.toHtmlEscaped())
            .arg(g.nodes.size())
            .arg(kinds[NodeKind::Compute])
            .arg(kinds[NodeKind::PassThrough])
            .arg(kinds[NodeKind::Constant])
            .arg(kinds[NodeKind::ShapeComputation])
            .arg(NodeTableModel::formatCount(static_cast<double>(g.parameterCount())))
            .arg(NodeTableModel::formatCount(g.totalFlops()))
            .arg(g.unknownShapeCount()));
    m_log.log(tr("Imported %1: %n warning(s)", "", static_cast<int>(m_model->diagnostics.size()))
                  .arg(displayName));
    for (const Diagnostic& d : m_model->diagnostics) {
        m_log.addIssue(QString::fromStdString(d.message));
    }
    m_showConstants->setText(tr("Show constants (%1)").arg(kinds[NodeKind::Constant]));
    m_showConstants->setEnabled(kinds[NodeKind::Constant] > 0);
    m_table->resizeColumnsToContents();
    m_window->setWindowTitle(tr("%1 - Paretune Workbench").arg(QFileInfo(displayName).fileName()));
    m_window->statusBar()->showMessage(tr("Imported %1: %2 nodes, %3 warnings")
                                           .arg(displayName)
                                           .arg(g.nodes.size())
                                           .arg(m_model->diagnostics.size()));
    Q_EMIT modelShown(displayName);
}

void DocumentController::showProfileMeasurements(const QString& deviceId,
                                                 std::vector<double> latencyUs) {
    m_planMeasurements = false;
    m_nodeModel->setMeasurements(deviceId, std::move(latencyUs));
}

void DocumentController::showPlanMeasurements(const QString& header, const QString& toolTip,
                                              std::vector<double> latencyUs) {
    m_nodeModel->setMeasurements(header, toolTip, std::move(latencyUs));
    m_planMeasurements = true;
}

void DocumentController::clearPlanMeasurements() {
    if (m_planMeasurements) {
        m_nodeModel->setMeasurements(QString(), QString(), {});
        m_planMeasurements = false;
    }
}

} // namespace paretune
