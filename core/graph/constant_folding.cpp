// SPDX-License-Identifier: GPL-3.0-or-later
// The folding driver: picks the rule for a node's operator, reads the rule's inputs from the
// node's constant inputs and attributes by opset, and turns a rule that declines into "not
// foldable". The rules themselves are in constant_folding_rules.h.
#include "constant_folding.h"

#include "constant_folding_rules.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

namespace paretune {

namespace folding {

namespace {

using Result = std::optional<std::vector<ConstantTensor>>;

// Reads axes from the attribute (older opsets) or from an optional input (newer opsets).
Dims axesFrom(const Node& node, std::span<const FoldInput> inputs, std::size_t inputIndex) {
    if (const ConstantTensor* axes = optionalInput(inputs, inputIndex)) {
        return intsOf(*axes);
    }
    return node.attrInts("axes");
}

Result fold(const Node& node, std::int64_t opset, std::span<const FoldInput> inputs,
            int outputCount) {
    const std::string& op = node.opType;
    auto single = [](ConstantTensor t) {
        return Result(std::vector<ConstantTensor>{std::move(t)});
    };

    if (op == "Shape" || op == "Size") {
        if (inputs.empty() || !inputs[0].staticDims) {
            return std::nullopt;
        }
        const Dims& dims = *inputs[0].staticDims;
        if (op == "Size") {
            ConstantTensor t = makeTensor(DType::Int64, {});
            std::int64_t count = 1;
            for (const std::int64_t d : dims) {
                if (d > 0 && count > std::numeric_limits<std::int64_t>::max() / d) {
                    return std::nullopt;
                }
                count *= d;
            }
            t.ints[0] = count;
            return single(t);
        }
        const auto rank = static_cast<std::int64_t>(dims.size());
        std::int64_t start = node.attrInt("start", 0);
        std::int64_t end = node.attrInt("end", rank);
        start = std::clamp(start < 0 ? start + rank : start, std::int64_t{0}, rank);
        end = std::clamp(end < 0 ? end + rank : end, std::int64_t{0}, rank);
        return single(int64Vector(Dims(dims.begin() + start, dims.begin() + std::max(start, end))));
    }
    if (op == "ConstantOfShape") {
        const Dims shape = intsOf(need(inputs, 0));
        const Attribute* value = node.attribute("value");
        DType type = DType::Float32;
        double real = 0.0;
        std::int64_t integer = 0;
        if (value && value->tensor && value->tensor->elementCount() == 1) {
            type = value->tensor->dtype;
            real = value->tensor->real(0);
            integer = value->tensor->integer(0);
        }
        ConstantTensor t = makeTensor(type, shape);
        std::fill(t.ints.begin(), t.ints.end(), integer);
        std::fill(t.reals.begin(), t.reals.end(), real);
        return single(t);
    }
    static const std::vector<std::string> kBinary = {
        "Add",   "Sub",  "Mul",     "Div", "Mod", "Pow", "Max",         "Min",
        "Equal", "Less", "Greater", "And", "Or",  "Xor", "LessOrEqual", "GreaterOrEqual"};
    if (std::find(kBinary.begin(), kBinary.end(), op) != kBinary.end()) {
        if ((op == "Max" || op == "Min") && inputs.size() != 2) {
            return std::nullopt;
        }
        return single(binary(op, node, need(inputs, 0), need(inputs, 1)));
    }
    static const std::vector<std::string> kUnary = {
        "Neg", "Abs", "Sqrt", "Floor",   "Ceil", "Reciprocal", "Exp",
        "Log", "Not", "Relu", "Sigmoid", "Sign", "Round",      "Identity"};
    if (std::find(kUnary.begin(), kUnary.end(), op) != kUnary.end()) {
        return single(unary(op, need(inputs, 0)));
    }
    if (op == "Cast") {
        return single(castTo(need(inputs, 0),
                             dtypeFromOnnx(static_cast<std::int32_t>(node.attrInt("to", 0)))));
    }
    if (op == "Gather") {
        return single(gather(need(inputs, 0), need(inputs, 1), node.attrInt("axis", 0)));
    }
    if (op == "Slice") {
        const ConstantTensor& data = need(inputs, 0);
        if (opset < 10) {
            return single(slice(data, node.attrInts("starts"), node.attrInts("ends"),
                                node.attrInts("axes"), {}));
        }
        const ConstantTensor* axes = optionalInput(inputs, 3);
        const ConstantTensor* steps = optionalInput(inputs, 4);
        return single(slice(data, intsOf(need(inputs, 1)), intsOf(need(inputs, 2)),
                            axes ? intsOf(*axes) : Dims{}, steps ? intsOf(*steps) : Dims{}));
    }
    if (op == "Concat") {
        return single(concat(inputs, node.attrInt("axis", 0)));
    }
    if (op == "Unsqueeze") {
        return single(unsqueeze(need(inputs, 0), axesFrom(node, inputs, 1)));
    }
    if (op == "Squeeze") {
        return single(squeeze(need(inputs, 0), axesFrom(node, inputs, 1)));
    }
    if (op == "Reshape") {
        return single(
            reshape(need(inputs, 0), intsOf(need(inputs, 1)), node.attrInt("allowzero", 0) != 0));
    }
    if (op == "Flatten") {
        const ConstantTensor& data = need(inputs, 0);
        const std::int64_t axis = node.attrInt("axis", 1);
        const std::int64_t a = axis < 0 ? axis + static_cast<std::int64_t>(data.dims.size()) : axis;
        if (a < 0 || a > static_cast<std::int64_t>(data.dims.size())) {
            return std::nullopt;
        }
        const std::int64_t outer = std::accumulate(data.dims.begin(), data.dims.begin() + a,
                                                   std::int64_t{1}, std::multiplies<>());
        return single(
            reshaped(data, {outer, data.elementCount() / std::max<std::int64_t>(1, outer)}));
    }
    if (op == "Transpose") {
        return single(transpose(need(inputs, 0), node.attrInts("perm")));
    }
    if (op == "Expand") {
        return single(expand(need(inputs, 0), intsOf(need(inputs, 1))));
    }
    if (op == "Tile") {
        return single(tile(need(inputs, 0), intsOf(need(inputs, 1))));
    }
    if (op == "Where") {
        return single(where(need(inputs, 0), need(inputs, 1), need(inputs, 2)));
    }
    if (op == "Range") {
        return single(range(need(inputs, 0), need(inputs, 1), need(inputs, 2)));
    }
    if (op == "ReduceProd" || op == "ReduceSum" || op == "ReduceMin" || op == "ReduceMax" ||
        op == "ReduceMean") {
        const bool axesAsInput = (op == "ReduceSum" && opset >= 13) || opset >= 18;
        const Dims axes = axesAsInput ? axesFrom(node, inputs, 1) : node.attrInts("axes");
        return single(reduce(op, need(inputs, 0), axes, node.attrInt("keepdims", 1) != 0,
                             node.attrInt("noop_with_empty_axes", 0) != 0));
    }
    if (op == "ScatterND") {
        return single(scatterNd(need(inputs, 0), need(inputs, 1), need(inputs, 2)));
    }
    if (op == "Split") {
        Dims sizes = node.attrInts("split");
        if (const ConstantTensor* s = optionalInput(inputs, 1)) {
            sizes = intsOf(*s);
        }
        return split(need(inputs, 0), node.attrInt("axis", 0), sizes, outputCount);
    }
    return std::nullopt;
}

} // namespace

} // namespace folding

std::optional<std::vector<ConstantTensor>> foldConstantNode(const Node& node, std::int64_t opset,
                                                            std::span<const FoldInput> inputs,
                                                            int outputCount) {
    if (!node.domain.empty() && node.domain != "ai.onnx") {
        return std::nullopt;
    }
    try {
        folding::Result result = folding::fold(node, opset, inputs, outputCount);
        if (result && static_cast<int>(result->size()) != outputCount) {
            return std::nullopt;
        }
        return result;
    } catch (const folding::Decline&) {
        return std::nullopt;
    }
}

} // namespace paretune
