// SPDX-License-Identifier: GPL-3.0-or-later
#include "node_validation.h"

#include <algorithm>
#include <limits>
#include <optional>

namespace paretune {

namespace {

// Strides, kernels, dilations and pads beyond this are corrupt values, not real models; keeping
// them bounded keeps ONNX's arithmetic on them (kernel × dilation + pads) far from overflow.
constexpr std::int64_t kMaxWindowValue = std::int64_t{1} << 31;

std::string quoted(const std::string& text) {
    return "'" + text + "'";
}

std::string listText(const std::vector<std::int64_t>& values) {
    std::string text = "[";
    for (std::size_t i = 0; i < values.size(); ++i) {
        text += (i ? "," : "") + std::to_string(values[i]);
    }
    return text + "]";
}

std::string shapeText(const NodeInputFacts& in) {
    if (!in.rankKnown) {
        return "an unknown shape";
    }
    std::string text = "[";
    for (std::size_t i = 0; i < in.dims.size(); ++i) {
        text += (i ? "," : "") + (in.dims[i] < 0 ? std::string("?") : std::to_string(in.dims[i]));
    }
    return text + "]";
}

std::string inputName(std::span<const NodeInputFacts> inputs, std::size_t index) {
    return "input " + std::to_string(index) +
           (index < inputs.size() && !inputs[index].name.empty() ? " " + quoted(inputs[index].name)
                                                                 : std::string());
}

const NodeInputFacts* inputAt(std::span<const NodeInputFacts> inputs, std::size_t index) {
    return index < inputs.size() && inputs[index].present ? &inputs[index] : nullptr;
}

std::string plural(std::size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

/// Checks an INTS attribute of a convolution or pooling node: its length (unless
/// `expectedLength` is 0: the spatial rank is unknown, or the length is not checked) and the
/// range of its values.
std::optional<std::string> checkWindowAttribute(const Node& node, const char* name,
                                                std::size_t expectedLength, std::int64_t minimum,
                                                const char* meaning) {
    const Attribute* a = node.attribute(name);
    if (!a) {
        return std::nullopt;
    }
    if (a->kind != Attribute::Kind::Ints) {
        return "attribute " + quoted(name) + " is not a list of integers";
    }
    if (expectedLength > 0 && a->ints.size() != expectedLength) {
        return "attribute " + quoted(name) + " has " + plural(a->ints.size(), "value", "values") +
               ", expected " + std::to_string(expectedLength) + " (" + meaning + ")";
    }
    for (const std::int64_t v : a->ints) {
        if (v < minimum || v > kMaxWindowValue) {
            return "attribute " + quoted(name) + " is " + listText(a->ints) +
                   ": each value must be " +
                   (v < minimum ? "at least " + std::to_string(minimum)
                                : "at most " + std::to_string(kMaxWindowValue));
        }
    }
    return std::nullopt;
}

struct WindowOp {
    std::size_t dataInput = 0;
    std::optional<std::size_t> weightInput; ///< the filter of a convolution
    bool transposed = false;
    bool kernelRequired = false; ///< pooling: kernel_shape must be given
};

std::optional<WindowOp> windowOp(const std::string& op) {
    if (op == "Conv" || op == "ConvInteger") {
        return WindowOp{0, 1, false, false};
    }
    if (op == "QLinearConv") {
        return WindowOp{0, 3, false, false};
    }
    if (op == "ConvTranspose") {
        return WindowOp{0, 1, true, false};
    }
    if (op == "MaxPool" || op == "AveragePool" || op == "LpPool" || op == "MaxUnpool") {
        return WindowOp{0, std::nullopt, false, true};
    }
    return std::nullopt;
}

NodeCheck checkWindowOp(const Node& node, std::span<const NodeInputFacts> inputs,
                        const WindowOp& spec) {
    NodeCheck check;
    const NodeInputFacts* x = inputAt(inputs, spec.dataInput);
    std::size_t spatial = 0; // 0: the rank of the data input is unknown
    if (x && x->rankKnown) {
        if (x->dims.size() < 3) {
            check.problem = inputName(inputs, spec.dataInput) + " has rank " +
                            std::to_string(x->dims.size()) +
                            ", expected at least 3 (batch, channels and one or more spatial axes)";
            return check;
        }
        spatial = x->dims.size() - 2;
    }
    const NodeInputFacts* w = spec.weightInput ? inputAt(inputs, *spec.weightInput) : nullptr;
    if (w && w->rankKnown) {
        if (w->dims.size() < 3) {
            check.problem = inputName(inputs, *spec.weightInput) + " has rank " +
                            std::to_string(w->dims.size()) +
                            ", expected at least 3 (output and input channels and one or more "
                            "kernel axes)";
            return check;
        }
        if (spatial > 0 && w->dims.size() != spatial + 2) {
            check.problem = inputName(inputs, *spec.weightInput) + " has rank " +
                            std::to_string(w->dims.size()) + ", expected " +
                            std::to_string(spatial + 2) + " like " +
                            inputName(inputs, spec.dataInput) + " (shape " + shapeText(*x) + ")";
            return check;
        }
        if (!node.attribute("kernel_shape")) {
            for (std::size_t i = 2; i < w->dims.size(); ++i) {
                if (w->dims[i] == 0) {
                    check.problem = inputName(inputs, *spec.weightInput) + " has shape " +
                                    shapeText(*w) + ": a kernel axis of size 0";
                    return check;
                }
            }
        }
    }
    const std::string perAxis = "one per spatial axis of " + inputName(inputs, spec.dataInput);
    const std::string perSide =
        "a begin and an end per spatial axis of " + inputName(inputs, spec.dataInput);
    if (spec.kernelRequired && !node.attribute("kernel_shape")) {
        check.problem = "attribute 'kernel_shape' is missing; pooling needs it";
        return check;
    }
    const std::size_t sides = spatial * 2;
    for (const auto& problem :
         {checkWindowAttribute(node, "kernel_shape", spatial, 1, perAxis.c_str()),
          checkWindowAttribute(node, "strides", spatial, 1, perAxis.c_str()),
          checkWindowAttribute(node, "dilations", spatial, 1, perAxis.c_str()),
          checkWindowAttribute(node, "pads", sides, 0, perSide.c_str()),
          checkWindowAttribute(node, "output_padding", 0, 0, perAxis.c_str()),
          checkWindowAttribute(node, "output_shape", 0, 0, perAxis.c_str())}) {
        if (problem) {
            check.problem = *problem;
            return check;
        }
    }
    if (const Attribute* group = node.attribute("group");
        group &&
        (group->kind != Attribute::Kind::Int || group->i < 1 || group->i > kMaxWindowValue)) {
        check.problem = "attribute 'group' is " +
                        (group->kind == Attribute::Kind::Int ? std::to_string(group->i)
                                                             : std::string("not an integer")) +
                        ", expected at least 1";
        return check;
    }
    if (const Attribute* autoPad = node.attribute("auto_pad")) {
        const std::string mode = autoPad->kind == Attribute::Kind::String ? autoPad->s : "";
        if (mode != "NOTSET" && mode != "SAME_UPPER" && mode != "SAME_LOWER" && mode != "VALID") {
            check.problem = "attribute 'auto_pad' is " + quoted(mode) +
                            ", expected NOTSET, SAME_UPPER, SAME_LOWER or VALID";
            return check;
        }
    }
    if (node.opType == "MaxUnpool") {
        // ONNX's rule reads the channels of the indices input without looking at its type.
        const NodeInputFacts* indices = inputAt(inputs, 1);
        if (!indices || !indices->rankKnown || indices->dims.size() < 2) {
            check.skipOnnxInference = true;
        }
    }
    if (spec.transposed && w && !w->rankKnown) {
        check.skipOnnxInference = true;
    }
    return check;
}

NodeCheck checkRoiPool(const Node& node, std::span<const NodeInputFacts> inputs) {
    NodeCheck check;
    const Attribute* pooled = node.attribute("pooled_shape");
    if (!pooled || pooled->kind != Attribute::Kind::Ints || pooled->ints.size() != 2) {
        check.problem = "attribute 'pooled_shape' must hold 2 values (height, width)";
        return check;
    }
    for (const std::int64_t v : pooled->ints) {
        if (v < 1 || v > kMaxWindowValue) {
            check.problem = "attribute 'pooled_shape' is " + listText(pooled->ints) +
                            ": each value must be at least 1";
            return check;
        }
    }
    const NodeInputFacts* x = inputAt(inputs, 0);
    if (x && x->rankKnown && x->dims.size() != 4) {
        check.problem = inputName(inputs, 0) + " has rank " + std::to_string(x->dims.size()) +
                        ", expected 4 (batch, channels, height, width)";
    }
    return check;
}

NodeCheck checkConcat(const Node& node, std::span<const NodeInputFacts> inputs) {
    NodeCheck check;
    const NodeInputFacts* first = nullptr;
    std::size_t firstIndex = 0;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
        if (inputs[k].present && inputs[k].value) {
            first = &inputs[k];
            firstIndex = k;
            break;
        }
    }
    if (!first) {
        return check;
    }
    const auto rank = static_cast<std::int64_t>(first->value->dims.size());
    const std::int64_t axis = node.attrInt("axis", 0);
    if (rank == 0 || axis < -rank || axis >= rank) {
        check.problem = "attribute 'axis' is " + std::to_string(axis) + ", outside [" +
                        std::to_string(-rank) + ", " + std::to_string(rank - 1) + "] for " +
                        inputName(inputs, firstIndex) + " of rank " + std::to_string(rank);
        return check;
    }
    const auto a = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
    const std::vector<std::int64_t>& dims = first->value->dims;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
        if (!inputs[k].present || !inputs[k].value) {
            continue;
        }
        const std::vector<std::int64_t>& other = inputs[k].value->dims;
        bool agree = other.size() == dims.size();
        for (std::size_t i = 0; agree && i < dims.size(); ++i) {
            agree = i == a || other[i] == dims[i];
        }
        if (!agree) {
            NodeInputFacts shown;
            shown.rankKnown = true;
            shown.dims = other;
            NodeInputFacts reference;
            reference.rankKnown = true;
            reference.dims = dims;
            check.problem = inputName(inputs, k) + " has shape " + shapeText(shown) + " and " +
                            inputName(inputs, firstIndex) + " " + shapeText(reference) +
                            ": Concat inputs must have the same rank and agree on every axis "
                            "except axis " +
                            std::to_string(a);
            return check;
        }
    }
    return check;
}

NodeCheck checkSplit(const Node& node, std::span<const NodeInputFacts> inputs, int outputCount) {
    NodeCheck check;
    std::vector<std::int64_t> sizes;
    bool given = false;
    std::string source = "attribute 'split'";
    if (const NodeInputFacts* s = inputAt(inputs, 1)) {
        if (!s->value) {
            return check;
        }
        if (s->value->dims.size() > 1) {
            check.problem = inputName(inputs, 1) + " (the split sizes) has rank " +
                            std::to_string(s->value->dims.size()) + ", expected 1";
            return check;
        }
        for (std::int64_t i = 0; i < s->value->elementCount(); ++i) {
            sizes.push_back(s->value->integer(i));
        }
        given = true;
        source = inputName(inputs, 1) + " (the split sizes)";
    } else if (const Attribute* a = node.attribute("split");
               a && a->kind == Attribute::Kind::Ints) {
        sizes = a->ints;
        given = true;
    }
    if (!given) {
        return check;
    }
    for (const std::int64_t v : sizes) {
        if (v < 0 || v > std::numeric_limits<std::int32_t>::max()) {
            check.problem = source + " is " + listText(sizes) + ": each size must be " +
                            (v < 0 ? "at least 0" : "at most 2^31-1");
            return check;
        }
    }
    if (static_cast<int>(sizes.size()) != outputCount) {
        check.problem = source + " holds " + plural(sizes.size(), "size", "sizes") + " for " +
                        plural(static_cast<std::size_t>(outputCount), "output", "outputs");
        return check;
    }
    const NodeInputFacts* data = inputAt(inputs, 0);
    if (!data || !data->rankKnown) {
        return check;
    }
    const auto rank = static_cast<std::int64_t>(data->dims.size());
    const std::int64_t axis = node.attrInt("axis", 0);
    if (axis < -rank || axis >= rank) {
        check.problem = "attribute 'axis' is " + std::to_string(axis) + ", outside [" +
                        std::to_string(-rank) + ", " + std::to_string(rank - 1) + "] for " +
                        inputName(inputs, 0) + " of rank " + std::to_string(rank);
        return check;
    }
    const std::int64_t dim = data->dims[static_cast<std::size_t>(axis < 0 ? axis + rank : axis)];
    std::int64_t total = 0;
    for (const std::int64_t v : sizes) {
        total += v;
    }
    if (dim >= 0 && total != dim) {
        check.problem = source + " is " + listText(sizes) + ", adding up to " +
                        std::to_string(total) + ", but " + inputName(inputs, 0) + " (shape " +
                        shapeText(*data) + ") has " + std::to_string(dim) + " along axis " +
                        std::to_string(axis);
    }
    return check;
}

} // namespace

NodeCheck checkNodeInputs(const Node& node, std::span<const NodeInputFacts> inputs,
                          int outputCount) {
    if (!node.domain.empty() && node.domain != "ai.onnx") {
        return {};
    }
    const std::string& op = node.opType;
    if (const auto spec = windowOp(op)) {
        return checkWindowOp(node, inputs, *spec);
    }
    if (op == "MaxRoiPool") {
        return checkRoiPool(node, inputs);
    }
    if (op == "Concat") {
        return checkConcat(node, inputs);
    }
    if (op == "Split") {
        return checkSplit(node, inputs, outputCount);
    }
    return {};
}

} // namespace paretune
