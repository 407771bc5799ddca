// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDialog>

class QLineEdit;
class QRadioButton;
class QSpinBox;
class QLabel;

namespace paretune {

/// File > Sample library: which library profiling writes to and the predictor reads, an SQLite
/// file on this machine or a team's PostgreSQL server (host, port, database, user). The password
/// is for this session only (handed to libpq as PGPASSWORD) and never shown or remembered; a
/// team keeps it in ~/.pgpass instead.
class LibraryDialog : public QDialog {
    Q_OBJECT
public:
    /// `current`: the library in use (a file path or a server location without password).
    explicit LibraryDialog(const QString& current, QWidget* parent = nullptr);

    /// The chosen library: a file path or `postgresql://user@host:port/database`.
    QString location() const;
    /// The password typed for the server, or empty.
    QString password() const;

    /// Puts the typed password where libpq finds it for this session (PGPASSWORD); nothing when
    /// none was typed or the library is a file.
    void applyPassword() const;

private:
    void chooseFile();
    void updateState();

    QRadioButton* m_fileChoice = nullptr;
    QRadioButton* m_serverChoice = nullptr;
    QLineEdit* m_file = nullptr;
    QLineEdit* m_host = nullptr;
    QSpinBox* m_port = nullptr;
    QLineEdit* m_database = nullptr;
    QLineEdit* m_user = nullptr;
    QLineEdit* m_password = nullptr;
    QLabel* m_problem = nullptr;
    QWidget* m_okButton = nullptr;
    QList<QWidget*> m_fileWidgets;
    QList<QWidget*> m_serverWidgets;
};

} // namespace paretune
