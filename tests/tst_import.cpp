// Importer behaviour on small graphs written in ONNX's text syntax.
#include "common/input_error.h"
#include "graph/onnx_importer.h"

#include <QtTest>

#include <algorithm>
#include <string>

using namespace paretune;

namespace {

const char* const kHeader = "<ir_version: 8, opset_import: [\"\" : 13]>\n";

ImportResult importText(const std::string& body, const ImportOptions& options = {}) {
    return importOnnxText(std::string(kHeader) + body, options, "fixture");
}

const Tensor& tensorNamed(const Graph& g, const std::string& name) {
    const TensorId id = g.findTensor(name);
    if (id == kNone) {
        throw std::runtime_error("no tensor " + name);
    }
    return g.tensors[static_cast<std::size_t>(id)];
}

std::vector<std::int64_t> dims(std::initializer_list<std::int64_t> list) {
    return list;
}

bool hasDiagnostic(const ImportResult& r, const std::string& code) {
    return std::any_of(r.diagnostics.begin(), r.diagnostics.end(),
                       [&](const Diagnostic& d) { return d.code == code; });
}

} // namespace

class TestImport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void chainBuildsAdjacency();
    void shapeSubgraphIsFolded();
    void foldedSliceBoundsGiveStaticShapes();
    void foldingData();
    void foldingData_data();
    void nodeKinds();
    void emptyNamesBecomeUnique();
    void unsortedNodesAreReordered();
    void dynamicDimensionIsFixedAndReported();
    void inputShapeOverride();
    void inputShapeOverrideForUnknownInputFails();
    void undefinedInputFails();
    void tensorProducedTwiceFails();
    void cycleIsNamed();
    void textSyntaxErrorFails();
    void parseShapeTextAcceptsBothSeparators();
    void parseShapeTextRejectsGarbage();
};

void TestImport::chainBuildsAdjacency() {
    const ImportResult r = importText(R"(
g (float[1,4] x) => (float[1,4] y, float[1,4] z) {
  a = Relu(x)
  y = Sigmoid(a)
  z = Add(a, y)
}
)");
    const Graph& g = r.graph;
    QCOMPARE(g.nodes.size(), std::size_t(3));
    QCOMPARE(g.inputs.size(), std::size_t(1));
    QCOMPARE(g.outputs.size(), std::size_t(2));
    QCOMPARE(g.unknownShapeCount(), 0);
    QCOMPARE(g.topologicalOrder, std::vector<NodeId>({0, 1, 2}));
    // a feeds Sigmoid and Add; Add also consumes y.
    const TensorId a = g.findTensor("a");
    QCOMPARE(g.tensorConsumers.row(a).size(), std::size_t(2));
    QCOMPARE(std::vector<std::int32_t>(g.predecessors.row(2).begin(), g.predecessors.row(2).end()),
             std::vector<std::int32_t>({0, 1}));
    QCOMPARE(std::vector<std::int32_t>(g.successors.row(0).begin(), g.successors.row(0).end()),
             std::vector<std::int32_t>({1, 2}));
    QCOMPARE(g.tensors[static_cast<std::size_t>(a)].producer, NodeId(0));
    QVERIFY(tensorNamed(g, "z").graphOutput);
    QCOMPARE(tensorNamed(g, "z").dims, dims({1, 4}));
}

void TestImport::shapeSubgraphIsFolded() {
    // The pattern exporters emit for x.view(x.size(0), -1, 2).
    const ImportResult r = importText(R"(
g (float[1,6,4] x) => (float[1,12,2] y) {
  s = Shape(x)
  i = Constant<value = int64[1] {0}>()
  b = Gather<axis = 0>(s, i)
  rest = Constant<value = int64[2] {-1, 2}>()
  target = Concat<axis = 0>(b, rest)
  y = Reshape(x, target)
}
)");
    const Graph& g = r.graph;
    QCOMPARE(g.unknownShapeCount(), 0);
    QCOMPARE(tensorNamed(g, "y").dims, dims({1, 12, 2}));
    const Tensor& target = tensorNamed(g, "target");
    QVERIFY(target.value);
    QCOMPARE(target.value->ints, dims({1, -1, 2}));
    QCOMPARE(g.nodes[static_cast<std::size_t>(g.findNode("Shape_0"))].kind,
             NodeKind::ShapeComputation);
    QCOMPARE(g.nodes[static_cast<std::size_t>(g.findNode("Reshape_5"))].kind,
             NodeKind::PassThrough);
    QCOMPARE(g.computeNodeCount(), 0);
}

