// SPDX-License-Identifier: GPL-3.0-or-later
#include "model_weights.h"

#include "common/input_error.h"
#include "onnx_model.h"

#include <cstring>
#include <filesystem>
#include <mutex>

namespace paretune {

namespace {

/// An initializer's elements as little-endian bytes, from raw_data or its typed field; empty
/// when neither holds exactly the elements its dims call for.
std::string elementBytes(const onnx::TensorProto& proto, DType dtype, std::int64_t count) {
    const auto size = static_cast<std::size_t>(dtypeSize(dtype));
    const auto n = static_cast<std::size_t>(count);
    if (proto.has_raw_data()) {
        return proto.raw_data().size() == n * size ? proto.raw_data() : std::string();
    }
    std::string bytes(n * size, '\0');
    auto copy = [&](const auto& field) {
        if (static_cast<std::size_t>(field.size()) != n) {
            bytes.clear();
            return;
        }
        for (std::size_t i = 0; i < n; ++i) {
            const auto v = field.Get(static_cast<int>(i));
            std::memcpy(bytes.data() + i * size, &v, size); // little-endian: the low bytes
        }
    };
    switch (dtype) {
    case DType::Float32:
        copy(proto.float_data());
        break;
    case DType::Float64:
        copy(proto.double_data());
        break;
    case DType::Int64:
        copy(proto.int64_data());
        break;
    case DType::UInt32:
    case DType::UInt64:
        copy(proto.uint64_data());
        break;
    default:
        if (size <= 4) { // float16, bfloat16 and the narrow integers live in int32_data
            copy(proto.int32_data());
        } else {
            bytes.clear();
        }
        break;
    }
    return bytes;
}

} // namespace

const WeightBytes* ModelWeights::find(const Tensor& tensor) const {
    const auto it = tensors.find(tensor.name);
    if (it == tensors.end() || it->second.dtype != tensor.dtype ||
        (tensor.shapeKnown() && it->second.dims != tensor.dims)) {
        return nullptr;
    }
    return &it->second;
}

std::shared_ptr<ModelWeights> weightsOfModel(const Graph& graph, const onnx::ModelProto& prepared) {
    auto weights = std::make_shared<ModelWeights>();
    for (const onnx::TensorProto& proto : prepared.graph().initializer()) {
        const TensorId t = graph.findTensor(proto.name());
        if (t == kNone) {
            continue;
        }
        const Tensor& tensor = graph.tensors[static_cast<std::size_t>(t)];
        if (tensor.role != TensorRole::Initializer || tensor.value != nullptr ||
            !tensor.shapeKnown() || tensor.sequence) {
            continue;
        }
        const int size = dtypeSize(tensor.dtype);
        if (size <= 0 || static_cast<std::int32_t>(tensor.dtype) != proto.data_type()) {
            continue;
        }
        std::string bytes = elementBytes(proto, tensor.dtype, tensor.elementCount());
        if (bytes.empty() && tensor.elementCount() > 0) {
            continue; // malformed: the importer flagged it, the executor makes values up
        }
        weights->tensors.emplace(tensor.name,
                                 WeightBytes{tensor.dtype, tensor.dims, std::move(bytes)});
    }
    return weights;
}

std::shared_ptr<const ModelWeights> readModelWeights(const Graph& graph) {
    if (graph.sourcePath.empty()) {
        return nullptr;
    }
    onnx::ModelProto prepared;
    importOnnxFile(graph.sourcePath, {}, prepared);
    return weightsOfModel(graph, prepared);
}

std::shared_ptr<const ModelWeights> cachedModelWeights(const Graph& graph) {
    if (graph.sourcePath.empty()) {
        return nullptr;
    }
    struct Entry {
        std::string path;
        std::uintmax_t size = 0;
        std::filesystem::file_time_type written;
        std::shared_ptr<const ModelWeights> weights;
    };
    static std::mutex lock;
    static Entry last;
    std::error_code error;
    const std::uintmax_t size = std::filesystem::file_size(graph.sourcePath, error);
    if (error) {
        return nullptr; // not a file here (a worker's model from the queue keeps its path)
    }
    const auto written = std::filesystem::last_write_time(graph.sourcePath, error);
    const std::scoped_lock guard(lock);
    if (error || last.path != graph.sourcePath || last.size != size || last.written != written) {
        last = Entry{graph.sourcePath, size, written, readModelWeights(graph)};
    }
    return last.weights;
}

} // namespace paretune
