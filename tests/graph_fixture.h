// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Small graphs written as text, so a test reads like the case it checks:
//   fixtureGraph("a->b; a->c; b,c->d")
// Every name is a node with one uint8 output tensor named after it. "x,y->z" makes z read the
// outputs of x and y (in that order). A node without a producer reads the graph input "input";
// nodes without consumers produce graph outputs. Sizes, weights, op types, kinds and FLOPs come
// from FixtureOptions.

#include "graph/graph.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace paretune::test {

struct FixtureOptions {
    std::int64_t inputBytes = 1000;
    std::int64_t defaultBytes = 1000;
    std::map<std::string, std::int64_t> outputBytes; ///< per node
    std::map<std::string, std::int64_t> weightBytes; ///< per node: an initializer "<node>.w"
    /// per node: the name of its initializer instead of "<node>.w"; nodes giving the same name
    /// share one initializer (its size is the first such node's weightBytes)
    std::map<std::string, std::string> weightNames;
    std::map<std::string, std::string> opTypes; ///< per node; default "Op"
    std::map<std::string, NodeKind> kinds;      ///< per node; default Compute
    std::map<std::string, double> flops;        ///< per node
};

inline std::string fixtureTrim(std::string_view s) {
    while (!s.empty() && s.front() == ' ') {
        s.remove_prefix(1);
    }
    while (!s.empty() && s.back() == ' ') {
        s.remove_suffix(1);
    }
    return std::string(s);
}

inline std::vector<std::string> fixtureSplit(std::string_view s, char sep) {
    std::vector<std::string> parts;
    std::size_t begin = 0;
    while (begin <= s.size()) {
        const std::size_t end = std::min(s.find(sep, begin), s.size());
        std::string part = fixtureTrim(s.substr(begin, end - begin));
        if (!part.empty()) {
            parts.push_back(part);
        }
        begin = end + 1;
    }
    return parts;
}

