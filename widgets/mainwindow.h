#pragma once

#include <QMainWindow>

#include <memory>

class QLabel;
class QLineEdit;
class QListWidget;
class QSortFilterProxyModel;
class QTableView;

namespace paretune {

struct ImportResult;
class ModelLoader;
class NodeTableModel;

/// The workbench's main window: the opened model's summary, its node table and the import
/// diagnostics. Models are imported on a worker thread through ModelLoader.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    void openModel(const QString& path);
    /// Opens the sample model bundled in the resources (":/models/sample.onnx").
    void openSampleModel();

    std::shared_ptr<const ImportResult> currentModel() const { return m_model; }
    NodeTableModel* nodeTableModel() const { return m_nodeModel; }
    ModelLoader* loader() const { return m_loader; }

Q_SIGNALS:
    void modelShown(const QString& displayName);
    void errorShown(const QString& message);

private:
    void showModel(std::shared_ptr<const ImportResult> result, const QString& displayName);
    void showError(const QString& message);
    void chooseModelFile();
    void showAbout();

    ModelLoader* m_loader = nullptr;
    NodeTableModel* m_nodeModel = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    QTableView* m_table = nullptr;
    QLineEdit* m_filter = nullptr;
    QLabel* m_summary = nullptr;
    QListWidget* m_diagnostics = nullptr;
    std::shared_ptr<const ImportResult> m_model;
};

} // namespace paretune