void TestImport::foldedSliceBoundsGiveStaticShapes() {
    // Attention-style: the Slice end comes from the sequence length computed at run time.
    const ImportResult r = importText(R"(
g (float[1,10,8] x, float[1,64,8] table) => (float[1,10,8] y) {
  s = Shape(x)
  one = Constant<value = int64[1] {1}>()
  two = Constant<value = int64[1] {2}>()
  zero = Constant<value = int64[1] {0}>()
  len = Slice(s, one, two)
  pos = Slice(table, zero, len, one)
  y = Add(x, pos)
}
)");
    QCOMPARE(r.graph.unknownShapeCount(), 0);
    QCOMPARE(tensorNamed(r.graph, "pos").dims, dims({1, 10, 8}));
    QCOMPARE(r.graph.computeNodeCount(), 2); // the table Slice and the Add
}

void TestImport::foldingData_data() {
    QTest::addColumn<QString>("body");
    QTest::addColumn<QList<qint64>>("expected");
    QTest::newRow("range")
        << QStringLiteral("a = Constant<value = int64 {2}>()\n b = Constant<value = int64 {11}>()\n"
                          " c = Constant<value = int64 {3}>()\n out = Range(a, b, c)")
        << QList<qint64>{2, 5, 8};
    QTest::newRow("div truncates, mod follows divisor")
        << QStringLiteral("a = Constant<value = int64[2] {7, -7}>()\n b = Constant<value = "
                          "int64[2] {2, 2}>()\n"
                          " d = Div(a, b)\n m = Mod(a, b)\n out = Concat<axis = 0>(d, m)")
        << QList<qint64>{3, -3, 1, 1};
    QTest::newRow("unsqueeze+concat+squeeze")
        << QStringLiteral("a = Constant<value = int64 {4}>()\n u = Unsqueeze(a, z)\n"
                          " z = Constant<value = int64[1] {0}>()\n out = Concat<axis = 0>(u, u)")
        << QList<qint64>{4, 4};
    QTest::newRow("where+equal")
        << QStringLiteral(
               "a = Constant<value = int64[3] {1, -1, 3}>()\n m = Constant<value = int64[1] "
               "{-1}>()\n"
               " e = Equal(a, m)\n one = Constant<value = int64[1] {1}>()\n out = Where(e, one, a)")
        << QList<qint64>{1, 1, 3};
    QTest::newRow("constantofshape+cast")
        << QStringLiteral("s = Constant<value = int64[1] {3}>()\n"
                          " f = ConstantOfShape<value = float[1] {2.5}>(s)\n out = Cast<to = 7>(f)")
        << QList<qint64>{2, 2, 2};
    QTest::newRow("reduceprod keepdims 0")
        << QStringLiteral("a = Constant<value = int64[2,2] {1, 2, 3, 4}>()\n out1 = "
                          "ReduceProd<axes = [1], keepdims = 0>(a)\n"
                          " out = Identity(out1)")
        << QList<qint64>{2, 12};
    QTest::newRow("expand+transpose")
        << QStringLiteral("a = Constant<value = int64[2,1] {1, 2}>()\n s = Constant<value = "
                          "int64[2] {2, 3}>()\n"
                          " e = Expand(a, s)\n out = Transpose<perm = [1, 0]>(e)")
        << QList<qint64>{1, 2, 1, 2, 1, 2};
    QTest::newRow("negative-step slice")
        << QStringLiteral("a = Constant<value = int64[5] {0, 1, 2, 3, 4}>()\n st = Constant<value "
                          "= int64[1] {-1}>()\n"
                          " en = Constant<value = int64[1] {-9223372036854775807}>()\n ax = "
                          "Constant<value = int64[1] {0}>()\n"
                          " out = Slice(a, st, en, ax, st)")
        << QList<qint64>{4, 3, 2, 1, 0};
}

void TestImport::foldingData() {
    QFETCH(QString, body);
    QFETCH(QList<qint64>, expected);
    // Nodes may come in any order in the fixture; the importer sorts them.
    const ImportResult r = importText("g (float[1] x) => (float[1] y) {\n " + body.toStdString() +
                                      "\n y = Identity(x)\n}\n");
    const Tensor& out = tensorNamed(r.graph, "out");
    QVERIFY2(out.value, "output was not folded");
    const std::vector<std::int64_t> expectedValues(expected.begin(), expected.end());
    QCOMPARE(out.value->ints, expectedValues);
}

void TestImport::nodeKinds() {
    const ImportResult r = importText(R"(
g (float[1,4] x) => (float[4] y) {
  c = Constant<value = float[1] {2.0}>()
  a = Mul(x, c)
  i = Identity(a)
  f = Flatten<axis = 0>(i)
  d = Dropout(f)
  y = Squeeze(d, zero)
  zero = Constant<value = int64[1] {0}>()
}
)");
    const Graph& g = r.graph;
    QCOMPARE(g.nodes[static_cast<std::size_t>(g.findNode("Constant_0"))].kind, NodeKind::Constant);
    QCOMPARE(g.nodes[static_cast<std::size_t>(g.findNode("Mul_1"))].kind, NodeKind::Compute);
    for (const char* name : {"Identity_2", "Flatten_3", "Dropout_4", "Squeeze_6"}) {
        QCOMPARE(g.nodes[static_cast<std::size_t>(g.findNode(name))].kind, NodeKind::PassThrough);
    }
    QCOMPARE(tensorNamed(g, "y").dims, dims({4}));
    QCOMPARE(g.computeNodeCount(), 1);
}

