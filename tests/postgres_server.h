// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A throw-away PostgreSQL server for the tests that need one: initdb into a temporary folder,
// postgres on a free loopback port with its socket in that folder, stopped and removed with the
// object. PostgreSQL refuses to run as root, so as root (CI, containers) the server runs as
// `nobody` (setpriv) in a folder handed to it.
//
// Local (socket) connections are trusted; TCP connections to 127.0.0.1 need the password of
// the user `paretune` (kPassword), so that the tests can give a wrong one.
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QString>
#include <QTemporaryDir>
#include <QThread>

#include <libpq-fe.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>

class PostgresServer {
public:
    static constexpr const char* kUser = "paretune";
    static constexpr const char* kPassword = "s3cret-test-password";

    PostgresServer() = default;
    PostgresServer(const PostgresServer&) = delete;
    PostgresServer& operator=(const PostgresServer&) = delete;
    ~PostgresServer() { stop(); }

    /// The folder of Debian's PostgreSQL programs (the newest installed), or empty.
    static QString binDir() {
        const QDir root(QStringLiteral("/usr/lib/postgresql"));
        const QStringList versions =
            root.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name | QDir::Reversed);
        for (const QString& v : versions) {
            const QString bin = root.filePath(v + QStringLiteral("/bin"));
            if (QFile::exists(bin + QStringLiteral("/initdb")) &&
                QFile::exists(bin + QStringLiteral("/postgres"))) {
                return bin;
            }
        }
        return {};
    }

    /// Starts the server; false with `error()` set when it could not.
    bool start() {
        const QString bin = binDir();
        if (bin.isEmpty()) {
            m_error = QStringLiteral("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/"
                                     "initdb; apt-get install postgresql)");
            return false;
        }
        if (!m_folder.isValid()) {
            m_error = QStringLiteral("cannot create a temporary folder");
            return false;
        }
        m_dir = m_folder.path();
        if (geteuid() == 0) {
            const passwd* nobody = getpwnam("nobody");
            if (nobody == nullptr ||
                chown(m_dir.toLocal8Bit().constData(), nobody->pw_uid, nobody->pw_gid) != 0) {
                m_error = QStringLiteral("cannot hand the temporary folder to nobody");
                return false;
            }
        }
        QFile password(m_dir + QStringLiteral("/password"));
        if (!password.open(QIODevice::WriteOnly) || password.write(kPassword) < 0) {
            m_error = QStringLiteral("cannot write the password file");
            return false;
        }
        password.close();
        if (geteuid() == 0) {
            const passwd* nobody = getpwnam("nobody");
            if (chown(password.fileName().toLocal8Bit().constData(), nobody->pw_uid,
                      nobody->pw_gid) != 0) {
                m_error = QStringLiteral("cannot hand the password file to nobody");
                return false;
            }
        }
        QProcess initdb;
        initdb.setProcessChannelMode(QProcess::MergedChannels);
        startAsServerUser(initdb, bin + QStringLiteral("/initdb"),
                          {QStringLiteral("-D"), dataDir(), QStringLiteral("-U"),
                           QString::fromLatin1(kUser), QStringLiteral("--pwfile"),
                           password.fileName(), QStringLiteral("--auth-local=trust"),
                           QStringLiteral("--auth-host=scram-sha-256"), QStringLiteral("-E"),
                           QStringLiteral("UTF8"), QStringLiteral("--locale=C"),
                           QStringLiteral("--no-sync"), QStringLiteral("--no-instructions")});
        if (!initdb.waitForFinished(60000) || initdb.exitStatus() != QProcess::NormalExit ||
            initdb.exitCode() != 0) {
            m_error = QStringLiteral("initdb failed: ") + QString::fromLocal8Bit(initdb.readAll());
            return false;
        }
        m_port = freePort();
        m_server.setProcessChannelMode(QProcess::MergedChannels);
        m_server.setStandardOutputFile(m_dir + QStringLiteral("/server.log"));
        startAsServerUser(m_server, bin + QStringLiteral("/postgres"),
                          {QStringLiteral("-D"), dataDir(), QStringLiteral("-p"),
                           QString::number(m_port), QStringLiteral("-k"), m_dir,
                           QStringLiteral("-c"), QStringLiteral("listen_addresses=127.0.0.1"),
                           QStringLiteral("-c"), QStringLiteral("fsync=off"), QStringLiteral("-c"),
                           QStringLiteral("full_page_writes=off"), QStringLiteral("-c"),
                           QStringLiteral("shared_buffers=16MB"), QStringLiteral("-c"),
                           QStringLiteral("max_connections=40"), QStringLiteral("-c"),
                           QStringLiteral("logging_collector=off")});
        if (!m_server.waitForStarted(10000)) {
            m_error = QStringLiteral("postgres did not start: ") + m_server.errorString();
            return false;
        }
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        const std::string ping = adminConnection();
        while (PQping(ping.c_str()) != PQPING_OK) {
            if (m_server.state() == QProcess::NotRunning ||
                std::chrono::steady_clock::now() > deadline) {
                QFile log(m_dir + QStringLiteral("/server.log"));
                log.open(QIODevice::ReadOnly);
                m_error = QStringLiteral("postgres did not accept connections: ") +
                          QString::fromLocal8Bit(log.readAll().right(2000));
                return false;
            }
            QThread::msleep(20);
        }
        return true;
    }

    void stop() {
        if (m_server.state() != QProcess::NotRunning) {
            ::kill(static_cast<pid_t>(m_server.processId()), SIGQUIT); // immediate shutdown
            if (!m_server.waitForFinished(10000)) {
                m_server.kill();
                m_server.waitForFinished(5000);
            }
        }
    }

    const QString& error() const { return m_error; }
    int port() const { return m_port; }
    const QString& socketDir() const { return m_dir; }

    /// A URI for database `name` over the socket (trusted: no password).
    std::string uri(const QString& name) const {
        return "postgresql:///" + name.toStdString() + "?host=" + m_dir.toStdString() +
               "&port=" + std::to_string(m_port) + "&user=" + kUser;
    }
    /// A URI for database `name` over TCP on 127.0.0.1 (needs the password).
    std::string tcpUri(const QString& name) const {
        return std::string("postgresql://") + kUser + "@127.0.0.1:" + std::to_string(m_port) + "/" +
               name.toStdString();
    }

    /// Creates an empty database (owned by kUser); returns its socket URI, or empty.
    std::string createDatabase(const QString& name) {
        if (!execute(adminConnection(), "CREATE DATABASE " + name.toStdString()).empty()) {
            return {};
        }
        return uri(name);
    }

    /// Runs SQL on a database; returns the first column of every row, or "ERROR: …".
    static std::vector<std::string> query(const std::string& conninfo, const std::string& sql) {
        std::unique_ptr<PGconn, decltype(&PQfinish)> connection(PQconnectdb(conninfo.c_str()),
                                                                &PQfinish);
        if (PQstatus(connection.get()) != CONNECTION_OK) {
            return {std::string("ERROR: ") + PQerrorMessage(connection.get())};
        }
        PQsetNoticeProcessor(
            connection.get(), [](void*, const char*) {}, nullptr);
        std::unique_ptr<PGresult, decltype(&PQclear)> result(PQexec(connection.get(), sql.c_str()),
                                                             &PQclear);
        const ExecStatusType status = PQresultStatus(result.get());
        if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
            return {std::string("ERROR: ") + PQresultErrorMessage(result.get())};
        }
        std::vector<std::string> rows;
        for (int i = 0; i < PQntuples(result.get()); ++i) {
            rows.emplace_back(PQgetvalue(result.get(), i, 0));
        }
        return rows;
    }
    /// query() for a statement without rows: empty, or the error.
    static std::string execute(const std::string& conninfo, const std::string& sql) {
        const std::vector<std::string> rows = query(conninfo, sql);
        return !rows.empty() && rows.front().rfind("ERROR: ", 0) == 0 ? rows.front()
                                                                      : std::string();
    }

private:
    QString dataDir() const { return m_dir + QStringLiteral("/data"); }
    std::string adminConnection() const { return uri(QStringLiteral("postgres")); }

    static void startAsServerUser(QProcess& process, const QString& program,
                                  const QStringList& arguments) {
        if (geteuid() == 0) {
            process.start(QStringLiteral("setpriv"),
                          QStringList{QStringLiteral("--reuid=nobody"),
                                      QStringLiteral("--regid=nogroup"),
                                      QStringLiteral("--clear-groups"), program} +
                              arguments);
        } else {
            process.start(program, arguments);
        }
    }

    static int freePort() {
        const int fd = socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        address.sin_port = 0;
        socklen_t length = sizeof address;
        int port = 54329;
        if (fd >= 0 && bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
            getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
            port = ntohs(address.sin_port);
        }
        if (fd >= 0) {
            ::close(fd);
        }
        return port;
    }

    QTemporaryDir m_folder{QDir::tempPath() + QStringLiteral("/paretune-pg-XXXXXX")};
    QString m_dir;
    QProcess m_server;
    int m_port = 0;
    QString m_error;
};
