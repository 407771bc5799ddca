// SPDX-License-Identifier: GPL-3.0-or-later
// Real architectures exported by tools/export_models.py (random weights): every tensor gets a
// static shape, FLOPs match the architectures' known figures, fingerprints behave.
#include "graph/onnx_importer.h"
#include "testpaths.h"

#include <onnx/onnx_pb.h>

#include <QtTest>

#include <fstream>
#include <nlohmann/json.hpp>

using namespace paretune;

namespace {

QString modelsDir() {
    const QByteArray env = qgetenv("PARETUNE_TEST_MODELS");
    return env.isEmpty() ? QStringLiteral(PARETUNE_TEST_MODELS_DIR) : QString::fromLocal8Bit(env);
}

nlohmann::json manifest() {
    std::ifstream in(QString(modelsDir() + QStringLiteral("/manifest.json")).toStdString());
    if (!in) {
        return {};
    }
    return nlohmann::json::parse(in, nullptr, false);
}

std::string modelPath(const std::string& name) {
    const nlohmann::json m = manifest();
    if (!m.contains("models") || !m["models"].contains(name)) {
        return {};
    }
    return QString(modelsDir() + QLatin1Char('/')).toStdString() +
           m["models"][name]["file"].get<std::string>();
}

// The exporter sometimes declares a symbolic name for a dimension it could not resolve; the
// importer must still find a number there, so such a dimension matches any value.
bool shapeMatches(const std::vector<std::int64_t>& dims, const nlohmann::json& declared) {
    if (dims.size() != declared.size()) {
        return false;
    }
    for (std::size_t i = 0; i < dims.size(); ++i) {
        if (dims[i] < 0 ||
            (declared[i].is_number_integer() && declared[i].get<std::int64_t>() != dims[i])) {
            return false;
        }
    }
    return true;
}

} // namespace

// Fails the current test (instead of throwing) when the model was not exported.
#define REQUIRE_MODEL(variable, name)                                                              \
    const std::string variable = modelPath(name);                                                  \
    QVERIFY2(!variable.empty() && QFile::exists(QString::fromStdString(variable)),                 \
             qPrintable(QStringLiteral("model %1 missing in %2: run tools/export_models.py")       \
                            .arg(QLatin1String(name), modelsDir())))

class TestRealModels : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void requiredModelsWereExported();
    void importsWithStaticShapes_data();
    void importsWithStaticShapes();
    void resnet50Flops();
    void bertFlopsMatchTheArchitecture();
    void fingerprintSurvivesRenamingAndRetraining();
    void fingerprintFollowsInputShape();
};

void TestRealModels::requiredModelsWereExported() {
    const nlohmann::json m = manifest();
    QVERIFY2(m.contains("models"),
             qPrintable(QStringLiteral("no manifest in ") + modelsDir() +
                        QStringLiteral(": run tools/export_models.py --out DIR")));
    for (const char* name : {"tiny_mlp", "tiny_cnn", "resnet18", "resnet50", "mobilenet_v2",
                             "vit_b_16", "bert_base"}) {
        QVERIFY2(m["models"].contains(name), name);
        QCOMPARE(m["models"][name]["status"].get<std::string>(), std::string("exported"));
    }
}

void TestRealModels::importsWithStaticShapes_data() {
    QTest::addColumn<QString>("name");
    const nlohmann::json m = manifest();
    if (!m.contains("models")) {
        return;
    }
    for (const auto& [name, entry] : m["models"].items()) {
        if (entry.value("status", "") == "exported") {
            QTest::newRow(name.c_str()) << QString::fromStdString(name);
        }
    }
}