inline Graph fixtureGraph(std::string_view text, const FixtureOptions& options = {}) {
    std::vector<std::string> names;
    std::map<std::string, std::vector<std::string>> preds;
    auto node = [&](const std::string& name) {
        if (std::find(names.begin(), names.end(), name) == names.end()) {
            names.push_back(name);
        }
    };
    for (const std::string& statement : fixtureSplit(text, ';')) {
        std::vector<std::string> chain;
        std::size_t pos = 0;
        while (true) {
            const std::size_t arrow = statement.find("->", pos);
            chain.push_back(statement.substr(pos, arrow == std::string::npos ? std::string::npos
                                                                             : arrow - pos));
            if (arrow == std::string::npos) {
                break;
            }
            pos = arrow + 2;
        }
        for (std::size_t i = 0; i < chain.size(); ++i) {
            for (const std::string& n : fixtureSplit(chain[i], ',')) {
                node(n);
                if (i > 0) {
                    for (const std::string& p : fixtureSplit(chain[i - 1], ',')) {
                        auto& list = preds[n];
                        if (std::find(list.begin(), list.end(), p) == list.end()) {
                            list.push_back(p);
                        }
                    }
                }
            }
        }
    }

    Graph g;
    g.name = std::string(text);
    auto byteTensor = [](std::string name, std::int64_t bytes, TensorRole role) {
        Tensor t;
        t.name = std::move(name);
        t.dtype = DType::UInt8;
        t.rankKnown = true;
        t.dims = {bytes};
        t.role = role;
        return t;
    };
    g.tensors.push_back(byteTensor("input", options.inputBytes, TensorRole::GraphInput));
    g.inputs.push_back(0);
    const auto count = static_cast<NodeId>(names.size());
    auto lookup = [&](const std::map<std::string, std::int64_t>& m, const std::string& k,
                      std::int64_t fallback) {
        const auto it = m.find(k);
        return it == m.end() ? fallback : it->second;
    };
    for (NodeId n = 0; n < count; ++n) {
        const std::string& name = names[static_cast<std::size_t>(n)];
        Tensor out = byteTensor(name, lookup(options.outputBytes, name, options.defaultBytes),
                                TensorRole::Activation);
        out.producer = n;
        g.tensors.push_back(out);
    }
    std::map<std::string, TensorId> weightTensor; // per node
    std::map<std::string, TensorId> byName;
    for (const auto& [name, bytes] : options.weightBytes) {
        const auto named = options.weightNames.find(name);
        const std::string tensorName =
            named == options.weightNames.end() ? name + ".w" : named->second;
        if (byName.find(tensorName) == byName.end()) {
            byName[tensorName] = static_cast<TensorId>(g.tensors.size());
            g.tensors.push_back(byteTensor(tensorName, bytes, TensorRole::Initializer));
        }
        weightTensor[name] = byName[tensorName];
    }
    auto indexOf = [&](const std::string& name) {
        const auto it = std::find(names.begin(), names.end(), name);
        if (it == names.end()) {
            throw std::invalid_argument("fixture: unknown node " + name);
        }
        return static_cast<NodeId>(it - names.begin());
    };

    std::vector<std::vector<std::int32_t>> consumers(g.tensors.size());
    std::vector<std::vector<std::int32_t>> succ(names.size());
    for (NodeId n = 0; n < count; ++n) {
        const std::string& name = names[static_cast<std::size_t>(n)];
        Node nd;
        nd.name = name;
        nd.opType = options.opTypes.count(name) ? options.opTypes.at(name) : std::string("Op");
        nd.kind = options.kinds.count(name) ? options.kinds.at(name) : NodeKind::Compute;
        g.nodes.push_back(nd);
        std::vector<std::int32_t> ins;
        std::vector<std::int32_t> pr;
        const auto it = preds.find(name);
        if (it == preds.end() || it->second.empty()) {
            ins.push_back(0);
        } else {
            for (const std::string& p : it->second) {
                const NodeId pn = indexOf(p);
                ins.push_back(pn + 1);
                pr.push_back(pn);
                succ[static_cast<std::size_t>(pn)].push_back(n);
            }
        }
        if (const auto w = weightTensor.find(name); w != weightTensor.end()) {
            ins.push_back(w->second);
        }
        for (const std::int32_t t : ins) {
            consumers[static_cast<std::size_t>(t)].push_back(n);
        }
        g.nodeInputs.appendRow(ins);
        const std::int32_t out = n + 1;
        g.nodeOutputs.appendRow(std::span<const std::int32_t>(&out, 1));
        g.predecessors.appendRow(pr);
        OpMetrics m;
        m.flops = options.flops.count(name) ? options.flops.at(name) : 0.0;
        for (const std::int32_t t : ins) {
            m.bytesRead += g.tensors[static_cast<std::size_t>(t)].byteSize();
        }
        m.bytesWritten = g.tensors[static_cast<std::size_t>(out)].byteSize();
        m.paramBytes = lookup(options.weightBytes, name, 0);
        g.metrics.push_back(m);
        g.signatures.push_back(nd.opType);
    }
    for (NodeId n = 0; n < count; ++n) {
        g.successors.appendRow(succ[static_cast<std::size_t>(n)]);
        if (succ[static_cast<std::size_t>(n)].empty()) {
            g.tensors[static_cast<std::size_t>(n + 1)].graphOutput = true;
            g.outputs.push_back(n + 1);
        }
    }
    for (const auto& c : consumers) {
        g.tensorConsumers.appendRow(c);
    }
    // Kahn's algorithm, smallest index first, so the order follows the text.
    std::vector<int> indegree(names.size());
    for (NodeId n = 0; n < count; ++n) {
        indegree[static_cast<std::size_t>(n)] = static_cast<int>(g.predecessors.row(n).size());
    }
    std::vector<bool> done(names.size(), false);
    for (NodeId step = 0; step < count; ++step) {
        NodeId pick = kNone;
        for (NodeId n = 0; n < count; ++n) {
            if (!done[static_cast<std::size_t>(n)] && indegree[static_cast<std::size_t>(n)] == 0) {
                pick = n;
                break;
            }
        }
        if (pick == kNone) {
            throw std::invalid_argument("fixture: cycle");
        }
        done[static_cast<std::size_t>(pick)] = true;
        g.topologicalOrder.push_back(pick);
        for (const std::int32_t s : g.successors.row(pick)) {
            --indegree[static_cast<std::size_t>(s)];
        }
    }
    g.fingerprint = "fixture";
    return g;
}

} // namespace paretune::test
