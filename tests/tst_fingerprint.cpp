// SPDX-License-Identifier: GPL-3.0-or-later
// Operator signatures and model fingerprints: what keeps them, what changes them.
#include "common/sha256.h"
#include "graph/model_fingerprint.h"
#include "graph/onnx_importer.h"

#include <onnx/defs/parser.h>
#include <onnx/onnx_pb.h>

#include <QtTest>

using namespace paretune;

namespace {

const std::string kHeader = "<ir_version: 8, opset_import: [\"\" : 13]>\n";

const std::string kBlock = R"(
g (float[1,3,8,8] x, float[4,3,3,3] w, float[4] b = {0.1, 0.2, 0.3, 0.4}) => (float[1,4,16,4] y) {
  c = Conv<pads = [1,1,1,1]>(x, w, b)
  r = Relu(c)
  s = Constant<value = int64[4] {1, 4, 16, 4}>()
  y = Reshape(r, s)
}
)";

Graph importText(const std::string& body) {
    return importOnnxText(kHeader + body, {}, "fixture").graph;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    if (at == std::string::npos) {
        throw std::runtime_error("fixture edit failed: " + from);
    }
    return text.replace(at, from.size(), to);
}

onnx::ModelProto parseProto(const std::string& body) {
    onnx::ModelProto model;
    const auto status = onnx::OnnxParser::Parse(model, (kHeader + body).c_str());
    if (!status.IsOK()) {
        throw std::runtime_error(status.ErrorMessage());
    }
    return model;
}

Graph importProto(const onnx::ModelProto& model) {
    return importOnnxBytes(model.SerializeAsString(), {}, "proto").graph;
}

} // namespace

class TestFingerprint : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sha256KnownVectors();
    void unchangedBy_data();
    void unchangedBy();
    void changedBy_data();
    void changedBy();
    void nodeNamesDoNotMatter();
    void duplicateNodeNamesBecomeUnique();
    void sameOperatorInTwoModelsSharesSignature();
    void signatureSeesShapesAndAttributes();
};

