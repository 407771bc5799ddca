// SPDX-License-Identifier: GPL-3.0-or-later
// ONNX's quantized operators on ATen: QuantizeLinear, DequantizeLinear, QLinearConv and
// QLinearMatMul, the int8 variants of a convolution and a matrix product (graph/precision.h).
// Tensors between nodes stay plain uint8 / int8 tensors; QLinearConv and QLinearMatMul wrap them
// as LibTorch quantized tensors (no copy) and run the quantized engine's convolution or linear
// layer (oneDNN here) on weights packed once per weight tensor.
#include "op_kernel_context.h"

#include "common/int8_products.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/native/quantized/PackedParams.h>

#include <cmath>
#include <list>
#include <mutex>
#include <tuple>

namespace paretune::detail {

namespace {

/// A scale or zero point given as a scalar or a 1-element tensor.
bool scalarLike(const at::Tensor& t) {
    return t.numel() == 1;
}

double scalarOf(const at::Tensor& t) {
    return t.to(at::kCPU).to(at::kDouble).item<double>();
}

/// scale / zero point broadcast along `axis` of a tensor of rank `rank` (per-axis), or as they
/// are (per-tensor).
at::Tensor alongAxis(const at::Tensor& v, std::int64_t axis, std::int64_t rank) {
    if (scalarLike(v)) {
        return v.reshape({});
    }
    std::vector<std::int64_t> shape(static_cast<std::size_t>(rank), 1);
    shape[static_cast<std::size_t>(axis)] = v.numel();
    return v.reshape(shape);
}

/// The range of a quantized type: uint8 [0, 255], int8 [-128, 127].
std::pair<double, double> rangeOf(at::ScalarType type) {
    switch (type) {
    case at::kByte:
        return {0.0, 255.0};
    case at::kChar:
        return {-128.0, 127.0};
    default:
        throw UnsupportedOp(std::string("quantization to ") + at::toString(type));
    }
}

/// ONNX's QuantizeLinear: saturate(round(x / scale) + zero_point), rounding halves to even, per
/// tensor or along `axis`. Computed with elementwise ATen operations (vectorized, any memory
/// layout): LibTorch 1.13's quantize_per_tensor without FBGEMM converts element by element.
Tensors quantizeLinear(const Context& c) {
    const at::Tensor& x = c.input(0);
    const at::Tensor& scale = c.input(1);
    const at::Tensor zero =
        c.has(2) ? c.in[2] : at::zeros({}, at::TensorOptions().dtype(at::kByte));
    const auto [lo, hi] = rangeOf(zero.scalar_type());
    at::Tensor y;
    if (scalarLike(scale)) {
        y = at::div(x.to(at::kFloat), scalarOf(scale)).round_().add_(scalarOf(zero));
    } else {
        const std::int64_t axis = normAxis(c.node.attrInt("axis", 1), x.dim());
        y = at::div(x.to(at::kFloat), alongAxis(scale.to(at::kFloat), axis, x.dim()))
                .round_()
                .add_(alongAxis(zero.to(at::kFloat), axis, x.dim()));
    }
    return {y.clamp_(lo, hi).to(zero.scalar_type())};
}

/// ONNX's DequantizeLinear: (x − zero_point) · scale, per tensor or along `axis`.
Tensors dequantizeLinear(const Context& c) {
    const at::Tensor& x = c.input(0);
    const at::Tensor& scale = c.input(1);
    at::Tensor y = x.scalar_type() == at::kFloat ? x.clone() : x.to(at::kFloat);
    if (scalarLike(scale)) {
        if (c.has(2)) {
            y.sub_(scalarOf(c.in[2]));
        }
        return {y.mul_(scalarOf(scale))};
    }
    const std::int64_t axis = normAxis(c.node.attrInt("axis", 1), x.dim());
    if (c.has(2)) {
        y.sub_(alongAxis(c.in[2].to(at::kFloat), axis, x.dim()));
    }
    return {y.mul_(alongAxis(scale.to(at::kFloat), axis, x.dim()))};
}

using PackedConv = c10::intrusive_ptr<ConvPackedParamsBase<2>>;
using PackedLinear = c10::intrusive_ptr<LinearPackedParamsBase>;

/// Packed weights by the tensors they were packed from: a weight, its scales and the bias are
/// fixed values of a prepared program, so their implementations identify them while the cache
/// holds them (it keeps them alive, so an address is never reused for another weight while its
/// entry is there), beside what else the packing depended on (`Extra`). The oldest entries go
/// beyond kCapacity.
template <class Packed, class Extra> class PackCache {
public:
    Packed find(const std::vector<at::Tensor>& key, const Extra& extra) {
        const std::lock_guard<std::mutex> lock(m_mutex);
        for (auto it = m_entries.begin(); it != m_entries.end(); ++it) {
            if (same(it->key, key) && it->extra == extra) {
                m_entries.splice(m_entries.begin(), m_entries, it);
                return it->packed;
            }
        }
        return {};
    }
    void add(std::vector<at::Tensor> key, Extra extra, Packed packed) {
        const std::lock_guard<std::mutex> lock(m_mutex);
        m_entries.push_front({std::move(key), std::move(extra), std::move(packed)});
        if (m_entries.size() > kCapacity) {
            m_entries.pop_back();
        }
    }

private:
    static constexpr std::size_t kCapacity = 512;
    static bool same(const std::vector<at::Tensor>& a, const std::vector<at::Tensor>& b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (std::size_t i = 0; i < a.size(); ++i) {
            if (a[i].defined() != b[i].defined() || (a[i].defined() && !a[i].is_same(b[i]))) {
                return false;
            }
        }
        return true;
    }
    struct Entry {
        std::vector<at::Tensor> key;
        Extra extra;
        Packed packed;
    };
    std::mutex m_mutex;
    std::list<Entry> m_entries;
};

/// A convolution's packing depends on the input scale (its bias is stored in float) and its
/// geometry.
using ConvPackKey = std::tuple<double, Ints, Ints, Ints, std::int64_t>;

PackCache<PackedConv, ConvPackKey>& convPacks() {
    static auto* cache = new PackCache<PackedConv, ConvPackKey>; // lives as long as the process
    return *cache;
}

/// A matrix product's packing (no bias) on its weight alone.
PackCache<PackedLinear, int>& linearPacks() {
    static auto* cache = new PackCache<PackedLinear, int>; // lives as long as the process
    return *cache;
}

/// The quantized engine (oneDNN where LibTorch has it, else FBGEMM), chosen once; false when
/// neither is there: QLinearConv and QLinearMatMul then compute in float by their definition.
bool quantizedEngineReady() {
    static const bool ready = [] {
        const auto engines = at::globalContext().supportedQEngines();
        for (const at::QEngine wanted : {at::QEngine::ONEDNN, at::QEngine::FBGEMM}) {
            if (std::find(engines.begin(), engines.end(), wanted) != engines.end()) {
                at::globalContext().setQEngine(wanted);
                return true;
            }
        }
        return false;
    }();
    return ready;
}

/// Whether the engine computes a product of this uint8 input exactly (common/int8_products.h):
/// always where the CPU multiplies exactly, else when every input value is at most 127 (what
/// int8 lowering's 7-bit input scales give; a pair of products then stays inside int16).
bool engineExactFor(const at::Tensor& x) {
    return cpuMultipliesUint8Exactly() || x.numel() == 0 || x.max().item<std::uint8_t>() <= 127;
}

/// QLinearConv by its definition, in float: dequantize, convolve, requantize (round half to
/// even, saturate). For what the quantized engine does not take.
at::Tensor qlinearConvInFloat(const Context& c, at::Tensor x, const ConvGeometry& g) {
    const at::Tensor& w = c.input(3);
    const auto channels = [&](const at::Tensor& v) {
        return alongAxis(v.to(at::kFloat), 0, w.dim());
    };
    const at::Tensor xf = (x.to(at::kFloat) - scalarOf(c.input(2))) * scalarOf(c.input(1));
    const at::Tensor wf = (w.to(at::kFloat) - channels(c.input(5))) * channels(c.input(4));
    c10::optional<at::Tensor> bias;
    if (c.has(8)) {
        bias =
            c.in[8].to(at::kFloat) * scalarOf(c.input(1)) * c.input(4).to(at::kFloat).reshape(-1);
    }
    const at::Tensor y = at::convolution(xf, wf, bias, g.strides, g.padding, g.dilations, false,
                                         Ints(g.strides.size(), 0), g.groups);
    const at::Tensor& yZero = c.input(7);
    const bool unsignedOut = yZero.scalar_type() == at::kByte;
    return at::clamp(at::round(y / scalarOf(c.input(6))) + scalarOf(yZero), unsignedOut ? 0 : -128,
                     unsignedOut ? 255 : 127)
        .to(yZero.scalar_type());
}

Tensors qlinearConv(const Context& c) {
    at::Tensor x = c.input(0);
    const at::Tensor& w = c.input(3);
    const at::Tensor& wScale = c.input(4);
    const at::Tensor& wZero = c.input(5);
    const at::Tensor& yZero = c.input(7);
    const double xScale = scalarOf(c.input(1));
    const auto xZero = static_cast<std::int64_t>(scalarOf(c.input(2)));
    const ConvGeometry g = convGeometry(c.node, x, w.sizes(), xZero);
    const bool engine = x.scalar_type() == at::kByte && w.scalar_type() == at::kChar &&
                        yZero.scalar_type() == at::kByte && x.dim() == 4 && x.is_cpu() &&
                        quantizedEngineReady() && engineExactFor(x);
    if (!engine) {
        return {qlinearConvInFloat(c, x, g)};
    }
    const at::Tensor bias = c.has(8) ? c.in[8] : at::Tensor();
    const std::vector<at::Tensor> key{w, wScale, wZero, bias};
    const ConvPackKey extra{xScale, g.strides, g.padding, g.dilations, g.groups};
    PackedConv packed = convPacks().find(key, extra);
    if (!packed) {
        // Weights packed only when symmetric (what the engine takes), checked once per weight.
        if (!at::all(wZero == 0).item<bool>()) {
            return {qlinearConvInFloat(c, x, g)};
        }
        const at::Tensor qw =
            scalarLike(wScale)
                ? at::_make_per_tensor_quantized_tensor(w, scalarOf(wScale), 0)
                : at::_make_per_channel_quantized_tensor(
                      w, wScale.to(at::kDouble).reshape(-1),
                      at::zeros({wScale.numel()}, at::TensorOptions().dtype(at::kLong)), 0);
        c10::optional<at::Tensor> floatBias;
        if (bias.defined()) {
            floatBias = bias.to(at::kFloat) * (xScale * wScale.to(at::kFloat).reshape(-1));
        }
        static const auto prepack =
            c10::Dispatcher::singleton()
                .findSchemaOrThrow("quantized::conv2d_prepack", "")
                .typed<PackedConv(at::Tensor, c10::optional<at::Tensor>, c10::List<std::int64_t>,
                                  c10::List<std::int64_t>, c10::List<std::int64_t>,
                                  std::int64_t)>();
        packed = prepack.call(qw, floatBias, c10::List<std::int64_t>(g.strides),
                              c10::List<std::int64_t>(g.padding),
                              c10::List<std::int64_t>(g.dilations), g.groups);
        convPacks().add(key, extra, packed);
    }
    static const auto conv =
        c10::Dispatcher::singleton()
            .findSchemaOrThrow("quantized::conv2d", "new")
            .typed<at::Tensor(at::Tensor, const PackedConv&, double, std::int64_t)>();
    // Channels last, the layout oneDNN's quantized convolution works in. Where lowered
    // convolutions chain in it (channelsLastChains: AMX or avx512_bf16) the output stays so, as a
    // bf16 convolution's does, and the DequantizeLinear, the QuantizeLinear of the next int8
    // node and its convolution keep it. Elsewhere it goes back to the graph's NCHW for its
    // readers: a channels-last tensor reaching an fp32 Conv after the DequantizeLinear would make
    // it take LibTorch's channels-last path, measured on AVX2 (one thread, channels-last input
    // and weights) 1.3× to 3.5× slower than NCHW for ResNet's convolutions. The reorders are of
    // uint8 tensors and part of this node's measured time.
    const at::Tensor qx = at::_make_per_tensor_quantized_tensor(
        x.contiguous(at::MemoryFormat::ChannelsLast), xScale, xZero);
    const at::Tensor y =
        conv.call(qx, packed, scalarOf(c.input(6)), static_cast<std::int64_t>(scalarOf(yZero)))
            .int_repr();
    return {channelsLastChains() ? y : y.contiguous()};
}

/// A scale or zero point of QLinearMatMul's a (per row: a 1-D one of M elements) or b (per
/// column: a 1-D one of N elements) shaped to broadcast against the matrix; N-D ones are given
/// in the matrix's rank already.
at::Tensor alongMatrix(const at::Tensor& v, bool rows) {
    const at::Tensor f = v.to(at::kFloat);
    if (scalarLike(f)) {
        return f.reshape({});
    }
    return f.dim() == 1 && rows ? f.reshape({-1, 1}) : f;
}

/// QLinearMatMul by its definition, in float: dequantize a and b, multiply, requantize to y's
/// scale and zero point (round half to even, saturate). For what the quantized engine does not
/// take.
at::Tensor qlinearMatMulInFloat(const Context& c) {
    const at::Tensor af =
        (c.input(0).to(at::kFloat) - alongMatrix(c.input(2), true)) * alongMatrix(c.input(1), true);
    const at::Tensor bf = (c.input(3).to(at::kFloat) - alongMatrix(c.input(5), false)) *
                          alongMatrix(c.input(4), false);
    const at::Tensor y = at::matmul(af, bf);
    const at::Tensor& yZero = c.input(7);
    const auto [lo, hi] = rangeOf(yZero.scalar_type());
    return at::clamp(at::round(y / alongMatrix(c.input(6), true)) + alongMatrix(yZero, true), lo,
                     hi)
        .to(yZero.scalar_type());
}

/// QLinearMatMul on the quantized engine's linear layer when it applies: a uint8 a of rank ≥ 2
/// with one scale, a 2-D int8 b with zero points 0 (per tensor or per column: the engine's per
/// output channel), a uint8 y with one scale. b is packed once per weight (transposed to the
/// engine's [N, K]); a is viewed as [rows, K] and the result given back in a's leading shape.
Tensors qlinearMatMul(const Context& c) {
    const at::Tensor& a = c.input(0);
    const at::Tensor& b = c.input(3);
    const at::Tensor& bScale = c.input(4);
    const at::Tensor& bZero = c.input(5);
    const at::Tensor& yZero = c.input(7);
    const bool engine = a.scalar_type() == at::kByte && b.scalar_type() == at::kChar &&
                        yZero.scalar_type() == at::kByte && a.dim() >= 2 && b.dim() == 2 &&
                        a.is_cpu() && scalarLike(c.input(1)) && scalarLike(c.input(2)) &&
                        scalarLike(c.input(6)) && scalarLike(yZero) && a.size(-1) == b.size(0) &&
                        (scalarLike(bScale) || bScale.numel() == b.size(1)) &&
                        bZero.numel() == bScale.numel() && quantizedEngineReady() &&
                        engineExactFor(a);
    if (!engine) {
        return {qlinearMatMulInFloat(c)};
    }
    const std::vector<at::Tensor> key{b, bScale, bZero};
    PackedLinear packed = linearPacks().find(key, 0);
    if (!packed) {
        // Weights packed only when symmetric (what the engine takes), checked once per weight.
        if (!at::all(bZero == 0).item<bool>()) {
            return {qlinearMatMulInFloat(c)};
        }
        const at::Tensor w = b.t().contiguous();
        const at::Tensor qw =
            scalarLike(bScale)
                ? at::_make_per_tensor_quantized_tensor(w, scalarOf(bScale), 0)
                : at::_make_per_channel_quantized_tensor(
                      w, bScale.to(at::kDouble).reshape(-1),
                      at::zeros({bScale.numel()}, at::TensorOptions().dtype(at::kLong)), 0);
        static const auto prepack =
            c10::Dispatcher::singleton()
                .findSchemaOrThrow("quantized::linear_prepack", "")
                .typed<PackedLinear(at::Tensor, c10::optional<at::Tensor>)>();
        // QLinearMatMul has no bias: a zero one (an empty optional trips GCC 12's
        // -Wmaybe-uninitialized inside the dispatcher's call).
        packed = prepack.call(qw, at::zeros({b.size(1)}, at::TensorOptions().dtype(at::kFloat)));
        linearPacks().add(key, 0, packed);
    }
    static const auto linear =
        c10::Dispatcher::singleton()
            .findSchemaOrThrow("quantized::linear", "")
            .typed<at::Tensor(at::Tensor, const PackedLinear&, double, std::int64_t)>();
    const at::Tensor qa = at::_make_per_tensor_quantized_tensor(
        a.reshape({-1, a.size(-1)}).contiguous(), scalarOf(c.input(1)),
        static_cast<std::int64_t>(scalarOf(c.input(2))));
    Ints shape(a.sizes().begin(), a.sizes().end());
    shape.back() = b.size(1);
    return {
        linear.call(qa, packed, scalarOf(c.input(6)), static_cast<std::int64_t>(scalarOf(yZero)))
            .int_repr()
            .reshape(shape)};
}

} // namespace

void addQuantizedKernels(KernelTable& t) {
    t["QuantizeLinear"] = quantizeLinear;
    t["DequantizeLinear"] = dequantizeLinear;
    t["QLinearConv"] = qlinearConv;
    t["QLinearMatMul"] = qlinearMatMul;
}

} // namespace paretune::detail
