// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QRect>

class QMainWindow;
class QMenu;

namespace paretune {

/// Where the window opens when no geometry was saved: the whole available area of a screen up
/// to 1440×900 (a laptop's), else 85 % of it, centred, so that the window never starts taller
/// or wider than the screen.
QRect defaultWindowGeometry(const QRect& available);

/// Puts the window's docks where they belong for its current size, each visible and docked:
/// Node properties in a full-height column on the left, the Pareto front in a full-height
/// column on the right; in the middle, the graph above a tabbed row of Per-layer profile
/// (raised), Timeline, Tune, Devices, Predictor and Log, tall enough for the profile to show at
/// least eight rows at 1280×800. The docks are found by their object names.
void arrangeDefaultLayout(QMainWindow& window);

/// Fills a View menu: every tool bar's and dock's toggleViewAction (in the order above), then
/// "Default layout", which calls arrangeDefaultLayout.
void fillViewMenu(QMainWindow& window, QMenu& menu);

} // namespace paretune
