// SPDX-License-Identifier: GPL-3.0-or-later
// Importer behaviour on small graphs written in ONNX's text syntax.
#include "common/input_error.h"
#include "graph/onnx_importer.h"

#include <onnx/defs/parser.h>
#include <onnx/onnx_pb.h>

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
    void einsumShapes_data();
    void einsumShapes();
    void loopOverSequenceIsUnrolled();
    void ifWithConstantConditionTakesItsBranch();
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
    // Integer folding is defined for every input (issue 22): unsigned types divide and compare
    // as unsigned, x mod -1 is 0 in both modes (also for INT64_MIN), results wrap to the type.
    QTest::newRow("uint64 divides as unsigned")
        << QStringLiteral("a = Constant<value = uint64[2] {18446744073709551615, 10}>()\n"
                          " b = Constant<value = uint64[2] {2, 3}>()\n out = Div(a, b)")
        << QList<qint64>{9223372036854775807, 3};
    QTest::newRow("uint64 compares as unsigned")
        << QStringLiteral("a = Constant<value = uint64[1] {18446744073709551615}>()\n"
                          " b = Constant<value = uint64[1] {1}>()\n g = Greater(a, b)\n"
                          " out = Cast<to = 7>(g)")
        << QList<qint64>{1};
    QTest::newRow("mod by -1 of INT64_MIN")
        << QStringLiteral("a = Constant<value = int64[1] {-9223372036854775808}>()\n"
                          " b = Constant<value = int64[1] {-1}>()\n m0 = Mod<fmod = 0>(a, b)\n"
                          " m1 = Mod<fmod = 1>(a, b)\n out = Concat<axis = 0>(m0, m1)")
        << QList<qint64>{0, 0};
    QTest::newRow("int32 addition wraps")
        << QStringLiteral("a = Constant<value = int32[1] {2147483647}>()\n"
                          " b = Constant<value = int32[1] {1}>()\n s = Add(a, b)\n"
                          " out = Cast<to = 7>(s)")
        << QList<qint64>{-2147483648};
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

void TestImport::einsumShapes_data() {
    QTest::addColumn<QString>("signature");
    QTest::addColumn<QList<qint64>>("expected");
    // ONNX 1.12 infers only the rank of an Einsum; the importer resolves the sizes.
    QTest::newRow("attention scores")
        << QStringLiteral("(float[1,2,3,49,8] q, float[1,2,3,49,8] k) => (float[1,2,3,49,49] y) "
                          "{ y = Einsum<equation = \"bhwid,bhwjd->bhwij\">(q, k) }")
        << QList<qint64>{1, 2, 3, 49, 49};
    QTest::newRow("ellipsis broadcast")
        << QStringLiteral("(float[2,1,3,4] a, float[5,4,6] b) => (float[2,5,3,6] y) "
                          "{ y = Einsum<equation = \"...ij,...jk->...ik\">(a, b) }")
        << QList<qint64>{2, 5, 3, 6};
    QTest::newRow("implicit output")
        << QStringLiteral("(float[3,4] a, float[4,5] b) => (float[3,5] y) { y = Einsum<equation = "
                          "\"ij,jk\">(a, b) }")
        << QList<qint64>{3, 5};
}

void TestImport::einsumShapes() {
    QFETCH(QString, signature);
    QFETCH(QList<qint64>, expected);
    // Declare the output with symbolic dimensions so that only the importer can size them.
    std::string text = "g " + signature.toStdString();
    const auto open = text.find("=> (float[") + 10;
    const auto close = text.find("] y", open);
    std::string symbolic;
    for (int k = 0; k < expected.size(); ++k) {
        symbolic += (k ? ",d" : "d") + std::to_string(k);
    }
    text.replace(open, close - open, symbolic);
    const ImportResult r = importText(text);
    const std::vector<std::int64_t> dims(expected.begin(), expected.end());
    QCOMPARE(tensorNamed(r.graph, "y").dims, dims);
}

