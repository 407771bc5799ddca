// SPDX-License-Identifier: GPL-3.0-or-later
#include "librarylocation.h"

#include "store/library_location.h"

#include <QSettings>
#include <QUrl>

#include <algorithm>

namespace paretune {

namespace {

constexpr auto kLibraryKey = "library/location";

bool isServerUri(const QString& location) {
    return location.startsWith(QLatin1String("postgresql://")) ||
           location.startsWith(QLatin1String("postgres://"));
}

} // namespace

bool isServerLocation(const QString& location) {
    return isServerLibrary(location.toStdString());
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
    return isServerLocation(location) && withoutPassword(location) != location.trimmed();
}

QString withoutPassword(const QString& location) {
    return QString::fromStdString(libraryLabel(location.toStdString()));
}

QString rememberedLibrary() {
    return withoutPassword(QSettings().value(QLatin1String(kLibraryKey)).toString());
}

void rememberLibrary(const QString& location) {
    QSettings().setValue(QLatin1String(kLibraryKey), withoutPassword(location));
}

} // namespace paretune
