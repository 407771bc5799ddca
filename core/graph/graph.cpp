// SPDX-License-Identifier: GPL-3.0-or-later
#include "graph.h"

#include <algorithm>

namespace paretune {

std::string_view nodeKindName(NodeKind kind) {
    switch (kind) {
    case NodeKind::Compute:
        return "compute";
    case NodeKind::Constant:
        return "constant";
    case NodeKind::PassThrough:
        return "pass-through";
    case NodeKind::ShapeComputation:
        return "shape-computation";
    }
    return "compute";
}

const Attribute* Node::attribute(std::string_view attributeName) const {
    const auto it = std::find_if(attributes.begin(), attributes.end(),
                                 [&](const Attribute& a) { return a.name == attributeName; });
    return it == attributes.end() ? nullptr : &*it;
}

std::int64_t Node::attrInt(std::string_view attributeName, std::int64_t fallback) const {
    const Attribute* a = attribute(attributeName);
    return a && a->kind == Attribute::Kind::Int ? a->i : fallback;
}

double Node::attrFloat(std::string_view attributeName, double fallback) const {
    const Attribute* a = attribute(attributeName);
    return a && a->kind == Attribute::Kind::Float ? a->f : fallback;
}

std::string Node::attrString(std::string_view attributeName, std::string_view fallback) const {
    const Attribute* a = attribute(attributeName);
    return a && a->kind == Attribute::Kind::String ? a->s : std::string(fallback);
}

std::vector<std::int64_t> Node::attrInts(std::string_view attributeName) const {
    const Attribute* a = attribute(attributeName);
    return a && a->kind == Attribute::Kind::Ints ? a->ints : std::vector<std::int64_t>{};
}

namespace {

bool allKnown(const std::vector<std::int64_t>& dims) {
    return std::all_of(dims.begin(), dims.end(), [](std::int64_t d) { return d >= 0; });
}

std::int64_t product(const std::vector<std::int64_t>& dims) {
    std::int64_t count = 1;
    for (const std::int64_t d : dims) {
        count *= d;
    }
    return count;
}

std::string dimsText(const std::vector<std::int64_t>& dims) {
    std::string text = "[";
    for (std::size_t i = 0; i < dims.size(); ++i) {
        text += (i ? "," : "") + (dims[i] < 0 ? std::string("?") : std::to_string(dims[i]));
    }
    return text + ']';
}

} // namespace

bool Tensor::shapeKnown() const {
    if (sequence) {
        return sequenceKnown && std::all_of(elementDims.begin(), elementDims.end(), allKnown);
    }
    return rankKnown && allKnown(dims);
}

std::int64_t Tensor::elementCount() const {
    if (!shapeKnown()) {
        return -1;
    }
    if (!sequence) {
        return product(dims);
    }
    std::int64_t count = 0;
    for (const auto& element : elementDims) {
        count += product(element);
    }
    return count;
}

std::int64_t Tensor::byteSize() const {
    const std::int64_t count = elementCount();
    const int size = dtypeSize(dtype);
    return count < 0 || size == 0 ? -1 : count * size;
}

std::string Tensor::typeString() const {
    const std::string type(dtypeName(dtype));
    if (sequence) {
        if (!sequenceKnown) {
            return "seq<" + type + ">(?)";
        }
        std::string text = "seq<" + type + ">(";
        for (std::size_t i = 0; i < elementDims.size(); ++i) {
            text += (i ? "," : "") + dimsText(elementDims[i]);
        }
        return text + ')';
    }
    return rankKnown ? type + dimsText(dims) : type + "[?]";
}

std::int64_t Graph::parameterCount() const {
    std::int64_t count = 0;
    for (const Tensor& t : tensors) {
        if (t.role == TensorRole::Initializer && isFloatingPoint(t.dtype) && t.shapeKnown()) {
            count += t.elementCount();
        }
    }
    return count;
}

double Graph::totalFlops() const {
    double total = 0.0;
    for (const OpMetrics& m : metrics) {
        total += m.flops;
    }
    return total;
}

int Graph::computeNodeCount() const {
    return static_cast<int>(std::count_if(
        nodes.begin(), nodes.end(), [](const Node& n) { return n.kind == NodeKind::Compute; }));
}

int Graph::unknownShapeCount() const {
    return static_cast<int>(std::count_if(tensors.begin(), tensors.end(),
                                          [](const Tensor& t) { return !t.shapeKnown(); }));
}

TensorId Graph::findTensor(std::string_view tensorName) const {
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        if (tensors[i].name == tensorName) {
            return static_cast<TensorId>(i);
        }
    }
    return kNone;
}

NodeId Graph::findNode(std::string_view nodeName) const {
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        if (nodes[i].name == nodeName) {
            return static_cast<NodeId>(i);
        }
    }
    return kNone;
}

} // namespace paretune
