// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace paretune {

class GraphView;
class MainWindow;

/// Makes a GraphView the window's central widget and adds the "Node properties" dock, both
/// following the window's model, search, chosen plan and node selection; a node clicked or
/// found in the graph becomes the window's selection.
GraphView* addGraphView(MainWindow& window);

} // namespace paretune
