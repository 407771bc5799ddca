// SPDX-License-Identifier: GPL-3.0-or-later
#include "graphoutline.h"

#include <map>
#include <utility>

namespace paretune {

std::string nodeScope(std::string_view nodeName) {
    if (nodeName.empty() || nodeName.front() != '/') {
        return {};
    }
    const std::size_t slash = nodeName.rfind('/');
    return std::string(nodeName.substr(0, slash));
}

namespace {

/// Name scopes of the drawn nodes: how many drawn nodes each holds (at any depth), its child
/// scopes and the nodes directly in it. The root scope is "".
struct ScopeTree {
    std::map<std::string, std::int32_t> members;
    std::map<std::string, std::set<std::string>> children;
    std::map<std::string, std::int32_t> direct;

    void add(const std::string& scope) {
        ++direct[scope];
        std::string child = scope;
        while (!child.empty()) {
            ++members[child];
            const std::string parent = child.substr(0, child.rfind('/'));
            children[parent].insert(child);
            child = parent;
        }
    }
    /// Items drawn for a scope when it is expanded and its children folded.
    std::int32_t units(const std::string& scope) const {
        const auto c = children.find(scope);
        const auto d = direct.find(scope);
        return (c == children.end() ? 0 : static_cast<std::int32_t>(c->second.size())) +
               (d == direct.end() ? 0 : d->second);
    }
};

/// Scopes expanded automatically: whole levels of the scope tree (all stages, then all blocks,
/// ...) while the drawn items stay within budget, so that repeated blocks look alike.
std::set<std::string> autoExpandedScopes(const ScopeTree& tree, std::int32_t budget) {
    std::set<std::string> expanded{""};
    std::int32_t count = tree.units("");
    std::vector<std::string> level;
    auto addChildren = [&tree](const std::string& scope, std::vector<std::string>& into) {
        const auto c = tree.children.find(scope);
        if (c != tree.children.end()) {
            into.insert(into.end(), c->second.begin(), c->second.end());
        }
    };
    addChildren("", level);
    while (!level.empty()) {
        std::int32_t grown = count;
        for (const std::string& scope : level) {
            grown += tree.units(scope) - 1;
        }
        if (grown > budget) {
            break;
        }
        count = grown;
        std::vector<std::string> next;
        for (const std::string& scope : level) {
            expanded.insert(scope);
            addChildren(scope, next);
        }
        level = std::move(next);
    }
    return expanded;
}

std::string lastComponent(const std::string& scope) {
    return scope.substr(scope.rfind('/') + 1);
}

/// Items and edges for the given unit of every drawn node: an empty key draws the node on its
/// own, a group key puts it into that group.
GraphOutline assemble(const Graph& g, const std::vector<bool>& drawn,
                      const std::vector<std::string>& unitKey,
                      const std::map<std::string, OutlineItem>& groups) {
    GraphOutline outline;
    outline.itemOfNode.assign(g.nodes.size(), -1);
    std::map<std::string, std::int32_t> groupItem;
    for (const NodeId n : g.topologicalOrder) {
        const auto node = static_cast<std::size_t>(n);
        if (!drawn[node]) {
            continue;
        }
        ++outline.drawnNodeCount;
        const std::string& key = unitKey[node];
        std::int32_t item = -1;
        if (key.empty()) {
            item = static_cast<std::int32_t>(outline.items.size());
            OutlineItem own;
            own.title = g.nodes[node].opType;
            own.members = {n};
            outline.items.push_back(std::move(own));
        } else if (const auto it = groupItem.find(key); it != groupItem.end()) {
            item = it->second;
            outline.items[static_cast<std::size_t>(item)].members.push_back(n);
        } else {
            item = static_cast<std::int32_t>(outline.items.size());
            groupItem.emplace(key, item);
            OutlineItem group = groups.at(key);
            group.members = {n};
            outline.items.push_back(std::move(group));
            outline.grouped = true;
        }
        outline.itemOfNode[node] = item;
    }
    std::map<std::pair<std::int32_t, std::int32_t>, std::size_t> edgeIndex;
    for (const NodeId consumer : g.topologicalOrder) {
        const std::int32_t to = outline.itemOfNode[static_cast<std::size_t>(consumer)];
        if (to < 0) {
            continue;
        }
        for (const TensorId t : g.nodeInputs.row(consumer)) {
            if (t == kNone) {
                continue;
            }
            const NodeId producer = g.tensors[static_cast<std::size_t>(t)].producer;
            const std::int32_t from =
                producer == kNone ? -1 : outline.itemOfNode[static_cast<std::size_t>(producer)];
            if (from < 0 || from == to) {
                continue;
            }
            auto [it, added] = edgeIndex.emplace(std::make_pair(from, to), outline.edges.size());
            if (added) {
                outline.edges.push_back(OutlineEdge{from, to, {}});
            }
            auto& links = outline.edges[it->second].links;
            if (links.empty() || links.back().tensor != t || links.back().consumer != consumer) {
                links.push_back(TensorLink{producer, consumer, t});
            }
        }
    }
    return outline;
}

} // namespace

GraphOutline buildOutline(const Graph& g, const OutlineOptions& options) {
    const std::size_t nodeCount = g.nodes.size();
    std::vector<bool> drawn(nodeCount, false);
    std::int32_t drawnCount = 0;
    for (std::size_t n = 0; n < nodeCount; ++n) {
        drawn[n] = options.showConstants || g.nodes[n].kind != NodeKind::Constant;
        drawnCount += drawn[n] ? 1 : 0;
    }
    const bool grouping = drawnCount > options.fullLimit;
    auto toggled = [&options](const std::string& key) { return options.toggled.count(key) > 0; };

    ScopeTree tree;
    for (std::size_t n = 0; n < nodeCount; ++n) {
        if (drawn[n]) {
            tree.add(nodeScope(g.nodes[n].name));
        }
    }
    const std::set<std::string> autoExpanded =
        grouping ? autoExpandedScopes(tree, options.budget) : std::set<std::string>{};
    auto expanded = [&](const std::string& scope) {
        const bool byDefault = !grouping || autoExpanded.count(scope) > 0;
        return byDefault != toggled("scope:" + scope);
    };

    // The outermost folded scope of each node (a scope of one node is never folded). Nodes the
    // user revealed by expanding a scope are never folded into chains.
    std::vector<std::string> unitKey(nodeCount);
    std::vector<bool> revealed(nodeCount, false);
    std::map<std::string, OutlineItem> groups;
    for (std::size_t n = 0; n < nodeCount; ++n) {
        const std::string scope = drawn[n] ? nodeScope(g.nodes[n].name) : std::string();
        for (std::size_t slash = scope.find('/', 1); !scope.empty();
             slash = scope.find('/', slash + 1)) {
            const std::string prefix = scope.substr(0, slash);
            revealed[n] = revealed[n] || (grouping && toggled("scope:" + prefix));
            if (tree.members.at(prefix) > 1 && !expanded(prefix)) {
                unitKey[n] = "scope:" + prefix;
                OutlineItem& group = groups[unitKey[n]];
                group.kind = OutlineItem::Kind::ScopeGroup;
                group.key = unitKey[n];
                group.title = lastComponent(prefix);
                break;
            }
            if (slash == std::string::npos) {
                break;
            }
        }
    }
    GraphOutline outline = assemble(g, drawn, unitKey, groups);
    if (!grouping || static_cast<std::int32_t>(outline.items.size()) <= options.budget) {
        return outline;
    }

    // Still too many items: fold chains of single nodes linked one-to-one.
    const std::size_t itemCount = outline.items.size();
    std::vector<std::int32_t> in(itemCount, 0);
    std::vector<std::int32_t> out(itemCount, 0);
    std::vector<std::int32_t> next(itemCount, -1);
    for (const OutlineEdge& e : outline.edges) {
        ++out[static_cast<std::size_t>(e.from)];
        ++in[static_cast<std::size_t>(e.to)];
        next[static_cast<std::size_t>(e.from)] = e.to;
    }
    auto foldable = [&](std::size_t item) {
        const OutlineItem& it = outline.items[item];
        return !it.isGroup() && !revealed[static_cast<std::size_t>(it.members.front())];
    };
    auto chainable = [&](std::int32_t from) {
        const auto f = static_cast<std::size_t>(from);
        if (out[f] != 1 || !foldable(f)) {
            return false;
        }
        const auto t = static_cast<std::size_t>(next[f]);
        return in[t] == 1 && foldable(t);
    };
    std::vector<bool> continues(itemCount, false); // reached from its chain predecessor
    for (std::size_t i = 0; i < itemCount; ++i) {
        if (chainable(static_cast<std::int32_t>(i))) {
            continues[static_cast<std::size_t>(next[i])] = true;
        }
    }
    for (std::size_t head = 0; head < itemCount; ++head) {
        if (continues[head] || !foldable(head)) {
            continue;
        }
        std::vector<std::int32_t> chain{static_cast<std::int32_t>(head)};
        while (chainable(chain.back())) {
            chain.push_back(next[static_cast<std::size_t>(chain.back())]);
        }
        const NodeId first = outline.items[head].members.front();
        const std::string key = "chain:" + g.nodes[static_cast<std::size_t>(first)].name;
        if (chain.size() < 3 || toggled(key)) {
            continue;
        }
        OutlineItem& group = groups[key];
        group.kind = OutlineItem::Kind::ChainGroup;
        group.key = key;
        group.title = outline.items[head].title + " \u2192 \u2026 \u2192 " +
                      outline.items[static_cast<std::size_t>(chain.back())].title;
        for (const std::int32_t item : chain) {
            unitKey[static_cast<std::size_t>(
                outline.items[static_cast<std::size_t>(item)].members.front())] = key;
        }
    }
    return assemble(g, drawn, unitKey, groups);
}

} // namespace paretune
