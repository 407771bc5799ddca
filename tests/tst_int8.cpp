// SPDX-License-Identifier: GPL-3.0-or-later
// The int8 variant (issue 17): ONNX's quantized operators computed as their definitions say
// (worked by hand), the lowered Conv, MatMul and Gemm and their calibrated scales, the
// activation ranges in the library, validation of an int8 plan and the CLI from profile to
// search. No timing is asserted.
#include "cliprocess.h"
#include "common/input_error.h"
#include "common/int8_products.h"
#include "graph/fusion.h"
#include "graph/precision.h"
#include "int8_by_hand.h"
#include "onnx_fixture.h"
#include "precision_fixture.h"
#include "profile/output_deviation.h"
#include "profile/plan_validation.h"
#include "store/sample_library.h"
#include "testmodels.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>

using namespace paretune;
using precision_fixture::fixture;
using precision_fixture::nodeOfType;
using namespace int8_by_hand;

namespace {

/// A MatMul and a Gemm (transB, C) reading one activation, their weights chosen so that int8
/// is worked by hand (int8ProductsByHand).
Graph productsFixture(const std::string& gemmAttributes = "transB = 1") {
    return onnxFixture("(float[1,2] x) => (float[1,2] p, float[1,2] q) <float[2,2] w = {1.27, "
                       "-0.635, 0.5, 0.254}, float[2,2] wt = {1.27, 0.5, -0.635, 0.254}, "
                       "float[2] c = {0.1, -0.2}> {\n"
                       "  p = MatMul (x, w)\n"
                       "  q = Gemm <" +
                       gemmAttributes +
                       "> (x, wt, c)\n"
                       "}");
}

} // namespace

