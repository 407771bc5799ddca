// SPDX-License-Identifier: GPL-3.0-or-later
#include "onnx_node_tests.h"

#include "common/input_error.h"
#include "graph/onnx_importer.h"
#include "profile/op_runner.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

namespace paretune::conformance {

namespace fs = std::filesystem;

namespace {

std::string readFile(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace

float halfToFloat(std::uint16_t h) {
    const std::uint32_t sign = (h & 0x8000u) << 16;
    std::uint32_t exponent = (h >> 10) & 0x1fu;
    std::uint32_t mantissa = h & 0x3ffu;
    std::uint32_t bits = 0;
    if (exponent == 0x1f) {
        bits = sign | 0x7f800000u | (mantissa << 13);
    } else if (exponent != 0) {
        bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
    } else if (mantissa != 0) {
        exponent = 113;
        while ((mantissa & 0x400u) == 0) {
            mantissa <<= 1;
            --exponent;
        }
        bits = sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13);
    } else {
        bits = sign;
    }
    float f = 0;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

namespace {

/// A TensorProto as a HostTensor; nothing for element types the executor does not take.
std::optional<HostTensor> decode(const onnx::TensorProto& p) {
    HostTensor h;
    h.dtype = dtypeFromOnnx(p.data_type());
    h.dims.assign(p.dims().begin(), p.dims().end());
    const std::int64_t n = h.elementCount();
    const std::string& raw = p.raw_data();
    const bool fromRaw = p.has_raw_data();
    auto rawValue = [&](std::int64_t i, auto sample) {
        decltype(sample) v{};
        std::memcpy(&v, raw.data() + static_cast<std::size_t>(i) * sizeof v, sizeof v);
        return v;
    };
    const int size = dtypeSize(h.dtype);
    if (size == 0 || h.dtype == DType::Complex64 || h.dtype == DType::Complex128 ||
        (fromRaw && raw.size() != static_cast<std::size_t>(n * size))) {
        return std::nullopt;
    }
    const bool integer = !isFloatingPoint(h.dtype);
    for (std::int64_t i = 0; i < n; ++i) {
        const int k = static_cast<int>(i);
        double real = 0;
        std::int64_t whole = 0;
        switch (h.dtype) {
        case DType::Float32:
            real = fromRaw ? rawValue(i, float{}) : p.float_data(k);
            break;
        case DType::Float64:
            real = fromRaw ? rawValue(i, double{}) : p.double_data(k);
            break;
        case DType::Float16:
            real = halfToFloat(fromRaw ? rawValue(i, std::uint16_t{})
                                       : static_cast<std::uint16_t>(p.int32_data(k)));
            break;
        case DType::Int64:
            whole = fromRaw ? rawValue(i, std::int64_t{}) : p.int64_data(k);
            break;
        case DType::UInt64:
        case DType::UInt32:
            return std::nullopt; // LibTorch has no unsigned 32/64-bit tensors
        case DType::Int32:
            whole = fromRaw ? rawValue(i, std::int32_t{}) : p.int32_data(k);
            break;
        case DType::Int16:
            whole = fromRaw ? rawValue(i, std::int16_t{}) : p.int32_data(k);
            break;
        case DType::UInt16:
            return std::nullopt;
        case DType::Int8:
            whole = fromRaw ? rawValue(i, std::int8_t{}) : p.int32_data(k);
            break;
        case DType::UInt8:
            whole = fromRaw ? rawValue(i, std::uint8_t{}) : p.int32_data(k);
            break;
        case DType::Bool:
            whole = fromRaw ? rawValue(i, std::uint8_t{}) : p.int32_data(k);
            break;
        default:
            return std::nullopt;
        }
        if (integer) {
            h.ints.push_back(whole);
            h.values.push_back(static_cast<double>(whole));
        } else {
            h.values.push_back(real);
        }
    }
    return h;
}

std::optional<HostTensor> readTensor(const fs::path& path) {
    onnx::TensorProto proto;
    const std::string bytes = readFile(path);
    if (!proto.ParseFromString(bytes)) {
        return std::nullopt;
    }
    return decode(proto);
}

} // namespace

/// onnx.numpy_helper-style comparison as the ONNX backend tests do it: same shape, values
/// within rtol 1e-3 / atol 1e-7 (floats; a NaN equals a NaN), exact for integers and bools.

std::string compare(const HostTensor& got, const HostTensor& want) {
    if (got.dims != want.dims) {
        std::string g, w;
        for (auto d : got.dims) {
            g += std::to_string(d) + ",";
        }
        for (auto d : want.dims) {
            w += std::to_string(d) + ",";
        }
        return "shape [" + g + "] instead of [" + w + "]";
    }
    if (got.dtype != want.dtype) {
        return "type " + std::string(dtypeName(got.dtype)) + " instead of " +
               std::string(dtypeName(want.dtype));
    }
    const bool integer = !isFloatingPoint(want.dtype);
    for (std::size_t i = 0; i < want.values.size(); ++i) {
        if (integer) {
            const std::int64_t a =
                got.ints.empty() ? static_cast<std::int64_t>(got.values[i]) : got.ints[i];
            if (a != want.ints[i]) {
                return "element " + std::to_string(i) + ": " + std::to_string(a) + " instead of " +
                       std::to_string(want.ints[i]);
            }
            continue;
        }
        const double a = got.values[i];
        const double b = want.values[i];
        if (std::isnan(a) && std::isnan(b)) {
            continue;
        }
        const double tolerance =
            want.dtype == DType::Float16 ? 1e-3 + 1e-2 * std::abs(b) : 1e-7 + 1e-3 * std::abs(b);
        if (!(std::abs(a - b) <= tolerance) && !(std::isinf(a) && a == b)) {
            return "element " + std::to_string(i) + ": " + std::to_string(a) + " instead of " +
                   std::to_string(b);
        }
    }
    return {};
}

namespace {

enum class Outcome { Pass, Fail, Unsupported };

struct CaseResult {
    std::string test;
    std::string opType;
    Outcome outcome = Outcome::Fail;
    std::string reason;
};

/// Runs one node test folder. The op type is the one node's; tests of several nodes (expanded
/// functions) have an empty op type and are not run.
CaseResult runCase(const fs::path& dir, const ExecutionDevice& device) {
    CaseResult r;
    r.test = dir.filename().string();
    onnx::ModelProto model;
    if (!model.ParseFromString(readFile(dir / "model.onnx"))) {
        r.reason = "model.onnx does not parse";
        return r;
    }
    if (model.graph().node_size() != 1) {
        return r;
    }
    const onnx::NodeProto& node = model.graph().node(0);
    r.opType = (node.domain().empty() || node.domain() == "ai.onnx" ? "" : node.domain() + "::") +
               node.op_type();
    if (!r.opType.empty() && r.opType.find("::") == std::string::npos &&
        !OpRunner::supports(r.opType)) {
        r.outcome = Outcome::Unsupported;
        r.reason = "operator not supported";
        return r;
    }
    if (r.opType.find("::") != std::string::npos) {
        r.outcome = Outcome::Unsupported;
        r.reason = "operator domain not supported";
        return r;
    }
    try {
        const Graph g = importOnnxFile((dir / "model.onnx").string()).graph;
        const fs::path data = dir / "test_data_set_0";
        NamedTensors inputs;
        for (std::size_t i = 0; i < g.inputs.size(); ++i) {
            const fs::path file = data / ("input_" + std::to_string(i) + ".pb");
            if (!fs::exists(file)) {
                break; // an optional input the test leaves out
            }
            const auto value = readTensor(file);
            if (!value) {
                r.outcome = Outcome::Unsupported;
                r.reason = "input " + std::to_string(i) + " has an element type not supported";
                return r;
            }
            inputs[g.tensors[static_cast<std::size_t>(g.inputs[i])].name] = *value;
        }
        const NamedTensors outputs = executeGraph(g, inputs, device);
        for (std::size_t i = 0; i < g.outputs.size(); ++i) {
            const fs::path file = data / ("output_" + std::to_string(i) + ".pb");
            const auto want = readTensor(file);
            if (!want) {
                r.outcome = Outcome::Unsupported;
                r.reason = "output " + std::to_string(i) + " has an element type not supported";
                return r;
            }
            const std::string& name = g.tensors[static_cast<std::size_t>(g.outputs[i])].name;
            const std::string wrong = compare(outputs.at(name), *want);
            if (!wrong.empty()) {
                r.reason = "output '" + name + "': " + wrong;
                return r;
            }
        }
        r.outcome = Outcome::Pass;
    } catch (const ExecutionError& e) {
        r.outcome = e.unsupported() ? Outcome::Unsupported : Outcome::Fail;
        r.reason = e.what();
    } catch (const InputError& e) {
        r.reason = std::string("import: ") + e.what();
    } catch (const std::exception& e) {
        r.reason = e.what();
    }
    return r;
}

} // namespace

std::set<std::string> listedTests(const std::string& path) {
    std::set<std::string> names;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line[0] != '#') {
            names.insert(line);
        }
    }
    return names;
}

NodeTestRun runNodeTests(const std::string& folder, const ExecutionDevice& device,
                         const std::set<std::string>& expected) {
    std::vector<fs::path> dirs;
    for (const auto& entry : fs::directory_iterator(folder)) {
        if (entry.is_directory() && fs::exists(entry.path() / "model.onnx")) {
            dirs.push_back(entry.path());
        }
    }
    std::sort(dirs.begin(), dirs.end());

    struct Counts {
        int pass = 0, fail = 0, unsupported = 0;
    };
    std::map<std::string, Counts> byOp;
    std::map<std::string, int> unsupportedOps;
    std::vector<CaseResult> results;
    int multiNode = 0;
    for (const fs::path& dir : dirs) {
        CaseResult r = runCase(dir, device);
        if (r.opType.empty()) {
            ++multiNode;
            continue;
        }
        if (r.reason == "operator not supported" || r.reason == "operator domain not supported") {
            ++unsupportedOps[r.opType];
            continue;
        }
        Counts& c = byOp[r.opType];
        (r.outcome == Outcome::Pass          ? c.pass
         : r.outcome == Outcome::Unsupported ? c.unsupported
                                             : c.fail) += 1;
        results.push_back(std::move(r));
    }

    std::ostringstream report;
    Counts total;
    report << "ONNX backend node tests (" << folder << "), LibTorch executor on " << device.id
           << "\n";
    report << "op types the executor supports:\n";
    for (const auto& [op, c] : byOp) {
        report << "  " << op << ": " << c.pass << " pass, " << c.fail << " fail, " << c.unsupported
               << " unsupported\n";
        total.pass += c.pass;
        total.fail += c.fail;
        total.unsupported += c.unsupported;
    }
    int unsupportedTests = 0;
    report << "op types not supported (tests not run):";
    for (const auto& [op, n] : unsupportedOps) {
        report << " " << op << "(" << n << ")";
        unsupportedTests += n;
    }
    report << "\nfailing and unsupported tests of supported op types:\n";
    for (const CaseResult& r : results) {
        if (r.outcome != Outcome::Pass) {
            report << "  " << (r.outcome == Outcome::Fail ? "FAIL " : "UNSUP ") << r.test << ": "
                   << r.reason << "\n";
        }
    }
    report << "total: " << byOp.size() << " supported op types, " << total.pass << " pass, "
           << total.fail << " fail, " << total.unsupported << " unsupported; "
           << unsupportedOps.size() << " op types not supported (" << unsupportedTests
           << " tests); " << multiNode << " multi-node tests not run\n";

    std::vector<std::string> regressions;
    std::vector<std::string> newlyPassing;
    std::set<std::string> passing;
    for (const CaseResult& r : results) {
        if (r.outcome == Outcome::Pass) {
            passing.insert(r.test);
            if (!expected.count(r.test)) {
                newlyPassing.push_back(r.test);
            }
        }
    }
    for (const std::string& name : expected) {
        if (!passing.count(name)) {
            regressions.push_back(name);
        }
    }
    report << "checked-in passing list: " << expected.size() << " tests, " << regressions.size()
           << " regressed, " << newlyPassing.size() << " newly passing\n";
    for (const std::string& name : newlyPassing) {
        report << "  new: " << name << "\n";
    }
    NodeTestRun run;
    run.report = report.str();
    run.passing = std::move(passing);
    run.regressions = std::move(regressions);
    run.newlyPassing = std::move(newlyPassing);
    run.pass = total.pass;
    run.fail = total.fail;
    run.unsupported = total.unsupported;
    return run;
}

} // namespace paretune::conformance
