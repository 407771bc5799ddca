// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspace.h"

#include "common/input_error.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

#include <algorithm>
#include <string>

namespace paretune {

namespace {

QString relativeTo(const QString& path, const QString& workspacePath) {
    if (path.isEmpty() || path.startsWith(QLatin1Char(':'))) {
        return path;
    }
    const QDir folder = QFileInfo(workspacePath).absoluteDir();
    const QString relative = folder.relativeFilePath(QFileInfo(path).absoluteFilePath());
    return relative.startsWith(QLatin1String("..")) ? QFileInfo(path).absoluteFilePath() : relative;
}

QString resolved(const QString& path, const QString& workspacePath) {
    if (path.isEmpty() || path.startsWith(QLatin1Char(':')) || QDir::isAbsolutePath(path)) {
        return path;
    }
    return QDir::cleanPath(QFileInfo(workspacePath).absoluteDir().filePath(path));
}

[[noreturn]] void fail(const QString& workspacePath, const QString& what) {
    throw InputError(QString(workspacePath + QStringLiteral(": ") + what).toStdString());
}

QString stringField(const QJsonObject& o, const char* key, const QString& where,
                    const QString& file, bool required) {
    const QJsonValue v = o.value(QLatin1String(key));
    if (v.isUndefined() || v.isNull()) {
        if (required) {
            fail(file, QStringLiteral("%1%2: missing").arg(where, QLatin1String(key)));
        }
        return {};
    }
    if (!v.isString()) {
        fail(file, QStringLiteral("%1%2: expected a string").arg(where, QLatin1String(key)));
    }
    return v.toString();
}

double numberField(const QJsonObject& o, const char* key, double fallback, double lo, double hi,
                   bool integer, const QString& file) {
    const QJsonValue v = o.value(QLatin1String(key));
    if (v.isUndefined()) {
        return fallback;
    }
    const double x = v.toDouble();
    if (!v.isDouble() || x < lo || x > hi || (integer && x != static_cast<double>(qint64(x)))) {
        fail(file, QStringLiteral("search.%1: expected %2 from %3 to %4")
                       .arg(QLatin1String(key),
                            integer ? QStringLiteral("an integer") : QStringLiteral("a number"))
                       .arg(lo)
                       .arg(hi));
    }
    return x;
}

} // namespace

QByteArray workspaceToJson(const Workspace& w, const QString& workspacePath) {
    QJsonArray objectives;
    for (const Objective o : w.search.objectives) {
        objectives.append(QString::fromUtf8(objectiveName(o).data(),
                                            static_cast<qsizetype>(objectiveName(o).size())));
    }
    QJsonArray variants;
    for (const Variant p : w.search.variants) {
        variants.append(QString::fromUtf8(variantName(p).data(),
                                          static_cast<qsizetype>(variantName(p).size())));
    }
    const QJsonObject search{
        {QStringLiteral("objectives"), objectives},
        {QStringLiteral("variants"), variants},
        {QStringLiteral("population"), w.search.population},
        {QStringLiteral("generations"), w.search.generations},
        {QStringLiteral("seed"), static_cast<double>(w.search.seed)},
        {QStringLiteral("coarse_to_fine"), w.search.coarseToFine},
    };
    const QJsonObject root{
        {QStringLiteral("schema"), QLatin1String(Workspace::kSchema)},
        {QStringLiteral("model"), relativeTo(w.modelPath, workspacePath)},
        {QStringLiteral("database"), relativeTo(w.dbPath, workspacePath)},
        {QStringLiteral("catalog"), relativeTo(w.catalogPath, workspacePath)},
        {QStringLiteral("devices"), QJsonArray::fromStringList(w.devices)},
        {QStringLiteral("search"), search},
        {QStringLiteral("chosen_plan"), w.chosenPlan},
        {QStringLiteral("view"),
         QJsonObject{{QStringLiteral("graph_colouring"), graphColouringName(w.graphColouring)}}},
    };
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

Workspace workspaceFromJson(const QByteArray& json, const QString& file) {
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError) {
        fail(file, QStringLiteral("not valid JSON at offset %1: %2")
                       .arg(error.offset)
                       .arg(error.errorString()));
    }
    if (!doc.isObject()) {
        fail(file, QStringLiteral("expected a JSON object"));
    }
    const QJsonObject root = doc.object();
    const QString schema = stringField(root, "schema", QString(), file, true);
    if (schema != QLatin1String(Workspace::kSchema)) {
        fail(file, QStringLiteral("schema: expected \"%1\", found \"%2\"")
                       .arg(QLatin1String(Workspace::kSchema), schema));
    }
    static const char* const kKnown[] = {"schema",  "model",  "database",    "catalog",
                                         "devices", "search", "chosen_plan", "view"};
    for (const QString& key : root.keys()) {
        if (std::find_if(std::begin(kKnown), std::end(kKnown), [&](const char* k) {
                return key == QLatin1String(k);
            }) == std::end(kKnown)) {
            fail(file, QStringLiteral("%1: unknown field").arg(key));
        }
    }
    Workspace w;
    w.modelPath = resolved(stringField(root, "model", QString(), file, true), file);
    if (w.modelPath.isEmpty()) {
        fail(file, QStringLiteral("model: empty path"));
    }
    w.dbPath = resolved(stringField(root, "database", QString(), file, false), file);
    w.catalogPath = resolved(stringField(root, "catalog", QString(), file, false), file);
    const QJsonValue devices = root.value(QStringLiteral("devices"));
    if (!devices.isUndefined()) {
        if (!devices.isArray()) {
            fail(file, QStringLiteral("devices: expected an array of device ids"));
        }
        const QJsonArray list = devices.toArray();
        for (qsizetype i = 0; i < list.size(); ++i) {
            if (!list[i].isString() || list[i].toString().isEmpty()) {
                fail(file, QStringLiteral("devices[%1]: expected a device id").arg(i));
            }
            w.devices << list[i].toString();
        }
    }
    const QJsonValue searchValue = root.value(QStringLiteral("search"));
    if (!searchValue.isUndefined()) {
        if (!searchValue.isObject()) {
            fail(file, QStringLiteral("search: expected an object"));
        }
        const QJsonObject s = searchValue.toObject();
        const QJsonValue objectives = s.value(QStringLiteral("objectives"));
        if (!objectives.isUndefined()) {
            QStringList names;
            for (const QJsonValue& v : objectives.toArray()) {
                names << v.toString();
            }
            if (!objectives.isArray()) {
                fail(file, QStringLiteral("search.objectives: expected an array of names"));
            }
            try {
                w.search.objectives = parseObjectives(names.join(QLatin1Char(',')).toStdString());
            } catch (const InputError& e) {
                fail(file,
                     QStringLiteral("search.objectives: %1").arg(QString::fromUtf8(e.what())));
            }
        }
        const QJsonValue variants = s.value(QStringLiteral("variants"));
        if (!variants.isUndefined()) { // absent in older workspaces: fp32 only
            QStringList names;
            for (const QJsonValue& v : variants.toArray()) {
                names << v.toString();
            }
            if (!variants.isArray()) {
                fail(file, QStringLiteral("search.variants: expected an array of precisions"));
            }
            try {
                w.search.variants = names.isEmpty()
                                        ? std::vector<Variant>{}
                                        : parseVariants(names.join(QLatin1Char(',')).toStdString());
            } catch (const InputError& e) {
                fail(file, QStringLiteral("search.variants: %1").arg(QString::fromUtf8(e.what())));
            }
        }
        w.search.population = static_cast<std::int32_t>(
            numberField(s, "population", w.search.population, 4, 100000, true, file));
        w.search.generations = static_cast<std::int32_t>(
            numberField(s, "generations", w.search.generations, 0, 1000000, true, file));
        w.search.seed = static_cast<std::uint64_t>(numberField(
            s, "seed", static_cast<double>(w.search.seed), 0, 9007199254740992.0, true, file));
        const QJsonValue coarse = s.value(QStringLiteral("coarse_to_fine"));
        if (!coarse.isUndefined() && !coarse.isBool()) {
            fail(file, QStringLiteral("search.coarse_to_fine: expected true or false"));
        }
        w.search.coarseToFine = coarse.toBool(false);
    }
    const QJsonValue chosen = root.value(QStringLiteral("chosen_plan"));
    if (!chosen.isUndefined()) {
        if (!chosen.isDouble() || chosen.toDouble() < -1 ||
            chosen.toDouble() != static_cast<double>(chosen.toInt())) {
            fail(file, QStringLiteral("chosen_plan: expected a plan index (or -1 for none)"));
        }
        w.chosenPlan = chosen.toInt();
    }
    const QJsonValue view = root.value(QStringLiteral("view"));
    if (!view.isUndefined()) { // absent in older workspaces: the default views
        if (!view.isObject()) {
            fail(file, QStringLiteral("view: expected an object"));
        }
        const QJsonValue colouring = view.toObject().value(QStringLiteral("graph_colouring"));
        if (!colouring.isUndefined()) {
            const auto parsed = parseGraphColouring(colouring.toString());
            if (!colouring.isString() || !parsed) {
                fail(file, QStringLiteral("view.graph_colouring: expected \"device\", "
                                          "\"latency\" or \"precision\""));
            }
            w.graphColouring = *parsed;
        }
    }
    return w;
}

void saveWorkspace(const Workspace& workspace, const QString& path) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(workspaceToJson(workspace, path)) < 0 ||
        !file.commit()) {
        fail(path, QStringLiteral("cannot write the workspace: %1").arg(file.errorString()));
    }
}

Workspace loadWorkspace(const QString& path) {
    QFile file(path);
    if (!QFileInfo(path).isFile()) {
        fail(path, QStringLiteral("no such workspace file"));
    }
    if (!file.open(QIODevice::ReadOnly)) {
        fail(path, QStringLiteral("cannot read the workspace: %1").arg(file.errorString()));
    }
    return workspaceFromJson(file.readAll(), path);
}

} // namespace paretune
