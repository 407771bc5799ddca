// SPDX-License-Identifier: GPL-3.0-or-later
// Running the partitions of a bundle in order (each on its own, as a deployment runtime would,
// tensors handed over by name) reproduces the whole model's outputs: LibTorch executor on both.
#include "bundle/model_partitioner.h"
#include "graph/onnx_importer.h"
#include "placement_fixture.h"
#include "profile/graph_executor.h"
#include "testmodels.h"

#include <QtTest>

#include <cmath>
#include <filesystem>

using namespace paretune;

namespace {

std::vector<std::string> placement(const Graph& g, int block) {
    return alternatingPlacement(g, block, "cpu:0", "cpu:1");
}

/// Deterministic values for the model's float inputs.
NamedTensors modelInputs(const Graph& g) {
    NamedTensors inputs;
    for (const TensorId t : g.inputs) {
        const Tensor& tensor = g.tensors[static_cast<std::size_t>(t)];
        HostTensor value;
        value.dtype = tensor.dtype;
        value.dims = tensor.dims;
        value.values.resize(static_cast<std::size_t>(value.elementCount()));
        for (std::size_t i = 0; i < value.values.size(); ++i) {
            value.values[i] = std::sin(0.37 * static_cast<double>(i));
        }
        inputs.emplace(tensor.name, std::move(value));
    }
    return inputs;
}

} // namespace

class TestPartitionRun : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void partitionsReproduceOutputs_data();
    void partitionsReproduceOutputs();
};

void TestPartitionRun::partitionsReproduceOutputs_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("block");
    QTest::newRow("sample halves") << QStringLiteral("sample") << 0;
    QTest::newRow("sample blocks of 3") << QStringLiteral("sample") << 3;
    QTest::newRow("tiny_cnn blocks of 2") << QStringLiteral("tiny_cnn") << 2;
    QTest::newRow("resnet18 blocks of 7") << QStringLiteral("resnet18") << 7;
}

void TestPartitionRun::partitionsReproduceOutputs() {
    QFETCH(QString, model);
    QFETCH(int, block);
    const QString path = testModelPath(model);
    if (!std::filesystem::exists(path.toStdString())) {
        QSKIP(qPrintable(path + QStringLiteral(" is missing; run tools/export_models.py")));
    }
    const ModelPartitioner partitioner(path.toStdString());
    const Graph& g = partitioner.graph();
    const NamedTensors inputs = modelInputs(g);
    const NamedTensors expected = executeGraph(g, inputs);
    QVERIFY(!expected.empty());

    const std::vector<Partition> parts = partitioner.partition(placement(g, block));
    QVERIFY(parts.size() >= 2);
    NamedTensors available = inputs; // the model's inputs, then each partition's outputs
    for (const Partition& part : parts) {
        const ImportResult imported = importOnnxBytes(part.model);
        NamedTensors feed;
        for (const PartitionTensor& in : part.inputs) {
            const auto it = available.find(in.name);
            QVERIFY2(it != available.end(), in.name.c_str());
            feed.emplace(in.name, it->second);
        }
        const NamedTensors produced = executeGraph(imported.graph, feed);
        for (const PartitionTensor& out : part.outputs) {
            const auto it = produced.find(out.name);
            QVERIFY2(it != produced.end(), out.name.c_str());
            available.insert_or_assign(out.name, it->second);
        }
    }
    for (const auto& [name, want] : expected) {
        const auto it = available.find(name);
        QVERIFY2(it != available.end(), name.c_str());
        const HostTensor& got = it->second;
        QCOMPARE(got.dims, want.dims);
        QCOMPARE(got.values.size(), want.values.size());
        double worst = 0.0;
        for (std::size_t i = 0; i < want.values.size(); ++i) {
            const double tolerance = 1e-5 + 1e-4 * std::abs(want.values[i]);
            worst = std::max(worst, std::abs(got.values[i] - want.values[i]) / tolerance);
        }
        QVERIFY2(worst <= 1.0, qPrintable(QStringLiteral("%1: outside allclose by %2x")
                                              .arg(QString::fromStdString(name))
                                              .arg(worst)));
    }
}

QTEST_GUILESS_MAIN(TestPartitionRun)
#include "tst_partitionrun.moc"