class TestInt8 : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void int8IsOfferedForConvolutionsAndProducts() {
        QCOMPARE(parseVariants("bf16,int8"),
                 (std::vector<Variant>{Precision::Bf16, Precision::Int8}));
        QCOMPARE(precisionName(Precision::Int8), std::string_view("int8"));
        const Graph g = fixture();
        QVERIFY(lowerable(g, nodeOfType(g, "Conv"), Precision::Int8));
        QVERIFY(lowerable(g, nodeOfType(g, "MatMul"), Precision::Int8));
        QVERIFY(lowerable(g, nodeOfType(g, "MatMul"), Precision::Bf16));
        QVERIFY(!lowerable(g, nodeOfType(g, "Relu"), Precision::Int8));
        // The ranges int8 needs: each lowerable node's activation input and its output.
        const std::vector<TensorId> tensors = int8RangeTensors(g);
        QStringList names;
        for (const TensorId t : tensors) {
            names << QString::fromStdString(g.tensors[static_cast<std::size_t>(t)].name);
        }
        QCOMPARE(names.join(QLatin1Char(' ')), QStringLiteral("x v f p"));
    }

    // Which matrix products int8 takes: B constant and 2-D, Gemm without transA and with alpha
    // and beta 1; an activation times an activation (attention's products) stays fp32 or bf16.
    void int8TakesProductsWithConstantWeights_data() {
        QTest::addColumn<QString>("output");
        QTest::addColumn<QString>("node");
        QTest::addColumn<bool>("int8");
        QTest::newRow("MatMul, 3-D activation, constant B")
            << QStringLiteral("2,3,5") << QStringLiteral("MatMul (x, w)") << true;
        QTest::newRow("MatMul, activation B")
            << QStringLiteral("2,3,5") << QStringLiteral("MatMul (x, y)") << false;
        QTest::newRow("Gemm, transB, C")
            << QStringLiteral("3,5") << QStringLiteral("Gemm <transB = 1> (z, wt, c)") << true;
        QTest::newRow("Gemm without C")
            << QStringLiteral("3,5") << QStringLiteral("Gemm (z, w)") << true;
        QTest::newRow("Gemm, transA")
            << QStringLiteral("5,5") << QStringLiteral("Gemm <transA = 1> (y, w)") << false;
        QTest::newRow("Gemm, alpha 2")
            << QStringLiteral("3,5") << QStringLiteral("Gemm <alpha = 2.0> (z, w, c)") << false;
    }
    void int8TakesProductsWithConstantWeights() {
        QFETCH(QString, output);
        QFETCH(QString, node);
        QFETCH(bool, int8);
        const std::string v20 = precision_fixture::values(20);
        const Graph g = onnxFixture(
            "(float[2,3,4] x, float[4,5] y, float[3,4] z) => (float[" + output.toStdString() +
            "] o) <float[4,5] w = {" + v20 + "}, float[5,4] wt = {" + v20 + "}, float[5] c = {" +
            precision_fixture::values(5) + "}> {\n  o = " + node.toStdString() + "\n}");
        QCOMPARE(lowerable(g, 0, Precision::Int8), int8);
        QVERIFY(lowerable(g, 0, Precision::Bf16));
    }

    // QuantizeLinear and DequantizeLinear, worked by hand: x / 0.01 rounded, + 128, saturated;
    // back, (q − 128) · 0.01. Per axis: int8, round half to even.
    void quantizeAndDequantizeByHand() {
        const Graph g = onnxFixture(
            "(float[1,4] x, float[1,2] p) => (uint8[1,4] q, float[1,4] r, int8[1,2] pq) "
            "<float[1] s = {0.01}, uint8[1] z = {128}, float[2] ps = {0.1, 0.2}, "
            "int8[2] pz = {0, 0}> {\n"
            "  q = QuantizeLinear (x, s, z)\n"
            "  r = DequantizeLinear (q, s, z)\n"
            "  pq = QuantizeLinear <axis = 1> (p, ps, pz)\n"
            "}");
        HostTensor x;
        x.dtype = DType::Float32;
        x.dims = {1, 4};
        x.values = {-1.0, 0.004, 0.6, 1.5};
        HostTensor p;
        p.dtype = DType::Float32;
        p.dims = {1, 2};
        p.values = {0.3, -0.5};
        const NamedTensors out = executeGraph(g, {{"x", x}, {"p", p}});
        QCOMPARE(out.at("q").ints, (std::vector<std::int64_t>{28, 128, 188, 255}));
        const std::vector<double> back{-1.0, 0.0, 0.6, 1.27};
        for (std::size_t i = 0; i < back.size(); ++i) {
            QVERIFY2(std::abs(out.at("r").values[i] - back[i]) < 1e-6,
                     std::to_string(out.at("r").values[i]).c_str());
        }
        QCOMPARE(out.at("pq").ints, (std::vector<std::int64_t>{3, -2})); // 0.3/0.1, -0.5/0.2
    }

    // QLinearConv against its definition: per-channel weight scales through the quantized
    // engine (zero weight zero points), and a weight zero point the engine does not take
    // (computed in float). Requantization may round a value the other way: at most 1 apart.
    // Inputs up to 255 take the engine only where the CPU multiplies 8 bits exactly (VNNI);
    // inputs in 7 bits take it on any CPU (common/int8_products.h).
    void qlinearConvMatchesItsDefinition_data() {
        QTest::addColumn<QString>("weightZero");
        QTest::addColumn<int>("inputTop");
        QTest::newRow("symmetric weights (quantized engine with VNNI)")
            << QStringLiteral("0, 0, 0") << 255;
        QTest::newRow("symmetric weights, 7-bit inputs (quantized engine)")
            << QStringLiteral("0, 0, 0") << 127;
        QTest::newRow("a weight zero point (in float)") << QStringLiteral("3, 0, -2") << 255;
    }
    void qlinearConvMatchesItsDefinition() {
        QFETCH(QString, weightZero);
        QFETCH(int, inputTop);
        const std::vector<std::int64_t> x = integers(32, 0, inputTop);
        const std::vector<std::int64_t> w = integers(54, -127, 127);
        const std::vector<double> ws{0.01, 0.02, 0.015};
        std::vector<std::int64_t> wz;
        for (const QString& z : weightZero.split(QStringLiteral(", "))) {
            wz.push_back(z.toLongLong());
        }
        const std::vector<std::int64_t> b{10, -2000, 300};
        const Graph g = onnxFixture(
            "(uint8[1,2,4,4] x) => (uint8[1,3,4,4] y) <float[1] xs = {0.02}, uint8[1] xz = {100}, "
            "int8[3,2,3,3] w = {" +
            text(w) + "}, float[3] ws = {0.01, 0.02, 0.015}, int8[3] wz = {" + text(wz) +
            "}, float[1] ys = {0.05}, uint8[1] yz = {120}, int32[3] b = {" + text(b) +
            "}> {\n"
            "  y = QLinearConv <pads = [1, 1, 1, 1]> (x, xs, xz, w, ws, wz, ys, yz, b)\n"
            "}");
        const NamedTensors out =
            executeGraph(g, {{"x", integerTensor(DType::UInt8, {1, 2, 4, 4}, x)}});
        const std::vector<std::int64_t> want =
            qlinearConvByHand(x, 0.02, 100, w, ws, wz, 0.05, 120, b);
        const std::vector<std::int64_t>& got = out.at("y").ints;
        QCOMPARE(got.size(), want.size());
        int exact = 0;
        bool saturated = false;
        for (std::size_t i = 0; i < got.size(); ++i) {
            QVERIFY2(std::abs(got[i] - want[i]) <= 1,
                     (std::to_string(i) + ": " + std::to_string(got[i]) + " against " +
                      std::to_string(want[i]))
                         .c_str());
            exact += got[i] == want[i] ? 1 : 0;
            saturated = saturated || want[i] == 0 || want[i] == 255;
        }
        QVERIFY2(exact >= static_cast<int>(got.size()) * 9 / 10, std::to_string(exact).c_str());
        QVERIFY(saturated); // the bias of channel 1 drives values to the end of the range
    }

    // QLinearMatMul against its definition: per-column weight scales through the quantized
    // engine's linear layer (2-D and 3-D a), a per-tensor b scale, and a weight zero point the
    // engine does not take (computed in float). At most 1 apart, at least 90 % exact.
    void qlinearMatMulMatchesItsDefinition_data() {
        QTest::addColumn<QString>("aShape");
        QTest::addColumn<QString>("weightZero");
        QTest::addColumn<bool>("perColumn");
        QTest::addColumn<int>("inputTop");
        QTest::newRow("2-D a, per column (quantized engine with VNNI)")
            << QStringLiteral("6,8") << QStringLiteral("0, 0, 0, 0, 0") << true << 255;
        QTest::newRow("2-D a, per column, 7-bit a (quantized engine)")
            << QStringLiteral("6,8") << QStringLiteral("0, 0, 0, 0, 0") << true << 127;
        QTest::newRow("3-D a, per column (quantized engine with VNNI)")
            << QStringLiteral("2,3,8") << QStringLiteral("0, 0, 0, 0, 0") << true << 255;
        QTest::newRow("3-D a, per column, 7-bit a (quantized engine)")
            << QStringLiteral("2,3,8") << QStringLiteral("0, 0, 0, 0, 0") << true << 127;
        QTest::newRow("per tensor (quantized engine with VNNI)")
            << QStringLiteral("6,8") << QStringLiteral("0") << false << 255;
        QTest::newRow("per tensor, 7-bit a (quantized engine)")
            << QStringLiteral("6,8") << QStringLiteral("0") << false << 127;
        QTest::newRow("a weight zero point (in float)")
            << QStringLiteral("6,8") << QStringLiteral("3, 0, -2, 1, 0") << true << 255;
    }
    void qlinearMatMulMatchesItsDefinition() {
        QFETCH(QString, aShape);
        QFETCH(QString, weightZero);
        QFETCH(bool, perColumn);
        QFETCH(int, inputTop);
        constexpr int k = 8;
        constexpr int n = 5;
        const std::vector<std::int64_t> a = integers(6 * k, 0, inputTop);
        const std::vector<std::int64_t> b = integers(k * n, -127, 127);
        std::vector<std::int64_t> bz;
        for (const QString& z : weightZero.split(QStringLiteral(", "))) {
            bz.push_back(z.toLongLong());
        }
        std::vector<double> bs{0.01, 0.02, 0.015, 0.005, 0.03};
        std::string bScale = "float[5] bs = {0.01, 0.02, 0.015, 0.005, 0.03}";
        std::string bZero = "int8[5] bz = {" + text(bz) + "}";
        if (!perColumn) {
            bs.assign(n, 0.01);
            bz.assign(n, bz.front());
            bScale = "float bs = {0.01}";
            bZero = "int8 bz = {" + std::to_string(bz.front()) + "}";
        }
        std::vector<std::int64_t> dims;
        for (const QString& d : aShape.split(QLatin1Char(','))) {
            dims.push_back(d.toLongLong());
        }
        std::vector<std::int64_t> outDims = dims;
        outDims.back() = n;
        const auto shape = [](const std::vector<std::int64_t>& d) {
            std::string t;
            for (std::size_t i = 0; i < d.size(); ++i) {
                t += (i ? "," : "") + std::to_string(d[i]);
            }
            return t;
        };
        const Graph g = onnxFixture("(uint8[" + shape(dims) + "] a) => (uint8[" + shape(outDims) +
                                    "] y) <float as = {0.02}, uint8 az = {100}, int8[8,5] b = {" +
                                    text(b) + "}, " + bScale + ", " + bZero +
                                    ", float ys = {0.08}, uint8 yz = {120}> {\n"
                                    "  y = QLinearMatMul (a, as, az, b, bs, bz, ys, yz)\n"
                                    "}");
        const NamedTensors out = executeGraph(g, {{"a", integerTensor(DType::UInt8, dims, a)}});
        const std::vector<std::int64_t> want =
            qlinearMatMulByHand(6, k, n, a, 0.02, 100, b, bs, bz, 0.08, 120);
        const std::vector<std::int64_t>& got = out.at("y").ints;
        QCOMPARE(out.at("y").dims, outDims);
        QCOMPARE(got.size(), want.size());
        int exact = 0;
        for (std::size_t i = 0; i < got.size(); ++i) {
            QVERIFY2(std::abs(got[i] - want[i]) <= 1,
                     (std::to_string(i) + ": " + std::to_string(got[i]) + " against " +
                      std::to_string(want[i]))
                         .c_str());
            exact += got[i] == want[i] ? 1 : 0;
        }
        QVERIFY2(exact >= static_cast<int>(got.size()) * 9 / 10, std::to_string(exact).c_str());
    }

    // A MatMul and a Gemm (transB, C) in int8, worked by hand. x = [1, 2] in [0, 2.55]: scale
    // 0.01, zero point 0, quantized exactly to [100, 200]. W's columns: max|W| 1.27 and 0.635,
    // scales 0.01 and 0.005, so W is [[127, -127], [50, 51]] (0.254 / 0.005 = 50.8). The
    // integer products: 100·127 + 200·50 = 22700 and 100·(−127) + 200·51 = −2500, that is 2.27
    // and −0.125. p in [−1.275, 2.55]: scale 0.015, zero point 85; 2.27 / 0.015 = 151.3 → 236,
    // −0.125 / 0.015 = −8.3 → 77; back: 2.265 and −0.12 (fp32: 2.27, −0.127). Gemm reads W
    // transposed and adds C = [0.1, −0.2] in float after its product; q's range [−1.175, 2.35]
    // less C's gives the product the same range, so q = [2.365, −0.32]. (Inputs over 255
    // levels, as on a CPU with VNNI; this CPU may compute them by the definition.)
    void int8ProductsByHand() {
        const Graph g = productsFixture();
        const ActivationRanges ranges{
            {"x", {0.0, 2.55}}, {"p", {-1.275, 2.55}}, {"q", {-1.175, 2.35}}};
        const LoweredGraph lowered = lowerGraph(g, lowerAll(g, Precision::Int8), &ranges, 255);
        QVERIFY(lowered.calibrated);
        QCOMPARE(lowered.variants, (std::vector<Variant>{Precision::Int8, Precision::Int8}));
        HostTensor x;
        x.dtype = DType::Float32;
        x.dims = {1, 2};
        x.values = {1.0, 2.0};
        const NamedTensors out = executeGraph(lowered.graph, {{"x", x}});
        const std::vector<double> p{2.265, -0.12};
        const std::vector<double> q{2.365, -0.32};
        for (std::size_t i = 0; i < 2; ++i) {
            QVERIFY2(std::abs(out.at("p").values[i] - p[i]) < 1e-5,
                     std::to_string(out.at("p").values[i]).c_str());
            QVERIFY2(std::abs(out.at("q").values[i] - q[i]) < 1e-5,
                     std::to_string(out.at("q").values[i]).c_str());
        }
    }

    // A sensitivity table's deviations depend on int8's input levels: one measured with 7-bit
    // inputs is stored apart, and the search takes only tables of this CPU's levels.
    void sevenBitSensitivityTablesAreKeptApart() {
        QCOMPARE(sensitivityInputsKey("random:1:4", "int8", 127), std::string("random:1:4:u7"));
        QCOMPARE(sensitivityInputsKey("random:1:4", "int8", 255), std::string("random:1:4"));
        QCOMPARE(sensitivityInputsKey("files:ab", "bf16", 127), std::string("files:ab"));
        QVERIFY(sensitivityKeyFitsLevels("random:1:4:indices:u7", "int8", 127));
        QVERIFY(!sensitivityKeyFitsLevels("random:1:4:indices", "int8", 127));
        QVERIFY(sensitivityKeyFitsLevels("random:1:4", "int8", 255));
        QVERIFY(!sensitivityKeyFitsLevels("random:1:4:u7", "int8", 255));
        QVERIFY(sensitivityKeyFitsLevels("random:1:4", "bf16", 127));
        QCOMPARE(int8InputLevels(), cpuMultipliesUint8Exactly() ? 255 : 127);
    }

    void theLoweredProductsAreSpelledInQuantizedOperators() {
        const Graph g = productsFixture();
        const ActivationRanges ranges{
            {"x", {0.0, 2.55}}, {"p", {-1.275, 2.55}}, {"q", {-1.175, 2.35}}};
        const LoweredGraph lowered = lowerGraph(g, lowerAll(g, Precision::Int8), &ranges, 255);
        const Graph& l = lowered.graph;
        const auto ops = [&](NodeId original) {
            QStringList names;
            for (const NodeId n : lowered.parts[static_cast<std::size_t>(original)]) {
                names << QString::fromStdString(l.nodes[static_cast<std::size_t>(n)].opType);
            }
            return names.join(QLatin1Char(' '));
        };
        const NodeId matmul = nodeOfType(g, "MatMul");
        const NodeId gemm = nodeOfType(g, "Gemm");
        QCOMPARE(ops(matmul), QStringLiteral("QLinearMatMul QuantizeLinear DequantizeLinear"));
        QCOMPARE(ops(gemm), QStringLiteral("QLinearMatMul QuantizeLinear DequantizeLinear Add"));
        const auto tensor = [&](TensorId t) -> const Tensor& {
            return l.tensors[static_cast<std::size_t>(t)];
        };
        for (const NodeId n : {matmul, gemm}) {
            const auto ins = l.nodeInputs.row(lowered.parts[static_cast<std::size_t>(n)][0]);
            QCOMPARE(ins.size(), std::size_t{8});
            QCOMPARE(tensor(ins[0]).dtype, DType::UInt8);
            QCOMPARE(tensor(ins[3]).dtype, DType::Int8); // B as [K, N], Gemm's transposed
            QCOMPARE(tensor(ins[3]).dims, (std::vector<std::int64_t>{2, 2}));
            QCOMPARE(tensor(ins[4]).dims, std::vector<std::int64_t>{2}); // per column
            QCOMPARE(tensor(ins[5]).value->ints, (std::vector<std::int64_t>{0, 0}));
            QCOMPARE(tensor(ins[2]).value->ints.front(), std::int64_t{0});
            // The product's range [−1.275, 2.55] (Gemm: q's less C's): 0.015 and 85.
            QVERIFY(std::abs(tensor(ins[6]).value->reals.front() - 0.015) < 1e-9);
            QCOMPARE(tensor(ins[7]).value->ints.front(), std::int64_t{85});
        }
        // The weights' scales, quantization and Gemm's transposition: Constant nodes, evaluated
        // once when a program is prepared.
        QStringList constants;
        for (const Node& n : l.nodes) {
            if (n.kind == NodeKind::Constant) {
                constants << QString::fromStdString(n.opType);
            }
        }
        QCOMPARE(constants.join(QLatin1Char(' ')),
                 QStringLiteral("Abs ReduceMax Max Div QuantizeLinear "
                                "Abs ReduceMax Max Div QuantizeLinear Transpose"));
        QCOMPARE(tensor(l.outputs[1]).name, std::string("q"));
        QCOMPARE(tensor(l.outputs[1]).dtype, DType::Float32);
        // A Gemm without transB reads B per column as a MatMul does: no Transpose.
        const Graph plain = productsFixture("transB = 0");
        const LoweredGraph plainLowered =
            lowerGraph(plain, lowerAll(plain, Precision::Int8), &ranges);
        for (const Node& n : plainLowered.graph.nodes) {
            QVERIFY(n.opType != "Transpose");
        }
    }

    // A MatMul on a 3-D activation and a Gemm (transB, C) in int8 on calibrated ranges: within
    // quantization error of fp32. In a fused graph the fused products stay fp32.
    void theInt8ProductsComputeTheModelWithinQuantizationError() {
        using precision_fixture::values;
        const Graph g = onnxFixture("(float[2,4,16] x, float[4,16] z) => (float[2,4,8] p, "
                                    "float[4,8] q) <float[16,8] w = {" +
                                    values(128, 0.5) + "}, float[8,16] wt = {" + values(128, 0.3) +
                                    "}, float[8] c = {" + values(8) +
                                    "}> {\n"
                                    "  p = MatMul (x, w)\n"
                                    "  q = Gemm <transB = 1> (z, wt, c)\n"
                                    "}");
        const CalibrationInputs calibration = randomCalibrationInputs(g, 4, 1);
        const ActivationRanges ranges =
            measureActivationRanges(g, int8RangeTensors(g), calibration, ExecutionDevice{});
        QCOMPARE(ranges.size(), std::size_t{4});
        const LoweredGraph lowered = lowerGraph(g, lowerAll(g, Precision::Int8), &ranges);
        const CalibrationInputs other = randomCalibrationInputs(g, 3, 2);
        const OutputDeviation d =
            compareOutputs(runOnSets(g, other, ExecutionDevice{}),
                           runOnSets(lowered.graph, other, ExecutionDevice{}));
        qInfo("MatMul and Gemm in int8: relative L2 %.3f %%, cosine %.6f", d.relativeL2Pct,
              d.minCosine);
        QVERIFY2(d.relativeL2Pct > 0.0 && d.relativeL2Pct < 5.0,
                 std::to_string(d.relativeL2Pct).c_str());
        QVERIFY(d.minCosine > 0.99);
        const PairedVariants paired = appendLoweredNodes(g, Precision::Int8, &ranges);
        QCOMPARE(compareOutputs(runOnSets(g, other, ExecutionDevice{}),
                                runOnSets(paired.paired.graph, other, ExecutionDevice{}))
                     .relativeL2Pct,
                 0.0);
        // The precision fixture fused (Conv+Relu, MatMul+Add): nothing left for int8.
        const Graph f = fixture();
        const FusedGraph fused = fuseGroups(f, findFusionGroups(f));
        const std::vector<Variant> all = lowerAll(fused.graph, Precision::Int8);
        QCOMPARE(std::count(all.begin(), all.end(), Precision::Int8), std::ptrdiff_t{0});
        const NodeId fusedMatMul = nodeOfType(fused.graph, "FusedMatMul");
        QVERIFY(fusedMatMul != kNone);
        QVERIFY(!lowerable(fused.graph, fusedMatMul, Precision::Int8));
    }

    void theLoweredConvIsSpelledInQuantizedOperators() {
        const Graph g = fixture();
        std::vector<Variant> precisions(g.nodes.size(), Precision::Fp32);
        const NodeId conv = nodeOfType(g, "Conv");
        precisions[static_cast<std::size_t>(conv)] = Precision::Int8;
        const ActivationRanges ranges{{"x", {-1.0, 1.0}}, {"v", {-2.0, 3.0}}};
        const LoweredGraph lowered = lowerGraph(g, precisions, &ranges, 255);
        QVERIFY(lowered.calibrated);
        const Graph& l = lowered.graph;
        const auto& parts = lowered.parts[static_cast<std::size_t>(conv)];
        QCOMPARE(parts.size(), std::size_t{3});
        const auto op = [&](NodeId n) { return l.nodes[static_cast<std::size_t>(n)].opType; };
        QCOMPARE(op(parts[0]), std::string("QLinearConv"));
        QCOMPARE(op(parts[1]), std::string("QuantizeLinear"));
        QCOMPARE(op(parts[2]), std::string("DequantizeLinear"));
        const auto ins = l.nodeInputs.row(parts[0]);
        QCOMPARE(ins.size(), std::size_t{9});
        const auto tensor = [&](TensorId t) -> const Tensor& {
            return l.tensors[static_cast<std::size_t>(t)];
        };
        QCOMPARE(tensor(ins[0]).dtype, DType::UInt8);
        QCOMPARE(tensor(ins[3]).dtype, DType::Int8);  // the weights, quantized once
        QCOMPARE(tensor(ins[8]).dtype, DType::Int32); // the bias
        // x in [-1, 1]: scale 2/255, zero point 127.5 rounded to even, 128. v in [-2, 3]: 5/255
        // and 102.
        QCOMPARE(tensor(ins[1]).value->reals.front(), 2.0 / 255.0);
        QCOMPARE(tensor(ins[2]).value->ints.front(), std::int64_t{128});
        QCOMPARE(tensor(ins[6]).value->reals.front(), 5.0 / 255.0);
        QCOMPARE(tensor(ins[7]).value->ints.front(), std::int64_t{102});
        {
            // The input in 7 bits (a CPU without VNNI): x over 127 steps, scale 2/127 and zero
            // point 63.5 rounded to even, 64; the output keeps its 255 steps.
            const LoweredGraph seven = lowerGraph(g, precisions, &ranges, 127);
            const auto sevenIns =
                seven.graph.nodeInputs.row(seven.parts[static_cast<std::size_t>(conv)][0]);
            const auto value = [&](int k) -> const ConstantTensor& {
                return *seven.graph.tensors[static_cast<std::size_t>(sevenIns[k])].value;
            };
            QCOMPARE(value(1).reals.front(), 2.0 / 127.0);
            QCOMPARE(value(2).ints.front(), std::int64_t{64});
            QCOMPARE(value(6).reals.front(), 5.0 / 255.0);
            QCOMPARE(value(7).ints.front(), std::int64_t{102});
            // A value past the calibrated range is clipped to 127 after its QuantizeLinear
            // (which saturates at 255), so that the engine always multiplies 7-bit inputs.
            const auto& sevenParts = seven.parts[static_cast<std::size_t>(conv)];
            QStringList sevenOps;
            for (const NodeId n : sevenParts) {
                sevenOps << QString::fromStdString(
                    seven.graph.nodes[static_cast<std::size_t>(n)].opType);
            }
            QCOMPARE(sevenOps.join(QLatin1Char(' ')),
                     QStringLiteral("QLinearConv QuantizeLinear Clip DequantizeLinear"));
            const auto clipIns = seven.graph.nodeInputs.row(sevenParts[2]);
            QCOMPARE(sevenIns[0], seven.graph.nodeOutputs.row(sevenParts[2])[0]);
            QCOMPARE(seven.graph.tensors[static_cast<std::size_t>(clipIns[2])].value->ints,
                     std::vector<std::int64_t>{127});
            // x = 5 (calibrated to [-1, 1]) quantizes to 381.5, saturated to 255, then clipped
            // to 127: the same input as x = 1 (127.5, rounded to even 128, clipped to 127).
            const Tensor& input = g.tensors[static_cast<std::size_t>(g.inputs[0])];
            QCOMPARE(input.name, std::string("x"));
            QCOMPARE(g.inputs.size(), std::size_t{1});
            const auto constantInput = [&](double v) {
                HostTensor x;
                x.dtype = DType::Float32;
                x.dims = input.dims;
                x.values.assign(static_cast<std::size_t>(input.elementCount()), v);
                return NamedTensors{{"x", x}};
            };
            QCOMPARE(executeGraph(seven.graph, constantInput(5.0)).at("y").values,
                     executeGraph(seven.graph, constantInput(1.0)).at("y").values);
            QVERIFY_THROWS_EXCEPTION(InputError, lowerGraph(g, precisions, &ranges, 200));
        }
        // The weight's scales and the bias are computed when a program is prepared: Constant
        // nodes, no cost per run.
        QStringList constants;
        for (const Node& n : l.nodes) {
            if (n.kind == NodeKind::Constant) {
                constants << QString::fromStdString(n.opType);
            }
        }
        QCOMPARE(constants.join(QLatin1Char(' ')),
                 QStringLiteral("Abs ReduceMax Max Div QuantizeLinear Mul Div Round Cast"));
        QCOMPARE(tensor(l.outputs[0]).name, std::string("y"));
        QCOMPARE(tensor(l.outputs[0]).dtype, DType::Float32);
        // Without ranges the structure is the same (enough to cost it), but not calibrated.
        const LoweredGraph uncalibrated = lowerGraph(g, precisions, nullptr, 255);
        QVERIFY(!uncalibrated.calibrated);
        QCOMPARE(uncalibrated.graph.nodes.size(), l.nodes.size());
        QCOMPARE(uncalibrated.graph.signatures, l.signatures);
    }

    void theInt8GraphComputesTheModelWithinQuantizationError() {
        const Graph g = fixture();
        const CalibrationInputs calibration = randomCalibrationInputs(g, 4, 1);
        const ActivationRanges ranges =
            measureActivationRanges(g, int8RangeTensors(g), calibration, ExecutionDevice{});
        QCOMPARE(ranges.size(), std::size_t{4}); // the Conv's x and v, the MatMul's f and p
        QVERIFY(ranges.at("x").lo >= -1.0 && ranges.at("x").hi <= 1.0); // the inputs' range
        QVERIFY(ranges.at("v").lo < ranges.at("v").hi);
        const LoweredGraph lowered = lowerGraph(g, lowerAll(g, Precision::Int8), &ranges);
        const CalibrationInputs other = randomCalibrationInputs(g, 3, 2);
        const OutputDeviation d =
            compareOutputs(runOnSets(g, other, ExecutionDevice{}),
                           runOnSets(lowered.graph, other, ExecutionDevice{}));
        qInfo("fixture Conv and MatMul in int8: relative L2 %.3f %%, cosine %.6f", d.relativeL2Pct,
              d.minCosine);
        QVERIFY2(d.relativeL2Pct > 0.0 && d.relativeL2Pct < 10.0,
                 std::to_string(d.relativeL2Pct).c_str());
        QVERIFY(d.minCosine > 0.99);
        // The paired graph (what profiling runs) keeps the model's outputs exactly.
        const PairedVariants paired = appendLoweredNodes(g, Precision::Int8, &ranges);
        const OutputDeviation same =
            compareOutputs(runOnSets(g, other, ExecutionDevice{}),
                           runOnSets(paired.paired.graph, other, ExecutionDevice{}));
        QCOMPARE(same.relativeL2Pct, 0.0);
        // Sensitivities need the ranges.
        QVERIFY_THROWS_EXCEPTION(
            InputError, measureSensitivity(g, Precision::Int8, calibration, ExecutionDevice{}));
        const std::vector<SensitivityRecord> rows = measureSensitivity(
            g, Precision::Int8, calibration, ExecutionDevice{}, nullptr, &ranges);
        QCOMPARE(rows.size(), std::size_t{2});
        for (const SensitivityRecord& row : rows) {
            QCOMPARE(row.precision, std::string("int8"));
            QVERIFY(row.deviationPct > 0.0);
        }
    }

    // Validation of a plan in int8 reads the ranges from the library; without them it says
    // which command measures them. Ranges are stored per model and inputs, refused when bad.
    void aPlanInInt8TakesItsRangesFromTheLibrary() {
        const Graph g = fixture();
        QTemporaryDir dir;
        SampleLibrary library =
            SampleLibrary::open(dir.filePath(QStringLiteral("s.db")).toStdString());
        PlanToValidate plan = precision_fixture::planOnCpu0(g, Precision::Int8);
        const ValidationOptions options = precision_fixture::quickValidation();
        try {
            validatePlan(g, plan, library, options);
            QFAIL("validated without activation ranges");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("--variants int8") != std::string::npos, e.what());
        }
        const CalibrationInputs calibration = randomCalibrationInputs(g, 4, 1);
        const ActivationRanges ranges =
            measureActivationRanges(g, int8RangeTensors(g), calibration, ExecutionDevice{});
        std::vector<ActivationRangeRecord> rows =
            activationRangeRecords(g, ranges, calibration.key);
        QVERIFY_THROWS_EXCEPTION(InputError, library.addActivationRanges(rows)); // no model yet
        library.upsertModel(ModelRecord{g.fingerprint, "fixture", "", 5, ""});
        ActivationRangeRecord bad = rows[0];
        bad.lo = 2.0;
        bad.hi = 1.0;
        QVERIFY_THROWS_EXCEPTION(InputError, library.addActivationRanges({&bad, 1}));
        library.addActivationRanges(rows);
        library.addActivationRanges(rows); // replaces, adds nothing
        QCOMPARE(library.activationRangeInputs(g.fingerprint),
                 std::vector<std::string>{calibration.key});
        QCOMPARE(
            activationRangesOf(library.activationRanges(g.fingerprint, calibration.key)).at("v").hi,
            ranges.at("v").hi);
        const PlanValidation report = validatePlan(g, plan, library, options);
        QVERIFY(report.accuracy.has_value());
        QVERIFY2(report.accuracy->deviationPct > 0.0 && report.accuracy->deviationPct < 10.0,
                 std::to_string(report.accuracy->deviationPct).c_str());
        bool conv = false;
        for (const ValidatedNode& n : report.nodes) {
            conv = conv || (n.node == nodeOfType(g, "Conv") && n.variant == Precision::Int8);
        }
        QVERIFY(conv);
    }

    // From the CLI: profile measures int8 beside bf16 (ranges first), and a search offers both.
    void profileAndSearchOfferInt8() {
        const QString model = testModelPath(QStringLiteral("tiny_cnn"));
        if (!QFile::exists(model)) {
            QSKIP("tiny_cnn.onnx not exported (tools/export_models.py)");
        }
        QTemporaryDir dir;
        const QString db = dir.path() + QStringLiteral("/s.db");
        const CliRun run = runParetune(
            {QStringLiteral("profile"), model, QStringLiteral("--device"), QStringLiteral("cpu:0"),
             QStringLiteral("--db"), db, QStringLiteral("--repeats"), QStringLiteral("2"),
             QStringLiteral("--variants"), QStringLiteral("bf16,int8"), QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const nlohmann::json doc = nlohmann::json::parse(run.out.toStdString());
        int int8 = 0;
        for (const nlohmann::json& v : doc["variants"]) {
            QVERIFY2(v["status"] == "ok", v.dump().c_str());
            int8 += v["precision"] == "int8" ? 1 : 0;
        }
        QVERIFY(int8 >= 1);
        const Graph g = importOnnxFile(model.toStdString()).graph;
        {
            const SampleLibrary library = SampleLibrary::open(db.toStdString());
            const std::string key = randomInputsKey(1, 4);
            QCOMPARE(library.activationRanges(g.fingerprint, key).size(),
                     int8RangeTensors(g).size());
            // Stored under this CPU's input levels (":u7" without VNNI).
            QCOMPARE(library.sensitivities(g.fingerprint, "int8", sensitivityInputsKey(key, "int8"))
                         .size(),
                     static_cast<std::size_t>(int8));
        }
        const QString plans = dir.path() + QStringLiteral("/plans.json");
        const CliRun search = runParetune(
            {QStringLiteral("search"), model, QStringLiteral("--devices"), QStringLiteral("cpu:0"),
             QStringLiteral("--catalog"), QStringLiteral("cpu_cores"), QStringLiteral("--db"), db,
             QStringLiteral("--variants"), QStringLiteral("bf16,int8"),
             QStringLiteral("--objectives"), QStringLiteral("latency,accuracy"),
             QStringLiteral("--population"), QStringLiteral("16"), QStringLiteral("--generations"),
             QStringLiteral("5"), QStringLiteral("--out"), plans, QStringLiteral("--json")});
        QVERIFY2(search.exitCode == 0, search.err.constData());
        const nlohmann::json front = nlohmann::json::parse(search.out.toStdString());
        QCOMPARE(front["variants"], nlohmann::json::parse(R"(["bf16", "int8"])"));
        bool baseline = false;
        for (const nlohmann::json& p : front["plans"]) {
            baseline = baseline || p["baseline"] == "all:cpu:0:int8";
        }
        QVERIFY2(baseline, search.out.constData());
        // int8 on a GPU is refused by name.
        const CliRun refused = runParetune(
            {QStringLiteral("profile"), model, QStringLiteral("--device"), QStringLiteral("cuda:0"),
             QStringLiteral("--db"), db, QStringLiteral("--variants"), QStringLiteral("int8")});
        QCOMPARE(refused.exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TestInt8)
#include "tst_int8.moc"
