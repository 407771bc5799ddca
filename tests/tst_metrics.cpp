// SPDX-License-Identifier: GPL-3.0-or-later
// FLOPs and bytes per node, checked against hand-computed figures.
#include "graph/onnx_importer.h"

#include <QtTest>

using namespace paretune;

class TestMetrics : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void perNode_data();
    void perNode();
    void initializerBytesCountAsParameters();
    void costFreeNodesHaveNoMetrics();
};

void TestMetrics::perNode_data() {
    QTest::addColumn<QString>("graph");
    QTest::addColumn<double>("flops");
    QTest::addColumn<qint64>("bytesRead");
    QTest::addColumn<qint64>("bytesWritten");

    // Conv 3->4, 3x3, pad 1 on 8x8: out 4*8*8 = 256 elements, 27 MACs each, + bias.
    QTest::newRow("conv+bias")
        << QStringLiteral("(float[1,3,8,8] x, float[4,3,3,3] w, float[4] b) => (float[1,4,8,8] y) "
                          "{ y = Conv<pads = [1,1,1,1]>(x, w, b) }")
        << 2.0 * 256 * 27 + 256 << qint64(4 * (192 + 108 + 4)) << qint64(4 * 256);
    QTest::newRow("depthwise conv")
        << QStringLiteral("(float[1,4,8,8] x, float[4,1,3,3] w) => (float[1,4,8,8] y) "
                          "{ y = Conv<group = 4, pads = [1,1,1,1]>(x, w) }")
        << 2.0 * 256 * 9 << qint64(4 * (256 + 36)) << qint64(4 * 256);
    QTest::newRow("strided conv")
        << QStringLiteral("(float[1,1,8,8] x, float[2,1,2,2] w) => (float[1,2,4,4] y) "
                          "{ y = Conv<strides = [2,2]>(x, w) }")
        << 2.0 * 32 * 4 << qint64(4 * (64 + 8)) << qint64(4 * 32);
    QTest::newRow("gemm+bias")
        << QStringLiteral(
               "(float[2,8] a, float[8,5] b, float[5] c) => (float[2,5] y) { y = Gemm(a, b, c) }")
        << 2.0 * 2 * 5 * 8 + 10 << qint64(4 * (16 + 40 + 5)) << qint64(40);
    QTest::newRow("gemm transA")
        << QStringLiteral(
               "(float[8,2] a, float[8,5] b) => (float[2,5] y) { y = Gemm<transA = 1>(a, b) }")
        << 2.0 * 2 * 5 * 8 << qint64(4 * (16 + 40)) << qint64(40);
    QTest::newRow("batched matmul")
        << QStringLiteral("(float[3,4,8] a, float[8,5] b) => (float[3,4,5] y) { y = MatMul(a, b) }")
        << 2.0 * 60 * 8 << qint64(4 * (96 + 40)) << qint64(4 * 60);
    QTest::newRow("maxpool 2x2") << QStringLiteral(
                                        "(float[1,2,4,4] x) => (float[1,2,2,2] y) "
                                        "{ y = MaxPool<kernel_shape = [2,2], strides = [2,2]>(x) }")
                                 << 8.0 * 4 << qint64(128) << qint64(32);
    QTest::newRow("global average pool")
        << QStringLiteral("(float[1,2,4,4] x) => (float[1,2,1,1] y) { y = GlobalAveragePool(x) }")
        << 32.0 << qint64(128) << qint64(8);
    QTest::newRow("relu") << QStringLiteral("(float[1,10] x) => (float[1,10] y) { y = Relu(x) }")
                          << 10.0 << qint64(40) << qint64(40);
    QTest::newRow("softmax") << QStringLiteral(
                                    "(float[2,5] x) => (float[2,5] y) { y = Softmax<axis = 1>(x) }")
                             << 30.0 << qint64(40) << qint64(40);
    QTest::newRow("broadcast add")
        << QStringLiteral("(float[2,3] x, float[3] b) => (float[2,3] y) { y = Add(x, b) }") << 6.0
        << qint64(36) << qint64(24);
    QTest::newRow("transpose moves bytes only")
        << QStringLiteral(
               "(float[2,3,4] x) => (float[4,3,2] y) { y = Transpose<perm = [2,1,0]>(x) }")
        << 0.0 << qint64(96) << qint64(96);
    QTest::newRow("einsum batched matmul")
        << QStringLiteral("(float[2,3,4] a, float[2,4,5] b) => (float[2,3,5] y) { y = "
                          "Einsum<equation = \"bij,bjk->bik\">(a, b) }")
        << 2.0 * 2 * 3 * 4 * 5 << qint64(4 * (24 + 40)) << qint64(4 * 30);
    QTest::newRow("int64 gather")
        << QStringLiteral("(float[10,4] t, int64[3] i) => (float[3,4] y) { y = Gather(t, i) }")
        << 0.0 << qint64(160 + 24) << qint64(48);
}

void TestMetrics::perNode() {
    QFETCH(QString, graph);
    QFETCH(double, flops);
    QFETCH(qint64, bytesRead);
    QFETCH(qint64, bytesWritten);
    const ImportResult r = importOnnxText(
        "<ir_version: 8, opset_import: [\"\" : 13]>\ng " + graph.toStdString(), {}, "fixture");
    QCOMPARE(r.graph.unknownShapeCount(), 0);
    QCOMPARE(r.graph.nodes.size(), std::size_t(1));
    const OpMetrics& m = r.graph.metrics[0];
    QCOMPARE(m.flops, flops);
    QCOMPARE(m.bytesRead, bytesRead);
    QCOMPARE(m.bytesWritten, bytesWritten);
}

void TestMetrics::initializerBytesCountAsParameters() {
    const ImportResult r = importOnnxText(R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[2,3] x, float[3] b = {1.0, 2.0, 3.0}) => (float[2,3] y) { y = Add(x, b) }
)");
    QCOMPARE(r.graph.metrics[0].paramBytes, qint64(12));
    QCOMPARE(r.graph.parameterCount(), qint64(3));
    QCOMPARE(r.graph.inputs.size(), std::size_t(1));
}

void TestMetrics::costFreeNodesHaveNoMetrics() {
    const ImportResult r = importOnnxText(R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[2,3] x) => (float[6] y) {
  s = Constant<value = int64[1] {6}>()
  y = Reshape(x, s)
}
)");
    for (const OpMetrics& m : r.graph.metrics) {
        QCOMPARE(m.flops, 0.0);
        QCOMPARE(m.bytesRead, qint64(0));
        QCOMPARE(m.bytesWritten, qint64(0));
    }
}

QTEST_APPLESS_MAIN(TestMetrics)
#include "tst_metrics.moc"