void TestImport::loopOverSequenceIsUnrolled() {
    // torch's tensor_split exports as a Loop that fills a sequence with slices of an outer-scope
    // tensor (MViT). The text syntax has no sequence types: they are set on the proto.
    onnx::ModelProto model;
    const auto status = onnx::OnnxParser::Parse(model, (std::string(kHeader) + R"(
g (float[6,4] x) => (float[2,4] first, float[3,2,4] stacked, int64 n) {
  trips = Constant<value = int64 {3}>()
  cond = Constant<value = bool {1}>()
  empty = SequenceEmpty<dtype = 1>()
  parts, rows = Loop(trips, cond, empty) <body = body (int64 i, bool c, float[N,4] acc)
                                          => (bool c_out, float[N,4] acc_out, float[2,4] row) {
    two = Constant<value = int64 {2}>()
    start = Mul(i, two)
    stop = Add(start, two)
    zero = Constant<value = int64[1] {0}>()
    s1 = Unsqueeze(start, zero)
    e1 = Unsqueeze(stop, zero)
    row = Slice(x, s1, e1, zero)
    acc_out = SequenceInsert(acc, row)
    c_out = Identity(c)
  }>
  idx = Constant<value = int64 {2}>()
  first = SequenceAt(parts, idx)
  stacked = Identity(rows)
  n = SequenceLength(parts)
}
)")
                                                           .c_str());
    QVERIFY2(status.IsOK(), status.ErrorMessage().c_str());
    onnx::GraphProto& body =
        *model.mutable_graph()->mutable_node(3)->mutable_attribute(0)->mutable_g();
    for (onnx::TypeProto* type :
         {body.mutable_input(2)->mutable_type(), body.mutable_output(1)->mutable_type()}) {
        type->Clear();
        type->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(
            onnx::TensorProto::FLOAT);
    }
    const ImportResult r = importOnnxBytes(model.SerializeAsString(), {}, "loop");
    const Graph& g = r.graph;
    QCOMPARE(g.unknownShapeCount(), 0);
    const Tensor& parts = tensorNamed(g, "parts");
    QVERIFY(parts.sequence);
    QCOMPARE(parts.elementDims.size(), std::size_t(3));
    QCOMPARE(parts.typeString(), std::string("seq<float32>([2,4],[2,4],[2,4])"));
    QCOMPARE(tensorNamed(g, "stacked").dims, dims({3, 2, 4}));
    QCOMPARE(tensorNamed(g, "first").dims, dims({2, 4}));
    QVERIFY(tensorNamed(g, "n").value);
    QCOMPARE(tensorNamed(g, "n").value->ints, dims({3}));
    // The body reads x from the outer scope: the Loop depends on it.
    const NodeId loop = g.findNode("Loop_3");
    QCOMPARE(g.capturedInputs.row(loop).size(), std::size_t(1));
    QCOMPARE(g.tensors[static_cast<std::size_t>(g.capturedInputs.row(loop)[0])].name,
             std::string("x"));
    const TensorId x = g.findTensor("x");
    QCOMPARE(g.tensorConsumers.row(x).size(), std::size_t(1));
}

void TestImport::ifWithConstantConditionTakesItsBranch() {
    const ImportResult r = importText(R"(
g (float[2,3] x) => (float[N] y) {
  flag = Constant<value = bool {0}>()
  y = If(flag) <then_branch = t () => (float[6] a) {
                  s6 = Constant<value = int64[1] {6}>()
                  a = Reshape(x, s6)
                },
                else_branch = e () => (float[3,2] b) {
                  s32 = Constant<value = int64[2] {3, 2}>()
                  b = Reshape(x, s32)
                }>
}
)");
    QCOMPARE(tensorNamed(r.graph, "y").dims, dims({3, 2}));
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
        QVERIFY2(std::string(e.what()).find("input 'ghost' which is not produced") !=
                     std::string::npos,
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
