// SPDX-License-Identifier: GPL-3.0-or-later
// The int8 variant (issue 17): ONNX's quantized operators computed as their definitions say
// (worked by hand), the lowered Conv and its calibrated scales, the activation ranges in the
// library, validation of an int8 plan and the CLI from profile to search. No timing is asserted.
#include "cliprocess.h"
#include "common/input_error.h"
#include "graph/precision.h"
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

namespace {

/// Integers in [lo, hi], spread by a fixed rule.
std::vector<std::int64_t> integers(int n, std::int64_t lo, std::int64_t hi) {
    std::vector<std::int64_t> v;
    for (int i = 0; i < n; ++i) {
        v.push_back(lo + (i * 53 + 11) % (hi - lo + 1));
    }
    return v;
}

std::string text(const std::vector<std::int64_t>& v) {
    std::string t;
    for (std::size_t i = 0; i < v.size(); ++i) {
        t += (i ? ", " : "") + std::to_string(v[i]);
    }
    return t;
}

HostTensor integerTensor(DType type, std::vector<std::int64_t> dims,
                         std::vector<std::int64_t> ints) {
    HostTensor t;
    t.dtype = type;
    t.dims = std::move(dims);
    t.ints = std::move(ints);
    return t;
}

/// QLinearConv over x [1, 2, 4, 4] with w [3, 2, 3, 3], pads 1, by its definition: the integer
/// sum of (x − x_zero) · (w − w_zero) plus the int32 bias, at scale x_scale · w_scale, requantized
/// to y_scale and y_zero (round half to even, saturated to uint8).
std::vector<std::int64_t> qlinearConvByHand(const std::vector<std::int64_t>& x, double xs,
                                            std::int64_t xz, const std::vector<std::int64_t>& w,
                                            const std::vector<double>& ws,
                                            const std::vector<std::int64_t>& wz, double ys,
                                            std::int64_t yz, const std::vector<std::int64_t>& b) {
    std::vector<std::int64_t> y;
    for (int m = 0; m < 3; ++m) {
        for (int i = 0; i < 4; ++i) {
            for (int j = 0; j < 4; ++j) {
                std::int64_t acc = b[static_cast<std::size_t>(m)];
                for (int c = 0; c < 2; ++c) {
                    for (int ki = 0; ki < 3; ++ki) {
                        for (int kj = 0; kj < 3; ++kj) {
                            const int r = i + ki - 1;
                            const int s = j + kj - 1;
                            if (r < 0 || r >= 4 || s < 0 || s >= 4) {
                                continue; // padding holds the zero point: contributes 0
                            }
                            const std::int64_t xv =
                                x[static_cast<std::size_t>((c * 4 + r) * 4 + s)];
                            const std::int64_t wv =
                                w[static_cast<std::size_t>(((m * 2 + c) * 3 + ki) * 3 + kj)];
                            acc += (xv - xz) * (wv - wz[static_cast<std::size_t>(m)]);
                        }
                    }
                }
                const double real = static_cast<double>(acc) * xs * ws[static_cast<std::size_t>(m)];
                const double q = std::nearbyint(real / ys) + static_cast<double>(yz);
                y.push_back(static_cast<std::int64_t>(std::clamp(q, 0.0, 255.0)));
            }
        }
    }
    return y;
}

} // namespace

class TestInt8 : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void int8IsOfferedForConvolutionsOnly() {
        QCOMPARE(parsePrecisions("bf16,int8"),
                 (std::vector<Precision>{Precision::Bf16, Precision::Int8}));
        QCOMPARE(precisionName(Precision::Int8), std::string_view("int8"));
        const Graph g = fixture();
        QVERIFY(lowerable(g, nodeOfType(g, "Conv"), Precision::Int8));
        QVERIFY(!lowerable(g, nodeOfType(g, "MatMul"), Precision::Int8));
        QVERIFY(lowerable(g, nodeOfType(g, "MatMul"), Precision::Bf16));
        QVERIFY(!lowerable(g, nodeOfType(g, "Relu"), Precision::Int8));
        // The ranges int8 needs: the Conv's activation input and its output.
        const std::vector<TensorId> tensors = int8RangeTensors(g);
        QCOMPARE(tensors.size(), std::size_t{2});
        QCOMPARE(g.tensors[static_cast<std::size_t>(tensors[0])].name, std::string("x"));
        QCOMPARE(g.tensors[static_cast<std::size_t>(tensors[1])].name, std::string("v"));
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
    void qlinearConvMatchesItsDefinition_data() {
        QTest::addColumn<QString>("weightZero");
        QTest::newRow("symmetric weights (quantized engine)") << QStringLiteral("0, 0, 0");
        QTest::newRow("a weight zero point (in float)") << QStringLiteral("3, 0, -2");
    }
    void qlinearConvMatchesItsDefinition() {
        QFETCH(QString, weightZero);
        const std::vector<std::int64_t> x = integers(32, 0, 255);
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

    void theLoweredConvIsSpelledInQuantizedOperators() {
        const Graph g = fixture();
        std::vector<Precision> precisions(g.nodes.size(), Precision::Fp32);
        const NodeId conv = nodeOfType(g, "Conv");
        precisions[static_cast<std::size_t>(conv)] = Precision::Int8;
        const ActivationRanges ranges{{"x", {-1.0, 1.0}}, {"v", {-2.0, 3.0}}};
        const LoweredGraph lowered = lowerGraph(g, precisions, &ranges);
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
        const LoweredGraph uncalibrated = lowerGraph(g, precisions);
        QVERIFY(!uncalibrated.calibrated);
        QCOMPARE(uncalibrated.graph.nodes.size(), l.nodes.size());
        QCOMPARE(uncalibrated.graph.signatures, l.signatures);
    }

    void theInt8GraphComputesTheModelWithinQuantizationError() {
        const Graph g = fixture();
        const CalibrationInputs calibration = randomCalibrationInputs(g, 4, 1);
        const ActivationRanges ranges =
            measureActivationRanges(g, int8RangeTensors(g), calibration, ExecutionDevice{});
        QCOMPARE(ranges.size(), std::size_t{2});
        QVERIFY(ranges.at("x").lo >= -1.0 && ranges.at("x").hi <= 1.0); // the inputs' range
        QVERIFY(ranges.at("v").lo < ranges.at("v").hi);
        const LoweredGraph lowered = lowerGraph(g, lowerAll(g, Precision::Int8), &ranges);
        const CalibrationInputs other = randomCalibrationInputs(g, 3, 2);
        const OutputDeviation d =
            compareOutputs(runOnSets(g, other, ExecutionDevice{}),
                           runOnSets(lowered.graph, other, ExecutionDevice{}));
        qInfo("fixture Conv in int8: relative L2 %.3f %%, cosine %.6f", d.relativeL2Pct,
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
        QCOMPARE(rows.size(), std::size_t{1});
        QCOMPARE(rows[0].precision, std::string("int8"));
        QVERIFY(rows[0].deviationPct > 0.0);
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
            conv = conv || (n.node == nodeOfType(g, "Conv") && n.precision == Precision::Int8);
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
            QCOMPARE(library.sensitivities(g.fingerprint, "int8", key).size(),
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
