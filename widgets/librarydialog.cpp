// SPDX-License-Identifier: GPL-3.0-or-later
#include "librarydialog.h"

#include "librarylocation.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace paretune {

namespace {

QLineEdit* lineEdit(QWidget* parent, const QString& text, const QString& objectName) {
    auto* edit = new QLineEdit(text, parent);
    edit->setObjectName(objectName);
    return edit;
}

} // namespace

LibraryDialog::LibraryDialog(const QString& current, QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Sample Library"));
    const bool server = isServerLocation(current);
    const ServerLocation fields = parseServerLocation(current);
    auto* layout = new QVBoxLayout(this);

    m_fileChoice = new QRadioButton(tr("A file on this machine (SQLite)"), this);
    m_fileChoice->setObjectName(QStringLiteral("fileChoice"));
    layout->addWidget(m_fileChoice);
    auto* fileRow = new QHBoxLayout;
    m_file = lineEdit(this, server ? QString() : current, QStringLiteral("libraryFile"));
    auto* browse = new QPushButton(tr("Browse..."), this);
    connect(browse, &QPushButton::clicked, this, &LibraryDialog::chooseFile);
    fileRow->addWidget(m_file);
    fileRow->addWidget(browse);
    layout->addLayout(fileRow);
    m_fileWidgets = {m_file, browse};

    m_serverChoice = new QRadioButton(tr("A team's PostgreSQL server"), this);
    m_serverChoice->setObjectName(QStringLiteral("serverChoice"));
    layout->addWidget(m_serverChoice);
    auto* form = new QFormLayout;
    m_host = lineEdit(this, fields.host, QStringLiteral("serverHost"));
    m_host->setPlaceholderText(QStringLiteral("localhost"));
    m_port = new QSpinBox(this);
    m_port->setObjectName(QStringLiteral("serverPort"));
    m_port->setRange(0, 65535);
    m_port->setSpecialValueText(tr("default (5432)"));
    m_port->setValue(fields.port);
    m_database = lineEdit(this, fields.database, QStringLiteral("serverDatabase"));
    m_user = lineEdit(this, fields.user, QStringLiteral("serverUser"));
    m_user->setPlaceholderText(tr("your login name"));
    m_password = lineEdit(this, QString(), QStringLiteral("serverPassword"));
    m_password->setEchoMode(QLineEdit::Password);
    m_password->setPlaceholderText(tr("from ~/.pgpass when empty"));
    form->addRow(tr("Host:"), m_host);
    form->addRow(tr("Port:"), m_port);
    form->addRow(tr("Database:"), m_database);
    form->addRow(tr("User:"), m_user);
    form->addRow(tr("Password:"), m_password);
    layout->addLayout(form);
    auto* note = new QLabel(tr("The password is used for this session only: it is never saved, "
                               "shown or written to the log. To connect without typing it, put "
                               "it in ~/.pgpass."),
                            this);
    note->setWordWrap(true);
    layout->addWidget(note);
    m_serverWidgets = {m_host, m_port, m_database, m_user, m_password};

    m_problem = new QLabel(this);
    m_problem->setObjectName(QStringLiteral("libraryProblem"));
    m_problem->setWordWrap(true);
    layout->addWidget(m_problem);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_okButton = buttons->button(QDialogButtonBox::Ok);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);

    (server ? m_serverChoice : m_fileChoice)->setChecked(true);
    for (QRadioButton* choice : {m_fileChoice, m_serverChoice}) {
        connect(choice, &QRadioButton::toggled, this, &LibraryDialog::updateState);
    }
    for (QLineEdit* edit : {m_file, m_database}) {
        connect(edit, &QLineEdit::textChanged, this, &LibraryDialog::updateState);
    }
    updateState();
}

QString LibraryDialog::location() const {
    if (m_fileChoice->isChecked()) {
        return m_file->text().trimmed();
    }
    return serverLocationText({m_host->text().trimmed(), m_port->value(),
                               m_database->text().trimmed(), m_user->text().trimmed()});
}

QString LibraryDialog::password() const {
    return m_serverChoice->isChecked() ? m_password->text() : QString();
}

void LibraryDialog::applyPassword() const {
    if (!password().isEmpty()) {
        qputenv("PGPASSWORD", password().toUtf8());
    }
}

void LibraryDialog::chooseFile() {
    const QString file = QFileDialog::getSaveFileName(this, tr("Sample library"), m_file->text(),
                                                      tr("Sample libraries (*.db);;All files (*)"),
                                                      nullptr, QFileDialog::DontConfirmOverwrite);
    if (!file.isEmpty()) {
        m_file->setText(file);
    }
}

void LibraryDialog::updateState() {
    const bool file = m_fileChoice->isChecked();
    for (QWidget* w : m_fileWidgets) {
        w->setEnabled(file);
    }
    for (QWidget* w : m_serverWidgets) {
        w->setEnabled(!file);
    }
    QString problem;
    if (file && m_file->text().trimmed().isEmpty()) {
        problem = tr("Name the library's file.");
    } else if (file && isServerLocation(m_file->text().trimmed())) {
        problem = tr("That is a server's address: choose \"A team's PostgreSQL server\".");
    } else if (!file && m_database->text().trimmed().isEmpty()) {
        problem = tr("Name the database on the server.");
    }
    m_problem->setText(problem);
    m_problem->setVisible(!problem.isEmpty());
    m_okButton->setEnabled(problem.isEmpty());
}

} // namespace paretune
