// SPDX-License-Identifier: GPL-3.0-or-later
#include "librarylocation.h"

#include <QRegularExpression>
#include <QSettings>
#include <QUrl>
#include <QUrlQuery>

#include <algorithm>

namespace paretune {

namespace {

constexpr auto kLibraryKey = "library/location";

bool isServerUri(const QString& location) {
    return location.startsWith(QLatin1String("postgresql://"), Qt::CaseInsensitive) ||
           location.startsWith(QLatin1String("postgres://"), Qt::CaseInsensitive);
}

/// A libpq key=value string: `host=… dbname=…` (a file name never has `key=` at its start).
bool isKeyValueString(const QString& location) {
    static const QRegularExpression key(QStringLiteral("^\\s*(host|hostaddr|dbname|service)\\s*="));
    return key.match(location).hasMatch();
}

/// `password=secret` or `password='a secret'` in a libpq key=value string.
const QRegularExpression& keyValuePassword() {
    static const QRegularExpression password(
        QStringLiteral("\\s*\\bpassword\\s*=\\s*('([^'\\\\]|\\\\.)*'|\\S*)"));
    return password;
}

} // namespace

bool isServerLocation(const QString& location) {
    return isServerUri(location) || isKeyValueString(location);
}

QString serverLocationText(const ServerLocation& server) {
    QUrl url;
    url.setScheme(QStringLiteral("postgresql"));
    url.setHost(server.host.isEmpty() ? QStringLiteral("localhost") : server.host);
    if (server.port > 0) {
        url.setPort(server.port);
    }
    url.setUserName(server.user);
    url.setPath(QLatin1Char('/') + server.database);
    return url.toString(QUrl::FullyEncoded);
}

ServerLocation parseServerLocation(const QString& location) {
    ServerLocation server;
    if (!isServerUri(location)) {
        return server;
    }
    const QUrl url(location);
    server.host = url.host();
    server.port = std::max(url.port(), 0);
    server.user = url.userName();
    server.database = url.path().mid(1);
    return server;
}

bool hasPassword(const QString& location) {
    if (isServerUri(location)) {
        const QUrl url(location);
        return !url.password().isEmpty() || QUrlQuery(url).hasQueryItem(QStringLiteral("password"));
    }
    return isKeyValueString(location) && keyValuePassword().match(location).hasMatch();
}

QString withoutPassword(const QString& location) {
    if (isServerUri(location)) {
        QUrl url(location);
        url.setPassword(QString());
        QUrlQuery query(url);
        query.removeAllQueryItems(QStringLiteral("password"));
        url.setQuery(query);
        return url.toString(QUrl::FullyEncoded);
    }
    if (isKeyValueString(location)) {
        return QString(location).remove(keyValuePassword()).trimmed();
    }
    return location;
}

QString rememberedLibrary() {
    return withoutPassword(QSettings().value(QLatin1String(kLibraryKey)).toString());
}

void rememberLibrary(const QString& location) {
    QSettings().setValue(QLatin1String(kLibraryKey), withoutPassword(location));
}

} // namespace paretune
