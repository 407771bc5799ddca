// SPDX-License-Identifier: GPL-3.0-or-later
// Chains of lowered nodes (issue 17): neighbours in the same bf16, fp16, fp32-nhwc or int8 variant
// pass their tensors on as they are, so a lowered graph converts only where the variant changes
// (graph/precision.h, LoweredChains), and the search's simulator costs a plan as its lowered
// graph runs (CostTable::conversions). The simulator's figures by hand are in tst_variants.
#include "common/input_error.h"
#include "cost/cost_table.h"
#include "cost/measured_costs.h"
#include "device/device.h"
#include "graph/precision.h"
#include "plan/simulator.h"
#include "precision_fixture.h"
#include "profile/graph_executor.h"
#include "profile/output_deviation.h"
#include "profile/precision_support.h"

#include <QtTest>

#include <string>
#include <vector>

using namespace paretune;
using precision_fixture::fixture;
using precision_fixture::nodeOfType;

namespace {

/// Conv → Conv → Relu → Reshape → MatMul: the second Conv reads the first's output directly.
Graph int8Fixture() {
    using precision_fixture::values;
    return onnxFixture("(float[1,3,6,6] x) => (float[1,8] y) <float[4,3,3,3] w = {" +
                       values(108, 0.8) + "}, float[4] b = {" + values(4) +
                       "}, float[4,4,1,1] k = {" + values(16, 0.9) + "}, float[144,8] m = {" +
                       values(1152, 0.2) +
                       "}, int64[2] shape = {1, 144}> {\n"
                       "  v = Conv <pads = [1, 1, 1, 1]> (x, w, b)\n"
                       "  u = Conv (v, k)\n"
                       "  r = Relu (u)\n"
                       "  f = Reshape (r, shape)\n"
                       "  y = MatMul (f, m)\n"
                       "}");
}

/// The compute nodes of a lowered graph of an op type.
int computeNodesOfType(const Graph& l, std::string_view op) {
    int count = 0;
    for (const Node& n : l.nodes) {
        count += n.opType == op && n.kind == NodeKind::Compute ? 1 : 0;
    }
    return count;
}

} // namespace

