// SPDX-License-Identifier: GPL-3.0-or-later
// Calibration inputs read from a folder: one NumPy (.npy) or ONNX TensorProto (.pb) file per
// graph input.
#include "output_deviation.h"

#include "common/input_error.h"
#include "common/input_file.h"
#include "common/sha256.h"
#include "graph/onnx_tensor_codec.h"

#include <cctype>
#include <cstring>
#include <filesystem>

namespace paretune {

namespace {

/// Largest calibration file read (one input's sets).
constexpr std::uint64_t kMaxCalibrationFileBytes = std::uint64_t{1} << 30;

/// A file's values: its element type, dims, and the values as doubles (integers too).
struct FileTensor {
    DType dtype = DType::Undefined;
    std::vector<std::int64_t> dims;
    std::vector<double> values;
};

std::string dimsText(const std::vector<std::int64_t>& dims) {
    std::string text = "[";
    for (std::size_t i = 0; i < dims.size(); ++i) {
        text += (i ? "," : "") + std::to_string(dims[i]);
    }
    return text + "]";
}

/// NumPy's type codes this reader knows (little-endian or byte-sized).
DType npyType(const std::string& descr, std::size_t& size) {
    static const struct {
        const char* descr;
        DType type;
        std::size_t size;
    } kTypes[] = {{"<f4", DType::Float32, 4}, {"<f8", DType::Float64, 8}, {"<i8", DType::Int64, 8},
                  {"<i4", DType::Int32, 4},   {"|u1", DType::UInt8, 1},   {"|i1", DType::Int8, 1},
                  {"|b1", DType::Bool, 1}};
    for (const auto& t : kTypes) {
        if (descr == t.descr) {
            size = t.size;
            return t.type;
        }
    }
    return DType::Undefined;
}

/// The value of key 'name' in the header's Python dict literal, as text.
std::string headerValue(const std::string& header, const std::string& key,
                        const std::string& path) {
    const std::size_t at = header.find("'" + key + "'");
    if (at == std::string::npos) {
        throw InputError(path + ": the NumPy header has no '" + key + "'");
    }
    std::size_t begin = header.find(':', at);
    if (begin == std::string::npos) {
        throw InputError(path + ": the NumPy header is malformed");
    }
    ++begin;
    while (begin < header.size() && header[begin] == ' ') {
        ++begin;
    }
    const char open = begin < header.size() ? header[begin] : '\0';
    const std::size_t end = open == '('    ? header.find(')', begin)
                            : open == '\'' ? header.find('\'', begin + 1)
                                           : header.find_first_of(",}", begin);
    if (end == std::string::npos) {
        throw InputError(path + ": the NumPy header is malformed");
    }
    return header.substr(begin, end - begin + (open == '(' || open == '\'' ? 1 : 0));
}

FileTensor readNpy(const std::string& path, const std::string& bytes) {
    static constexpr char kMagic[] = "\x93NUMPY";
    if (bytes.size() < 10 || bytes.compare(0, 6, kMagic, 6) != 0) {
        throw InputError(path + ": not a NumPy .npy file (no \\x93NUMPY magic)");
    }
    const auto major = static_cast<unsigned char>(bytes[6]);
    std::size_t headerLength = 0;
    std::size_t offset = 0;
    if (major == 1) {
        headerLength = static_cast<unsigned char>(bytes[8]) |
                       (static_cast<std::size_t>(static_cast<unsigned char>(bytes[9])) << 8);
        offset = 10;
    } else if ((major == 2 || major == 3) && bytes.size() >= 12) {
        for (int i = 0; i < 4; ++i) {
            headerLength |= static_cast<std::size_t>(static_cast<unsigned char>(bytes[8 + i]))
                            << (8 * i);
        }
        offset = 12;
    } else {
        throw InputError(path + ": NumPy format version " + std::to_string(major) +
                         " is not supported (1, 2 or 3)");
    }
    if (headerLength > bytes.size() - offset) {
        throw InputError(path + ": the NumPy header runs past the end of the file");
    }
    const std::string header = bytes.substr(offset, headerLength);
    offset += headerLength;
    const std::string descr = headerValue(header, "descr", path);
    FileTensor t;
    std::size_t size = 0;
    t.dtype = npyType(descr.size() >= 2 ? descr.substr(1, descr.size() - 2) : descr, size);
    if (t.dtype == DType::Undefined) {
        throw InputError(path + ": element type " + descr +
                         " is not supported (little-endian float32, float64, int64, int32, "
                         "uint8, int8 or bool)");
    }
    if (headerValue(header, "fortran_order", path).rfind("False", 0) != 0) {
        throw InputError(path + ": Fortran-ordered arrays are not supported (save it in C order)");
    }
    const std::string shape = headerValue(header, "shape", path);
    std::size_t count = 1;
    for (std::size_t i = 1; i < shape.size();) {
        if (std::isdigit(static_cast<unsigned char>(shape[i])) == 0) {
            ++i;
            continue;
        }
        std::size_t end = i;
        while (end < shape.size() && std::isdigit(static_cast<unsigned char>(shape[end])) != 0) {
            ++end;
        }
        if (end - i > 12) {
            throw InputError(path + ": a dimension of the shape " + shape + " is absurdly large");
        }
        const std::int64_t d = std::stoll(shape.substr(i, end - i));
        t.dims.push_back(d);
        if (d > 0 && count > kMaxCalibrationFileBytes / static_cast<std::size_t>(d)) {
            throw InputError(path + ": the shape " + shape + " is absurdly large");
        }
        count *= static_cast<std::size_t>(d);
        i = end;
    }
    if (bytes.size() - offset < count * size) {
        throw InputError(path + ": the data is truncated: shape " + shape + " needs " +
                         std::to_string(count * size) + " bytes, the file holds " +
                         std::to_string(bytes.size() - offset));
    }
    t.values.resize(count);
    const char* data = bytes.data() + offset;
    for (std::size_t i = 0; i < count; ++i) {
        const char* p = data + i * size;
        switch (t.dtype) {
        case DType::Float32: {
            float v;
            std::memcpy(&v, p, 4);
            t.values[i] = v;
            break;
        }
        case DType::Float64:
            std::memcpy(&t.values[i], p, 8);
            break;
        case DType::Int64: {
            std::int64_t v;
            std::memcpy(&v, p, 8);
            t.values[i] = static_cast<double>(v);
            break;
        }
        case DType::Int32: {
            std::int32_t v;
            std::memcpy(&v, p, 4);
            t.values[i] = v;
            break;
        }
        case DType::Int8:
            t.values[i] = static_cast<signed char>(*p);
            break;
        default: // UInt8, Bool
            t.values[i] = static_cast<unsigned char>(*p);
            break;
        }
    }
    return t;
}

FileTensor readPb(const std::string& path, const std::string& bytes) {
    onnx::TensorProto proto;
    if (!proto.ParseFromString(bytes)) {
        throw InputError(path + ": not an ONNX TensorProto");
    }
    if (const std::string problem = onnx_import::tensorDataProblem(proto); !problem.empty()) {
        throw InputError(path + ": " + problem);
    }
    const std::shared_ptr<const ConstantTensor> value = onnx_import::decodeTensor(proto);
    if (!value) {
        throw InputError(path + ": the tensor could not be read (too large, or an element type "
                                "this reader does not keep)");
    }
    FileTensor t;
    t.dtype = value->dtype;
    t.dims = value->dims;
    const std::int64_t count = value->elementCount();
    t.values.resize(static_cast<std::size_t>(count));
    for (std::int64_t i = 0; i < count; ++i) {
        t.values[static_cast<std::size_t>(i)] =
            value->holdsIntegers() ? static_cast<double>(value->integer(i)) : value->real(i);
    }
    return t;
}

} // namespace

CalibrationInputs readCalibrationInputs(const Graph& graph, const std::string& folder) {
    namespace fs = std::filesystem;
    std::error_code error;
    if (!fs::is_directory(folder, error)) {
        throw InputError("--inputs " + folder + ": no such folder");
    }
    CalibrationInputs result;
    result.random = false;
    Sha256 hash;
    std::int64_t setCount = -1;
    std::string setFile;
    std::vector<std::pair<std::string, FileTensor>> files;
    for (const TensorId id : graph.inputs) {
        const Tensor& input = graph.tensors[static_cast<std::size_t>(id)];
        std::string base = input.name;
        for (char& c : base) {
            c = c == '/' ? '_' : c;
        }
        const std::string expected = std::string(dtypeName(input.dtype)) + dimsText(input.dims) +
                                     " or [K," + dimsText(input.dims).substr(1);
        const fs::path npy = fs::path(folder) / (base + ".npy");
        const fs::path pb = fs::path(folder) / (base + ".pb");
        const bool isNpy = fs::exists(npy, error);
        if (!isNpy && !fs::exists(pb, error)) {
            throw InputError("--inputs " + folder + ": no file for input '" + input.name +
                             "' (expected " + npy.filename().string() + " or " +
                             pb.filename().string() + " holding " + expected + ")");
        }
        const std::string path = (isNpy ? npy : pb).string();
        const std::string bytes =
            readInputFile(path, "calibration input", kMaxCalibrationFileBytes);
        hash.update(bytes);
        FileTensor t = isNpy ? readNpy(path, bytes) : readPb(path, bytes);
        if (t.dtype != input.dtype) {
            throw InputError(path + ": element type " + std::string(dtypeName(t.dtype)) +
                             ", input '" + input.name + "' is " +
                             std::string(dtypeName(input.dtype)) + " (expected " + expected + ")");
        }
        std::int64_t sets = -1;
        if (t.dims == input.dims) {
            sets = 1;
        } else if (t.dims.size() == input.dims.size() + 1 &&
                   std::equal(input.dims.begin(), input.dims.end(), t.dims.begin() + 1) &&
                   t.dims[0] > 0) {
            sets = t.dims[0];
        }
        if (sets < 0 || !input.shapeKnown()) {
            throw InputError(path + ": shape " + dimsText(t.dims) + ", expected " + expected);
        }
        if (setCount >= 0 && sets != setCount) {
            throw InputError(path + ": " + std::to_string(sets) + " sets, but " + setFile +
                             " holds " + std::to_string(setCount) + "; every file needs as many");
        }
        setCount = sets;
        setFile = path;
        files.emplace_back(input.name, std::move(t));
    }
    if (files.empty()) {
        throw InputError("--inputs " + folder + ": the model has no inputs to give");
    }
    result.sets.resize(static_cast<std::size_t>(setCount));
    for (const auto& [name, t] : files) {
        const Tensor& input = graph.tensors[static_cast<std::size_t>(graph.findTensor(name))];
        const auto per = static_cast<std::size_t>(input.elementCount());
        for (std::int64_t k = 0; k < setCount; ++k) {
            HostTensor value;
            value.dtype = input.dtype;
            value.dims = input.dims;
            value.values.assign(t.values.begin() + static_cast<std::ptrdiff_t>(k * per),
                                t.values.begin() + static_cast<std::ptrdiff_t>((k + 1) * per));
            if (!isFloatingPoint(input.dtype)) {
                value.ints.assign(value.values.begin(), value.values.end());
            }
            result.sets[static_cast<std::size_t>(k)][name] = std::move(value);
        }
    }
    result.key = "files:" + hash.hexDigest().substr(0, 16);
    return result;
}

} // namespace paretune
