// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graphpalette.h"
#include "search/pareto_search.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace paretune {

/// What a `.paretune` workspace file keeps so that work can be reopened: the model, the sample
/// library, the device catalog and the devices searched on, the search settings, the chosen
/// plan (its index on the front the same settings reproduce: the search is deterministic for a
/// seed) and how the views show it (the graph's colouring). JSON, schema "paretune.workspace/1";
/// paths are stored relative to the workspace file's folder when they lie inside it.
struct Workspace {
    static constexpr const char* kSchema = "paretune.workspace/1";

    QString modelPath;   ///< absolute once loaded
    QString dbPath;      ///< empty: the default sample library
    QString catalogPath; ///< empty: the bundled example catalog
    QStringList devices; ///< catalog ids to search on; empty: the catalog's default set
    SearchOptions search;
    int chosenPlan = -1; ///< index on the front; -1: none chosen
    /// "view": {"graph_colouring": "device" | "latency" | "precision"}; absent: device.
    GraphColouring graphColouring = GraphColouring::Device;
};

/// JSON text of a workspace to be written at `workspacePath`.
QByteArray workspaceToJson(const Workspace& workspace, const QString& workspacePath);
/// Parses a workspace read from `workspacePath`; relative paths are resolved against its folder.
/// Throws InputError naming the file and the field for malformed JSON, a wrong schema, a missing
/// model path or a value of the wrong type or out of range.
Workspace workspaceFromJson(const QByteArray& json, const QString& workspacePath);

/// Writes atomically (a temporary file renamed over the target); throws InputError when the file
/// cannot be written.
void saveWorkspace(const Workspace& workspace, const QString& path);
/// Reads and parses; throws InputError for a missing or unreadable file and as workspaceFromJson.
Workspace loadWorkspace(const QString& path);

} // namespace paretune