void TestImport::emptyNamesBecomeUnique() {
    const ImportResult r = importText(R"(
g (float[2] x) => (float[2] z) {
  a = Relu(x)
  b = Relu(a)
  z = Relu(b)
}
)");
    // The text syntax leaves node names empty: each gets op type + position.
    QCOMPARE(r.graph.nodes[0].name, std::string("Relu_0"));
    QCOMPARE(r.graph.nodes[1].name, std::string("Relu_1"));
    QCOMPARE(r.graph.nodes[2].name, std::string("Relu_2"));
}

void TestImport::unsortedNodesAreReordered() {
    const ImportResult r = importText(R"(
g (float[2] x) => (float[2] z) {
  z = Relu(b)
  b = Sigmoid(a)
  a = Abs(x)
}
)");
    QVERIFY(hasDiagnostic(r, "unsorted-nodes"));
    QCOMPARE(r.graph.nodes[0].opType, std::string("Abs"));
    QCOMPARE(r.graph.nodes[2].opType, std::string("Relu"));
    QCOMPARE(r.graph.unknownShapeCount(), 0);
}

void TestImport::dynamicDimensionIsFixedAndReported() {
    const ImportResult r = importText(R"(
g (float[N,4] x) => (float[N,4] y) {
  y = Relu(x)
}
)");
    QVERIFY(hasDiagnostic(r, "dynamic-dimension"));
    QCOMPARE(tensorNamed(r.graph, "y").dims, dims({1, 4}));
}

void TestImport::inputShapeOverride() {
    ImportOptions options;
    options.inputShapes["x"] = {8, 4};
    const ImportResult r = importText(R"(
g (float[N,4] x) => (float[N,4] y) {
  y = Relu(x)
}
)",
                                      options);
    QVERIFY(!hasDiagnostic(r, "dynamic-dimension"));
    QCOMPARE(tensorNamed(r.graph, "y").dims, dims({8, 4}));
}

void TestImport::inputShapeOverrideForUnknownInputFails() {
    ImportOptions options;
    options.inputShapes["nope"] = {1};
    try {
        importText("g (float[2] x) => (float[2] y) { y = Relu(x) }", options);
        QFAIL("expected InputError");
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("'nope', which is not an input") != std::string::npos,
                 e.what());
    }
}

void TestImport::undefinedInputFails() {
    try {
        importText("g (float[2] x) => (float[2] y) { y = Add(x, ghost) }");
        QFAIL("expected InputError");
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("input 'ghost' is not produced") != std::string::npos,
                 e.what());
    }
}

void TestImport::tensorProducedTwiceFails() {
    try {
        importText("g (float[2] x) => (float[2] y) { y = Relu(x)\n y = Abs(x) }");
        QFAIL("expected InputError");
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("tensor 'y' is produced twice") != std::string::npos,
                 e.what());
    }
}

void TestImport::cycleIsNamed() {
    try {
        importText("g (float[2] x) => (float[2] y) { a = Add(x, b)\n b = Relu(a)\n y = Abs(b) }");
        QFAIL("expected InputError");
    } catch (const InputError& e) {
        const std::string message = e.what();
        QVERIFY2(message.find("cycle") != std::string::npos, e.what());
        QVERIFY2(message.find("(Add)") != std::string::npos &&
                     message.find("(Relu)") != std::string::npos,
                 e.what());
        QVERIFY2(message.find("(Abs)") == std::string::npos, e.what());
    }
}

void TestImport::textSyntaxErrorFails() {
    QVERIFY_THROWS_EXCEPTION(InputError, importText("g (float[2] x) => (float[2] y) { y = Relu(x"));
}

void TestImport::parseShapeTextAcceptsBothSeparators() {
    QCOMPARE(parseShapeText("1x3x224x224"), dims({1, 3, 224, 224}));
    QCOMPARE(parseShapeText("2,128"), dims({2, 128}));
}

void TestImport::parseShapeTextRejectsGarbage() {
    QVERIFY_THROWS_EXCEPTION(InputError, parseShapeText("1x-3"));
    QVERIFY_THROWS_EXCEPTION(InputError, parseShapeText("1xx3"));
    QVERIFY_THROWS_EXCEPTION(InputError, parseShapeText("abc"));
}

QTEST_APPLESS_MAIN(TestImport)
#include "tst_import.moc"
