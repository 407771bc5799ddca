// SPDX-License-Identifier: GPL-3.0-or-later
// Splitting a model into one ONNX model per device segment (core/bundle/model_partitioner):
// every partition passes the ONNX checker, every node is in exactly one partition with its
// original name, and each partition's inputs come from the model or from earlier partitions.
#include "bundle/model_partitioner.h"
#include "common/input_error.h"
#include "placement_fixture.h"
#include "testmodels.h"
#include "testpaths.h"

#include <onnx/onnx_pb.h>

#include <QtTest>

#include <filesystem>
#include <map>
#include <set>

using namespace paretune;

namespace {

std::vector<std::string> placement(const Graph& g, int block) {
    return alternatingPlacement(g, block, "cpu", "gpu");
}

} // namespace

class TestPartition : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void partitionsAreValidAndChain_data();
    void partitionsAreValidAndChain();
    void singleDeviceIsOnePartition();
    void constantsJoinTheirConsumer();
    void wrongPlacementSize();
    void checkerRejectsGarbage();
};

void TestPartition::partitionsAreValidAndChain_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("block");
    QTest::addColumn<int>("expectedPartitions"); // -1: more than 2, not fixed
    QTest::newRow("sample halves") << QStringLiteral("sample") << 0 << 2;
    QTest::newRow("sample blocks of 3") << QStringLiteral("sample") << 3 << -1;
    QTest::newRow("tiny_cnn halves") << QStringLiteral("tiny_cnn") << 0 << 2;
    QTest::newRow("resnet18 halves") << QStringLiteral("resnet18") << 0 << 2;
    QTest::newRow("resnet18 blocks of 7") << QStringLiteral("resnet18") << 7 << -1;
    // Channel shuffles: Reshape targets computed from shapes, split across partitions.
    QTest::newRow("shufflenet blocks of 5") << QStringLiteral("shufflenet_v2_x1_0") << 5 << -1;
}

void TestPartition::partitionsAreValidAndChain() {
    QFETCH(QString, model);
    QFETCH(int, block);
    QFETCH(int, expectedPartitions);
    const QString path = testModelPath(model);
    if (!std::filesystem::exists(path.toStdString())) {
        QSKIP(qPrintable(path + QStringLiteral(" is missing; run tools/export_models.py")));
    }
    const ModelPartitioner partitioner(path.toStdString());
    const Graph& g = partitioner.graph();
    const std::vector<std::string> device = placement(g, block);
    const std::vector<Partition> parts = partitioner.partition(device);
    if (expectedPartitions > 0) {
        QCOMPARE(static_cast<int>(parts.size()), expectedPartitions);
    } else {
        QVERIFY(parts.size() > 2);
    }

    std::set<std::string> available; // the model's inputs, then each partition's outputs
    for (const TensorId t : g.inputs) {
        available.insert(g.tensors[static_cast<std::size_t>(t)].name);
    }
    std::map<std::string, int> covered;
    for (std::size_t p = 0; p < parts.size(); ++p) {
        const Partition& part = parts[p];
        const std::string problem = checkOnnxModel(part.model);
        QVERIFY2(problem.empty(), (std::to_string(p) + ": " + problem).c_str());
        if (p > 0) {
            QVERIFY(part.device != parts[p - 1].device); // segments are maximal
        }
        onnx::ModelProto proto;
        QVERIFY(proto.ParseFromString(part.model));
        QCOMPARE(proto.graph().node_size(), static_cast<int>(part.nodes.size()));
        std::set<std::string> initializers;
        for (const auto& init : proto.graph().initializer()) {
            initializers.insert(init.name());
        }
        std::set<std::string> read;
        for (int k = 0; k < proto.graph().node_size(); ++k) {
            const onnx::NodeProto& node = proto.graph().node(k);
            QCOMPARE(node.name(), part.nodes[static_cast<std::size_t>(k)]);
            const NodeId id = g.findNode(node.name());
            QVERIFY(id != kNone);
            QCOMPARE(node.op_type(), g.nodes[static_cast<std::size_t>(id)].opType);
            // Placed nodes run where the plan put them; Constants join their consumer's device.
            if (!device[static_cast<std::size_t>(id)].empty()) {
                QCOMPARE(device[static_cast<std::size_t>(id)], part.device);
            }
            ++covered[node.name()];
            read.insert(node.input().begin(), node.input().end());
        }
        // Exactly the initializers its nodes read.
        for (const std::string& name : initializers) {
            QVERIFY2(read.count(name), name.c_str());
        }
        QCOMPARE(proto.graph().input_size(), static_cast<int>(part.inputs.size()));
        for (int k = 0; k < proto.graph().input_size(); ++k) {
            const std::string& name = proto.graph().input(k).name();
            QCOMPARE(name, part.inputs[static_cast<std::size_t>(k)].name);
            QVERIFY2(available.count(name), ("partition " + std::to_string(p) + " reads '" + name +
                                             "' before anything produced it")
                                                .c_str());
            QVERIFY(proto.graph().input(k).type().has_tensor_type());
        }
        for (const PartitionTensor& out : part.outputs) {
            available.insert(out.name);
        }
        // Imported on its own (as an executor would), it keeps every shape static.
        const ImportResult alone = importOnnxBytes(part.model);
        QCOMPARE(alone.graph.nodes.size(), part.nodes.size());
        QCOMPARE(alone.graph.unknownShapeCount(), g.unknownShapeCount());
    }
    QCOMPARE(covered.size(), g.nodes.size());
    for (const auto& [name, count] : covered) {
        QVERIFY2(count == 1, name.c_str());
    }
    for (const TensorId t : g.outputs) {
        QVERIFY(available.count(g.tensors[static_cast<std::size_t>(t)].name));
    }
}

