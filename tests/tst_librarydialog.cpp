// SPDX-License-Identifier: GPL-3.0-or-later
// File > Sample library: a file or a team's PostgreSQL server, the location's text (no password,
// ever), the password for the session only, and the library remembered for the next session.
#include "librarydialog.h"
#include "librarylocation.h"
#include "mainwindow.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QRadioButton>
#include <QSettings>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

using namespace paretune;

class TestLibraryDialog : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void serverOrFile_data();
    void serverOrFile();
    void locationText();
    void passwordsAreRemoved_data();
    void passwordsAreRemoved();
    void dialogComposesServerLocation();
    void dialogRefusesIncompleteChoices();
    void dialogStartsFromCurrentServer();
    void windowRemembersLibraryWithoutPassword();

private:
    QTemporaryDir m_dir;
};

void TestLibraryDialog::initTestCase() {
    QVERIFY(m_dir.isValid());
    // Settings of this test stay in its temporary folder.
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope,
                       m_dir.filePath(QStringLiteral("settings")));
    qunsetenv("PGPASSWORD");
}

void TestLibraryDialog::serverOrFile_data() {
    QTest::addColumn<QString>("location");
    QTest::addColumn<bool>("server");
    QTest::newRow("uri") << "postgresql://team@db.example.org/paretune" << true;
    QTest::newRow("short scheme") << "postgres://db/paretune" << true;
    QTest::newRow("key=value") << "host=db dbname=paretune" << true;
    QTest::newRow("dbname first") << "dbname=paretune" << true;
    QTest::newRow("file") << "/home/me/.local/share/paretune/samples.db" << false;
    QTest::newRow("relative file") << "samples.db" << false;
    QTest::newRow("file with =") << "runs/a=b.db" << false;
    QTest::newRow("empty") << "" << false;
}

void TestLibraryDialog::serverOrFile() {
    QFETCH(QString, location);
    QFETCH(bool, server);
    QCOMPARE(isServerLocation(location), server);
}

void TestLibraryDialog::locationText() {
    QCOMPARE(serverLocationText({QStringLiteral("db.example.org"), 5433, QStringLiteral("paretune"),
                                 QStringLiteral("team")}),
             QStringLiteral("postgresql://team@db.example.org:5433/paretune"));
    // Defaults: localhost, libpq's port, the login name libpq picks.
    QCOMPARE(serverLocationText({QString(), 0, QStringLiteral("paretune"), QString()}),
             QStringLiteral("postgresql://localhost/paretune"));
    // Characters a URI reserves are encoded, and read back as they were.
    const ServerLocation odd{QStringLiteral("db"), 0, QStringLiteral("my lib"),
                             QStringLiteral("a@b")};
    const QString text = serverLocationText(odd);
    QCOMPARE(text, QStringLiteral("postgresql://a%40b@db/my%20lib"));
    const ServerLocation back = parseServerLocation(text);
    QCOMPARE(back.host, odd.host);
    QCOMPARE(back.port, 0);
    QCOMPARE(back.database, odd.database);
    QCOMPARE(back.user, odd.user);
    QCOMPARE(parseServerLocation(QStringLiteral("samples.db")).database, QString());
}

void TestLibraryDialog::passwordsAreRemoved_data() {
    QTest::addColumn<QString>("location");
    QTest::addColumn<bool>("hasOne");
    QTest::addColumn<QString>("shown");
    QTest::newRow("uri user:password")
        << "postgresql://team:s3cret@db/paretune" << true << "postgresql://team@db/paretune";
    QTest::newRow("uri query") << "postgresql://db/paretune?password=s3cret&sslmode=require" << true
                               << "postgresql://db/paretune?sslmode=require";
    QTest::newRow("key=value") << "host=db password=s3cret dbname=paretune" << true
                               << "host=db dbname=paretune";
    QTest::newRow("key=value quoted")
        << "host=db password='s3 cret' dbname=paretune" << true << "host=db dbname=paretune";
    QTest::newRow("none") << "postgresql://team@db/paretune" << false
                          << "postgresql://team@db/paretune";
    QTest::newRow("file") << "/data/password=s3cret.db" << false << "/data/password=s3cret.db";
}

void TestLibraryDialog::passwordsAreRemoved() {
    QFETCH(QString, location);
    QFETCH(bool, hasOne);
    QFETCH(QString, shown);
    QCOMPARE(hasPassword(location), hasOne);
    QCOMPARE(withoutPassword(location), shown);
    QVERIFY(!hasPassword(withoutPassword(location)) || !isServerLocation(location));
}

