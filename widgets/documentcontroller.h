// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QString>

#include <memory>
#include <vector>

class QLabel;
class QLineEdit;
class QMainWindow;
class QCheckBox;
class QTableView;
class QWidget;

namespace paretune {

struct ImportResult;
class ModelLoader;
class NodeTableFilter;
class NodeTableModel;
class WorkbenchLog;

/// The open model: imported on a worker thread through ModelLoader (the latest open wins), its
/// summary and its node table with a filter (the "Per-layer profile" panel), the node selection
/// every view follows, and where the node table's measured column came from (a profile or a
/// validated plan).
class DocumentController : public QObject {
    Q_OBJECT
public:
    DocumentController(QMainWindow* window, WorkbenchLog& log);

    /// The summary, the filter (text, and whether constant nodes are listed: not by default)
    /// and the node table, for a dock.
    QWidget* panel() const { return m_panel; }

    void openModel(const QString& path);
    /// Opens the sample model bundled in the resources (":/models/sample.onnx").
    void openSampleModel();
    /// Asks for an ONNX file and opens it.
    void chooseModelFile();

    /// Selects a node (graph node id) in the table; emits nodeSelected. A negative id clears.
    void selectNode(int nodeId);
    int selectedNode() const { return m_selectedNode; }

    std::shared_ptr<const ImportResult> model() const { return m_model; }
    /// The path of the model shown or being opened (":/models/sample.onnx" for the bundled one).
    QString modelPath() const { return m_modelPath; }
    NodeTableModel* nodeTableModel() const { return m_nodeModel; }
    ModelLoader* loader() const { return m_loader; }

    /// The node table's measured column: a profile's latencies on `deviceId` (NaN: none).
    void showProfileMeasurements(const QString& deviceId, std::vector<double> latencyUs);
    /// The node table's measured column: a validated plan's in-plan times.
    void showPlanMeasurements(const QString& header, const QString& toolTip,
                              std::vector<double> latencyUs);
    /// Removes the measured column when a validation put it there.
    void clearPlanMeasurements();

Q_SIGNALS:
    /// A newly imported model replaces the shown one, before it is shown: what belonged to the
    /// old model (a plan, a timeline) goes.
    void modelReplaced();
    void modelShown(const QString& displayName);
    /// The node selected in any view (table, graph, timeline); -1 when none.
    void nodeSelected(int nodeId);

private:
    void showModel(std::shared_ptr<const ImportResult> result, const QString& displayName);

    QMainWindow* m_window;
    WorkbenchLog& m_log;
    ModelLoader* m_loader;
    NodeTableModel* m_nodeModel;
    NodeTableFilter* m_proxy;
    QWidget* m_panel = nullptr;
    QTableView* m_table = nullptr;
    QLineEdit* m_filter = nullptr;
    QCheckBox* m_showConstants = nullptr;
    QLabel* m_summary = nullptr;
    std::shared_ptr<const ImportResult> m_model;
    QString m_modelPath;
    int m_selectedNode = -1;
    bool m_planMeasurements = false; ///< the node table's measured column came from validation
};

} // namespace paretune
