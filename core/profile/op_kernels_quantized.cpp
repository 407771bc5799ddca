// SPDX-License-Identifier: GPL-3.0-or-later
// ONNX's quantized operators on ATen: QuantizeLinear, DequantizeLinear and QLinearConv, the int8
// variant of a convolution (graph/precision.h). Tensors between nodes stay plain uint8 / int8
// tensors; QLinearConv wraps them as LibTorch quantized tensors (no copy) and runs the quantized
// engine's convolution (oneDNN here) on weights packed once per weight tensor.
#include "op_kernel_context.h"

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

/// Packed weights by the tensors they were packed from: a weight, its scales and the bias are
/// fixed values of a prepared program, so their implementations identify them while the cache
/// holds them (it keeps them alive, so an address is never reused for another weight while its
/// entry is there). The oldest entries go beyond kCapacity.
class PackCache {
public:
    PackedConv find(const std::vector<at::Tensor>& key, double inputScale, const ConvGeometry& g) {
        const std::lock_guard<std::mutex> lock(m_mutex);
        for (auto it = m_entries.begin(); it != m_entries.end(); ++it) {
            if (same(it->key, key) && it->inputScale == inputScale &&
                it->geometry == std::tie(g.strides, g.padding, g.dilations, g.groups)) {
                m_entries.splice(m_entries.begin(), m_entries, it);
                return it->packed;
            }
        }
        return {};
    }
    void add(std::vector<at::Tensor> key, double inputScale, const ConvGeometry& g,
             PackedConv packed) {
        const std::lock_guard<std::mutex> lock(m_mutex);
        m_entries.push_front(
            {std::move(key), inputScale, {g.strides, g.padding, g.dilations, g.groups}, packed});
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
        double inputScale;
        std::tuple<Ints, Ints, Ints, std::int64_t> geometry;
        PackedConv packed;
    };
    std::mutex m_mutex;
    std::list<Entry> m_entries;
};

PackCache& packCache() {
    static PackCache* cache = new PackCache; // lives as long as the process
    return *cache;
}

/// The quantized engine (oneDNN where LibTorch has it, else FBGEMM), chosen once; false when
/// neither is there (QLinearConv then computes in float).
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
                        quantizedEngineReady();
    if (!engine) {
        return {qlinearConvInFloat(c, x, g)};
    }
    const at::Tensor bias = c.has(8) ? c.in[8] : at::Tensor();
    const std::vector<at::Tensor> key{w, wScale, wZero, bias};
    PackedConv packed = packCache().find(key, xScale, g);
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
        packCache().add(key, xScale, g, packed);
    }
    static const auto conv =
        c10::Dispatcher::singleton()
            .findSchemaOrThrow("quantized::conv2d", "new")
            .typed<at::Tensor(at::Tensor, const PackedConv&, double, std::int64_t)>();
    // Channels last, the layout oneDNN's quantized convolution works in (its output has it too,
    // and so the next quantized input after elementwise nodes): no reorder then.
    const at::Tensor qx = at::_make_per_tensor_quantized_tensor(
        x.contiguous(at::MemoryFormat::ChannelsLast), xScale, xZero);
    return {conv.call(qx, packed, scalarOf(c.input(6)), static_cast<std::int64_t>(scalarOf(yZero)))
                .int_repr()};
}

} // namespace

void addQuantizedKernels(KernelTable& t) {
    t["QuantizeLinear"] = quantizeLinear;
    t["DequantizeLinear"] = dequantizeLinear;
    t["QLinearConv"] = qlinearConv;
}

} // namespace paretune::detail