void TestLibraryDialog::dialogComposesServerLocation() {
    LibraryDialog dialog(QStringLiteral("/tmp/samples.db"));
    auto* server = dialog.findChild<QRadioButton*>(QStringLiteral("serverChoice"));
    auto* file = dialog.findChild<QLineEdit*>(QStringLiteral("libraryFile"));
    QVERIFY(server && file);
    QCOMPARE(file->text(), QStringLiteral("/tmp/samples.db"));
    QCOMPARE(dialog.location(), QStringLiteral("/tmp/samples.db"));
    server->setChecked(true);
    QVERIFY(!file->isEnabled());
    dialog.findChild<QLineEdit*>(QStringLiteral("serverHost"))->setText(QStringLiteral("db"));
    dialog.findChild<QSpinBox*>(QStringLiteral("serverPort"))->setValue(6543);
    dialog.findChild<QLineEdit*>(QStringLiteral("serverDatabase"))
        ->setText(QStringLiteral("paretune"));
    dialog.findChild<QLineEdit*>(QStringLiteral("serverUser"))->setText(QStringLiteral("team"));
    auto* password = dialog.findChild<QLineEdit*>(QStringLiteral("serverPassword"));
    password->setText(QStringLiteral("s3cret"));
    QCOMPARE(password->echoMode(), QLineEdit::Password);
    QCOMPARE(dialog.location(), QStringLiteral("postgresql://team@db:6543/paretune"));
    QVERIFY(!dialog.location().contains(QStringLiteral("s3cret")));
    QCOMPARE(dialog.password(), QStringLiteral("s3cret"));
    dialog.applyPassword();
    QCOMPARE(qgetenv("PGPASSWORD"), QByteArray("s3cret"));
    qunsetenv("PGPASSWORD");
}

void TestLibraryDialog::dialogRefusesIncompleteChoices() {
    LibraryDialog dialog{QString()};
    auto* ok = dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
    auto* problem = dialog.findChild<QLabel*>(QStringLiteral("libraryProblem"));
    auto* file = dialog.findChild<QLineEdit*>(QStringLiteral("libraryFile"));
    QVERIFY(!ok->isEnabled()); // no file named
    QVERIFY(problem->text().contains(QStringLiteral("file")));
    file->setText(QStringLiteral("postgresql://db/paretune"));
    QVERIFY(!ok->isEnabled());
    QVERIFY(problem->text().contains(QStringLiteral("server")));
    file->setText(QStringLiteral("/tmp/samples.db"));
    QVERIFY(ok->isEnabled());
    dialog.findChild<QRadioButton*>(QStringLiteral("serverChoice"))->setChecked(true);
    QVERIFY(!ok->isEnabled()); // no database named
    QVERIFY(problem->text().contains(QStringLiteral("database")));
    dialog.findChild<QLineEdit*>(QStringLiteral("serverDatabase"))
        ->setText(QStringLiteral("paretune"));
    QVERIFY(ok->isEnabled());
    QCOMPARE(dialog.password(), QString());
}

void TestLibraryDialog::dialogStartsFromCurrentServer() {
    LibraryDialog dialog(QStringLiteral("postgresql://team@db:6543/paretune"));
    QVERIFY(dialog.findChild<QRadioButton*>(QStringLiteral("serverChoice"))->isChecked());
    QCOMPARE(dialog.findChild<QLineEdit*>(QStringLiteral("serverHost"))->text(),
             QStringLiteral("db"));
    QCOMPARE(dialog.findChild<QSpinBox*>(QStringLiteral("serverPort"))->value(), 6543);
    QCOMPARE(dialog.findChild<QLineEdit*>(QStringLiteral("serverDatabase"))->text(),
             QStringLiteral("paretune"));
    QCOMPARE(dialog.findChild<QLineEdit*>(QStringLiteral("serverUser"))->text(),
             QStringLiteral("team"));
    QCOMPARE(dialog.findChild<QLineEdit*>(QStringLiteral("serverPassword"))->text(), QString());
    QCOMPARE(dialog.location(), QStringLiteral("postgresql://team@db:6543/paretune"));
}

void TestLibraryDialog::windowRemembersLibraryWithoutPassword() {
    QSettings().remove(QStringLiteral("library/location"));
    {
        MainWindow window;
        auto* fileMenu = window.findChild<QMenu*>(QStringLiteral("fileMenu"));
        QVERIFY(fileMenu);
        const auto* action = window.findChild<QAction*>(QStringLiteral("libraryAction"));
        QVERIFY(action && fileMenu->actions().contains(const_cast<QAction*>(action)));
        QVERIFY(window.databasePath().endsWith(QStringLiteral("samples.db"))); // the default
    }
    // Port 1 on loopback: nothing listens, so the predictor panel's read fails at once.
    rememberLibrary(QStringLiteral("postgresql://team:s3cret@127.0.0.1:1/paretune"));
    QVERIFY(!QSettings()
                 .value(QStringLiteral("library/location"))
                 .toString()
                 .contains(QStringLiteral("s3cret")));
    QCOMPARE(rememberedLibrary(), QStringLiteral("postgresql://team@127.0.0.1:1/paretune"));
    MainWindow window;
    QCOMPARE(window.databasePath(), QStringLiteral("postgresql://team@127.0.0.1:1/paretune"));
    QSettings().remove(QStringLiteral("library/location"));
}

QTEST_MAIN(TestLibraryDialog)
#include "tst_librarydialog.moc"