class TestChains : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void chainsConvertOnlyWherePrecisionChanges() {
        // Conv → Relu in bf16, Reshape in fp32, MatMul → Add in bf16: joined, the Conv casts
        // only x in, the Relu only r out, the MatMul only f in, the Add only y out (a graph
        // output); isolated, each of the four has a Cast in and a Cast out.
        const Graph g = fixture();
        const std::vector<Variant> all = lowerAll(g, Precision::Bf16);
        const LoweredGraph joined = lowerGraph(g, all);
        const LoweredGraph isolated =
            lowerGraph(g, all, nullptr, int8InputLevels(), LoweredChains::Isolated);
        const auto computeCasts = [](const Graph& l) {
            int casts = 0;
            for (const Node& n : l.nodes) {
                casts += n.opType == "Cast" && n.kind == NodeKind::Compute ? 1 : 0;
            }
            return casts;
        };
        QCOMPARE(computeCasts(isolated.graph), 8);
        QCOMPARE(computeCasts(joined.graph), 4);
        const auto castsOf = [&](const LoweredGraph& l, std::string_view op) {
            std::vector<std::string> names;
            for (const auto& c : l.conversions[static_cast<std::size_t>(nodeOfType(g, op))]) {
                names.push_back((c.output ? "out " : "in ") +
                                g.tensors[static_cast<std::size_t>(c.tensor)].name);
            }
            return names;
        };
        using Names = std::vector<std::string>;
        QCOMPARE(castsOf(joined, "Conv"), Names{"in x"});
        QCOMPARE(castsOf(joined, "Relu"), Names{"out r"});
        QCOMPARE(castsOf(joined, "MatMul"), Names{"in f"});
        QCOMPARE(castsOf(joined, "Add"), Names{"out y"});
        QCOMPARE(castsOf(isolated, "Relu"), (Names{"in v", "out r"}));
        // The Relu reads the Conv's bf16 output itself.
        const Graph& l = joined.graph;
        const NodeId relu = joined.parts[static_cast<std::size_t>(nodeOfType(g, "Relu"))][0];
        const NodeId conv = joined.parts[static_cast<std::size_t>(nodeOfType(g, "Conv"))][0];
        QCOMPARE(l.nodeInputs.row(relu)[0], l.nodeOutputs.row(conv)[0]);
        QCOMPARE(l.tensors[static_cast<std::size_t>(l.nodeInputs.row(relu)[0])].dtype,
                 DType::BFloat16);
        // A bf16 value survives float32 and back exactly: both compute the same outputs.
        const NamedTensors input = randomCalibrationInputs(g, 1, 7).sets.front();
        const OutputDeviation d = compareOutputs({executeGraph(isolated.graph, input)},
                                                 {executeGraph(joined.graph, input)});
        QCOMPARE(d.relativeL2Pct, 0.0);
        // An output that a graph output or an fp32 reader needs is cast back.
        std::vector<Variant> convOnly(g.nodes.size(), Precision::Fp32);
        convOnly[static_cast<std::size_t>(nodeOfType(g, "Conv"))] = Precision::Bf16;
        QCOMPARE(computeCasts(lowerGraph(g, convOnly).graph), 2);
    }

    void channelsLastChainsTransposeOnlyAtTheirEnds() {
        // fp32-nhwc: the Conv (2-D) and the Relu (4-D) can take it; the MatMul and the Add (2-D)
        // cannot. Joined, the Conv transposes x to NHWC and the Relu r back to NCHW; isolated,
        // each of the two does both.
        const Graph g = fixture();
        const Variant nhwc{Precision::Fp32, Layout::ChannelsLast};
        QCOMPARE(parseVariant("fp32-nhwc"), nhwc);
        QCOMPARE(variantName(nhwc), std::string("fp32-nhwc"));
        const std::vector<Variant> all = lowerAll(g, nhwc);
        QCOMPARE(all[static_cast<std::size_t>(nodeOfType(g, "Conv"))], nhwc);
        QCOMPARE(all[static_cast<std::size_t>(nodeOfType(g, "Relu"))], nhwc);
        QVERIFY(!lowerable(g, nodeOfType(g, "MatMul"), nhwc));
        QVERIFY(!lowerable(g, nodeOfType(g, "Add"), nhwc));
        const LoweredGraph joined = lowerGraph(g, all);
        const LoweredGraph isolated =
            lowerGraph(g, all, nullptr, int8InputLevels(), LoweredChains::Isolated);
        const auto transposes = [](const Graph& l) {
            std::vector<std::string> names;
            for (const Node& n : l.nodes) {
                if (n.opType == "Transpose") {
                    names.push_back(n.name + " " + n.attribute("perm")->canonical);
                }
            }
            return names;
        };
        using Names = std::vector<std::string>;
        const std::string conv = g.nodes[static_cast<std::size_t>(nodeOfType(g, "Conv"))].name;
        const std::string relu = g.nodes[static_cast<std::size_t>(nodeOfType(g, "Relu"))].name;
        QCOMPARE(transposes(joined.graph),
                 (Names{conv + "/to_nhwc_0 perm=[0,2,3,1]", relu + "/to_nchw_0 perm=[0,3,1,2]"}));
        QCOMPARE(transposes(isolated.graph).size(), std::size_t{4});
        // The Conv runs as NhwcConv on its weights as they are, its output NHWC.
        const Graph& l = joined.graph;
        const NodeId lowered = joined.parts[static_cast<std::size_t>(nodeOfType(g, "Conv"))][0];
        QCOMPARE(l.nodes[static_cast<std::size_t>(lowered)].opType, std::string(kNhwcConvOp));
        QCOMPARE(l.nodes[static_cast<std::size_t>(lowered)].domain, std::string(kNhwcConvDomain));
        QCOMPARE(l.tensors[static_cast<std::size_t>(l.nodeOutputs.row(lowered)[0])].dims,
                 (std::vector<std::int64_t>{1, 6, 6, 4}));
        QCOMPARE(l.nodeInputs.row(lowered)[1], l.findTensor("w"));
        // The same outputs as the model's, up to the kernels' order of summation; joined and
        // isolated alike (a transpose and back is exact).
        const NamedTensors input = randomCalibrationInputs(g, 1, 7).sets.front();
        const NamedTensors reference = executeGraph(g, input);
        QVERIFY(compareOutputs({reference}, {executeGraph(joined.graph, input)}).relativeL2Pct <
                1e-4);
        QCOMPARE(compareOutputs({executeGraph(isolated.graph, input)},
                                {executeGraph(joined.graph, input)})
                     .relativeL2Pct,
                 0.0);
        // A Relu in fp32 after an NHWC Conv: the Conv transposes its output back.
        std::vector<Variant> convOnly(g.nodes.size(), Precision::Fp32);
        convOnly[static_cast<std::size_t>(nodeOfType(g, "Conv"))] = nhwc;
        QCOMPARE(transposes(lowerGraph(g, convOnly).graph).size(), std::size_t{2});
        // Refused where it does not apply, named.
        try {
            std::vector<Variant> matmul(g.nodes.size(), Precision::Fp32);
            matmul[static_cast<std::size_t>(nodeOfType(g, "MatMul"))] = nhwc;
            lowerGraph(g, matmul);
            QFAIL("an NHWC MatMul was lowered");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("cannot run in fp32-nhwc") != std::string::npos,
                     e.what());
        }
        try {
            parseVariants("fp32,bf16-nhwc");
            QFAIL("bf16-nhwc was parsed");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("unknown variant 'bf16-nhwc': channels-last is "
                                                "offered for fp32 only") != std::string::npos,
                     e.what());
        }
    }

    void int8ChainsPassTheirUint8TensorsOn() {
        // Both Convs and the MatMul in int8, inputs over 255 levels: joined, the second Conv
        // reads the first's uint8 output (no DequantizeLinear and QuantizeLinear between them);
        // isolated, each node quantizes its input and dequantizes its output.
        const Graph g = int8Fixture();
        const std::vector<Variant> all = lowerAll(g, Precision::Int8);
        const NodeId first = nodeOfType(g, "Conv");
        const NodeId second = g.tensors[static_cast<std::size_t>(g.findTensor("u"))].producer;
        const NodeId matmul = nodeOfType(g, "MatMul");
        QCOMPARE(all[static_cast<std::size_t>(second)], Variant(Precision::Int8));
        const NamedTensors input = randomCalibrationInputs(g, 1, 7).sets.front();
        const ActivationRanges ranges = measureActivationRanges(
            g, int8RangeTensors(g), randomCalibrationInputs(g, 2, 3), ExecutionDevice{});
        const LoweredGraph joined = lowerGraph(g, all, &ranges, 255);
        const LoweredGraph isolated = lowerGraph(g, all, &ranges, 255, LoweredChains::Isolated);
        QCOMPARE(computeNodesOfType(isolated.graph, "QuantizeLinear"), 3);
        QCOMPARE(computeNodesOfType(isolated.graph, "DequantizeLinear"), 3);
        QCOMPARE(computeNodesOfType(joined.graph, "QuantizeLinear"), 2);
        QCOMPARE(computeNodesOfType(joined.graph, "DequantizeLinear"), 2);
        const Graph& l = joined.graph;
        const NodeId firstConv = joined.parts[static_cast<std::size_t>(first)][0];
        const NodeId secondConv = joined.parts[static_cast<std::size_t>(second)][0];
        QCOMPARE(l.nodes[static_cast<std::size_t>(secondConv)].opType, std::string("QLinearConv"));
        QCOMPARE(l.nodeInputs.row(secondConv)[0], l.nodeOutputs.row(firstConv)[0]);
        QCOMPARE(l.tensors[static_cast<std::size_t>(l.nodeInputs.row(secondConv)[0])].dtype,
                 DType::UInt8);
        // What a chain can spare is listed: v out of the first Conv and into the second; the
        // MatMul's input comes from a Reshape, so its QuantizeLinear is its own.
        const auto listed = [&](const LoweredGraph& lg, NodeId n) {
            std::vector<std::string> names;
            for (const auto& c : lg.conversions[static_cast<std::size_t>(n)]) {
                names.push_back((c.output ? "out " : "in ") +
                                g.tensors[static_cast<std::size_t>(c.tensor)].name + " " +
                                lg.graph.nodes[static_cast<std::size_t>(c.node)].opType);
            }
            return names;
        };
        using Names = std::vector<std::string>;
        QCOMPARE(listed(isolated, first), Names{"out v DequantizeLinear"});
        QCOMPARE(listed(isolated, second),
                 (Names{"in v QuantizeLinear", "out u DequantizeLinear"}));
        QCOMPARE(listed(isolated, matmul), Names{"out y DequantizeLinear"});
        // Dequantized and quantized again at the same scale is the same uint8 value: both
        // compute the same outputs.
        QCOMPARE(compareOutputs({executeGraph(isolated.graph, input)},
                                {executeGraph(joined.graph, input)})
                     .relativeL2Pct,
                 0.0);
        // Over 127 levels every int8 input is quantized again in 7 bits: nothing is joined.
        const LoweredGraph sevenBits = lowerGraph(g, all, &ranges, 127);
        QCOMPARE(computeNodesOfType(sevenBits.graph, "DequantizeLinear"), 3);
        QVERIFY(listed(lowerGraph(g, all, &ranges, 127, LoweredChains::Isolated), second).empty());
        // In memory, v is held in one byte per element while the chain keeps it (where this
        // CPU quantizes inputs over 255 levels: the cost table lowers with its levels).
        const std::vector<CostDevice> cpu{{"cpu:0", "cpu", 1, 1, 1e9}};
        CostTable table(static_cast<std::int32_t>(g.nodes.size()), cpu, 0);
        const auto cost = [](CostTable& t, const Graph& lg) {
            CostCell cell;
            cell.latencyUs = 10.0;
            cell.energyUj = 10.0;
            cell.source = CostSource::Measured;
            for (std::size_t n = 0; n < lg.nodes.size(); ++n) {
                if (lg.nodes[n].kind == NodeKind::Compute) {
                    t.setCell(static_cast<NodeId>(n), 0, cell);
                }
            }
        };
        cost(table, g);
        table.setVariants({Precision::Fp32, Precision::Int8});
        fillVariantCells(table, g, cost);
        Simulator sim(g, table);
        std::vector<std::uint8_t> genome(static_cast<std::size_t>(sim.computeCount()), 0);
        for (const NodeId n : {first, second}) {
            genome[static_cast<std::size_t>(sim.computeIndex(n))] =
                static_cast<std::uint8_t>(sim.column(0, 1));
        }
        const SimulationResult result = sim.simulate(sim.planOf(genome));
        if (int8InputLevels() != 255) { // this CPU's table lists no int8 conversions
            QVERIFY(result.narrowed.empty());
            return;
        }
        QCOMPARE(result.narrowed.size(), std::size_t{1});
        QCOMPARE(result.narrowed.front().first, g.findTensor("v"));
        QCOMPARE(result.narrowed.front().second, std::int64_t{4 * 6 * 6});
    }

    void threadsVariantsRunTheNodeOnItsOwnThreads() {
        // fp32-t1: every compute node, as it is, on one intra-op thread: another signature (its
        // own samples), the same outputs up to the kernels' order of summation. bf16-t1: the
        // bf16 nodes, their Casts on one thread too.
        const Graph g = fixture();
        const Variant t1 = parseVariant("fp32-t1");
        const std::vector<Variant> all = lowerAll(g, t1);
        for (std::size_t n = 0; n < g.nodes.size(); ++n) {
            QCOMPARE(all[n] == t1, g.nodes[n].kind == NodeKind::Compute);
        }
        const LoweredGraph lowered = lowerGraph(g, all);
        QCOMPARE(lowered.graph.nodes.size(), g.nodes.size());
        for (std::size_t n = 0; n < g.nodes.size(); ++n) {
            const NodeId x = lowered.parts[n].front();
            const Node& node = lowered.graph.nodes[static_cast<std::size_t>(x)];
            QCOMPARE(node.opType, g.nodes[n].opType);
            QCOMPARE(node.threads, g.nodes[n].kind == NodeKind::Compute ? 1 : 0);
            QCOMPARE(lowered.graph.signatures[static_cast<std::size_t>(x)] == g.signatures[n],
                     g.nodes[n].kind != NodeKind::Compute);
        }
        const NamedTensors input = randomCalibrationInputs(g, 1, 7).sets.front();
        QVERIFY(compareOutputs({executeGraph(g, input)}, {executeGraph(lowered.graph, input)})
                    .relativeL2Pct < 1e-4);
        const LoweredGraph bf16 = lowerGraph(g, lowerAll(g, parseVariant("bf16-t1")));
        int casts = 0;
        for (const Node& node : bf16.graph.nodes) {
            if (node.opType == "Cast" && node.kind == NodeKind::Compute) {
                QCOMPARE(node.threads, 1);
                ++casts;
            }
        }
        QCOMPARE(casts, 4);
        // Which devices run it: a CPU device of more CPUs than its threads.
        Device cpu;
        cpu.id = "cpu";
        cpu.kind = "cpu";
        cpu.cpus = {0, 1};
        Device core = cpu;
        core.id = "cpu:0";
        core.cpus = {0};
        QCOMPARE(variantRefusal(cpu, t1), std::string());
        QVERIFY(variantRefusal(core, t1).find("runs on 1 CPU") != std::string::npos);
        QVERIFY(variantRefusal(cpu, parseVariant("fp32-t2")).find("runs on 2 CPUs") !=
                std::string::npos);
        Device gpu;
        gpu.id = "cuda:0";
        gpu.kind = "gpu";
        gpu.cudaIndex = 0;
        QVERIFY(variantRefusal(gpu, t1).find("a CPU device's choice") != std::string::npos);
        QCOMPARE(variantRefusal(gpu, Precision::Bf16), std::string());
    }

    void aChainCostsWhatItsLoweredGraphRuns_data() {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<int>("lowerableCount");
        QTest::newRow("bf16") << QStringLiteral("bf16") << 4;
        QTest::newRow("fp32-nhwc") << QStringLiteral("fp32-nhwc") << 2;
        QTest::newRow("int8") << QStringLiteral("int8") << 3; // on int8Fixture
    }

    void aChainCostsWhatItsLoweredGraphRuns() {
        // Every node 10 µs, every conversion (Cast, Transpose, QuantizeLinear, DequantizeLinear)
        // 1 µs: for each choice of the
        // lowerable nodes in the variant, the search's simulator (cells with all their
        // conversions, less those the plan does not run) and the joined lowered graph simulated
        // as it is give the same latency.
        QFETCH(QString, variant);
        QFETCH(int, lowerableCount);
        const Variant lowering = parseVariant(variant.toStdString());
        const Graph g = lowering.precision == Precision::Int8 ? int8Fixture() : fixture();
        const auto cost = [](CostTable& t, const Graph& l) {
            for (std::size_t n = 0; n < l.nodes.size(); ++n) {
                if (l.nodes[n].kind == NodeKind::Compute) {
                    CostCell cell;
                    const std::string& op = l.nodes[n].opType;
                    const bool conversion = op == "Cast" || op == "Transpose" ||
                                            op == "QuantizeLinear" || op == "DequantizeLinear";
                    cell.latencyUs = conversion ? 1.0 : 10.0;
                    cell.energyUj = cell.latencyUs;
                    cell.source = CostSource::Measured;
                    t.setCell(static_cast<NodeId>(n), 0, cell);
                }
            }
        };
        const std::vector<CostDevice> cpu{{"cpu:0", "cpu", 1, 1, 1e9}};
        CostTable table(static_cast<std::int32_t>(g.nodes.size()), cpu, 0);
        cost(table, g);
        table.setVariants({Precision::Fp32, lowering});
        fillVariantCells(table, g, cost);
        Simulator sim(g, table);
        const std::vector<Variant> all = lowerAll(g, lowering);
        std::vector<NodeId> lowerableNodes;
        for (std::size_t n = 0; n < all.size(); ++n) {
            if (all[n] == lowering) {
                lowerableNodes.push_back(static_cast<NodeId>(n));
            }
        }
        QCOMPARE(lowerableNodes.size(), static_cast<std::size_t>(lowerableCount));
        for (unsigned mask = 0; mask < 1u << lowerableNodes.size(); ++mask) {
            std::vector<Variant> precisions(g.nodes.size(), Precision::Fp32);
            std::vector<std::uint8_t> genome(static_cast<std::size_t>(sim.computeCount()), 0);
            for (std::size_t k = 0; k < lowerableNodes.size(); ++k) {
                if ((mask >> k & 1u) != 0) {
                    const NodeId n = lowerableNodes[k];
                    precisions[static_cast<std::size_t>(n)] = lowering;
                    genome[static_cast<std::size_t>(sim.computeIndex(n))] =
                        static_cast<std::uint8_t>(sim.column(0, 1));
                }
            }
            const LoweredGraph lowered = lowerGraph(g, precisions);
            CostTable loweredTable(static_cast<std::int32_t>(lowered.graph.nodes.size()), cpu, 0);
            cost(loweredTable, lowered.graph);
            Simulator runs(lowered.graph, loweredTable);
            const std::vector<std::uint8_t> oneDevice(static_cast<std::size_t>(runs.computeCount()),
                                                      0);
            QCOMPARE(sim.evaluate(genome).latencyUs, runs.evaluate(oneDevice).latencyUs);
            QCOMPARE(sim.evaluate(genome).energyMj, runs.evaluate(oneDevice).energyMj);
        }
    }
};

QTEST_GUILESS_MAIN(TestChains)
#include "tst_chains.moc"