void TestFingerprint::sha256KnownVectors() {
    QCOMPARE(Sha256::hex(""),
             std::string("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
    QCOMPARE(Sha256::hex("abc"),
             std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    Sha256 million;
    const std::string chunk(1000, 'a');
    for (int i = 0; i < 1000; ++i) {
        million.update(chunk);
    }
    QCOMPARE(million.hexDigest(),
             std::string("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
}

void TestFingerprint::unchangedBy_data() {
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::newRow("tensor names") << QStringLiteral("r = Relu(c)\n  s =")
                                  << QStringLiteral("act = Relu(c)\n  s =");
    QTest::newRow("weight values")
        << QStringLiteral("{0.1, 0.2, 0.3, 0.4}") << QStringLiteral("{9.0, 8.0, 7.0, 6.0}");
    QTest::newRow("graph name") << QStringLiteral("\ng (") << QStringLiteral("\nrenamed (");
}

void TestFingerprint::unchangedBy() {
    QFETCH(QString, from);
    QFETCH(QString, to);
    std::string edited = replaced(kBlock, from.toStdString(), to.toStdString());
    if (from.startsWith(QStringLiteral("r = Relu"))) {
        edited = replaced(edited, "Reshape(r, s)", "Reshape(act, s)");
    }
    const Graph a = importText(kBlock);
    const Graph b = importText(edited);
    QCOMPARE(b.fingerprint, a.fingerprint);
    QCOMPARE(b.signatures, a.signatures);
}

void TestFingerprint::changedBy_data() {
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::newRow("input shape") << QStringLiteral("float[1,3,8,8] x")
                                 << QStringLiteral("float[1,3,8,16] x");
    QTest::newRow("weight shape") << QStringLiteral("float[4,3,3,3] w")
                                  << QStringLiteral("float[4,3,1,1] w");
    QTest::newRow("attribute") << QStringLiteral("pads = [1,1,1,1]")
                               << QStringLiteral("pads = [2,0,0,2]");
    QTest::newRow("op type") << QStringLiteral("Relu(c)") << QStringLiteral("Sigmoid(c)");
    QTest::newRow("reshape target")
        << QStringLiteral("{1, 4, 16, 4}") << QStringLiteral("{1, 4, 4, 16}");
    QTest::newRow("extra node") << QStringLiteral("r = Relu(c)")
                                << QStringLiteral("c2 = Abs(c)\n  r = Relu(c2)");
    QTest::newRow("edge") << QStringLiteral("Reshape(r, s)") << QStringLiteral("Reshape(c, s)");
}

void TestFingerprint::changedBy() {
    QFETCH(QString, from);
    QFETCH(QString, to);
    const Graph a = importText(kBlock);
    std::string edited = replaced(kBlock, from.toStdString(), to.toStdString());
    const Graph b = importOnnxText(kHeader + edited, {}, "edited").graph;
    QVERIFY(b.fingerprint != a.fingerprint);
}

void TestFingerprint::nodeNamesDoNotMatter() {
    onnx::ModelProto model = parseProto(kBlock);
    const Graph plain = importProto(model);
    int k = 0;
    for (auto& node : *model.mutable_graph()->mutable_node()) {
        node.set_name("layer_" + std::to_string(k++));
    }
    const Graph named = importProto(model);
    QCOMPARE(named.nodes[0].name, std::string("layer_0"));
    QCOMPARE(named.fingerprint, plain.fingerprint);
    QCOMPARE(named.signatures, plain.signatures);
}

void TestFingerprint::duplicateNodeNamesBecomeUnique() {
    onnx::ModelProto model = parseProto(kBlock);
    for (auto& node : *model.mutable_graph()->mutable_node()) {
        node.set_name("same");
    }
    const ImportResult r = importOnnxBytes(model.SerializeAsString(), {}, "dup");
    QCOMPARE(r.graph.nodes[0].name, std::string("same"));
    QCOMPARE(r.graph.nodes[1].name, std::string("same_2"));
    QCOMPARE(r.graph.nodes[2].name, std::string("same_3"));
    QCOMPARE(r.graph.nodes[3].name, std::string("same_4"));
    QVERIFY(std::any_of(r.diagnostics.begin(), r.diagnostics.end(),
                        [](const Diagnostic& d) { return d.code == "duplicate-node-name"; }));
}

void TestFingerprint::sameOperatorInTwoModelsSharesSignature() {
    const Graph a = importText(kBlock);
    const Graph b = importText(R"(
other (float[1,3,8,8] input, float[4,3,3,3] k, float[4] bias) => (float[1,4,8,8] out) {
  t = Abs(input)
  out = Conv<pads = [1,1,1,1]>(t, k, bias)
}
)");
    QVERIFY(a.fingerprint != b.fingerprint);
    QCOMPARE(b.signatures[1], a.signatures[0]);  // the Conv
    QVERIFY(b.signatures[0] != a.signatures[1]); // Abs is not Relu
}

void TestFingerprint::signatureSeesShapesAndAttributes() {
    const Graph a = importText(kBlock);
    QCOMPARE(a.signatures[0].size(), std::size_t(32));
    const std::string text = opSignatureText(a, 0);
    QVERIFY2(text.find("Conv(pads=[1,1,1,1];)") == 0, text.c_str());
    QVERIFY2(text.find("float32[1,3,8,8]") != std::string::npos, text.c_str());
    QVERIFY2(text.find("out:float32[1,4,8,8]") != std::string::npos, text.c_str());
    // The Reshape target is structure: its value is part of the signature.
    QVERIFY(opSignatureText(a, 3).find("{1,4,16,4}") != std::string::npos);
}

QTEST_APPLESS_MAIN(TestFingerprint)
#include "tst_fingerprint.moc"
