// SPDX-License-Identifier: GPL-3.0-or-later
#include "onnx_graph_structure.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace paretune::onnx_import {

namespace {

// Names a subgraph reads from enclosing scopes: used by its nodes, defined nowhere inside it.
void collectOuterReferences(const onnx::GraphProto& graph, std::set<std::string>& names) {
    std::unordered_set<std::string> defined;
    for (const auto& v : graph.input()) {
        defined.insert(v.name());
    }
    for (const auto& init : graph.initializer()) {
        defined.insert(init.name());
    }
    for (const auto& node : graph.node()) {
        for (const std::string& in : node.input()) {
            if (!in.empty() && !defined.count(in)) {
                names.insert(in);
            }
        }
        for (const auto& a : node.attribute()) {
            if (a.has_g()) {
                std::set<std::string> nested;
                collectOuterReferences(a.g(), nested);
                for (const std::string& n : nested) {
                    if (!defined.count(n)) {
                        names.insert(n);
                    }
                }
            }
        }
        defined.insert(node.output().begin(), node.output().end());
    }
}

} // namespace

void collectProducedNames(const onnx::GraphProto& graph, std::vector<std::string>& names) {
    for (const auto& node : graph.node()) {
        names.insert(names.end(), node.output().begin(), node.output().end());
        for (const auto& a : node.attribute()) {
            if (a.has_g()) {
                collectProducedNames(a.g(), names);
            }
        }
    }
}

std::vector<std::string> implicitInputs(const onnx::NodeProto& node) {
    std::set<std::string> names;
    for (const auto& a : node.attribute()) {
        if (a.has_g()) {
            collectOuterReferences(a.g(), names);
        }
    }
    return {names.begin(), names.end()};
}

std::vector<std::string> orderNodes(onnx::GraphProto& graph, const ImportDiagnostics& report) {
    std::vector<std::string> names;
    const int n = graph.node_size();
    std::unordered_map<std::string, int> producer;
    std::unordered_set<std::string> available;
    for (const auto& input : graph.input()) {
        available.insert(input.name());
    }
    for (const auto& init : graph.initializer()) {
        available.insert(init.name());
    }
    for (int i = 0; i < n; ++i) {
        for (const std::string& out : graph.node(i).output()) {
            if (out.empty()) {
                continue;
            }
            if (available.count(out)) {
                report.fail(nodeLabel(graph.node(i), i) + ": output " + inQuotes(out) +
                            " is also a graph input or initializer");
            }
            const auto [it, inserted] = producer.emplace(out, i);
            if (!inserted) {
                report.fail("tensor " + inQuotes(out) + " is produced twice, by " +
                            nodeLabel(graph.node(it->second), it->second) + " and " +
                            nodeLabel(graph.node(i), i));
            }
        }
    }
    // Stable Kahn: among ready nodes, the one first in the file goes first, so a sorted file
    // keeps its order.
    std::vector<int> pending(static_cast<std::size_t>(n), 0);
    std::vector<std::vector<int>> consumers(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        const onnx::NodeProto& node = graph.node(i);
        std::unordered_set<int> seen;
        std::vector<std::string> inputs(node.input().begin(), node.input().end());
        const std::size_t explicitCount = inputs.size();
        const std::vector<std::string> captured = implicitInputs(node);
        inputs.insert(inputs.end(), captured.begin(), captured.end());
        for (std::size_t k = 0; k < inputs.size(); ++k) {
            const std::string& in = inputs[k];
            if (in.empty() || available.count(in)) {
                continue;
            }
            const auto it = producer.find(in);
            if (it == producer.end()) {
                report.fail(nodeLabel(node, i) +
                            (k < explicitCount ? ": input " : ": a subgraph reads ") +
                            inQuotes(in) +
                            " which is not produced by any node, initializer or graph input");
            }
            if (seen.insert(it->second).second) {
                ++pending[static_cast<std::size_t>(i)];
                consumers[static_cast<std::size_t>(it->second)].push_back(i);
            }
        }
    }
    std::priority_queue<int, std::vector<int>, std::greater<>> ready;
    for (int i = 0; i < n; ++i) {
        if (pending[static_cast<std::size_t>(i)] == 0) {
            ready.push(i);
        }
    }
    std::vector<int> order;
    while (!ready.empty()) {
        const int i = ready.top();
        ready.pop();
        order.push_back(i);
        for (const int c : consumers[static_cast<std::size_t>(i)]) {
            if (--pending[static_cast<std::size_t>(c)] == 0) {
                ready.push(c);
            }
        }
    }
    if (static_cast<int>(order.size()) != n) {
        // Walk back along unfinished producers from any unfinished node until one repeats.
        int start = 0;
        while (pending[static_cast<std::size_t>(start)] == 0) {
            ++start;
        }
        std::vector<int> path;
        std::unordered_map<int, std::size_t> position;
        int current = start;
        while (!position.count(current)) {
            position[current] = path.size();
            path.push_back(current);
            for (const std::string& in : graph.node(current).input()) {
                const auto it = producer.find(in);
                if (it != producer.end() && pending[static_cast<std::size_t>(it->second)] > 0) {
                    current = it->second;
                    break;
                }
            }
        }
        std::string cycle;
        for (std::size_t k = path.size(); k-- > position[current];) {
            cycle += nodeLabel(graph.node(path[k]), path[k]) + " -> ";
        }
        cycle += nodeLabel(graph.node(current), current);
        report.fail("the graph has a cycle: " + cycle);
    }
    bool sorted = std::is_sorted(order.begin(), order.end());
    if (!sorted) {
        report.warn("unsorted-nodes",
                    "nodes are not in topological order in the file; they were reordered");
        google::protobuf::RepeatedPtrField<onnx::NodeProto> reordered;
        for (const int i : order) {
            *reordered.Add() = graph.node(i);
        }
        graph.mutable_node()->Swap(&reordered);
    }
    // Unique, non-empty node names for the IR (the file keeps its own).
    std::unordered_map<std::string, int> used;
    for (const auto& node : graph.node()) {
        if (!node.name().empty()) {
            ++used[node.name()];
        }
    }
    std::unordered_set<std::string> taken;
    int index = 0;
    for (const auto& node : graph.node()) {
        std::string base =
            node.name().empty() ? node.op_type() + "_" + std::to_string(index) : node.name();
        std::string name = base;
        for (int k = 2; taken.count(name) || (node.name() != name && used.count(name)); ++k) {
            name = base + "_" + std::to_string(k);
        }
        if (!node.name().empty() && name != node.name()) {
            report.warn("duplicate-node-name", "node name " + inQuotes(node.name()) +
                                                   " is used more than once; one is called " +
                                                   inQuotes(name));
        }
        taken.insert(name);
        names.push_back(name);
        ++index;
    }
    return names;
}

} // namespace paretune::onnx_import