void TestPartition::singleDeviceIsOnePartition() {
    const ModelPartitioner partitioner(PARETUNE_SAMPLE_MODEL);
    const Graph& g = partitioner.graph();
    const std::vector<Partition> parts =
        partitioner.partition(std::vector<std::string>(g.nodes.size(), "cpu"));
    QCOMPARE(parts.size(), std::size_t{1});
    QCOMPARE(parts[0].nodes.size(), g.nodes.size());
    QCOMPARE(parts[0].inputs.size(), g.inputs.size());
    QCOMPARE(parts[0].outputs.size(), g.outputs.size());
    QVERIFY(checkOnnxModel(parts[0].model).empty());
}

void TestPartition::constantsJoinTheirConsumer() {
    // c is a Constant only the second node reads.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = QString(dir.path() + QStringLiteral("/c.onnx")).toStdString();
    onnx::ModelProto proto;
    {
        onnx::GraphProto& graph = *proto.mutable_graph();
        proto.set_ir_version(8);
        proto.add_opset_import()->set_version(13);
        graph.set_name("g");
        auto addValue = [](onnx::ValueInfoProto* info, const char* name) {
            info->set_name(name);
            auto* tensor = info->mutable_type()->mutable_tensor_type();
            tensor->set_elem_type(onnx::TensorProto::FLOAT);
            tensor->mutable_shape()->add_dim()->set_dim_value(2);
        };
        addValue(graph.add_input(), "x");
        addValue(graph.add_output(), "z");
        onnx::NodeProto* relu = graph.add_node();
        relu->set_name("relu");
        relu->set_op_type("Relu");
        relu->add_input("x");
        relu->add_output("y");
        onnx::NodeProto* constant = graph.add_node();
        constant->set_name("const");
        constant->set_op_type("Constant");
        constant->add_output("c");
        onnx::AttributeProto* value = constant->add_attribute();
        value->set_name("value");
        value->set_type(onnx::AttributeProto::TENSOR);
        value->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
        value->mutable_t()->add_dims(2);
        value->mutable_t()->add_float_data(1.0F);
        value->mutable_t()->add_float_data(2.0F);
        onnx::NodeProto* add = graph.add_node();
        add->set_name("add");
        add->set_op_type("Add");
        add->add_input("y");
        add->add_input("c");
        add->add_output("z");
        QFile file(QString::fromStdString(path));
        QVERIFY(file.open(QIODevice::WriteOnly));
        const std::string bytes = proto.SerializeAsString();
        file.write(bytes.data(), static_cast<qint64>(bytes.size()));
    }
    const ModelPartitioner partitioner(path);
    const Graph& g = partitioner.graph();
    std::vector<std::string> device(g.nodes.size());
    device[static_cast<std::size_t>(g.findNode("relu"))] = "cpu";
    device[static_cast<std::size_t>(g.findNode("add"))] = "gpu";
    const std::vector<Partition> parts = partitioner.partition(device);
    QCOMPARE(parts.size(), std::size_t{2});
    QCOMPARE(parts[0].nodes, std::vector<std::string>{"relu"});
    QCOMPARE(parts[1].nodes, (std::vector<std::string>{"const", "add"}));
    QCOMPARE(parts[0].outputs.size(), std::size_t{1});
    QCOMPARE(parts[0].outputs[0].name, std::string("y"));
    QCOMPARE(parts[0].outputs[0].type, std::string("float32[2]"));
    QCOMPARE(parts[1].inputs.size(), std::size_t{1});
    QCOMPARE(parts[1].inputs[0].name, std::string("y"));
    for (const Partition& part : parts) {
        QVERIFY(checkOnnxModel(part.model).empty());
    }
}

void TestPartition::wrongPlacementSize() {
    const ModelPartitioner partitioner(PARETUNE_SAMPLE_MODEL);
    QVERIFY_THROWS_EXCEPTION(InputError, partitioner.partition(std::vector<std::string>{"cpu"}));
    QVERIFY_THROWS_EXCEPTION(InputError, partitioner.partition(std::vector<std::string>(
                                             partitioner.graph().nodes.size())));
}

void TestPartition::checkerRejectsGarbage() {
    QVERIFY(!checkOnnxModel("not a model").empty());
    onnx::ModelProto noGraph;
    noGraph.set_ir_version(8);
    QVERIFY(!checkOnnxModel(noGraph.SerializeAsString()).empty());
}

QTEST_GUILESS_MAIN(TestPartition)
#include "tst_partition.moc"