void TestRealModels::importsWithStaticShapes() {
    QFETCH(QString, name);
    const nlohmann::json entry = manifest()["models"][name.toStdString()];
    REQUIRE_MODEL(path, qPrintable(name));
    ImportResult r;
    try {
        r = importOnnxFile(path);
    } catch (const std::exception& e) {
        QFAIL(e.what());
    }
    const Graph& g = r.graph;
    if (g.unknownShapeCount() != 0) {
        for (const Diagnostic& d : r.diagnostics) {
            qWarning("%s", d.message.c_str());
        }
    }
    QCOMPARE(g.unknownShapeCount(), 0);
    QCOMPARE(static_cast<int>(g.nodes.size()), entry["nodes"].get<int>());
    QCOMPARE(g.inputs.size(), entry["inputs"].size());
    for (std::size_t k = 0; k < g.inputs.size(); ++k) {
        QVERIFY(shapeMatches(g.tensors[static_cast<std::size_t>(g.inputs[k])].dims,
                             entry["inputs"][k]["shape"]));
    }
    QCOMPARE(g.outputs.size(), entry["outputs"].size());
    for (std::size_t k = 0; k < g.outputs.size(); ++k) {
        QVERIFY(shapeMatches(g.tensors[static_cast<std::size_t>(g.outputs[k])].dims,
                             entry["outputs"][k]["shape"]));
    }
    QVERIFY(g.totalFlops() > 0);
    QVERIFY(g.computeNodeCount() > 0);
    for (const Node& n : g.nodes) {
        QVERIFY2(n.knownOperator, n.opType.c_str());
    }
}

void TestRealModels::resnet50Flops() {
    REQUIRE_MODEL(path, "resnet50");
    const ImportResult r = importOnnxFile(path);
    // ResNet-50 at 224x224: 4.1 GMACs = 8.2 GFLOPs.
    QVERIFY2(std::abs(r.graph.totalFlops() / 8.2e9 - 1.0) <= 0.02,
             qPrintable(QString::number(r.graph.totalFlops() / 1e9) + QStringLiteral(" GFLOPs")));
}

void TestRealModels::bertFlopsMatchTheArchitecture() {
    REQUIRE_MODEL(path, "bert_base");
    const ImportResult r = importOnnxFile(path);
    // 12 layers, hidden 768, FFN 3072, sequence 128: QKV + output projections, FFN, and the two
    // attention products, plus the pooler; multiply-add = 2.
    const double s = 128, h = 768, f = 3072, layers = 12;
    const double perLayer = 2 * s * (4 * h * h + 2 * h * f) + 2 * 2 * s * s * h;
    const double expected = layers * perLayer + 2 * h * h;
    QVERIFY2(std::abs(r.graph.totalFlops() / expected - 1.0) <= 0.02,
             qPrintable(QString::number(r.graph.totalFlops() / 1e9) + QStringLiteral(" vs ") +
                        QString::number(expected / 1e9)));
}

void TestRealModels::fingerprintSurvivesRenamingAndRetraining() {
    REQUIRE_MODEL(path, "resnet18");
    const ImportResult original = importOnnxFile(path);
    onnx::ModelProto model;
    std::ifstream in(path, std::ios::binary);
    QVERIFY(model.ParseFromIstream(&in));
    int k = 0;
    for (auto& node : *model.mutable_graph()->mutable_node()) {
        node.set_name("renamed_" + std::to_string(k++));
    }
    for (auto& init : *model.mutable_graph()->mutable_initializer()) {
        std::string& raw = *init.mutable_raw_data();
        for (std::size_t i = 0; i + 4 <= raw.size(); i += 4) {
            raw[i] = static_cast<char>(raw[i] ^ 0x5a); // new weight values, same shapes
        }
    }
    const ImportResult edited = importOnnxBytes(model.SerializeAsString(), {}, "edited");
    QCOMPARE(edited.graph.nodes.front().name, std::string("renamed_0"));
    QCOMPARE(edited.graph.fingerprint, original.graph.fingerprint);
    QCOMPARE(edited.graph.signatures, original.graph.signatures);
}

void TestRealModels::fingerprintFollowsInputShape() {
    REQUIRE_MODEL(path, "tiny_cnn");
    const ImportResult original = importOnnxFile(path);
    ImportOptions options;
    const Tensor& input =
        original.graph.tensors[static_cast<std::size_t>(original.graph.inputs[0])];
    std::vector<std::int64_t> dims = input.dims;
    dims[0] = 4;
    options.inputShapes[input.name] = dims;
    const ImportResult batched = importOnnxFile(path, options);
    QVERIFY(batched.graph.fingerprint != original.graph.fingerprint);
    QCOMPARE(batched.graph.unknownShapeCount(), 0);
}

QTEST_GUILESS_MAIN(TestRealModels)
#include "tst_realmodels.moc"
