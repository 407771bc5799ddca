// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QPixmap>
#include <QString>
#include <QStringList>

namespace paretune {

class MainWindow;

/// The states `paretune-workbench --screenshot` renders: graph (the window with its central
/// view), pareto, timeline, profile (that dock, floated at a readable size), tune (the window
/// after a tune, its Tune panel raised), window (the whole window in its default layout after
/// a quick search, the fastest plan chosen and the first node selected).
QStringList screenshotStates();
/// Whether a state shows a chosen plan (so a search must run first).
bool screenshotNeedsPlan(const QString& state);
/// Prepares `state` for a picture (floats and sizes its dock); call, let the event loop run
/// briefly so that the layout settles, then grabScreenshot.
void prepareScreenshot(MainWindow& window, const QString& state);
QPixmap grabScreenshot(MainWindow& window, const QString& state);

} // namespace paretune
