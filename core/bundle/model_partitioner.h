// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/diagnostic.h"
#include "graph/graph.h"
#include "graph/onnx_importer.h"

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace paretune {

struct LoweredGraph;

/// A tensor passed into or out of a partition: its name in the original model and its type
/// ("float32[1,64,56,56]", Tensor::typeString).
struct PartitionTensor {
    std::string name;
    std::string type;
};

/// One contiguous device segment of a plan, as a stand-alone ONNX model.
///
/// `model` is a serialized onnx.ModelProto that passes onnx::checker::check_model. Its nodes
/// are the original nodes (same op, attributes, tensor names), in run order, named with the
/// Graph's node names (the file's own names unless those were empty or repeated). Its
/// initializers are the original initializers its nodes read (a weight read by two partitions
/// is in both), plus the integer constants the importer computed that it reads from other
/// partitions (folded shape computations such as Reshape targets: as initializers, its shapes
/// stay static when it is imported alone). Its graph inputs are `inputs`: tensors it reads
/// from the original model's inputs or from earlier partitions' outputs; its graph outputs are
/// `outputs`: tensors it produces that a later partition reads or that are outputs of the
/// original model.
struct Partition {
    std::string device;             ///< device id every node of it runs on
    std::vector<std::string> nodes; ///< Graph node names, in run order
    std::vector<NodeId> nodeIds;    ///< the same nodes as Graph node ids
    std::vector<PartitionTensor> inputs;
    std::vector<PartitionTensor> outputs;
    std::string model; ///< serialized ModelProto
};

/// Splits an ONNX model into one model per device segment of a placement.
///
/// To run a model split this way: keep a map tensor name → value holding the original model's
/// inputs; for each partition in order, feed it `inputs` from the map, run it on `device`, and
/// add its `outputs` to the map. The original model's outputs are then in the map.
/// A serialized model held in memory, and the name it goes by in messages.
struct ModelBytes {
    std::string_view bytes;
    std::string displayName;
};

class ModelPartitioner {
public:
    /// Imports the model file (see importOnnxFile; throws InputError the same way).
    explicit ModelPartitioner(const std::string& modelPath, const ImportOptions& options = {});
    /// Imports a model held in memory (see importOnnxBytes: no external data).
    explicit ModelPartitioner(const ModelBytes& model, const ImportOptions& options = {});
    ~ModelPartitioner();
    ModelPartitioner(const ModelPartitioner&) = delete;
    ModelPartitioner& operator=(const ModelPartitioner&) = delete;

    const Graph& graph() const;
    const Diagnostics& diagnostics() const;

    /// Partitions for a placement. `nodeDevice` has one device id per Graph node; an empty id
    /// (a Constant node a plan does not place) joins the device of its first consumer.
    ///
    /// Run order: the Graph's topological order, except that a node runs as soon as its inputs
    /// allow while its device's segment is open, so that each device's consecutive work forms
    /// one segment instead of many small ones. (The simulator's priority order only decides
    /// when nodes of different devices overlap; partitions run one after another.) Consecutive
    /// nodes on one device form one partition. Every node is in exactly one partition.
    /// Throws InputError when nodeDevice does not have one entry per node.
    std::vector<Partition> partition(std::span<const std::string> nodeDevice) const;

    /// Partitions for a placement of graph()'s nodes with some of them in lower precisions:
    /// `lowered` is lowerGraph of graph(), `nodeDevice` has one device id per node of graph().
    /// The partitions hold the lowered graph's nodes: each runs on its model node's device (the
    /// Constant-kind weight conversions join their first reader's), the model's own nodes as
    /// the file has them, the lowered nodes and their conversions (Cast, QuantizeLinear,
    /// QLinearConv, …) written from the lowered graph, and the small constants these read
    /// (scales, zero points) as initializers. nodeIds are the lowered graph's node ids. Throws
    /// InputError when the sizes differ, or when the lowered graph needs a higher opset than
    /// the model's (its kept nodes would change meaning): re-export the model at that opset.
    std::vector<Partition> partitionLowered(const LoweredGraph& lowered,
                                            std::span<const std::string> nodeDevice) const;

private:
    void indexModel();

    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

/// Runs the ONNX checker on a serialized model. Returns an empty string when it passes, else
/// the checker's message (also for bytes that are not a model). Never throws.
std::string checkOnnxModel(const std::string& serializedModel);

} // namespace paretune
