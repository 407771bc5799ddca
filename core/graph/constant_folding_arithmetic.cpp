// SPDX-License-Identifier: GPL-3.0-or-later
// Folding rules that compute values: elementwise arithmetic, comparisons and logic, casts, Where,
// Range and reductions, each in the element type's own arithmetic (see constant_folding_rules.h).
#include "constant_folding_rules.h"

#include <cmath>
#include <limits>
#include <numeric>

namespace paretune::folding {

namespace {

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

} // namespace

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

} // namespace paretune::folding
