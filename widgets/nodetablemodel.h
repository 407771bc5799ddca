#pragma once

#include <QAbstractTableModel>

#include <cstdint>
#include <memory>
#include <vector>

namespace paretune {

struct ImportResult;

/// One row per graph node: name, op type, kind, output type, FLOPs, bytes, parameters and
/// operator signature. Display role gives formatted text; SortRole gives the raw number or text.
class NodeTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Name,
        OpType,
        Kind,
        Device,
        Output,
        Flops,
        BytesRead,
        BytesWritten,
        Params,
        Signature,
        ColumnCount
    };
    static constexpr int SortRole = Qt::UserRole + 1;

    explicit NodeTableModel(QObject* parent = nullptr);
    ~NodeTableModel() override;

    void setModel(std::shared_ptr<const ImportResult> model);
    /// Device id per graph node in the selected plan (empty entries for unplaced nodes);
    /// an empty vector clears the column.
    void setPlacement(std::vector<QString> devicePerNode);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    /// "1.23 G", "456 K", "12"; the unit stays with the caller.
    static QString formatCount(double value);
    /// formatCount with a "B" for bytes: "1.20 MB".
    static QString formatBytes(std::int64_t bytes);

private:
    std::shared_ptr<const ImportResult> m_model;
    std::vector<QString> m_placement;
};

} // namespace paretune
