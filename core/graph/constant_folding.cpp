#include "constant_folding.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <string>
#include <type_traits>

namespace paretune {

namespace {

using Dims = std::vector<std::int64_t>;
using Result = std::optional<std::vector<ConstantTensor>>;

// Folding declines (returns nullopt) instead of throwing: any of these conditions means "let the
// node run normally", never "the model is broken".
struct Decline {};

std::int64_t product(const Dims& dims) {
    std::int64_t count = 1;
    for (const std::int64_t d : dims) {
        if (d < 0 || (d > 0 && count > ConstantTensor::kMaxElements / d)) {
            throw Decline{};
        }
        count *= d;
    }
    if (count > ConstantTensor::kMaxElements) {
        throw Decline{};
    }
    return count;
}

Dims stridesOf(const Dims& dims) {
    Dims strides(dims.size(), 1);
    for (std::size_t i = dims.size(); i-- > 1;) {
        strides[i - 1] = strides[i] * dims[i];
    }
    return strides;
}

ConstantTensor makeTensor(DType dtype, Dims dims) {
    ConstantTensor t;
    t.dtype = dtype;
    const std::int64_t count = product(dims);
    t.dims = std::move(dims);
    if (t.holdsIntegers()) {
        t.ints.assign(static_cast<std::size_t>(count), 0);
    } else {
        t.reals.assign(static_cast<std::size_t>(count), 0.0);
    }
    return t;
}

ConstantTensor int64Vector(const Dims& values) {
    ConstantTensor t = makeTensor(DType::Int64, {static_cast<std::int64_t>(values.size())});
    t.ints = values;
    return t;
}

// Copies element `from` of `src` into element `to` of `dst` (same dtype family).
void copyElement(const ConstantTensor& src, std::int64_t from, ConstantTensor& dst,
                 std::int64_t to) {
    if (dst.holdsIntegers()) {
        dst.ints[static_cast<std::size_t>(to)] = src.integer(from);
    } else {
        dst.reals[static_cast<std::size_t>(to)] = src.real(from);
    }
}

std::int64_t normaliseAxis(std::int64_t axis, std::size_t rank) {
    const auto r = static_cast<std::int64_t>(rank);
    if (axis < -r || axis >= r) {
        throw Decline{};
    }
    return axis < 0 ? axis + r : axis;
}

const ConstantTensor& need(std::span<const FoldInput> inputs, std::size_t index) {
    if (index >= inputs.size() || !inputs[index].present || !inputs[index].value) {
        throw Decline{};
    }
    return *inputs[index].value;
}

const ConstantTensor* optionalInput(std::span<const FoldInput> inputs, std::size_t index) {
    if (index >= inputs.size() || !inputs[index].present) {
        return nullptr;
    }
    if (!inputs[index].value) {
        throw Decline{}; // present but not constant
    }
    return inputs[index].value;
}

Dims intsOf(const ConstantTensor& t) {
    Dims values(static_cast<std::size_t>(t.elementCount()));
    for (std::size_t i = 0; i < values.size(); ++i) {
        values[i] = t.integer(static_cast<std::int64_t>(i));
    }
    return values;
}

// Numpy-style multidirectional broadcasting.
Dims broadcastDims(const std::vector<const Dims*>& shapes) {
    std::size_t rank = 0;
    for (const Dims* s : shapes) {
        rank = std::max(rank, s->size());
    }
    Dims out(rank, 1);
    for (const Dims* s : shapes) {
        const std::size_t offset = rank - s->size();
        for (std::size_t i = 0; i < s->size(); ++i) {
            const std::int64_t d = (*s)[i];
            std::int64_t& o = out[offset + i];
            if (d == o || d == 1) {
                continue;
            }
            if (o == 1) {
                o = d;
            } else {
                throw Decline{};
            }
        }
    }
    return out;
}

// Calls visit(outputIndex, inputIndices) over every element of the broadcast result.
void forEachBroadcast(const Dims& outDims, const std::vector<const Dims*>& shapes,
                      const std::function<void(std::int64_t, const Dims&)>& visit) {
    const std::size_t rank = outDims.size();
    std::vector<Dims> inStrides;
    for (const Dims* s : shapes) {
        Dims own = stridesOf(*s);
        Dims aligned(rank, 0);
        const std::size_t offset = rank - s->size();
        for (std::size_t i = 0; i < s->size(); ++i) {
            aligned[offset + i] = (*s)[i] == 1 ? 0 : own[i];
        }
        inStrides.push_back(std::move(aligned));
    }
    const std::int64_t count = product(outDims);
    Dims index(rank, 0);
    Dims flat(shapes.size(), 0);
    for (std::int64_t out = 0; out < count; ++out) {
        visit(out, flat);
        for (std::size_t axis = rank; axis-- > 0;) {
            ++index[axis];
            for (std::size_t k = 0; k < flat.size(); ++k) {
                flat[k] += inStrides[k][axis];
            }
            if (index[axis] < outDims[axis]) {
                break;
            }
            for (std::size_t k = 0; k < flat.size(); ++k) {
                flat[k] -= inStrides[k][axis] * index[axis];
            }
            index[axis] = 0;
        }
    }
}

bool isUnsigned(DType t) {
    return t == DType::UInt8 || t == DType::UInt16 || t == DType::UInt32 || t == DType::UInt64 ||
           t == DType::Bool;
}

// Two's-complement wrap-around of an exact int64 result to the width of the element type, as
// the runtimes compute it (int32 arithmetic wraps at 2^32).
std::int64_t wrapTo(DType t, std::int64_t v) {
    switch (t) {
    case DType::Int8:
        return static_cast<std::int8_t>(v);
    case DType::UInt8:
        return static_cast<std::uint8_t>(v);
    case DType::Int16:
        return static_cast<std::int16_t>(v);
    case DType::UInt16:
        return static_cast<std::uint16_t>(v);
    case DType::Int32:
        return static_cast<std::int32_t>(v);
    case DType::UInt32:
        return static_cast<std::uint32_t>(v);
    case DType::Bool:
        return v != 0;
    default:
        return v; // int64, and uint64 held in the same 64 bits
    }
}

std::int64_t wrappingAdd(std::int64_t a, std::int64_t b) {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}

std::int64_t wrappingSub(std::int64_t a, std::int64_t b) {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
}

std::int64_t wrappingMul(std::int64_t a, std::int64_t b) {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
}

// Python's modulo (sign of the divisor), ONNX Mod with fmod=0. b is neither 0 nor -1 here.
std::int64_t pythonMod(std::int64_t a, std::int64_t b) {
    const std::int64_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

// The binary ops the folder evaluates, resolved once per node rather than per element.
enum class BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Pow,
    Max,
    Min,
    Equal,
    Less,
    Greater,
    LessOrEqual,
    GreaterOrEqual,
    And,
    Or,
    Xor
};

BinaryOp binaryOpOf(const std::string& op) {
    static const std::pair<const char*, BinaryOp> kOps[] = {
        {"Add", BinaryOp::Add},
        {"Sub", BinaryOp::Sub},
        {"Mul", BinaryOp::Mul},
        {"Div", BinaryOp::Div},
        {"Mod", BinaryOp::Mod},
        {"Pow", BinaryOp::Pow},
        {"Max", BinaryOp::Max},
        {"Min", BinaryOp::Min},
        {"Equal", BinaryOp::Equal},
        {"Less", BinaryOp::Less},
        {"Greater", BinaryOp::Greater},
        {"LessOrEqual", BinaryOp::LessOrEqual},
        {"GreaterOrEqual", BinaryOp::GreaterOrEqual},
        {"And", BinaryOp::And},
        {"Or", BinaryOp::Or},
        {"Xor", BinaryOp::Xor}};
    for (const auto& [name, value] : kOps) {
        if (op == name) {
            return value;
        }
    }
    throw Decline{};
}

// One element of And, Or or Xor, the same over integers and floating point: an operand is true
// when it is not zero. Declines any other op.
template <typename T> bool logicalBinary(BinaryOp op, T x, T y) {
    if (op == BinaryOp::And) {
        return (x != 0) && (y != 0);
    }
    if (op == BinaryOp::Or) {
        return (x != 0) || (y != 0);
    }
    if (op == BinaryOp::Xor) {
        return (x != 0) != (y != 0);
    }
    throw Decline{};
}

// One element of an integer Div or Mod in the element type `t`: unsigned types divide as
// unsigned; division by zero and a quotient the type cannot hold are errors, not results.
std::int64_t integerDivision(BinaryOp op, std::int64_t x, std::int64_t y, bool fmod, DType t) {
    if (y == 0) {
        throw FoldError("integer " + std::string(op == BinaryOp::Div ? "division" : "modulo") +
                        " by zero (" + std::to_string(x) + " " + (op == BinaryOp::Div ? "/" : "%") +
                        " 0)");
    }
    if (isUnsigned(t)) {
        const auto ux = static_cast<std::uint64_t>(x);
        const auto uy = static_cast<std::uint64_t>(y);
        return static_cast<std::int64_t>(op == BinaryOp::Div ? ux / uy : ux % uy);
    }
    if (y == -1) {
        // x / -1 = -x, which overflows for the type's minimum; x mod -1 is 0 in both modes.
        if (op == BinaryOp::Mod) {
            return 0;
        }
        const std::int64_t q = wrappingSub(0, x);
        if (x == std::numeric_limits<std::int64_t>::min() || wrapTo(t, q) != q) {
            throw FoldError("integer division overflows: " + std::to_string(x) +
                            " / -1 does not fit " + std::string(dtypeName(t)));
        }
        return q;
    }
    return op == BinaryOp::Div ? x / y : fmod ? x % y : pythonMod(x, y);
}

// One element of a binary op over integers, exact and in the element type `t`.
std::int64_t integerBinary(BinaryOp op, std::int64_t x, std::int64_t y, bool fmod, DType t) {
    const bool u = isUnsigned(t);
    const auto ux = static_cast<std::uint64_t>(x);
    const auto uy = static_cast<std::uint64_t>(y);
    if (op == BinaryOp::Add) {
        return wrapTo(t, wrappingAdd(x, y));
    }
    if (op == BinaryOp::Sub) {
        return wrapTo(t, wrappingSub(x, y));
    }
    if (op == BinaryOp::Mul) {
        return wrapTo(t, wrappingMul(x, y));
    }
    if (op == BinaryOp::Div || op == BinaryOp::Mod) {
        return wrapTo(t, integerDivision(op, x, y, fmod, t));
    }
    if (op == BinaryOp::Pow) {
        const double r = u ? std::pow(static_cast<double>(ux), static_cast<double>(uy))
                           : std::pow(static_cast<double>(x), static_cast<double>(y));
        return wrapTo(t, saturatingInt64(r));
    }
    if (op == BinaryOp::Max) {
        return u ? static_cast<std::int64_t>(std::max(ux, uy)) : std::max(x, y);
    }
    if (op == BinaryOp::Min) {
        return u ? static_cast<std::int64_t>(std::min(ux, uy)) : std::min(x, y);
    }
    if (op == BinaryOp::Equal) {
        return x == y;
    }
    if (op == BinaryOp::Less) {
        return u ? ux < uy : x < y;
    }
    if (op == BinaryOp::Greater) {
        return u ? ux > uy : x > y;
    }
    if (op == BinaryOp::LessOrEqual) {
        return u ? ux <= uy : x <= y;
    }
    if (op == BinaryOp::GreaterOrEqual) {
        return u ? ux >= uy : x >= y;
    }
    return logicalBinary(op, x, y);
}

// One element of a binary op over floating-point operands.
double realBinary(BinaryOp op, double x, double y) {
    if (op == BinaryOp::Add) {
        return x + y;
    }
    if (op == BinaryOp::Sub) {
        return x - y;
    }
    if (op == BinaryOp::Mul) {
        return x * y;
    }
    if (op == BinaryOp::Div) {
        return x / y;
    }
    if (op == BinaryOp::Mod) {
        return std::fmod(x, y);
    }
    if (op == BinaryOp::Pow) {
        return std::pow(x, y);
    }
    if (op == BinaryOp::Max) {
        return std::max(x, y);
    }
    if (op == BinaryOp::Min) {
        return std::min(x, y);
    }
    if (op == BinaryOp::Equal) {
        return x == y;
    }
    if (op == BinaryOp::Less) {
        return x < y;
    }
    if (op == BinaryOp::Greater) {
        return x > y;
    }
    if (op == BinaryOp::LessOrEqual) {
        return x <= y;
    }
    if (op == BinaryOp::GreaterOrEqual) {
        return x >= y;
    }
    return logicalBinary(op, x, y);
}

ConstantTensor binary(const std::string& op, const Node& node, const ConstantTensor& a,
                      const ConstantTensor& b) {
    static const std::vector<std::string> kBooleanResult = {
        "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor"};
    const bool boolean =
        std::find(kBooleanResult.begin(), kBooleanResult.end(), op) != kBooleanResult.end();
    const Dims outDims = broadcastDims({&a.dims, &b.dims});
    ConstantTensor out = makeTensor(boolean ? DType::Bool : a.dtype, outDims);
    const bool integers = a.holdsIntegers() && b.holdsIntegers();
    const bool fmod = node.attrInt("fmod", 0) != 0;
    const BinaryOp kind = binaryOpOf(op);
    auto element = [&](std::size_t slot, std::int64_t ia, std::int64_t ib) {
        if (integers) {
            out.ints[slot] = integerBinary(kind, a.integer(ia), b.integer(ib), fmod, a.dtype);
            return;
        }
        const double r = realBinary(kind, a.real(ia), b.real(ib));
        if (out.holdsIntegers()) {
            out.ints[slot] = wrapTo(out.dtype, saturatingInt64(r));
        } else {
            out.reals[slot] = r;
        }
    };
    const std::int64_t count = product(outDims);
    const bool aWhole = a.elementCount() == count;
    const bool bWhole = b.elementCount() == count;
    if ((aWhole || a.elementCount() == 1) && (bWhole || b.elementCount() == 1)) {
        // Same shapes, or a scalar on one side: no index arithmetic per element.
        for (std::int64_t i = 0; i < count; ++i) {
            element(static_cast<std::size_t>(i), aWhole ? i : 0, bWhole ? i : 0);
        }
        return out;
    }
    forEachBroadcast(outDims, {&a.dims, &b.dims}, [&](std::int64_t o, const Dims& in) {
        element(static_cast<std::size_t>(o), in[0], in[1]);
    });
    return out;
}

ConstantTensor unary(const std::string& op, const ConstantTensor& a) {
    ConstantTensor out = makeTensor(a.dtype, a.dims);
    const std::int64_t count = a.elementCount();
    for (std::int64_t i = 0; i < count; ++i) {
        if (a.holdsIntegers()) {
            const std::int64_t x = a.integer(i);
            std::int64_t r = x;
            if (op == "Neg") {
                r = wrapTo(a.dtype, wrappingSub(0, x));
            } else if (op == "Abs") {
                r = x < 0 ? wrapTo(a.dtype, wrappingSub(0, x)) : x;
            } else if (op == "Not") {
                r = x == 0;
            } else if (op == "Relu") {
                r = std::max<std::int64_t>(x, 0);
            } else if (op == "Sign") {
                r = (x > 0) - (x < 0);
            } else if (op != "Floor" && op != "Ceil" && op != "Identity") {
                throw Decline{};
            }
            out.ints[static_cast<std::size_t>(i)] = r;
            continue;
        }
        const double x = a.real(i);
        double r = x;
        if (op == "Neg") {
            r = -x;
        } else if (op == "Abs") {
            r = std::fabs(x);
        } else if (op == "Sqrt") {
            r = std::sqrt(x);
        } else if (op == "Floor") {
            r = std::floor(x);
        } else if (op == "Ceil") {
            r = std::ceil(x);
        } else if (op == "Reciprocal") {
            r = 1.0 / x;
        } else if (op == "Exp") {
            r = std::exp(x);
        } else if (op == "Log") {
            r = std::log(x);
        } else if (op == "Relu") {
            r = std::max(x, 0.0);
        } else if (op == "Sigmoid") {
            r = 1.0 / (1.0 + std::exp(-x));
        } else if (op == "Sign") {
            r = (x > 0) - (x < 0);
        } else if (op == "Round") {
            r = std::nearbyint(x);
        } else if (op != "Identity") {
            throw Decline{};
        }
        out.reals[static_cast<std::size_t>(i)] = r;
    }
    return out;
}

ConstantTensor castTo(const ConstantTensor& a, DType to) {
    if (to == DType::Undefined || to == DType::String) {
        throw Decline{};
    }
    ConstantTensor out = makeTensor(to, a.dims);
    const std::int64_t count = a.elementCount();
    for (std::int64_t i = 0; i < count; ++i) {
        if (to == DType::Bool) {
            out.ints[static_cast<std::size_t>(i)] = a.real(i) != 0.0 || a.integer(i) != 0;
        } else if (out.holdsIntegers()) {
            out.ints[static_cast<std::size_t>(i)] = wrapTo(to, a.integer(i));
        } else if (isUnsigned(a.dtype)) {
            out.reals[static_cast<std::size_t>(i)] =
                static_cast<double>(static_cast<std::uint64_t>(a.integer(i)));
        } else {
            out.reals[static_cast<std::size_t>(i)] = a.real(i);
        }
    }
    return out;
}

ConstantTensor gather(const ConstantTensor& data, const ConstantTensor& indices,
                      std::int64_t axis) {
    axis = normaliseAxis(axis, data.dims.size());
    Dims outDims(data.dims.begin(), data.dims.begin() + axis);
    outDims.insert(outDims.end(), indices.dims.begin(), indices.dims.end());
    outDims.insert(outDims.end(), data.dims.begin() + axis + 1, data.dims.end());
    ConstantTensor out = makeTensor(data.dtype, outDims);
    const std::int64_t outer = std::accumulate(data.dims.begin(), data.dims.begin() + axis,
                                               std::int64_t{1}, std::multiplies<>());
    const std::int64_t inner = std::accumulate(data.dims.begin() + axis + 1, data.dims.end(),
                                               std::int64_t{1}, std::multiplies<>());
    const std::int64_t axisSize = data.dims[static_cast<std::size_t>(axis)];
    const std::int64_t indexCount = indices.elementCount();
    std::int64_t o = 0;
    for (std::int64_t a = 0; a < outer; ++a) {
        for (std::int64_t k = 0; k < indexCount; ++k) {
            std::int64_t idx = indices.integer(k);
            if (idx < 0) {
                idx += axisSize;
            }
            if (idx < 0 || idx >= axisSize) {
                throw Decline{};
            }
            for (std::int64_t b = 0; b < inner; ++b) {
                copyElement(data, (a * axisSize + idx) * inner + b, out, o++);
            }
        }
    }
    return out;
}

// Copies a strided box: out[i] = data[start + i*step] per axis.
ConstantTensor sliceBox(const ConstantTensor& data, const Dims& starts, const Dims& steps,
                        const Dims& sizes) {
    ConstantTensor out = makeTensor(data.dtype, sizes);
    const Dims strides = stridesOf(data.dims);
    const std::int64_t count = out.elementCount();
    Dims index(sizes.size(), 0);
    for (std::int64_t o = 0; o < count; ++o) {
        std::int64_t src = 0;
        for (std::size_t ax = 0; ax < sizes.size(); ++ax) {
            src += (starts[ax] + index[ax] * steps[ax]) * strides[ax];
        }
        copyElement(data, src, out, o);
        for (std::size_t ax = sizes.size(); ax-- > 0;) {
            if (++index[ax] < sizes[ax]) {
                break;
            }
            index[ax] = 0;
        }
    }
    return out;
}

ConstantTensor slice(const ConstantTensor& data, const Dims& startsIn, const Dims& endsIn,
                     const Dims& axesIn, const Dims& stepsIn) {
    const std::size_t rank = data.dims.size();
    Dims starts(rank, 0);
    Dims steps(rank, 1);
    Dims sizes = data.dims;
    if (startsIn.size() != endsIn.size()) {
        throw Decline{};
    }
    for (std::size_t k = 0; k < startsIn.size(); ++k) {
        const std::int64_t axis =
            normaliseAxis(axesIn.empty() ? static_cast<std::int64_t>(k) : axesIn[k], rank);
        const std::int64_t step = stepsIn.empty() ? 1 : stepsIn[k];
        const std::int64_t dim = data.dims[static_cast<std::size_t>(axis)];
        if (step == 0 || step == std::numeric_limits<std::int64_t>::min()) {
            throw Decline{};
        }
        auto clampIndex = [&](std::int64_t v, std::int64_t lo, std::int64_t hi) {
            if (v < 0) {
                v = (v < -dim) ? lo : v + dim;
            }
            return std::clamp(v, lo, hi);
        };
        std::int64_t start = 0;
        std::int64_t size = 0;
        if (step > 0) {
            start = clampIndex(startsIn[k], 0, dim);
            const std::int64_t end = clampIndex(endsIn[k], 0, dim);
            size = end > start ? (end - start - 1) / step + 1 : 0;
        } else {
            start = clampIndex(startsIn[k], -1, dim - 1);
            const std::int64_t end = clampIndex(endsIn[k], -1, dim - 1);
            size = start > end ? (start - end - 1) / (-step) + 1 : 0;
        }
        starts[static_cast<std::size_t>(axis)] = start;
        steps[static_cast<std::size_t>(axis)] = step;
        sizes[static_cast<std::size_t>(axis)] = size;
    }
    return sliceBox(data, starts, steps, sizes);
}

ConstantTensor concat(std::span<const FoldInput> inputs, std::int64_t axis) {
    const ConstantTensor& first = need(inputs, 0);
    axis = normaliseAxis(axis, first.dims.size());
    Dims outDims = first.dims;
    outDims[static_cast<std::size_t>(axis)] = 0;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
        const ConstantTensor& t = need(inputs, k);
        bool agree = t.dims.size() == first.dims.size();
        for (std::size_t i = 0; agree && i < t.dims.size(); ++i) {
            agree = static_cast<std::int64_t>(i) == axis || t.dims[i] == first.dims[i];
        }
        if (!agree) {
            // Copying blocks of unequal size would run past the output.
            throw FoldError("Concat input " + std::to_string(k) +
                            " does not match input 0 outside axis " + std::to_string(axis));
        }
        outDims[static_cast<std::size_t>(axis)] += t.dims[static_cast<std::size_t>(axis)];
    }
    ConstantTensor out = makeTensor(first.dtype, outDims);
    const std::int64_t outer = std::accumulate(outDims.begin(), outDims.begin() + axis,
                                               std::int64_t{1}, std::multiplies<>());
    std::int64_t o = 0;
    for (std::int64_t a = 0; a < outer; ++a) {
        for (std::size_t k = 0; k < inputs.size(); ++k) {
            const ConstantTensor& t = *inputs[k].value;
            const std::int64_t block = std::accumulate(t.dims.begin() + axis, t.dims.end(),
                                                       std::int64_t{1}, std::multiplies<>());
            for (std::int64_t b = 0; b < block; ++b) {
                copyElement(t, a * block + b, out, o++);
            }
        }
    }
    return out;
}

ConstantTensor reshaped(ConstantTensor t, Dims dims) {
    if (product(dims) != t.elementCount()) {
        throw Decline{};
    }
    t.dims = std::move(dims);
    return t;
}

ConstantTensor reshape(const ConstantTensor& data, const Dims& shape, bool allowZero) {
    Dims dims = shape;
    std::int64_t known = 1;
    int inferred = -1;
    for (std::size_t i = 0; i < dims.size(); ++i) {
        if (dims[i] == 0 && !allowZero) {
            if (i >= data.dims.size()) {
                throw Decline{};
            }
            dims[i] = data.dims[i];
        }
        if (dims[i] == -1) {
            if (inferred >= 0) {
                throw Decline{};
            }
            inferred = static_cast<int>(i);
        } else if (dims[i] < 0 || (dims[i] > 0 && known > ConstantTensor::kMaxElements / dims[i])) {
            throw Decline{};
        } else {
            known *= dims[i];
        }
    }
    if (inferred >= 0) {
        if (known == 0) {
            throw Decline{};
        }
        dims[static_cast<std::size_t>(inferred)] = data.elementCount() / known;
    }
    return reshaped(data, dims);
}

ConstantTensor unsqueeze(const ConstantTensor& data, Dims axes) {
    const std::size_t rank = data.dims.size() + axes.size();
    for (std::int64_t& a : axes) {
        a = normaliseAxis(a, rank);
    }
    std::sort(axes.begin(), axes.end());
    Dims dims;
    std::size_t src = 0;
    for (std::size_t i = 0; i < rank; ++i) {
        if (std::binary_search(axes.begin(), axes.end(), static_cast<std::int64_t>(i))) {
            dims.push_back(1);
        } else {
            if (src >= data.dims.size()) {
                throw Decline{};
            }
            dims.push_back(data.dims[src++]);
        }
    }
    return reshaped(data, dims);
}

ConstantTensor squeeze(const ConstantTensor& data, Dims axes) {
    for (std::int64_t& a : axes) {
        a = normaliseAxis(a, data.dims.size());
    }
    Dims dims;
    for (std::size_t i = 0; i < data.dims.size(); ++i) {
        const bool listed =
            std::find(axes.begin(), axes.end(), static_cast<std::int64_t>(i)) != axes.end();
        if (axes.empty() ? data.dims[i] == 1 : listed) {
            if (data.dims[i] != 1) {
                throw Decline{};
            }
            continue;
        }
        dims.push_back(data.dims[i]);
    }
    return reshaped(data, dims);
}

ConstantTensor transpose(const ConstantTensor& data, Dims perm) {
    const std::size_t rank = data.dims.size();
    if (perm.empty()) {
        for (std::size_t i = 0; i < rank; ++i) {
            perm.push_back(static_cast<std::int64_t>(rank - 1 - i));
        }
    }
    if (perm.size() != rank) {
        throw Decline{};
    }
    std::vector<bool> used(rank, false);
    for (std::int64_t& p : perm) {
        p = normaliseAxis(p, rank);
        if (used[static_cast<std::size_t>(p)]) {
            std::string text;
            for (const std::int64_t q : perm) {
                text += (text.empty() ? "" : ",") + std::to_string(q);
            }
            throw FoldError("attribute 'perm' [" + text +
                            "] names an axis twice; it must be a "
                            "permutation of the " +
                            std::to_string(rank) + " axes");
        }
        used[static_cast<std::size_t>(p)] = true;
    }
    Dims outDims(rank);
    for (std::size_t i = 0; i < rank; ++i) {
        outDims[i] = data.dims[static_cast<std::size_t>(normaliseAxis(perm[i], rank))];
    }
    ConstantTensor out = makeTensor(data.dtype, outDims);
    const Dims inStrides = stridesOf(data.dims);
    Dims index(rank, 0);
    const std::int64_t count = out.elementCount();
    for (std::int64_t o = 0; o < count; ++o) {
        std::int64_t src = 0;
        for (std::size_t ax = 0; ax < rank; ++ax) {
            src += index[ax] * inStrides[static_cast<std::size_t>(perm[ax])];
        }
        copyElement(data, src, out, o);
        for (std::size_t ax = rank; ax-- > 0;) {
            if (++index[ax] < outDims[ax]) {
                break;
            }
            index[ax] = 0;
        }
    }
    return out;
}

ConstantTensor expand(const ConstantTensor& data, const Dims& shape) {
    const Dims outDims = broadcastDims({&data.dims, &shape});
    ConstantTensor out = makeTensor(data.dtype, outDims);
    forEachBroadcast(outDims, {&data.dims},
                     [&](std::int64_t o, const Dims& in) { copyElement(data, in[0], out, o); });
    return out;
}

ConstantTensor tile(const ConstantTensor& data, const Dims& repeats) {
    if (repeats.size() != data.dims.size()) {
        throw Decline{};
    }
    Dims outDims = data.dims;
    for (std::size_t i = 0; i < outDims.size(); ++i) {
        if (repeats[i] < 0 ||
            (repeats[i] > 0 && outDims[i] > ConstantTensor::kMaxElements / repeats[i])) {
            throw Decline{};
        }
        outDims[i] *= repeats[i];
    }
    ConstantTensor out = makeTensor(data.dtype, outDims);
    const Dims inStrides = stridesOf(data.dims);
    Dims index(outDims.size(), 0);
    const std::int64_t count = out.elementCount();
    for (std::int64_t o = 0; o < count; ++o) {
        std::int64_t src = 0;
        for (std::size_t ax = 0; ax < outDims.size(); ++ax) {
            src += (index[ax] % data.dims[ax]) * inStrides[ax];
        }
        copyElement(data, src, out, o);
        for (std::size_t ax = outDims.size(); ax-- > 0;) {
            if (++index[ax] < outDims[ax]) {
                break;
            }
            index[ax] = 0;
        }
    }
    return out;
}

ConstantTensor where(const ConstantTensor& cond, const ConstantTensor& x, const ConstantTensor& y) {
    const Dims outDims = broadcastDims({&cond.dims, &x.dims, &y.dims});
    ConstantTensor out = makeTensor(x.dtype, outDims);
    forEachBroadcast(outDims, {&cond.dims, &x.dims, &y.dims}, [&](std::int64_t o, const Dims& in) {
        if (cond.integer(in[0]) != 0) {
            copyElement(x, in[1], out, o);
        } else {
            copyElement(y, in[2], out, o);
        }
    });
    return out;
}

ConstantTensor range(const ConstantTensor& start, const ConstantTensor& limit,
                     const ConstantTensor& delta) {
    const double s = start.real(0);
    const double l = limit.real(0);
    const double d = delta.real(0);
    if (d == 0.0) {
        throw Decline{};
    }
    const double steps = std::max(0.0, std::ceil((l - s) / d));
    if (!(steps <= static_cast<double>(ConstantTensor::kMaxElements))) {
        throw Decline{}; // also NaN and infinity
    }
    const auto count = static_cast<std::int64_t>(steps);
    ConstantTensor out = makeTensor(start.dtype, {count});
    for (std::int64_t i = 0; i < count; ++i) {
        if (out.holdsIntegers()) {
            out.ints[static_cast<std::size_t>(i)] =
                wrapTo(out.dtype, wrappingAdd(start.integer(0), wrappingMul(i, delta.integer(0))));
        } else {
            out.reals[static_cast<std::size_t>(i)] = s + static_cast<double>(i) * d;
        }
    }
    return out;
}

ConstantTensor reduce(const std::string& op, const ConstantTensor& data, Dims axes, bool keepDims,
                      bool noopWithEmptyAxes) {
    const std::size_t rank = data.dims.size();
    if (axes.empty()) {
        if (noopWithEmptyAxes) {
            return data;
        }
        for (std::size_t i = 0; i < rank; ++i) {
            axes.push_back(static_cast<std::int64_t>(i));
        }
    }
    std::vector<bool> reduced(rank, false);
    for (const std::int64_t a : axes) {
        reduced[static_cast<std::size_t>(normaliseAxis(a, rank))] = true;
    }
    Dims keptDims(rank);
    Dims outDims;
    for (std::size_t i = 0; i < rank; ++i) {
        keptDims[i] = reduced[i] ? 1 : data.dims[i];
        if (!reduced[i] || keepDims) {
            outDims.push_back(keptDims[i]);
        }
    }
    ConstantTensor out = makeTensor(data.dtype, keptDims);
    const bool isMin = op == "ReduceMin";
    const bool isMax = op == "ReduceMax";
    const bool isProd = op == "ReduceProd";
    const double init = isProd  ? 1.0
                        : isMin ? std::numeric_limits<double>::infinity()
                        : isMax ? -std::numeric_limits<double>::infinity()
                                : 0.0;
    std::vector<double> acc(static_cast<std::size_t>(out.elementCount()), init);
    std::vector<std::int64_t> accInt(acc.size(), isProd ? 1 : 0);
    std::vector<bool> seen(acc.size(), false);
    const Dims outStrides = stridesOf(keptDims);
    const std::int64_t count = data.elementCount();
    Dims index(rank, 0);
    for (std::int64_t i = 0; i < count; ++i) {
        std::int64_t o = 0;
        for (std::size_t ax = 0; ax < rank; ++ax) {
            o += (reduced[ax] ? 0 : index[ax]) * outStrides[ax];
        }
        const auto slot = static_cast<std::size_t>(o);
        const double v = data.real(i);
        const std::int64_t vi = data.integer(i);
        if (isProd) {
            acc[slot] *= v;
            accInt[slot] = wrappingMul(accInt[slot], vi);
        } else if (isMin) {
            acc[slot] = std::min(acc[slot], v);
            accInt[slot] = seen[slot] ? std::min(accInt[slot], vi) : vi;
        } else if (isMax) {
            acc[slot] = std::max(acc[slot], v);
            accInt[slot] = seen[slot] ? std::max(accInt[slot], vi) : vi;
        } else {
            acc[slot] += v;
            accInt[slot] = wrappingAdd(accInt[slot], vi);
        }
        seen[slot] = true;
        for (std::size_t ax = rank; ax-- > 0;) {
            if (++index[ax] < data.dims[ax]) {
                break;
            }
            index[ax] = 0;
        }
    }
    const std::int64_t reducedCount = count / std::max<std::int64_t>(1, out.elementCount());
    for (std::size_t k = 0; k < acc.size(); ++k) {
        if (op == "ReduceMean") {
            acc[k] /= static_cast<double>(reducedCount);
            accInt[k] /= std::max<std::int64_t>(1, reducedCount);
        }
        if (out.holdsIntegers()) {
            out.ints[k] = accInt[k];
        } else {
            out.reals[k] = acc[k];
        }
    }
    out.dims = outDims;
    return out;
}

ConstantTensor scatterNd(const ConstantTensor& data, const ConstantTensor& indices,
                         const ConstantTensor& updates) {
    ConstantTensor out = data;
    if (indices.dims.empty()) {
        throw Decline{};
    }
    const std::int64_t depth = indices.dims.back();
    if (depth > static_cast<std::int64_t>(data.dims.size())) {
        throw Decline{};
    }
    const Dims strides = stridesOf(data.dims);
    const std::int64_t slice = std::accumulate(data.dims.begin() + depth, data.dims.end(),
                                               std::int64_t{1}, std::multiplies<>());
    const std::int64_t tuples = indices.elementCount() / std::max<std::int64_t>(1, depth);
    if (updates.elementCount() != tuples * slice) {
        throw Decline{};
    }
    for (std::int64_t t = 0; t < tuples; ++t) {
        std::int64_t base = 0;
        for (std::int64_t k = 0; k < depth; ++k) {
            std::int64_t idx = indices.integer(t * depth + k);
            const std::int64_t dim = data.dims[static_cast<std::size_t>(k)];
            if (idx < 0) {
                idx += dim;
            }
            if (idx < 0 || idx >= dim) {
                throw Decline{};
            }
            base += idx * strides[static_cast<std::size_t>(k)];
        }
        for (std::int64_t s = 0; s < slice; ++s) {
            copyElement(updates, t * slice + s, out, base + s);
        }
    }
    return out;
}

std::vector<ConstantTensor> split(const ConstantTensor& data, std::int64_t axis, Dims sizes,
                                  int outputCount) {
    axis = normaliseAxis(axis, data.dims.size());
    const std::int64_t dim = data.dims[static_cast<std::size_t>(axis)];
    if (sizes.empty()) {
        if (outputCount <= 0 || dim % outputCount != 0) {
            throw Decline{};
        }
        sizes.assign(static_cast<std::size_t>(outputCount), dim / outputCount);
    }
    std::int64_t total = 0;
    for (const std::int64_t size : sizes) {
        if (size < 0 || size > dim) {
            throw FoldError("Split size " + std::to_string(size) + " is outside [0, " +
                            std::to_string(dim) + "], the input's extent along axis " +
                            std::to_string(axis));
        }
        total += size;
    }
    if (total != dim || static_cast<int>(sizes.size()) != outputCount) {
        throw FoldError("Split sizes add up to " + std::to_string(total) + " in " +
                        std::to_string(sizes.size()) + " parts, but the input has " +
                        std::to_string(dim) + " along axis " + std::to_string(axis) + " and " +
                        std::to_string(outputCount) + " outputs");
    }
    std::vector<ConstantTensor> outs;
    std::int64_t offset = 0;
    const std::size_t rank = data.dims.size();
    for (const std::int64_t size : sizes) {
        Dims starts(rank, 0);
        Dims steps(rank, 1);
        Dims box = data.dims;
        starts[static_cast<std::size_t>(axis)] = offset;
        box[static_cast<std::size_t>(axis)] = size;
        outs.push_back(sliceBox(data, starts, steps, box));
        offset += size;
    }
    if (offset != dim) {
        throw Decline{};
    }
    return outs;
}

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

std::optional<std::vector<ConstantTensor>> foldConstantNode(const Node& node, std::int64_t opset,
                                                            std::span<const FoldInput> inputs,
                                                            int outputCount) {
    if (!node.domain.empty() && node.domain != "ai.onnx") {
        return std::nullopt;
    }
    try {
        Result result = fold(node, opset, inputs, outputCount);
        if (result && static_cast<int>(result->size()) != outputCount) {
            return std::nullopt;
        }
        return result;
    } catch (const Decline&) {
        return std::nullopt;
    }
}

} // namespace paretune
