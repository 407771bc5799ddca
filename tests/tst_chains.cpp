// SPDX-License-Identifier: GPL-3.0-or-later
// Chains of lowered nodes (issue 17): neighbours in the same bf16, fp16 or fp32-nhwc variant pass
// their tensors on as they are, so a lowered graph converts only where the variant changes
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
    }

    void aChainCostsWhatItsLoweredGraphRuns() {
        // Every node 10 µs, every conversion (Cast, Transpose) 1 µs: for each choice of the
        // lowerable nodes in the variant, the search's simulator (cells with all their
        // conversions, less those the plan does not run) and the joined lowered graph simulated
        // as it is give the same latency.
        QFETCH(QString, variant);
        QFETCH(int, lowerableCount);
        const Variant lowering = parseVariant(variant.toStdString());
        const Graph g = fixture();
        const auto cost = [](CostTable& t, const Graph& l) {
            for (std::size_t n = 0; n < l.nodes.size(); ++n) {
                if (l.nodes[n].kind == NodeKind::Compute) {
                    CostCell cell;
                    const bool conversion =
                        l.nodes[n].opType == "Cast" || l.nodes[n].opType == "Transpose";
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
